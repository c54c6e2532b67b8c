//! The offline Authorino against expected values read from Authorino's own tests (authorino
//! v0.26.2, the file named next to each case) and source.

use super::*;
use serde_json::json;

fn headers(h: &[(&str, &str)]) -> BTreeMap<String, String> {
    h.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn request<'a>(h: &'a BTreeMap<String, String>, path: &'a str) -> CheckRequest<'a> {
    let url_path = path.split('?').next().unwrap_or(path);
    CheckRequest {
        method: "GET",
        scheme: "http",
        host: "my-api",
        path,
        url_path,
        query: path.split_once('?').map(|(_, q)| q).unwrap_or(""),
        headers: h,
        source: None,
        destination_port: 80,
        scope: "scope",
        now: 1_700_000_000,
        grpc_attributes: true,
    }
}

fn run(spec: Value, req: &CheckRequest<'_>, secrets: &[Secret], stated: &Statements) -> Outcome {
    let a = Authorino::default();
    let Value::Object(spec) = spec else { panic!() };
    a.evaluate("cfg", &spec, req, secrets, "kuadrant-system", stated)
        .0
}

fn secret(
    ns: &str,
    name: &str,
    key: &str,
    labels: &[(&str, &str)],
    ann: &[(&str, &str)],
) -> Secret {
    let meta = crate::model::Meta {
        name: name.into(),
        namespace: ns.into(),
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        annotations: ann
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    };
    Secret::new(
        &meta,
        &json!({"data": {"api_key": data_encoding::BASE64.encode(key.as_bytes())}, "type": "Opaque"}),
    )
}

fn status(o: &Outcome) -> Option<u16> {
    match o {
        Outcome::Allowed { .. } => Some(200),
        Outcome::Denied { status, .. } => Some(*status),
        Outcome::Undecided { .. } => None,
    }
}

fn reason(o: &Outcome) -> String {
    match o {
        Outcome::Denied { reason, .. } => reason.clone(),
        Outcome::Undecided { reason } => reason.clone(),
        Outcome::Allowed { .. } => String::new(),
    }
}

/// pkg/auth/credentials_test.go: every credential location, found and not found.
#[test]
fn credential_locations() {
    let h = headers(&[("x-api-key", "DasUberApiKey")]);
    let r = request(&h, "/");
    assert_eq!(
        credential(&r, "custom_header", "X-API-KEY").unwrap(),
        "DasUberApiKey"
    );
    let h = headers(&[]);
    assert_eq!(
        credential(&request(&h, "/"), "custom_header", "X-API-KEY").unwrap_err(),
        "credential not found"
    );
    let h = headers(&[("authorization", "X-API-KEY DasUberApiKey")]);
    assert_eq!(
        credential(&request(&h, "/"), "authorization_header", "X-API-KEY").unwrap(),
        "DasUberApiKey"
    );
    assert_eq!(
        credential(&request(&h, "/"), "authorization_header", "Bearer").unwrap_err(),
        "credential not found"
    );
    for (cookie, want) in [
        (
            "Expires=Tue, 01-Jan-2016 21:47:38 GMT; API-KEY=HumanInstrumentality",
            Ok("HumanInstrumentality"),
        ),
        (
            "API-KEY=HumanInstrumentality; Expires=Tue, 01-Jan-2016 21:47:38 GMT",
            Ok("HumanInstrumentality"),
        ),
        (
            "Expires=Tue, 01-Jan-2016 21:47:38 GMT; API-KEY=SHVtYW5JbnN0cnVtZW50YWxpdHk=",
            Ok("SHVtYW5JbnN0cnVtZW50YWxpdHk="),
        ),
        (
            "Expires=Tue, 01-Jan-2016 21:47:38 GMT",
            Err("credential not found"),
        ),
    ] {
        let h = headers(&[("cookie", cookie)]);
        assert_eq!(
            credential(&request(&h, "/"), "cookie", "API-KEY").as_deref(),
            want.map_err(str::to_owned).as_deref(),
            "{cookie}"
        );
    }
    let h = headers(&[]);
    for path in [
        "/seele.de/hip?api_key=DasUberApiKey",
        "/seele.de/hip?third_impact=true&api_key=DasUberApiKey&some=scheisse",
    ] {
        assert_eq!(
            credential(&request(&h, path), "query", "api_key").unwrap(),
            "DasUberApiKey"
        );
    }
    assert_eq!(
        credential(
            &request(&h, "/seele.de/hip?third_impact=true&some=scheisse"),
            "query",
            "api_key"
        )
        .unwrap_err(),
        "credential not found"
    );
    assert_eq!(
        credential(&request(&h, "/"), "body", "x").unwrap_err(),
        "the credential location is not supported"
    );
    // NewAuthCredentialDefaultValues: the Authorization header, prefix Bearer.
    assert_eq!(
        credentials(&json!({"credentials": {}})),
        ("authorization_header", "Bearer".to_string())
    );
}

/// pkg/evaluators/authorization/json_test.go `TestCall`: each operator on the same JSON.
#[test]
fn pattern_operators() {
    let a = Authorino::default();
    let doc = json!({"context": {"request": {"http": {"headers": {"x-secret-header": "no-one-knows", "x-origin": "some-origin"}}}},
                     "auth": {"identity": "some-user-data", "metadata": {"letters": ["a", "b", "c"]}}});
    let text = doc.to_string();
    let sel = "context.request.http.headers.x-secret-header";
    let letters = "auth.metadata.letters";
    for (selector, operator, value, want) in [
        (sel, "eq", "no-one-knows", Ev::Ok(true)),
        (sel, "eq", "other-expected", Ev::Ok(false)),
        (sel, "neq", "other-expected", Ev::Ok(true)),
        (sel, "neq", "no-one-knows", Ev::Ok(false)),
        (letters, "incl", "a", Ev::Ok(true)),
        (letters, "incl", "d", Ev::Ok(false)),
        (letters, "excl", "d", Ev::Ok(true)),
        (letters, "excl", "b", Ev::Ok(false)),
        (sel, "matches", "(.+)-knows", Ev::Ok(true)),
        (sel, "matches", "(\\d)+", Ev::Ok(false)),
    ] {
        let c = Cond::Pattern {
            selector,
            operator,
            value,
        };
        assert_eq!(
            a.cond(&c, &doc, &text, &[]),
            want,
            "{selector} {operator} {value}"
        );
    }
    let c = Cond::Pattern {
        selector: sel,
        operator: "matches",
        value: "$$^[not-a-regex",
    };
    assert!(
        matches!(a.cond(&c, &doc, &text, &[]), Ev::Err(e) if e.contains("error parsing regexp"))
    );
    // pkg/jsonexp/expressions_test.go `TestAnd`, `TestOr`: `str` and `int` of testJsonData.
    let doc = json!({"str": "my-value", "int": 123});
    let text = doc.to_string();
    let p = |s, v| Cond::Pattern {
        selector: s,
        operator: "eq",
        value: v,
    };
    assert_eq!(
        a.all(&[p("str", "my-value"), p("int", "123")], &doc, &text, &[]),
        Ev::Ok(true)
    );
    assert_eq!(
        a.all(
            &[p("str", "wrong-value"), p("int", "123")],
            &doc,
            &text,
            &[]
        ),
        Ev::Ok(false)
    );
    let any = Cond::Any(vec![p("str", "wrong-value"), p("int", "123")]);
    assert_eq!(a.cond(&any, &doc, &text, &[]), Ev::Ok(true));
    assert_eq!(a.all(&[], &doc, &text, &[]), Ev::Ok(true), "TestEmptyAll");
    assert_eq!(
        a.cond(&Cond::Any(vec![]), &doc, &text, &[]),
        Ev::Ok(false),
        "TestEmptyAny"
    );
}

/// The API-key guide's shape: credential not found, an invalid key, a key of a Secret.
#[test]
fn api_keys_from_secrets() {
    let spec = json!({"authentication": {"api-key-users": {
        "apiKey": {"selector": {"matchLabels": {"app": "toystore"}}, "allNamespaces": true},
        "credentials": {"authorizationHeader": {"prefix": "APIKEY"}}}}});
    let managed = ("authorino.kuadrant.io/managed-by", "authorino");
    let secrets = vec![
        secret(
            "kuadrant-system",
            "bob-key",
            "IAMBOB",
            &[managed, ("app", "toystore")],
            &[("secret.kuadrant.io/user-id", "bob")],
        ),
        secret(
            "other",
            "alice-key",
            "IAMALICE",
            &[managed, ("app", "toystore")],
            &[],
        ),
        secret(
            "kuadrant-system",
            "unrelated",
            "NOPE",
            &[managed, ("app", "other")],
            &[],
        ),
    ];
    let none = headers(&[]);
    let o = run(
        spec.clone(),
        &request(&none, "/"),
        &secrets,
        &Statements::default(),
    );
    // pkg/auth/credentials.go `credentialNotFoundMsg`; evaluators/config.go the challenge.
    assert_eq!(
        (status(&o), reason(&o).as_str()),
        (Some(401), "credential not found")
    );
    let Outcome::Denied { headers: h, .. } = &o else {
        panic!()
    };
    assert_eq!(
        h,
        &[
            (
                "WWW-Authenticate".to_string(),
                "APIKEY realm=\"api-key-users\"".to_string()
            ),
            (
                "X-Ext-Auth-Reason".to_string(),
                "credential not found".to_string()
            )
        ]
    );
    let bad = headers(&[("authorization", "APIKEY WRONG")]);
    let o = run(
        spec.clone(),
        &request(&bad, "/"),
        &secrets,
        &Statements::default(),
    );
    // pkg/evaluators/identity/api_key.go `invalidApiKeyMsg`.
    assert_eq!(
        (status(&o), reason(&o).as_str()),
        (Some(401), "the API Key provided is invalid")
    );
    let other = headers(&[("authorization", "APIKEY NOPE")]);
    assert_eq!(
        status(&run(
            spec.clone(),
            &request(&other, "/"),
            &secrets,
            &Statements::default()
        )),
        Some(401)
    );
    // allNamespaces: a Secret of any namespace.
    let alice = headers(&[("authorization", "APIKEY IAMALICE")]);
    assert_eq!(
        status(&run(
            spec.clone(),
            &request(&alice, "/"),
            &secrets,
            &Statements::default()
        )),
        Some(200)
    );
    // Without allNamespaces only the AuthConfig's namespace (controllers/auth_config_controller.go).
    let mut narrow = spec.clone();
    narrow["authentication"]["api-key-users"]["apiKey"]["allNamespaces"] = json!(false);
    assert_eq!(
        status(&run(
            narrow,
            &request(&alice, "/"),
            &secrets,
            &Statements::default()
        )),
        Some(401)
    );
    // The identity is the Secret: a filter reads its annotation.
    let mut with_filter = spec.clone();
    with_filter["response"] = json!({"success": {"dynamicMetadata": {"identity": {"json": {"properties": {
        "userid": {"selector": "auth.identity.metadata.annotations.secret\\.kuadrant\\.io/user-id"}}}}}}});
    let bob = headers(&[("authorization", "APIKEY IAMBOB")]);
    let o = run(
        with_filter,
        &request(&bob, "/"),
        &secrets,
        &Statements::default(),
    );
    assert_eq!(
        o,
        Outcome::Allowed {
            identity_rule: Some("api-key-users".into()),
            headers: vec![],
            metadata: json!({"identity": {"userid": "bob"}})
                .as_object()
                .unwrap()
                .clone(),
        }
    );
    // No Secret of the input selected: the cluster's decide, unless an identity is given.
    let o = run(
        spec.clone(),
        &request(&bob, "/"),
        &[],
        &Statements::default(),
    );
    assert_eq!(status(&o), None);
    let stated = Statements {
        identity: Some(json!({"sub": "x"})),
        ..Default::default()
    };
    assert_eq!(
        status(&run(spec, &request(&bob, "/"), &[], &stated)),
        Some(200)
    );
}

/// controllers/auth_config_controller.go: no authentication rule is anonymous access;
/// pkg/evaluators/identity/noop.go publishes `{"anonymous": true}`.
#[test]
fn anonymous_and_empty_authentication() {
    let none = headers(&[]);
    let spec = json!({"authorization": {"deny-all": {"opa": {"rego": "allow = false"}}}});
    let o = run(spec, &request(&none, "/"), &[], &Statements::default());
    // opa.go `unauthorizedErrorMsg`; auth.go maps PERMISSION_DENIED to 403.
    assert_eq!(
        (status(&o), reason(&o).as_str()),
        (Some(403), "Unauthorized")
    );
    let spec = json!({"authentication": {"public": {"anonymous": {}, "credentials": {}}},
                      "authorization": {"who": {"patternMatching": {"patterns": [
                          {"selector": "auth.identity.anonymous", "operator": "eq", "value": "true"}]}}}});
    assert_eq!(
        status(&run(
            spec,
            &request(&none, "/"),
            &[],
            &Statements::default()
        )),
        Some(200)
    );
}

/// pkg/service/auth_pipeline_test.go `TestEvaluatePriorities`: a lower priority is evaluated
/// first, and the first that succeeds (identity) or fails (authorization) ends its phase.
#[test]
fn priorities() {
    let none = headers(&[]);
    let spec = json!({
        "authentication": {"first": {"anonymous": {}, "credentials": {}},
                           "second": {"priority": 1, "kubernetesTokenReview": {}, "credentials": {}}},
        "authorization": {"a-deny": {"opa": {"rego": "allow = false"}},
                          "b-live": {"priority": 1, "kubernetesSubjectAccessReview": {}}}});
    // `second` (undecidable) is never called; nor is `b-live`.
    let o = run(spec, &request(&none, "/"), &[], &Statements::default());
    assert_eq!(
        (status(&o), reason(&o).as_str()),
        (Some(403), "Unauthorized")
    );
}

/// pkg/service/auth_pipeline_test.go `TestEvaluateWithCustomDenyOptions`.
#[test]
fn deny_with() {
    let h = headers(&[("authorization", "APIKEY xxx")]);
    let spec = json!({
        "authentication": {"faulty-api-key": {"apiKey": {"selector": {}}, "credentials": {"authorizationHeader": {"prefix": "APIKEY"}}}},
        "response": {"unauthenticated": {"code": 302,
            "headers": {"X-Static-Header": {"value": "some-value"},
                        "Location": {"selector": "https://my-app.io/login?redirect_to=https://{context.request.http.host}{context.request.http.path}"}},
            "body": {"value": "testing"}}}});
    let secrets = vec![secret(
        "kuadrant-system",
        "s",
        "other",
        &[("authorino.kuadrant.io/managed-by", "authorino")],
        &[],
    )];
    let o = run(
        spec,
        &request(&h, "/operation"),
        &secrets,
        &Statements::default(),
    );
    let Outcome::Denied {
        status,
        code,
        reason,
        headers,
        body,
        ..
    } = o
    else {
        panic!("{o:?}")
    };
    assert_eq!(
        (status, code.as_str(), reason.as_str()),
        (302, "UNAUTHENTICATED", "the API Key provided is invalid")
    );
    assert_eq!(body.as_deref(), Some("testing"));
    let mut want = vec![
        (
            "Location".to_string(),
            "https://my-app.io/login?redirect_to=https://my-api/operation".to_string(),
        ),
        ("X-Static-Header".to_string(), "some-value".to_string()),
        (
            "X-Ext-Auth-Reason".to_string(),
            "the API Key provided is invalid".to_string(),
        ),
    ];
    let mut got = headers;
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

/// Several rules failing: a JSON object of their errors (auth_pipeline.go
/// `evaluateIdentityConfigs`), as kuadrant-operator v1.5.2
/// doc/user-guides/ratelimiting/authenticated-rl-with-jwt-and-k8s-authnz.md prints it.
#[test]
fn several_failures_and_live_servers() {
    let none = headers(&[]);
    let spec = json!({"authentication": {
        "keycloak-users": {"jwt": {"issuerUrl": "http://keycloak/realms/kuadrant"}, "credentials": {}},
        "k8s-service-accounts": {"kubernetesTokenReview": {"audiences": ["x"]}, "credentials": {}}},
        "authorization": {"k8s-rbac": {"kubernetesSubjectAccessReview": {"user": {"selector": "auth.identity.sub"}}}}});
    let o = run(
        spec.clone(),
        &request(&none, "/toy"),
        &[],
        &Statements::default(),
    );
    assert_eq!(status(&o), Some(401));
    assert_eq!(
        reason(&o),
        r#"{"k8s-service-accounts":"credential not found","keycloak-users":"credential not found"}"#
    );
    // A token: TokenReview needs the API server, so which rule wins is undecided.
    let claims = data_encoding::BASE64URL_NOPAD.encode(br#"{"sub":"john","exp":4102444800}"#);
    let tok = format!("Bearer e30.{claims}.sig");
    let h = headers(&[("authorization", tok.as_str())]);
    assert_eq!(
        status(&run(
            spec.clone(),
            &request(&h, "/toy"),
            &[],
            &Statements::default()
        )),
        None
    );
    // Stating that the TokenReview fails and what the SAR answers decides it.
    let mut stated = Statements::default();
    stated
        .assume
        .insert("authentication/k8s-service-accounts".into(), json!(false));
    stated
        .assume
        .insert("authorization/k8s-rbac".into(), json!(false));
    assert_eq!(
        status(&run(spec.clone(), &request(&h, "/toy"), &[], &stated)),
        Some(403)
    );
    stated
        .assume
        .insert("authorization/k8s-rbac".into(), json!(true));
    assert_eq!(
        status(&run(spec, &request(&h, "/toy"), &[], &stated)),
        Some(200)
    );
}

/// X.509 reads the connection's client certificate (pkg/evaluators/identity/mtls.go), not a
/// request credential: undecided offline, whatever the headers, unless an identity is given.
#[test]
fn x509_needs_a_live_connection() {
    let none = headers(&[]);
    let spec = json!({"authentication": {"mtls": {"x509": {"selector": {"matchLabels": {"app": "x"}}}, "credentials": {}}}});
    assert_eq!(
        status(&run(
            spec.clone(),
            &request(&none, "/"),
            &[],
            &Statements::default()
        )),
        None
    );
    let stated = Statements {
        identity: Some(json!({"subject": "CN=client"})),
        ..Default::default()
    };
    assert_eq!(
        status(&run(spec, &request(&none, "/"), &[], &stated)),
        Some(200)
    );
}

/// Metadata comes from a live service: a rule that reads it is undecided until the user states
/// the object (`--assume metadata/NAME=JSON`); one that does not read it is decided.
#[test]
fn metadata_is_stated_or_undecided() {
    let none = headers(&[]);
    let spec = json!({
        "metadata": {"user-info": {"http": {"url": "http://users.example/me"}, "credentials": {}}},
        "authorization": {"vip": {"patternMatching": {"patterns": [
            {"selector": "auth.metadata.user-info.tier", "operator": "eq", "value": "vip"}]}}}});
    let o = run(
        spec.clone(),
        &request(&none, "/"),
        &[],
        &Statements::default(),
    );
    assert!(reason(&o).contains("user-info"), "{o:?}");
    assert_eq!(status(&o), None);
    let mut stated = Statements::default();
    stated
        .assume
        .insert("metadata/user-info".into(), json!({"tier": "vip"}));
    assert_eq!(
        status(&run(spec.clone(), &request(&none, "/"), &[], &stated)),
        Some(200)
    );
    stated
        .assume
        .insert("metadata/user-info".into(), json!({"tier": "basic"}));
    assert_eq!(
        status(&run(spec, &request(&none, "/"), &[], &stated)),
        Some(403)
    );
    let unread = json!({
        "metadata": {"user-info": {"http": {"url": "http://users.example/me"}, "credentials": {}}},
        "authorization": {"get": {"patternMatching": {"patterns": [
            {"selector": "request.method", "operator": "eq", "value": "GET"}]}}}});
    assert_eq!(
        status(&run(
            unread,
            &request(&none, "/"),
            &[],
            &Statements::default()
        )),
        Some(200)
    );
}

/// authorino-operator `clusterWide` (no default: false when absent) decides whether
/// `allNamespaces` counts (controllers/auth_config_controller.go), and `secretLabelSelectors` which
/// Secrets the watcher sees; without an Authorino object, the Kuadrant operator's is cluster-wide.
#[test]
fn the_authorino_instance() {
    let spec = json!({"authentication": {"k": {
        "apiKey": {"selector": {"matchLabels": {"app": "a"}}, "allNamespaces": true},
        "credentials": {"authorizationHeader": {"prefix": "APIKEY"}}}}});
    let Value::Object(spec) = spec else { panic!() };
    let elsewhere = vec![secret(
        "team",
        "k",
        "KEY",
        &[
            ("authorino.kuadrant.io/managed-by", "authorino"),
            ("app", "a"),
        ],
        &[],
    )];
    let h = headers(&[("authorization", "APIKEY KEY")]);
    let eval = |inst: Instance| {
        let a = Authorino::new(inst);
        a.evaluate(
            "cfg",
            &spec,
            &request(&h, "/"),
            &elsewhere,
            "kuadrant-system",
            &Statements::default(),
        )
        .0
    };
    assert_eq!(status(&eval(Instance::default())), Some(200));
    // Namespaced: only the AuthConfig's namespace, where no Secret is selected: the cluster's decide.
    assert_eq!(status(&eval(Instance::from_spec(&json!({})))), None);
    let custom =
        Instance::from_spec(&json!({"clusterWide": true, "secretLabelSelectors": "team=x"}));
    assert!(reason(&eval(custom)).contains("team=x"));
}

// authorino v0.25.0 pkg/json/json.go `StringifyJSON`: a string as is, anything else as Go's
// `json.Marshal` writes it (`crate::gofmt::json_marshal`).
#[test]
fn stringify_is_authorinos() {
    assert_eq!(stringify(&json!("as is <&>")), "as is <&>");
    assert_eq!(
        stringify(&json!({"b": "<", "a": 1e6})),
        r#"{"a":1000000,"b":"\u003c"}"#
    );
}

// authorino v0.26.2 pkg/service/well_known_attributes.go has `request.grpc`; v0.24.3, which
// Kuadrant 1.4 deploys, has not. gRPC runs on HTTP/2.
#[test]
fn grpc_attributes_only_where_authorino_has_them() {
    let h = headers(&[("content-type", "application/grpc")]);
    let mut req = request(&h, "/pkg.Toys/Get");
    let doc = request_json(&req);
    assert_eq!(
        doc.pointer("/request/grpc"),
        Some(&json!({"service": "pkg.Toys", "method": "Get"}))
    );
    assert_eq!(doc.pointer("/request/protocol"), Some(&json!("HTTP/2")));
    req.grpc_attributes = false;
    assert_eq!(request_json(&req).pointer("/request/grpc"), None);
    let plain = headers(&[]);
    let doc = request_json(&request(&plain, "/pkg.Toys/Get"));
    assert_eq!(doc.pointer("/request/grpc"), None);
    assert_eq!(doc.pointer("/request/protocol"), Some(&json!("HTTP/1.1")));
}
