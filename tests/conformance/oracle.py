#!/usr/bin/env python3
"""The schema conformance corpus: valid documents and mutations of them, each with the verdict of an
oracle that does not come from policyctl.

    tests/conformance/oracle.py --mirrors DIR     # DIR/<owner>+<name>/repo, as schemas/generate.py

For each emulated release, the oracle reads the upstream CRDs itself (the files and tags of
schemas/generate.py) and judges every document as the API server judges a create:

- the schema's defaults are applied first (structural defaulting);
- strict field validation: a field the schema does not declare (outside
  x-kubernetes-preserve-unknown-fields) is refused;
- the OpenAPI v3 value checks with the `jsonschema` package, after converting the Kubernetes
  structural extensions (`nullable`, `x-kubernetes-int-or-string`);
- `x-kubernetes-list-type` set/map uniqueness;
- every `x-kubernetes-validations` rule (transition rules, reading oldSelf, aside) evaluated with
  Google's CEL implementation (`cel-expr-python`, cel-cpp) and its strings extension;
- ObjectMeta: label keys and values, annotation keys and total size, as apimachinery v0.33 checks
  them, re-implemented here from its source.

Each mutation is built to break one known constraint (an unknown field, a wrong type, an enum, a
pattern, a bound, a required field, a CEL rule, a metadata limit); the verdict is the oracle's, not
the mutation's intent. The line of each rejection is the line of the field the oracle's error
names: a scalar's value, a mapping's or a list's key (the object's start for the document itself),
the parent's key for a missing required field. Documents are written as JSON, one field a line. The Rust test (tests/conformance.rs) checks that
`lint` rejects exactly the documents the oracle rejects, each at one of those lines.
"""

import argparse
import copy
import importlib.util
import json
import os
import re
import sys

import jsonschema
import yaml
from cel_expr_python import cel
from cel_expr_python.ext import ext_strings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

spec = importlib.util.spec_from_file_location("generate", os.path.join(ROOT, "schemas", "generate.py"))
generate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generate)

CEL_ENV = cel.NewEnv(variables={"self": cel.Type.DYN}, extensions=[ext_strings.ExtStrings()])
_compiled = {}

GW = "gateway.networking.k8s.io"

# Valid documents, one or more per kind; `{v}` marks what differs between releases.
BASES = [
    ("GatewayClass", f"""
apiVersion: {GW}/v1
kind: GatewayClass
metadata:
  name: istio
  labels:
    team: platform
spec:
  controllerName: istio.io/gateway-controller
  description: the mesh
"""),
    ("Gateway", f"""
apiVersion: {GW}/v1
kind: Gateway
metadata:
  name: gw
  namespace: gateway-system
  annotations:
    example.com/owner: platform
spec:
  gatewayClassName: istio
  listeners:
  - name: http
    hostname: "*.example.com"
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: All
  - name: https
    hostname: api.example.com
    port: 443
    protocol: HTTPS
    tls:
      mode: Terminate
      certificateRefs:
      - name: api-cert
"""),
    ("HTTPRoute", f"""
apiVersion: {GW}/v1
kind: HTTPRoute
metadata:
  name: toystore
  namespace: toystore
spec:
  parentRefs:
  - name: gw
    namespace: gateway-system
    sectionName: http
  hostnames:
  - api.example.com
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: /toys
      method: GET
      headers:
      - name: x-team
        value: blue
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        add:
        - name: x-added
          value: "1"
    backendRefs:
    - name: toystore
      port: 80
      weight: 1
  - matches:
    - path:
        type: Exact
        value: /admin
    timeouts:
      request: 10s
    backendRefs:
    - name: admin
      port: 8080
"""),
    ("GRPCRoute", f"""
apiVersion: {GW}/v1
kind: GRPCRoute
metadata:
  name: grpc
  namespace: toystore
spec:
  parentRefs:
  - name: gw
    namespace: gateway-system
  hostnames:
  - grpc.example.com
  rules:
  - matches:
    - method:
        service: toys.Store
        method: List
    backendRefs:
    - name: grpc
      port: 9000
"""),
    ("RateLimitPolicy", """
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: rlp
  namespace: toystore
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: toystore
  limits:
    per-user:
      when:
      - predicate: request.method == 'GET'
      counters:
      - expression: auth.identity.username
      rates:
      - limit: 5
        window: 10s
"""),
    ("RateLimitPolicy", """
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: gw-defaults
  namespace: gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gw
  defaults:
    strategy: merge
    limits:
      global:
        rates:
        - limit: 100
          window: 1m
"""),
    ("TokenRateLimitPolicy", """
apiVersion: kuadrant.io/v1alpha1
kind: TokenRateLimitPolicy
metadata:
  name: trlp
  namespace: toystore
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: toystore
  limits:
    tokens:
      rates:
      - limit: 1000
        window: 1h
"""),
    ("AuthPolicy", """
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: auth
  namespace: toystore
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: toystore
  rules:
    authentication:
      api-key-users:
        apiKey:
          selector:
            matchLabels:
              app: toystore
        credentials:
          authorizationHeader:
            prefix: APIKEY
      jwt-users:
        jwt:
          issuerUrl: https://sso.example.com/realms/toystore
    authorization:
      only-admins:
        patternMatching:
          patterns:
          - selector: auth.identity.group
            operator: eq
            value: admin
"""),
    ("DNSPolicy", """
apiVersion: kuadrant.io/v1
kind: DNSPolicy
metadata:
  name: dns
  namespace: gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gw
  providerRefs:
  - name: aws-credentials
  loadBalancing:
    weight: 120
    geo: GEO-EU
    defaultGeo: true
  healthCheck:
    path: /health
    port: 443
    protocol: HTTPS
    failureThreshold: 3
"""),
    ("TLSPolicy", """
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata:
  name: tls
  namespace: gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gw
  issuerRef:
    name: letsencrypt
    kind: ClusterIssuer
"""),
    ("PlanPolicy", """
apiVersion: extensions.kuadrant.io/v1alpha1
kind: PlanPolicy
metadata:
  name: plans
  namespace: toystore
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: toystore
  plans:
  - tier: gold
    predicate: auth.identity.tier == 'gold'
    limits:
      daily: 1000
"""),
    ("OIDCPolicy", """
apiVersion: extensions.kuadrant.io/v1alpha1
kind: OIDCPolicy
metadata:
  name: oidc
  namespace: toystore
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: toystore
  provider:
    issuerURL: https://sso.example.com/realms/toystore
    clientID: toystore
"""),
    ("TelemetryPolicy", """
apiVersion: extensions.kuadrant.io/v1alpha1
kind: TelemetryPolicy
metadata:
  name: telemetry
  namespace: gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gw
  metrics:
    default:
      labels:
        user: auth.identity.username
"""),
    ("ThreatPolicy", """
apiVersion: extensions.kuadrant.io/v1alpha1
kind: ThreatPolicy
metadata:
  name: threat
  namespace: gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gw
  threshold: 5
"""),
]

