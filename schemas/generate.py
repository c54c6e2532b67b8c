#!/usr/bin/env python3
"""Generate the CRD schemas policyctl validates input with, one file per emulated operator release.

    schemas/generate.py --mirrors DIR      # DIR/<owner>+<name>/repo: bare git mirrors of the sources
    schemas/generate.py                    # the same files from raw.githubusercontent.com

Each `kuadrant-<release>.jsonl` holds, for every kind policyctl reads, the structural schema
(openAPIV3Schema without descriptions) of each version the CRD declares, whether the version is
served, whether the CRD has a status subresource, and the kinds of every API group policyctl
models (so that a misspelt kind in those groups is an error, and a real but unmodelled one is
skipped). The upstream files and tags are listed below and in the output's `sources`: a new
release is a new entry in RELEASES and a run of this script, never a hand edit of the output.

The Gateway API version of each release is the one the release installs (`make
gateway-api-install` applies `config/dependencies/gateway-api`, the standard channel of
gateway-api `config/crd` at that tag): v1.2.1 for kuadrant-operator v1.4.6, v1.4.1 for v1.5.2
(whose install docs and chart say v1.4.1 too). Both go.mod files pin v1.2.1, which only sets the
Go types the operator is built with; the API server validates with the CRDs installed.
"""

import argparse
import json
import os
import subprocess
import sys
import urllib.request

import yaml

KUADRANT = "Kuadrant/kuadrant-operator"
GATEWAY_API = "kubernetes-sigs/gateway-api"
DNS_OPERATOR = "Kuadrant/dns-operator"
CERT_MANAGER = "cert-manager/cert-manager"
LIMITADOR_OPERATOR = "Kuadrant/limitador-operator"
AUTHORINO_OPERATOR = "Kuadrant/authorino-operator"

GATEWAY_KINDS = ["gatewayclasses", "gateways", "httproutes", "grpcroutes"]

# Per release: the tag of each source (go.mod of the operator tag for dns-operator, cert-manager,
# limitador-operator and authorino-operator).
RELEASES = {
    "1.4": {
        KUADRANT: "v1.4.6",
        GATEWAY_API: "v1.2.1",
        DNS_OPERATOR: "f74008dc171c",
        CERT_MANAGER: "v1.16.2",
        LIMITADOR_OPERATOR: "v0.15.0",
        AUTHORINO_OPERATOR: "v0.21.0",
    },
    "1.5": {
        KUADRANT: "v1.5.2",
        GATEWAY_API: "v1.4.1",
        DNS_OPERATOR: "f74008dc171c",
        CERT_MANAGER: "v1.16.2",
        LIMITADOR_OPERATOR: "v0.15.0",
        AUTHORINO_OPERATOR: "v0.21.0",
    },
}

# Gateway API's standard channel gained fields after the version a release installs (a route
# rule's `name` is standard from v1.4.0). A cluster may run newer CRDs than its Kuadrant release
# installs, so such a field is not refused: it is kept in the release's schema, marked with the
# version that declares it (`x-policyctl-since`), and policyctl warns that the CRDs the release
# installs would not keep it.
NEWER_GATEWAY_API = "v1.4.1"

# The kinds whose objects policyctl reads, by API group: their schemas are kept.
MODELLED = {
    "gateway.networking.k8s.io": {"GatewayClass", "Gateway", "HTTPRoute", "GRPCRoute"},
    "kuadrant.io": {
        "RateLimitPolicy",
        "AuthPolicy",
        "TokenRateLimitPolicy",
        "DNSPolicy",
        "TLSPolicy",
        "Kuadrant",
    },
    "extensions.kuadrant.io": {"PlanPolicy", "OIDCPolicy", "TelemetryPolicy", "ThreatPolicy"},
    "limitador.kuadrant.io": {"Limitador"},
    "operator.authorino.kuadrant.io": {"Authorino"},
    "cert-manager.io": {"Issuer", "ClusterIssuer"},
}

# Schema keywords the API server reads (apiextensions JSONSchemaProps); descriptions, titles and
# examples are left out.
DROP = {"description", "title", "example", "externalDocs", "$schema", "id"}


class Source:
    def __init__(self, mirrors):
        self.mirrors = mirrors

    def ls(self, repo, tag, folder):
        if self.mirrors:
            out = subprocess.check_output(
                ["git", "-C", self.git_dir(repo), "ls-tree", "--name-only", f"{tag}:{folder}"]
            )
            return [f"{folder}/{n}" for n in out.decode().split()]
        raise SystemExit(f"listing {repo} {folder} needs --mirrors")

    def git_dir(self, repo):
        return os.path.join(self.mirrors, repo.replace("/", "+"), "repo")

    def read(self, repo, tag, path):
        if self.mirrors:
            return subprocess.check_output(["git", "-C", self.git_dir(repo), "show", f"{tag}:{path}"])
        url = f"https://raw.githubusercontent.com/{repo}/{tag}/{path}"
        with urllib.request.urlopen(url) as r:
            return r.read()


def strip(s):
    if isinstance(s, dict):
        return {k: strip(v) for k, v in s.items() if k not in DROP or not isinstance(v, str)}
    if isinstance(s, list):
        return [strip(x) for x in s]
    return s


