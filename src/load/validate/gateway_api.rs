//! Gateway API objects converted into the model: GatewayClasses, Gateways and their listeners,
//! HTTPRoutes and GRPCRoutes, with the defaults the model needs.

use super::*;

pub(super) fn gateway_class(meta: Meta, s: GatewayClassSpec, c: &mut Check) -> Option<Validated> {
    let at = meta.origin.object;
    let ctrl = c.required(&s.controller_name, at, "spec.controllerName")?;
    Some(Validated::GatewayClass(Obj {
        spec: GatewayClass {
            controller_name: ctrl.value.clone(),
            assumed: false,
        },
        meta,
    }))
}

pub(super) fn gateway(
    meta: Meta,
    s: GatewaySpec,
    status: Option<GatewayStatus>,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    let class = c
        .required(&s.gateway_class_name, at, "spec.gatewayClassName")?
        .clone();
    let Some(raw_listeners) = s.listeners else {
        c.missing(at, "spec.listeners");
        return None;
    };
    let mut listeners: Vec<Listener> = Vec::new();
    for l in raw_listeners.value {
        let Some(name) = c
            .required(&l.name, raw_listeners.span, "spec.listeners[].name")
            .cloned()
        else {
            continue;
        };
        // The CRD's schema and rules (names, ports, protocols, hostnames, uniqueness) were checked
        // before (`schema_pass`).
        let port = l.port.map_or(0, |p| p.value);
        let protocol = l
            .protocol
            .as_ref()
            .map(|p| p.value.clone())
            .unwrap_or_default();
        let allowed_routes = allowed_routes(l.allowed_routes);
        // CRD defaults (Gateway API v1.2.1): mode Terminate, certificateRefs group "" and kind Secret.
        let tls = l.tls.map(|t| ListenerTls {
            mode: t.mode.unwrap_or_else(|| "Terminate".into()),
            certificate_refs: t
                .certificate_refs
                .unwrap_or_default()
                .into_iter()
                .map(|r| SecretRef {
                    group: r.group.unwrap_or_default(),
                    kind: r.kind.unwrap_or_else(|| "Secret".into()),
                    name: r.name.unwrap_or_default(),
                    namespace: r.namespace,
                })
                .collect(),
        });
        listeners.push(Listener {
            name,
            hostname: l.hostname,
            port,
            protocol,
            allowed_routes,
            tls,
        });
    }
    Some(Validated::Gateway(Obj {
        meta,
        spec: Gateway {
            class_name: class,
            listeners,
            status,
        },
    }))
}

pub(super) fn allowed_routes(a: Option<RawAllowedRoutes>) -> AllowedRoutes {
    let a = a.unwrap_or_default();
    let ns = a.namespaces.unwrap_or_default();
    let from = match ns.from.as_ref().map(|f| f.value.as_str()) {
        None | Some("Same") => RoutesFrom::Same,
        Some("All") => RoutesFrom::All,
        Some("Selector") => {
            let sel = ns.selector.unwrap_or_default();
            RoutesFrom::Selector(LabelSelector {
                match_labels: sel.match_labels.unwrap_or_default(),
                match_expressions: sel
                    .match_expressions
                    .unwrap_or_default()
                    .into_iter()
                    .map(|e| {
                        (
                            e.key.unwrap_or_default(),
                            e.operator.map(|o| o.value).unwrap_or_default(),
                            e.values.unwrap_or_default(),
                        )
                    })
                    .collect(),
            })
        }
        // The CRD's enum: All, Same, Selector.
        Some(_) => RoutesFrom::Same,
    };
    AllowedRoutes {
        from,
        kinds: a
            .kinds
            .unwrap_or_default()
            .into_iter()
            .map(|k| {
                (
                    k.group.unwrap_or_else(|| GATEWAY_API_GROUP.into()),
                    k.kind.unwrap_or_default(),
                )
            })
            .collect(),
    }
}

pub(super) fn parent_refs(refs: Option<Vec<Sp<RawParentRef>>>, c: &mut Check) -> Vec<ParentRef> {
    let refs = refs.unwrap_or_default();
    let mut out = Vec::new();
    for r in refs {
        let span = r.span;
        let r = r.value;
        let Some(name) = c.required(&r.name, span, "spec.parentRefs[].name").cloned() else {
            continue;
        };
        out.push(ParentRef {
            group: r
                .group
                .map(|g| g.value)
                .unwrap_or_else(|| GATEWAY_API_GROUP.into()),
            kind: r.kind.map(|k| k.value).unwrap_or_else(|| "Gateway".into()),
            namespace: r.namespace.map(|n| n.value),
            name: name.value,
            section_span: r.section_name.as_ref().map(|s| s.span),
            section_name: r.section_name.map(|s| s.value),
            port: r.port.map(|p| p.value),
            span,
            name_span: name.span,
        });
    }
    tight(out)
}

pub(super) fn hostnames(h: Option<Vec<Str>>) -> Vec<Sp<String>> {
    tight(h.unwrap_or_default())
}

pub(super) fn backend_refs(b: Option<Vec<RawBackendRef>>) -> Vec<BackendRef> {
    let refs = b
        .unwrap_or_default()
        .into_iter()
        .filter_map(|b| {
            Some(BackendRef {
                group: b.group.unwrap_or_default(),
                kind: b.kind.unwrap_or_else(|| "Service".into()),
                namespace: b.namespace,
                name: b.name?.value,
                port: b.port,
            })
        })
        .collect();
    tight(refs)
}

