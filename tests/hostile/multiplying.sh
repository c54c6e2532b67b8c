#!/usr/bin/env bash
# Print an estate whose routes multiply, for tests/hostile/limits.sh and tests/benches/budget.sh:
# 32 Gateways of 64 listeners (one port each; with NAMED=1 each with a hostname of its own, which
# the routes' hostnames are not under, so every path is invalid) and ROUTES HTTPRoutes, each
# attached to every Gateway whole, with HOSTS hostnames and 16 rules of MATCHES matches, and a
# RateLimitPolicy. A route gives 32 × 64 × 16 = 32,768 paths and 2,048 × HOSTS × 16 × MATCHES action
# sets (4,194,304 with 16 hostnames and 8 matches: the most the schemas allow).
#
#   tests/hostile/multiplying.sh ROUTES HOSTS MATCHES NAMED > estate.yaml
set -euo pipefail
[[ $# -eq 4 ]] || { echo "usage: multiplying.sh ROUTES HOSTS MATCHES NAMED" >&2; exit 2; }
awk -v routes="$1" -v hosts="$2" -v matches="$3" -v named="$4" 'BEGIN {
    print "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: istio}"
    print "spec: {controllerName: istio.io/gateway-controller}"
    for (g = 0; g < 32; g++) {
      printf "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw%d, namespace: ns}\n", g
      printf "spec:\n  gatewayClassName: istio\n  listeners:\n"
      for (l = 0; l < 64; l++) {
        if (named) printf "  - {name: l%d, port: %d, protocol: HTTP, hostname: l%d.example.com}\n", l, 8000 + l, l
        else printf "  - {name: l%d, port: %d, protocol: HTTP}\n", l, 8000 + l
      }
    }
    for (r = 0; r < routes; r++) {
      printf "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r%d, namespace: ns}\nspec:\n  parentRefs:\n", r
      for (g = 0; g < 32; g++) printf "  - name: gw%d\n", g
      if (hosts > 0) printf "  hostnames:\n"
      for (h = 0; h < hosts; h++) printf "  - h%d.example.com\n", h
      printf "  rules:\n"
      for (x = 0; x < 16; x++) {
        printf "  - matches:\n"
        for (m = 0; m < matches; m++) printf "    - path: {type: PathPrefix, value: /r%d/%d/%d}\n", r, x, m
      }
      printf "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: rl%d, namespace: ns}\n", r
      printf "spec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r%d}\n", r
      printf "  limits:\n    l:\n      rates: [{limit: 1, window: 1s}]\n"
    }
  }'

