//! The stable diagnostic codes. Renaming or removing one is a breaking change.

use super::Severity;

macro_rules! codes {
    ($( $variant:ident = $code:literal, $sev:ident, $trouble:literal, $desc:literal; )*) => {
        /// Every diagnostic policyctl can emit. `PCTL1xxx` input and schema, `PCTL2xxx` references and
        /// attachment, `PCTL3xxx` merge and enforcement, `PCTL4xxx` configuration and versions, `PCTL5xxx`
        /// simulation and test cases, `PCTL6xxx` audit findings (`policyctl audit` only).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $( $variant, )* }

        impl Code {
            /// All codes, in code order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The stable identifier, e.g. `PCTL2001`.
            pub fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $code, )* }
            }

            /// The severity a diagnostic with this code is emitted with.
            pub fn severity(self) -> Severity {
                match self { $( Code::$variant => Severity::$sev, )* }
            }

            /// Whether this code means the run could not do its job (exit code 2).
            pub fn is_trouble(self) -> bool {
                match self { $( Code::$variant => $trouble, )* }
            }

            /// One line for the table of docs/diagnostics.md.
            pub fn description(self) -> &'static str {
                match self { $( Code::$variant => $desc, )* }
            }
        }
    };
}

codes! {
    YamlSyntax = "PCTL1001", Error, true, "a document is not valid YAML or JSON";
    UnknownKind = "PCTL1002", Info, false, "a kind policyctl does not model was skipped (listed with -v)";
    DuplicateObject = "PCTL1003", Error, false, "two objects share group, kind, namespace and name";
    UnservedVersion = "PCTL1004", Error, false, "an apiVersion the emulated operator no longer serves";
    UnreadableInput = "PCTL1005", Error, true, "a path cannot be read, or a file is not UTF-8 text";
    NotAnObject = "PCTL1006", Error, false, "a document is not a Kubernetes object (no apiVersion/kind, or not a mapping)";
    InvalidType = "PCTL1007", Error, false, "a field has the wrong type; the object is left out";
    MissingField = "PCTL1008", Error, false, "a required field is missing; the object is left out";
    SchemaViolation = "PCTL1009", Error, false, "a value breaks the CRD schema (pattern, enum, length, range); the object is left out";
    CelRule = "PCTL1010", Error, false, "a CRD validation rule (x-kubernetes-validations) rejects the object";
    InputLimit = "PCTL1011", Error, true, "a document exceeds the safety limits (aliases, depth, size)";
    InvalidName = "PCTL1012", Error, false, "metadata.name or metadata.namespace is not a name the API server accepts for the kind; the object is left out";
    ExtensionNotShipped = "PCTL1013", Error, false, "an extension policy kind the emulated operator version does not ship (ThreatPolicy before 1.5); the object is left out";
    UnknownField = "PCTL1014", Error, false, "a field the kind's schema does not declare (strict field validation, as kubectl apply); the object is left out";
    UnknownFieldDropped = "PCTL1015", Warning, false, "a field the kind's schema does not declare, dropped as the API server prunes it (--validate=warn)";
    UnknownKindInGroup = "PCTL1016", Error, false, "a kind that does not exist in an API group policyctl models (no matches for kind); the object is left out";
    InvalidMetadata = "PCTL1017", Error, false, "metadata the API server refuses (labels, annotations, finalizers, generateName, unknown fields); the object is left out";
    NewerGatewayApiField = "PCTL1018", Warning, false, "a Gateway API field that the CRDs the emulated release installs do not declare (a newer Gateway API does): a cluster with those CRDs drops or refuses it";
    EstateLimit = "PCTL1019", Error, true, "the input is larger than a budget of the run (--max-input-bytes, --max-documents, --max-paths, --max-action-sets): the inputs, documents or routes from the first over it are left out";
    TargetNotFound = "PCTL2001", Error, false, "a policy's targetRef matches no object (operator: Accepted=False TargetNotFound)";
    SectionNotFound = "PCTL2002", Error, false, "a targetRef or parentRef sectionName matches no listener or rule";
    ParentNotFound = "PCTL2003", Warning, false, "a route parentRef names a Gateway that is not in the input";
    RouteNotAllowed = "PCTL2004", Warning, false, "a listener's allowedRoutes does not admit the route (Gateway API rejects it)";
    HostnameMismatch = "PCTL2005", Warning, false, "a listener serves the route but no route hostname is a subset of its hostname (Kuadrant enforces nothing there), or no listener of the parentRef matches the route's hostnames";
    PositionalRuleName = "PCTL2006", Info, false, "a policy targets an unnamed rule by its position (rule-N)";
    GatewayClassNotFound = "PCTL2007", Error, false, "a Gateway's gatewayClassName matches no GatewayClass, input or assumed: none of its policies can be predicted";
    GatewayClassAssumed = "PCTL2008", Info, false, "a GatewayClass the input does not define is assumed (istio, eg, envoy-gateway, or --gateway-class)";
    Overridden = "PCTL3001", Info, false, "a policy is fully overridden (operator: Enforced=False Overridden)";
    PartiallyEnforced = "PCTL3002", Info, false, "a policy is partially enforced: some of its rules are overridden";
    NotInPath = "PCTL3003", Warning, false, "a policy is not in the path to any existing route";
    TieBreakByName = "PCTL3004", Warning, false, "policies without creationTimestamp were ordered by namespace/name, and that decided a rule";
    Conflicted = "PCTL3005", Error, false, "two DNSPolicies or TLSPolicies target the same object (operator: Conflicted)";
    InvalidCel = "PCTL3006", Error, false, "a predicate fails cel-go's parse or type check (operator: InvalidCelExpression)";
    KuadrantAssumed = "PCTL3007", Info, false, "no Kuadrant object in the input: one in kuadrant-system is assumed";
    WasmShimRejects = "PCTL3008", Warning, false, "a route match value or policy expression is not CEL the wasm-shim can parse: it rejects the gateway's whole wasm configuration";
    WindowTruncated = "PCTL3009", Warning, false, "a rate window is not whole seconds: Limitador gets it truncated (500ms: 0 s, never enforced; 1500ms: 1 s)";
    CelIssuesOneProvider = "PCTL3010", Warning, false, "Istio and Envoy Gateway gateways both have CEL issues: the operator reports one provider's, whichever it stores last";
    EqualTimestampConflict = "PCTL3013", Warning, false, "two DNSPolicies or TLSPolicies without creationTimestamp target the same object: whichever is created second will be Conflicted";
    IssuerNotFound = "PCTL3014", Error, false, "a TLSPolicy's issuerRef names an Issuer or ClusterIssuer the operator would not find (operator: Accepted=False Invalid)";
    IssuerAssumed = "PCTL3015", Info, false, "the input holds no Issuer (or ClusterIssuer): a TLSPolicy's issuer is assumed to exist";
    DnsRecordNotPredicted = "PCTL3016", Info, false, "a DNSPolicy's DNSRecord is not printed: its endpoints need the Gateway's status.addresses (or the cluster's ID)";
    NoCertificate = "PCTL3017", Warning, false, "a listener a TLSPolicy applies to gets no Certificate (hostname, tls mode or certificateRefs unusable)";
    GeneratedNameClash = "PCTL3018", Warning, false, "several Certificates of one listener would share a name: the operator keeps only one";
    ExtensionOverwrites = "PCTL3023", Warning, false, "an extension policy's controller creates an object the input also defines (a PlanPolicy's RateLimitPolicy, an OIDCPolicy's AuthPolicies or callback HTTPRoute): it overwrites it";
    ExtensionNotModelled = "PCTL3024", Warning, false, "what an extension policy's controller adds (ThreatPolicy) is not in the computed output";
    OidcNoIngressGateway = "PCTL3025", Warning, false, "an OIDCPolicy's controller cannot resolve its ingress gateway (no Gateway reached, or its first listener has no hostname): it creates nothing";
    OidcOrderAssumed = "PCTL3026", Info, false, "an OIDCPolicy's derived objects depend on Go map order (token request parameters, claims) or on which Gateway comes first: policyctl's order is stated";
    ThreatServiceAssumed = "PCTL3027", Warning, false, "a ThreatPolicy's actions are in the wasm configuration, assuming its controller reached the threat assessment service; the Envoy clusters for it and for the descriptor service are not printed";
    ThreatNoActionSets = "PCTL3028", Warning, false, "a ThreatPolicy's Gateway has no action sets: the skeleton sets the operator builds for its routes, and the ThreatPolicy's actions, are not modelled";
    QueryMapUndeclared = "PCTL3029", Warning, false, "a route rule's queryParams match becomes a route predicate the wasm-shim cannot evaluate (it registers queryMap only in its test builds): requests that reach it get 500";
    TelemetryLabelFails = "PCTL3030", Warning, false, "a TelemetryPolicy label fails in the 1.5 wasm-shim whenever auth is not set, and with it every rate-limit request built before auth: those rate limits are never enforced";
    ConfigUnknownKey = "PCTL4001", Warning, false, "a settings-file key policyctl does not know";
    ConfigInvalid = "PCTL4002", Error, true, "the settings file cannot be read or has an invalid value";
    VersionDifference = "PCTL4003", Warning, false, "the input uses something the emulated operator version handles differently";
    RuntimeValueUnknown = "PCTL4004", Warning, false, "a value only known at run time was written as a placeholder (e.g. the 1.5 wasm sha256)";
    SuppressionUnused = "PCTL4009", Warning, false, "a suppression (ignore annotation or settings `ignore:` entry) matched no finding";
    SuppressionRefused = "PCTL4010", Warning, false, "a suppression names an error: errors mean the object is rejected and cannot be silenced";
    SuppressionInvalid = "PCTL4011", Warning, false, "an ignore annotation names something that is not a policyctl code";
    WatchKeptLastGood = "PCTL4012", Warning, false, "`watch`: a file does not parse (or cannot be read) now; its last good state is kept until it does";
    WatchOutDir = "PCTL4013", Error, true, "`watch`: the output folder could not be brought up to date this cycle";
    NothingToRead = "PCTL4014", Error, true, "a folder named with -f holds no manifest file (.yaml, .yml, .json): there is nothing to check";
    BadRequest = "PCTL5001", Error, true, "a simulated request is malformed (method, URL, header, identity, source, interval)";
    BadTestCase = "PCTL5002", Error, true, "a test case file cannot be read or does not follow the test case format";
    SimulationUnsupported = "PCTL5003", Error, true, "a generated object the simulation cannot evaluate (a limit Limitador cannot parse)";
    RequestFileUnreadable = "PCTL5004", Error, true, "a request file (simulate --requests) cannot be read, is too large, or is neither a YAML list nor JSON Lines";
    RequestFileInvalid = "PCTL5005", Error, true, "an entry of a request file breaks its format (unknown key, wrong type, bad URL, method or header, times going back, too many requests)";
    EvaluationBudget = "PCTL5013", Error, true, "an evaluation (a CEL expression, a Rego policy, a selector) of a simulated request exceeded its cost budget (--cel-cost-limit, --request-cost-limit): the run stops there";
    RequestBudget = "PCTL5014", Error, true, "a run asks for more simulated requests than its budget (--max-requests)";
    AuditNoAuth = "PCTL6001", Warning, false, "`audit --require auth`: a route rule is not authenticated on every path (no AuthPolicy in effect, only under a `when`, or anonymous access)";
    AuditNoRateLimit = "PCTL6002", Warning, false, "`audit --require ratelimit`: a route rule is not rate limited on every path (no RateLimitPolicy or TokenRateLimitPolicy in effect, or only under a `when`)";
    LimitShadowed = "PCTL6003", Warning, false, "`audit`: a rate never refuses a request on its own: another limit counts the same requests and refuses first";
    LimitNeverApplies = "PCTL6004", Warning, false, "`audit`: a limit's predicates never hold on the requests of the route rules it is in effect on";
    CounterWithoutIdentity = "PCTL6005", Warning, false, "`audit`: a limit counts by `auth.*` on route rules where no AuthPolicy is in effect";
    CounterSharedByGateways = "PCTL6006", Warning, false, "`audit`: one Limitador counter counts the requests of a route on several Gateways";
    CounterSharedByHostnames = "PCTL6007", Info, false, "`audit`: one Limitador counter counts the requests of several hostnames of a route";
    AuthConditionNeverHolds = "PCTL6008", Warning, false, "`audit`: an AuthPolicy's top-level `when`, or a rule's, never holds on the requests of the route rules it is in effect on";
}

impl Code {
    /// The code spelt `PCTLnnnn` (ASCII case ignored), if there is one.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// Whether the code is an `audit` finding (`PCTL6xxx`), which only `policyctl audit` looks for
    /// (some only with `--require`).
    pub fn is_audit(self) -> bool {
        self.as_str().starts_with("PCTL6")
    }

    /// Whether a finding with this code may be silenced. Errors may not: each means the API
    /// server or the operator rejects the object (or policyctl could not read the input), so
    /// hiding it would hide a failed deployment. Neither may the findings about suppressions.
    pub fn can_be_suppressed(self) -> bool {
        self.severity() != Severity::Error
            && !matches!(
                self,
                Code::SuppressionUnused | Code::SuppressionRefused | Code::SuppressionInvalid
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn codes_are_unique_and_sorted() {
        let names: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let set: BTreeSet<_> = names.iter().collect();
        assert_eq!(set.len(), names.len(), "duplicate code");
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, names, "Code::ALL must be in code order");
        assert!(names.iter().all(|n| n.starts_with("PCTL") && n.len() == 8));
    }
}