def merge_newer(old, new, since):
    """Add to `old` the properties `new` declares and `old` does not, marked `x-policyctl-since`."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return
    props, nprops = old.get("properties"), new.get("properties")
    if isinstance(props, dict) and isinstance(nprops, dict):
        for k, v in nprops.items():
            if k not in props:
                props[k] = dict(v, **{"x-policyctl-since": since})
            else:
                merge_newer(props[k], v, since)
    for k in ("items", "additionalProperties"):
        if isinstance(old.get(k), dict) and isinstance(new.get(k), dict):
            merge_newer(old[k], new[k], since)


def crds(text):
    for d in yaml.safe_load_all(text):
        if d and d.get("kind") == "CustomResourceDefinition":
            yield d


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mirrors", help="folder of bare git mirrors, <owner>+<name>/repo")
    p.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = p.parse_args()
    src = Source(args.mirrors)
    for release, tags in RELEASES.items():
        files = []  # (repo, path, keep schemas)
        for path in src.ls(KUADRANT, tags[KUADRANT], "config/crd/bases"):
            files.append((KUADRANT, path, True))
        for k in GATEWAY_KINDS:
            files.append((GATEWAY_API, f"config/crd/standard/gateway.networking.k8s.io_{k}.yaml", True))
        # Every kind of the group in any channel: real kinds, skipped rather than refused.
        for path in src.ls(GATEWAY_API, tags[GATEWAY_API], "config/crd/experimental"):
            if path.endswith(".yaml") and "kustomization" not in path:
                files.append((GATEWAY_API, path, False))
        for path in src.ls(DNS_OPERATOR, tags[DNS_OPERATOR], "config/crd/bases"):
            files.append((DNS_OPERATOR, path, False))
        for name in ["issuers", "clusterissuers", "certificates", "certificaterequests"]:
            files.append((CERT_MANAGER, f"deploy/crds/crd-{name}.yaml", True))
        files.append((LIMITADOR_OPERATOR, "config/crd/bases/limitador.kuadrant.io_limitadors.yaml", True))
        files.append(
            (AUTHORINO_OPERATOR, "config/crd/bases/operator.authorino.kuadrant.io_authorinos.yaml", True)
        )
        kinds = {}
        known = {g: set() for g in MODELLED}
        sources = []
        for repo, path, keep in files:
            tag = tags[repo]
            sources.append({"repo": repo, "tag": tag, "path": path})
            for crd in crds(src.read(repo, tag, path)):
                spec = crd["spec"]
                group, kind = spec["group"], spec["names"]["kind"]
                if group in known:
                    known[group].add(kind)
                if not keep or kind not in MODELLED.get(group, ()):
                    continue
                newer = {}
                if repo == GATEWAY_API and tags[GATEWAY_API] != NEWER_GATEWAY_API:
                    sources.append({"repo": repo, "tag": NEWER_GATEWAY_API, "path": path})
                    for n in crds(src.read(repo, NEWER_GATEWAY_API, path)):
                        for v in n["spec"]["versions"]:
                            newer[v["name"]] = strip(v["schema"]["openAPIV3Schema"])
                versions = []
                for v in spec["versions"]:
                    versions.append(
                        {
                            "name": v["name"],
                            "served": bool(v.get("served")),
                            "status": "status" in (v.get("subresources") or {}),
                            "schema": strip(v["schema"]["openAPIV3Schema"]),
                        }
                    )
                    if v["name"] in newer:
                        merge_newer(versions[-1]["schema"], newer[v["name"]], NEWER_GATEWAY_API)
                kinds[f"{group}/{kind}"] = {
                    "group": group,
                    "kind": kind,
                    "scope": spec["scope"],
                    "versions": versions,
                }
        for group, names in MODELLED.items():
            for kind in names:
                if f"{group}/{kind}" not in kinds and not (release == "1.4" and kind == "ThreatPolicy"):
                    raise SystemExit(f"{release}: no CRD for {group} {kind}")
        out = {
            "release": release,
            "operator": tags[KUADRANT],
            "gatewayApi": tags[GATEWAY_API],
            "sources": sources,
            "known": {g: sorted(k) for g, k in sorted(known.items())},
            "kinds": dict(sorted(kinds.items())),
        }
        # The envelope on the first line, each version's schema on a line of its own after it
        # (`"schema"` is the number of that line, counting from 0 after the envelope): a run
        # reads the envelope and the schemas of the kinds its input holds, without scanning past
        # the others (JSON text has no raw newline).
        schemas = []
        for k in out["kinds"].values():
            for v in k["versions"]:
                if v.get("schema") is not None:
                    schemas.append(json.dumps(v["schema"], separators=(",", ":")))
                    v["schema"] = len(schemas) - 1
        with open(os.path.join(args.out, f"kuadrant-{release}.jsonl"), "w") as f:
            f.write(json.dumps(out, separators=(",", ":"), sort_keys=False))
            f.write("\n")
            for line in schemas:
                f.write(line)
                f.write("\n")
        print(f"{release}: {len(kinds)} kinds", file=sys.stderr)


if __name__ == "__main__":
    main()