BASES += [
    ("Limitador", """
apiVersion: limitador.kuadrant.io/v1alpha1
kind: Limitador
metadata:
  name: limitador
  namespace: kuadrant-system
spec:
  replicas: 1
  pdb:
    maxUnavailable: 1
"""),
    ("Kuadrant", """
apiVersion: kuadrant.io/v1beta1
kind: Kuadrant
metadata:
  name: kuadrant
  namespace: kuadrant-system
spec: {}
"""),
    ("Authorino", """
apiVersion: operator.authorino.kuadrant.io/v1beta1
kind: Authorino
metadata:
  name: authorino
  namespace: kuadrant-system
spec:
  listener:
    tls:
      enabled: false
  oidcServer:
    tls:
      enabled: false
"""),
    ("ClusterIssuer", """
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: letsencrypt
spec:
  selfSigned: {}
"""),
    ("Issuer", """
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: local
  namespace: gateway-system
spec:
  selfSigned: {}
"""),
]

# Mutations built to break one CRD CEL rule each (kind, name, function of the document).
def _set(path, value):
    def f(d):
        x = d
        for k in path[:-1]:
            x = x[k]
        x[path[-1]] = value
    return f


def _del(path):
    def f(d):
        x = d
        for k in path[:-1]:
            x = x[k]
        del x[path[-1]]
    return f


def _all(*fs):
    def f(d):
        for g in fs:
            g(d)
    return f