pub(super) fn header_matches(
    h: Option<Vec<RawKeyValueMatch>>,
    what: &str,
    c: &mut Check,
    at: Span,
) -> Vec<KeyValueMatch> {
    let mut out = Vec::new();
    for m in h.unwrap_or_default() {
        let Some(name) = c.required(&m.name, at, &format!("{what}[].name")).cloned() else {
            continue;
        };
        let kind = m.type_.map(|t| t.value).unwrap_or_else(|| "Exact".into());
        let (value, span) = match m.value {
            Some(v) => (v.value, v.span),
            None => (String::new(), name.span),
        };
        out.push(KeyValueMatch {
            kind,
            name: name.value,
            value,
            span,
        });
    }
    tight(out)
}

pub(super) fn http_match(m: Sp<RawHttpMatch>, c: &mut Check) -> HttpMatch {
    let at = m.span;
    let m = m.value;
    let path = match m.path {
        None => PathMatch {
            span: at,
            ..HttpMatch::default().path
        },
        Some(p) => {
            let kind = match p.type_.as_ref().map(|t| t.value.as_str()) {
                None | Some("PathPrefix") => PathMatchType::PathPrefix,
                Some("Exact") => PathMatchType::Exact,
                Some("RegularExpression") => PathMatchType::RegularExpression,
                // The CRD's enum: Exact, PathPrefix, RegularExpression.
                Some(_) => PathMatchType::PathPrefix,
            };
            let value = p
                .value
                .as_ref()
                .map(|v| v.value.clone())
                .unwrap_or_else(|| "/".into());
            let span = p.value.as_ref().map(|v| v.span).unwrap_or(at);
            PathMatch { kind, value, span }
        }
    };
    let method = m.method.map(|mm| mm.value);
    HttpMatch {
        path,
        headers: header_matches(m.headers, "headers", c, at),
        query_params: header_matches(m.query_params, "queryParams", c, at),
        method,
    }
}

pub(super) fn http_route(
    meta: Meta,
    s: HttpRouteSpec,
    status: Option<RouteStatus>,
    c: &mut Check,
) -> Option<Validated> {
    let parent_refs = parent_refs(s.parent_refs, c);
    let hostnames = hostnames(s.hostnames);
    let rules: Vec<RouteRule> = match s.rules {
        // CRD default: one rule matching PathPrefix /.
        None => vec![RouteRule {
            name: None,
            matches: RuleMatches::Http(vec![HttpMatch::default()]),
            matches_explicit_empty: false,
            backend_refs: vec![],
            span: meta.origin.object,
        }],
        Some(rules) => {
            let rules = rules
                .into_iter()
                .map(|r| {
                    let span = r.span;
                    let r = r.value;
                    let explicit_empty = r.matches.as_ref().is_some_and(|m| m.is_empty());
                    let matches = match r.matches {
                        None => vec![HttpMatch::default()],
                        Some(ms) => tight(ms.into_iter().map(|m| http_match(m, c)).collect()),
                    };
                    RouteRule {
                        name: r.name,
                        matches: RuleMatches::Http(matches),
                        matches_explicit_empty: explicit_empty,
                        backend_refs: backend_refs(r.backend_refs),
                        span,
                    }
                })
                .collect();
            tight(rules)
        }
    };
    Some(Validated::Route(Obj {
        meta,
        spec: Route {
            kind: RouteKind::Http,
            parent_refs,
            hostnames,
            rules,
            status,
        },
    }))
}

pub(super) fn grpc_route(
    meta: Meta,
    s: GrpcRouteSpec,
    status: Option<RouteStatus>,
    c: &mut Check,
) -> Option<Validated> {
    let parent_refs = parent_refs(s.parent_refs, c);
    let hostnames = hostnames(s.hostnames);
    let rules: Vec<RouteRule> = s
        .rules
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let span = r.span;
            let r = r.value;
            let explicit_empty = r.matches.as_ref().is_some_and(|m| m.is_empty());
            let matches = r
                .matches
                .unwrap_or_default()
                .into_iter()
                .map(|m| {
                    let at = m.span;
                    let m = m.value;
                    let method = m.method.map(|mm| {
                        let kind = mm
                            .type_
                            .as_ref()
                            .map(|t| t.value.clone())
                            .unwrap_or_else(|| "Exact".into());
                        let span = mm
                            .service
                            .as_ref()
                            .or(mm.method.as_ref())
                            .map_or(at, |s| s.span);
                        GrpcMethodMatch {
                            kind,
                            service: mm.service.map(|s| s.value),
                            method: mm.method.map(|s| s.value),
                            span,
                        }
                    });
                    GrpcMatch {
                        method,
                        headers: header_matches(m.headers, "headers", c, at),
                    }
                })
                .collect();
            RouteRule {
                name: r.name,
                matches: RuleMatches::Grpc(tight(matches)),
                matches_explicit_empty: explicit_empty,
                backend_refs: backend_refs(r.backend_refs),
                span,
            }
        })
        .collect();
    let rules = tight(rules);
    Some(Validated::Route(Obj {
        meta,
        spec: Route {
            kind: RouteKind::Grpc,
            parent_refs,
            hostnames,
            rules,
            status,
        },
    }))
}