RULE_MUTATIONS = [
    ("Gateway", "listener-names-unique", _set(["spec", "listeners", 1, "name"], "http")),
    ("Gateway", "port-protocol-hostname-unique", _all(
        _set(["spec", "listeners", 1, "port"], 80), _set(["spec", "listeners", 1, "protocol"], "HTTP"),
        _del(["spec", "listeners", 1, "tls"]), _set(["spec", "listeners", 1, "hostname"], "*.example.com"))),
    ("Gateway", "hostname-on-tcp", _set(["spec", "listeners", 0, "protocol"], "TCP")),
    ("Gateway", "tls-on-http", _set(["spec", "listeners", 0, "tls"], {"mode": "Terminate", "certificateRefs": [{"name": "c"}]})),
    ("Gateway", "tls-passthrough-on-https", _set(["spec", "listeners", 1, "tls", "mode"], "Passthrough")),
    ("Gateway", "terminate-without-certificates", _del(["spec", "listeners", 1, "tls", "certificateRefs"])),
    ("HTTPRoute", "path-double-slash", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a//b")),
    ("HTTPRoute", "path-not-absolute", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "toys")),
    ("HTTPRoute", "path-dot-segment", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a/./b")),
    ("HTTPRoute", "path-ends-with-dots", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a/..")),
    ("HTTPRoute", "path-encoded-slash", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a%2fb")),
    ("HTTPRoute", "path-hash", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a#b")),
    ("HTTPRoute", "path-bad-character", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a b")),
    ("HTTPRoute", "backend-port-missing", _del(["spec", "rules", 0, "backendRefs", 0, "port"])),
    ("HTTPRoute", "filter-block-missing", _del(["spec", "rules", 0, "filters", 0, "requestHeaderModifier"])),
    ("HTTPRoute", "filter-block-of-other-type", _set(["spec", "rules", 0, "filters", 0, "type"], "ResponseHeaderModifier")),
    ("HTTPRoute", "filter-repeated", lambda d: d["spec"]["rules"][0]["filters"].append(copy.deepcopy(d["spec"]["rules"][0]["filters"][0]))),
    ("HTTPRoute", "redirect-with-backends", _set(["spec", "rules", 0, "filters"], [{"type": "RequestRedirect", "requestRedirect": {"hostname": "x.example.com"}}])),
    ("HTTPRoute", "parent-twice-without-section", lambda d: d["spec"]["parentRefs"].append({"name": "gw", "namespace": "gateway-system"})),
    ("HTTPRoute", "parent-section-twice", lambda d: d["spec"]["parentRefs"].append(copy.deepcopy(d["spec"]["parentRefs"][0]))),
    ("HTTPRoute", "backend-timeout-longer", _set(["spec", "rules", 1, "timeouts"], {"request": "1s", "backendRequest": "2s"})),
    ("GRPCRoute", "method-match-empty", _set(["spec", "rules", 0, "matches", 0, "method"], {"type": "Exact"})),
    ("GRPCRoute", "service-bad-characters", _set(["spec", "rules", 0, "matches", 0, "method", "service"], "toys Store")),
    ("GRPCRoute", "method-bad-characters", _set(["spec", "rules", 0, "matches", 0, "method", "method"], "List-All")),
    ("RateLimitPolicy", "target-group", _set(["spec", "targetRef", "group"], "example.com")),
    ("RateLimitPolicy", "target-kind", _set(["spec", "targetRef", "kind"], "Service")),
    ("RateLimitPolicy", "no-limits", _set(["spec", "limits"], {})),
    ("RateLimitPolicy", "limits-and-defaults", _set(["spec", "defaults"], {"limits": {"a": {"rates": [{"limit": 1, "window": "1s"}]}}})),
    ("RateLimitPolicy", "limits-and-overrides", _set(["spec", "overrides"], {"limits": {"a": {"rates": [{"limit": 1, "window": "1s"}]}}})),
    ("RateLimitPolicy", "defaults-without-limits", _all(_del(["spec", "limits"]), _set(["spec", "defaults"], {"strategy": "atomic"}))),
    ("RateLimitPolicy", "overrides-without-limits", _all(_del(["spec", "limits"]), _set(["spec", "overrides"], {"limits": {}}))),
    ("TokenRateLimitPolicy", "target-kind", _set(["spec", "targetRef", "kind"], "GRPCRoute")),
    ("AuthPolicy", "no-rules", _set(["spec", "rules"], {})),
    ("AuthPolicy", "rules-and-defaults", _set(["spec", "defaults"], {"rules": {"authorization": {"x": {"opa": {"rego": "allow = true"}}}}})),
    ("AuthPolicy", "jwt-issuer-and-jwks", _set(["spec", "rules", "authentication", "jwt-users", "jwt", "jwksUrl"], "https://sso.example.com/jwks")),
    ("AuthPolicy", "api-key-without-selector", _del(["spec", "rules", "authentication", "api-key-users", "apiKey", "selector"])),
    ("AuthPolicy", "target-kind", _set(["spec", "targetRef", "kind"], "Service")),
    ("DNSPolicy", "failure-threshold-zero", _set(["spec", "healthCheck", "failureThreshold"], 0)),
    ("DNSPolicy", "health-check-port", _set(["spec", "healthCheck", "port"], 22)),
    ("DNSPolicy", "health-check-protocol", _set(["spec", "healthCheck", "protocol"], "TCP")),
    ("DNSPolicy", "delegate-and-providers", _set(["spec", "delegate"], True)),
    ("DNSPolicy", "target-kind", _set(["spec", "targetRef", "kind"], "HTTPRoute")),
    ("TLSPolicy", "issuer-kind", _set(["spec", "issuerRef", "kind"], "Secret")),
    ("TLSPolicy", "no-issuer", _del(["spec", "issuerRef"])),
    ("OIDCPolicy", "issuer-and-jwks", _set(["spec", "provider", "jwksURL"], "https://sso.example.com/jwks")),
    ("OIDCPolicy", "jwks-without-endpoints", _all(_del(["spec", "provider", "issuerURL"]), _set(["spec", "provider", "jwksURL"], "https://j"))),
    ("TelemetryPolicy", "target-kind", _set(["spec", "targetRef", "kind"], "HTTPRoute")),
    ("PlanPolicy", "target-kind", _set(["spec", "targetRef", "kind"], "Service")),
    ("ThreatPolicy", "target-kind", _set(["spec", "targetRef", "kind"], "Service")),
    ("Gateway", "addresses-ip-twice", _set(["spec", "addresses"], [{"type": "IPAddress", "value": "10.0.0.1"}, {"type": "IPAddress", "value": "10.0.0.1"}])),
    ("Gateway", "addresses-hostname-twice", _set(["spec", "addresses"], [{"type": "Hostname", "value": "a.example.com"}, {"type": "Hostname", "value": "a.example.com"}])),
    ("Gateway", "addresses-hostname-bad", _set(["spec", "addresses"], [{"type": "Hostname", "value": "Bad_Host"}])),
    ("Gateway", "infrastructure-label-key", _set(["spec", "infrastructure"], {"labels": {"-bad": "x"}})),
    ("Gateway", "infrastructure-label-prefix", _set(["spec", "infrastructure"], {"labels": {"a" * 250 + ".com/x": "v"}})),
    ("Gateway", "infrastructure-annotation-key", _set(["spec", "infrastructure"], {"annotations": {"-bad": "x"}})),
    ("Gateway", "infrastructure-annotation-prefix", _set(["spec", "infrastructure"], {"annotations": {"a" * 250 + ".com/x": "v"}})),
    ("HTTPRoute", "backend-redirect-and-rewrite", _set(["spec", "rules", 0, "backendRefs", 0, "filters"], [{"type": "RequestRedirect", "requestRedirect": {"hostname": "x.example.com"}}, {"type": "URLRewrite", "urlRewrite": {"hostname": "x.example.com"}}])),
    ("HTTPRoute", "mirror-percent-and-fraction", _set(["spec", "rules", 0, "filters"], [{"type": "RequestMirror", "requestMirror": {"backendRef": {"name": "m", "port": 80}, "percent": 10, "fraction": {"numerator": 1}}}])),
    ("HTTPRoute", "mirror-fraction-over-one", _set(["spec", "rules", 0, "filters"], [{"type": "RequestMirror", "requestMirror": {"backendRef": {"name": "m", "port": 80}, "fraction": {"numerator": 200, "denominator": 100}}}])),
    ("HTTPRoute", "redirect-repeated", _all(_del(["spec", "rules", 1, "backendRefs"]), _set(["spec", "rules", 1, "filters"], [{"type": "RequestRedirect", "requestRedirect": {"hostname": "x.example.com"}}] * 2))),
    ("HTTPRoute", "response-modifier-repeated", _set(["spec", "rules", 1, "filters"], [{"type": "ResponseHeaderModifier", "responseHeaderModifier": {"add": [{"name": "a", "value": "b"}]}}] * 2)),
    ("HTTPRoute", "rewrite-repeated", _set(["spec", "rules", 1, "filters"], [{"type": "URLRewrite", "urlRewrite": {"hostname": "x.example.com"}}] * 2)),
    ("HTTPRoute", "rewrite-prefix-on-exact", _set(["spec", "rules", 1, "filters"], [{"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/x"}}}])),
    ("HTTPRoute", "redirect-prefix-on-exact", _all(_del(["spec", "rules", 1, "backendRefs"]), _set(["spec", "rules", 1, "filters"], [{"type": "RequestRedirect", "requestRedirect": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/x"}}}]))),
    ("HTTPRoute", "backend-rewrite-prefix-on-exact", _set(["spec", "rules", 1, "backendRefs", 0, "filters"], [{"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/x"}}}])),
    ("HTTPRoute", "backend-redirect-prefix-on-exact", _set(["spec", "rules", 1, "backendRefs", 0, "filters"], [{"type": "RequestRedirect", "requestRedirect": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/x"}}}])),
    ("HTTPRoute", "too-many-matches", _set(["spec", "rules"], [{"matches": [{"path": {"type": "PathPrefix", "value": f"/r{i}m{j}"}} for j in range(9)]} for i in range(16)])),
    ("HTTPRoute", "extension-ref-missing", _set(["spec", "rules", 0, "filters"], [{"type": "ExtensionRef"}])),
    ("HTTPRoute", "extension-ref-on-other-type", _set(["spec", "rules", 0, "filters", 0, "extensionRef"], {"group": "example.com", "kind": "X", "name": "y"})),
    ("HTTPRoute", "mirror-missing", _set(["spec", "rules", 0, "filters"], [{"type": "RequestMirror"}])),
    ("HTTPRoute", "mirror-on-other-type", _set(["spec", "rules", 0, "filters", 0, "requestMirror"], {"backendRef": {"name": "m", "port": 80}})),
    ("HTTPRoute", "redirect-missing", _all(_del(["spec", "rules", 1, "backendRefs"]), _set(["spec", "rules", 1, "filters"], [{"type": "RequestRedirect"}]))),
    ("HTTPRoute", "redirect-on-other-type", _set(["spec", "rules", 0, "filters", 0, "requestRedirect"], {"hostname": "x.example.com"})),
    ("HTTPRoute", "response-modifier-on-other-type", _set(["spec", "rules", 0, "filters", 0, "responseHeaderModifier"], {"add": [{"name": "a", "value": "b"}]})),
    ("HTTPRoute", "rewrite-missing", _set(["spec", "rules", 0, "filters"], [{"type": "URLRewrite"}])),
    ("HTTPRoute", "rewrite-on-other-type", _set(["spec", "rules", 0, "filters", 0, "urlRewrite"], {"hostname": "x.example.com"})),
    ("HTTPRoute", "path-encoded-slash-upper", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a%2Fb")),
    ("HTTPRoute", "path-parent-segment", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a/../b")),
    ("HTTPRoute", "path-ends-with-dot", _set(["spec", "rules", 0, "matches", 0, "path", "value"], "/a/.")),
    ("HTTPRoute", "path-type-unknown", _set(["spec", "rules", 0, "matches", 0, "path", "type"], "Glob")),
    ("HTTPRoute", "full-path-missing", _set(["spec", "rules", 1, "filters"], [{"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplaceFullPath"}}}])),
    ("HTTPRoute", "full-path-with-prefix-type", _set(["spec", "rules", 1, "filters"], [{"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplacePrefixMatch", "replaceFullPath": "/x"}}}])),
    ("HTTPRoute", "prefix-missing", _set(["spec", "rules", 0, "filters"], [{"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplacePrefixMatch"}}}])),
    ("HTTPRoute", "prefix-with-full-path-type", _set(["spec", "rules", 1, "filters"], [{"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplaceFullPath", "replacePrefixMatch": "/x"}}}])),
    ("AuthPolicy", "defaults-without-rules", _all(_del(["spec", "rules"]), _set(["spec", "defaults"], {"strategy": "atomic"}))),
    ("AuthPolicy", "overrides-without-rules", _all(_del(["spec", "rules"]), _set(["spec", "overrides"], {"strategy": "atomic"}))),
    ("AuthPolicy", "defaults-and-overrides", lambda d: (d["spec"].update({"defaults": {"rules": d["spec"]["rules"]}, "overrides": {"rules": d["spec"]["rules"]}}), d["spec"].pop("rules"))),
    ("AuthPolicy", "rules-and-overrides", lambda d: d["spec"].update({"overrides": {"rules": copy.deepcopy(d["spec"]["rules"])}})),
    ("AuthPolicy", "user-info-both", _set(["spec", "rules", "metadata"], {"ui": {"userInfo": {"identitySource": "a", "userInfoUrl": "https://u"}}})),
    ("AuthPolicy", "x509-two-sources", _set(["spec", "rules", "authentication", "api-key-users"], {"x509": {"selector": {"matchLabels": {"a": "b"}}, "source": {"xfccHeader": "x", "expression": "y"}}})),
    ("Limitador", "disk-and-replicas", lambda d: d["spec"].update({"replicas": 2, "storage": {"disk": {}}})),
    ("Limitador", "pdb-both", _set(["spec", "pdb", "minAvailable"], 1)),
]

METADATA_MUTATIONS = [
    ("label-value-64", lambda d: d["metadata"].setdefault("labels", {}).update({"team": "v" * 64})),
    ("label-key-bad", lambda d: d["metadata"].setdefault("labels", {}).update({"-bad": "x"})),
    ("label-key-prefix-bad", lambda d: d["metadata"].setdefault("labels", {}).update({"Example.com/x": "x"})),
    ("annotations-too-large", lambda d: d["metadata"].setdefault("annotations", {}).update({"big": "x" * 300000})),
    ("annotation-key-bad", lambda d: d["metadata"].setdefault("annotations", {}).update({"a/b/c": "x"})),
    ("finalizer-bad", lambda d: d["metadata"].update({"finalizers": ["a/b/c"]})),
    ("metadata-unknown-field", lambda d: d["metadata"].update({"lables": {"a": "b"}})),
    ("label-value-ok-63", lambda d: d["metadata"].setdefault("labels", {}).update({"team": "v" * 63})),
    ("annotations-at-limit", lambda d: d["metadata"].setdefault("annotations", {}).update({"big": "x" * (262144 - 3 - sum(len(k) + len(v) for k, v in d["metadata"].get("annotations", {}).items()))})),
]


# ------------------------------------------------------------------------------- the oracle

def default(x, s):
    """Structural defaulting (apiextensions-apiserver structuraldefaulting.Default)."""
    if isinstance(x, dict):
        for k, p in (s.get("properties") or {}).items():
            if k not in x and "default" in p:
                x[k] = copy.deepcopy(p["default"])
        for k, v in x.items():
            p = (s.get("properties") or {}).get(k)
            if p is None and isinstance(s.get("additionalProperties"), dict):
                p = s["additionalProperties"]
            if p is not None:
                default(v, p)
    elif isinstance(x, list) and isinstance(s.get("items"), dict):
        for v in x:
            default(v, s["items"])


def to_json_schema(s):
    """A structural schema as plain JSON Schema (draft 4): the Kubernetes extensions converted."""
    if not isinstance(s, dict):
        return s
    out = {}
    for k, v in s.items():
        if k.startswith("x-kubernetes-") or k.startswith("x-policyctl") or k in ("default", "nullable", "format"):
            continue
        if k == "properties":
            out[k] = {n: to_json_schema(p) for n, p in v.items()}
        elif k in ("items", "additionalProperties", "not"):
            out[k] = to_json_schema(v) if isinstance(v, dict) else v
        elif k in ("anyOf", "oneOf", "allOf"):
            out[k] = [to_json_schema(x) for x in v]
        else:
            out[k] = v
    if s.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if s.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    fmt = s.get("format")
    if fmt in ("ipv4", "ipv6", "date-time", "byte"):
        out["format"] = fmt
    return out


def path_str(path):
    s = ""
    for p in path:
        s += f"[{p}]" if isinstance(p, int) else ("." if s else "") + p
    return s


def unknown_fields(x, s, path, out, preserve=False):
    if isinstance(x, dict):
        props = s.get("properties") or {}
        addl = s.get("additionalProperties")
        keep = s.get("x-kubernetes-preserve-unknown-fields") or s.get("x-kubernetes-embedded-resource")
        for k, v in x.items():
            if not path and k in ("metadata",):
                continue
            if k in props:
                unknown_fields(v, props[k], path + [k], out)
            elif isinstance(addl, dict):
                unknown_fields(v, addl, path + [k], out)
            elif not keep and addl is not True and s.get("type") == "object":
                out.append(("unknown", path + [k]))
    elif isinstance(x, list) and isinstance(s.get("items"), dict):
        for i, v in enumerate(x):
            unknown_fields(v, s["items"], path + [i], out)


def list_uniqueness(x, s, path, out):
    if isinstance(x, dict):
        for k, v in x.items():
            p = (s.get("properties") or {}).get(k)
            if p is None and isinstance(s.get("additionalProperties"), dict):
                p = s["additionalProperties"]
            if p is not None:
                list_uniqueness(v, p, path + [k], out)
    elif isinstance(x, list):
        lt = s.get("x-kubernetes-list-type")
        item = s.get("items") or {}
        if lt == "set":
            seen = []
            for i, v in enumerate(x):
                if v in seen:
                    out.append(("duplicate", path + [i]))
                seen.append(v)
        elif lt == "map":
            keys = s.get("x-kubernetes-list-map-keys") or []
            seen = []
            for i, v in enumerate(x):
                key = [v.get(k, (item.get("properties") or {}).get(k, {}).get("default")) for k in keys] if isinstance(v, dict) else v
                if key in seen:
                    out.append(("duplicate", path + [i]))
                seen.append(key)
        for i, v in enumerate(x):
            list_uniqueness(v, item, path + [i], out)


def cel_value(x):
    return x


def rules(x, s, path, out):
    for r in s.get("x-kubernetes-validations") or []:
        src = r["rule"]
        if re.search(r"\boldSelf\b", src):
            continue
        if src not in _compiled:
            _compiled[src] = CEL_ENV.compile(src.replace("__namespace__", "namespace_escaped"))
        data = escape(x)
        v = _compiled[src].eval(data={"self": data})
        if not (v.type() == cel.Type.BOOL and v.value() is True):
            out.append(("rule", path, r.get("message") or src))
    if isinstance(x, dict):
        for k, v in x.items():
            p = (s.get("properties") or {}).get(k)
            if p is None and isinstance(s.get("additionalProperties"), dict):
                p = s["additionalProperties"]
            if p is not None and not (not path and k in ("metadata", "status")):
                rules(v, p, path + [k], out)
    elif isinstance(x, list) and isinstance(s.get("items"), dict):
        for i, v in enumerate(x):
            rules(v, s["items"], path + [i], out)


def escape(x):
    """Property names as the Kubernetes CEL environment names them (`namespace` is a CEL keyword)."""
    if isinstance(x, dict):
        return {("namespace_escaped" if k == "namespace" else k): escape(v) for k, v in x.items()}
    if isinstance(x, list):
        return [escape(v) for v in x]
    return x


QUALIFIED = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def qualified(v):
    parts = v.split("/")
    if len(parts) > 2:
        return False
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not SUBDOMAIN.match(prefix):
            return False
    else:
        name = parts[0]
    return 0 < len(name) <= 63 and bool(QUALIFIED.match(name))


META_FIELDS = {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
               "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
               "annotations", "ownerReferences", "finalizers", "managedFields"}


def metadata(m, out):
    for k in m:
        if k not in META_FIELDS:
            out.append(("unknown", ["metadata", k]))
    for k, v in (m.get("labels") or {}).items():
        if not qualified(k):
            out.append(("label", ["metadata", "labels", k]))
        if len(v) > 63 or (v and not QUALIFIED.match(v)):
            out.append(("label", ["metadata", "labels", k]))
    size = 0
    for k, v in (m.get("annotations") or {}).items():
        size += len(k) + len(v)
        if not qualified(k.lower()):
            out.append(("annotation", ["metadata", "annotations", k]))
    if size > 262144:
        out.append(("annotations", ["metadata", "annotations"]))
    for i, f in enumerate(m.get("finalizers") or []):
        if not qualified(f):
            out.append(("finalizer", ["metadata", "finalizers", i]))


def judge(doc, schema):
    """The oracle's errors for one object: (what, path[, message])."""
    errors = []
    x = copy.deepcopy(doc)
    default(x, schema)
    unknown_fields(x, schema, [], errors)
    metadata(x.get("metadata") or {}, errors)
    body = {k: v for k, v in x.items() if k not in ("metadata", "status")}
    sch = copy.deepcopy(schema)
    sch.get("properties", {}).pop("metadata", None)
    sch.get("properties", {}).pop("status", None)
    validator = jsonschema.Draft4Validator(to_json_schema(sch), format_checker=jsonschema.FormatChecker())
    schema_errors = list(validator.iter_errors(body))
    for e in schema_errors:
        p = list(e.absolute_path)
        if e.validator == "required":
            errors.append(("required", p, e.message))
        else:
            errors.append(("schema", p, e.message))
    list_uniqueness(body, sch, [], errors)
    if not schema_errors:
        rules(x, schema, [], errors)
    return errors


# ------------------------------------------------------------------------------- lines

def line_of(text, path):
    """The line the oracle expects a rejection at, for an error at `path` in the YAML text (a
    missing required field's path is its parent's)."""
    node = yaml.compose(text)
    key_line = node.start_mark.line + 1
    for p in path:
        if node.id == "mapping":
            found = None
            for k, v in node.value:
                if k.value == p:
                    found = (k, v)
            if found is None:
                return key_line
            k, v = found
            key_line = k.start_mark.line + 1
            node = v
        elif node.id == "sequence" and isinstance(p, int) and p < len(node.value):
            node = node.value[p]
            key_line = node.start_mark.line + 1
        else:
            return key_line
    if node.id == "scalar":
        return node.start_mark.line + 1
    return key_line


def emit(doc):
    """The document as kubectl reads it without ambiguity: JSON, one field a line (YAML 1.1, which
    kubectl's YAML reader follows, would read a plain `y` or `on` as a boolean)."""
    return json.dumps(doc, indent=2) + "\n"


# ------------------------------------------------------------------------------- mutations

def alter_scalar(v, s):
    """Values that break one constraint of a scalar's schema: (what, value)."""
    out = []
    t = s.get("type")
    if s.get("x-kubernetes-int-or-string"):
        out.append(("type", True))
    elif t == "string":
        out.append(("type", 12345))
        if "enum" in s:
            out.append(("enum", "NotInTheEnum"))
        if "pattern" in s:
            for cand in ["!bad value!", "-", "UPPER", "a" * 20 + "/", "1"]:
                try:
                    if not re.search(s["pattern"], cand):
                        out.append(("pattern", cand))
                        break
                except re.error:
                    break
        if "maxLength" in s and s["maxLength"] < 100000:
            out.append(("maxLength", "a" * (s["maxLength"] + 1)))
        if s.get("minLength", 0) >= 1:
            out.append(("minLength", ""))
    elif t in ("integer", "number"):
        out.append(("type", "5"))
        if "minimum" in s:
            out.append(("minimum", int(s["minimum"]) - 1))
        if "maximum" in s:
            out.append(("maximum", int(s["maximum"]) + 1))
    elif t == "boolean":
        out.append(("type", "true"))
    return out


def walk(doc, x, s, path, muts):
    if isinstance(x, dict):
        props = s.get("properties") or {}
        keep = s.get("x-kubernetes-preserve-unknown-fields")
        if s.get("type") == "object" and props and not keep and path:
            muts.append((f"unknown:{path_str(path)}", _set(path + ["zzUnknownField"], "x")))
        for r in s.get("required") or []:
            if r in x:
                muts.append((f"required:{path_str(path + [r])}", _del(path + [r])))
        for k, v in x.items():
            if not path and k in ("apiVersion", "kind", "metadata", "status"):
                continue
            p = props.get(k)
            if p is None and isinstance(s.get("additionalProperties"), dict):
                p = s["additionalProperties"]
            if p is not None:
                walk(doc, v, p, path + [k], muts)
    elif isinstance(x, list):
        item = s.get("items") or {}
        if "maxItems" in s and s["maxItems"] <= 64 and x:
            muts.append((f"maxItems:{path_str(path)}", _set(path, [copy.deepcopy(x[0])] * (s["maxItems"] + 1))))
        if s.get("minItems", 0) >= 1:
            muts.append((f"minItems:{path_str(path)}", _set(path, [])))
        for i, v in enumerate(x):
            walk(doc, v, item, path + [i], muts)
    else:
        for what, value in alter_scalar(x, s):
            muts.append((f"{what}:{path_str(path)}", _set(path, value)))


def main():
    p = argparse.ArgumentParser(description="generate the schema conformance corpus")
    p.add_argument("--mirrors", required=True)
    args = p.parse_args()
    src = generate.Source(args.mirrors)
    for release, tags in generate.RELEASES.items():
        schemas = {}
        files = [(generate.KUADRANT, path) for path in src.ls(generate.KUADRANT, tags[generate.KUADRANT], "config/crd/bases")]
        files += [(generate.GATEWAY_API, f"config/crd/standard/gateway.networking.k8s.io_{k}.yaml") for k in generate.GATEWAY_KINDS]
        files += [(generate.CERT_MANAGER, f"deploy/crds/crd-{n}.yaml") for n in ("issuers", "clusterissuers")]
        files += [(generate.LIMITADOR_OPERATOR, "config/crd/bases/limitador.kuadrant.io_limitadors.yaml")]
        files += [(generate.AUTHORINO_OPERATOR, "config/crd/bases/operator.authorino.kuadrant.io_authorinos.yaml")]
        for repo, path in files:
            for crd in generate.crds(src.read(repo, tags[repo], path)):
                for v in crd["spec"]["versions"]:
                    if v.get("served"):
                        schemas[(crd["spec"]["group"], v["name"], crd["spec"]["names"]["kind"])] = v["schema"]["openAPIV3Schema"]
        entries = []

        def add(name, doc, kind_schema):
            text = emit(doc)
            errors = judge(doc, kind_schema)
            lines = sorted({line_of(text, e[1]) for e in errors})
            entries.append({
                "name": name,
                "document": text,
                "rejected": bool(errors),
                "lines": lines,
                "errors": [f"{e[0]} {path_str(e[1])}" + (f": {e[2]}" if len(e) > 2 else "") for e in errors],
            })

        for kind, text in BASES:
            base = yaml.safe_load(text)
            group, version = base["apiVersion"].rsplit("/", 1)
            s = schemas.get((group, version, kind))
            if s is None:
                continue
            label = f"{kind}/{base['metadata']['name']}"
            add(f"{label} valid", base, s)
            muts = []
            walk(base, base, s, [], muts)
            muts.append(("unknown:spec", _set(["spec", "zzUnknownField"], "x")))
            for rk, name, f in RULE_MUTATIONS:
                if rk == kind:
                    muts.append((f"rule:{name}", f))
            for name, f in METADATA_MUTATIONS:
                # The large ones once per release, not per kind (the corpus is committed).
                if name.startswith("annotations-") and kind != "Gateway":
                    continue
                muts.append((f"metadata:{name}", f))
            seen = set()
            for name, f in muts:
                if name in seen:
                    continue
                seen.add(name)
                d = copy.deepcopy(base)
                try:
                    f(d)
                except (KeyError, IndexError, TypeError):
                    continue
                add(f"{label} {name}", d, s)
        out = os.path.join(HERE, f"corpus-{release}.json")
        with open(out, "w") as fh:
            json.dump({"release": release, "entries": entries}, fh, indent=1)
            fh.write("\n")
        rejected = sum(e["rejected"] for e in entries)
        print(f"{release}: {len(entries)} documents, {rejected} rejected", file=sys.stderr)


if __name__ == "__main__":
    main()
