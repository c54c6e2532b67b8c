//! Kuadrant policies converted into the model: target references, predicates, limits, AuthPolicy
//! rules, and the DNS and TLS policies, with the CRD defaults the model needs.

use super::*;

pub(in crate::load) fn target_ref(
    kind: ObjectKind,
    t: Option<Sp<RawTargetRef>>,
    at: Span,
    version: KuadrantVersion,
    c: &mut Check,
) -> Option<TargetRef> {
    let Some(t) = t else {
        c.missing(at, "spec.targetRef");
        return None;
    };
    let span = t.span;
    let t = t.value;
    // The CRD's schema and rules (the group, the kinds each policy and release accept, the
    // name's length) were checked before (`schema_pass`).
    let _ = (kind, version);
    let group = c.required(&t.group, span, "spec.targetRef.group")?.clone();
    let k = c.required(&t.kind, span, "spec.targetRef.kind")?.clone();
    let name = c.required(&t.name, span, "spec.targetRef.name")?.clone();
    Some(TargetRef {
        group,
        kind: k,
        name,
        section_name: t.section_name,
        span,
    })
}

pub(super) fn predicates(p: Option<Vec<RawPredicate>>, at: Span, c: &mut Check) -> Vec<Sp<String>> {
    let mut out = Vec::new();
    for x in p.unwrap_or_default() {
        match x.predicate {
            Some(s) => out.push(s),
            None => c.missing(at, "when[].predicate"),
        }
    }
    tight(out)
}

/// `strategy` (the CRD's enum: atomic, merge; default atomic).
pub(super) fn strategy(s: &Option<Str>) -> Strategy {
    match s.as_ref().map(|s| s.value.as_str()) {
        Some("merge") => Strategy::Merge,
        _ => Strategy::Atomic,
    }
}

pub(super) fn limits(
    raw: Option<Sp<IndexMap<String, RawLimit>>>,
    c: &mut Check,
) -> IndexMap<String, Arc<Limit>> {
    let mut out = IndexMap::new();
    let Some(raw) = raw else { return out };
    let at = raw.span;
    for (name, l) in raw.value {
        let when = predicates(l.when, at, c);
        let mut counters = Vec::new();
        for x in l.counters.unwrap_or_default() {
            match x.expression {
                Some(s) => counters.push(s),
                None => c.missing(at, "counters[].expression"),
            }
        }
        let mut rates = Vec::new();
        for r in l.rates.unwrap_or_default() {
            let (Some(limit), Some(window)) = (&r.limit, &r.window) else {
                c.missing(
                    at,
                    if r.limit.is_none() {
                        "rates[].limit"
                    } else {
                        "rates[].window"
                    },
                );
                continue;
            };
            rates.push(Rate {
                limit: limit.value,
                window: window.value.clone(),
                span: window.span,
            });
        }
        out.insert(
            name,
            Arc::new(Limit {
                when,
                counters: tight(counters),
                rates: tight(rates),
            }),
        );
    }
    out.shrink_to_fit();
    out
}

pub(super) fn limits_policy(
    kind: ObjectKind,
    meta: Meta,
    s: RateLimitPolicySpec,
    version: KuadrantVersion,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    let target = target_ref(kind, s.target_ref, at, version, c);
    // The CRD's rules (defaults, overrides and implicit limits exclusive, each non-empty) were
    // checked before (`schema_pass`).
    // Proper(): defaults > overrides > bare.
    let (block, strat, when, lims) = if let Some((block, b)) = named_block(s.defaults, s.overrides)
    {
        (
            block,
            strategy(&b.value.strategy),
            predicates(b.value.when, b.span, c),
            limits(b.value.limits, c),
        )
    } else {
        let wspan = s.when.as_ref().map(|w| w.span).unwrap_or(at);
        (
            Block::Implicit,
            Strategy::Atomic,
            predicates(s.when.map(|w| w.value), wspan, c),
            limits(s.limits, c),
        )
    };
    let spec = LimitsSpec {
        block,
        strategy: strat,
        when,
        limits: lims,
    };
    let (pk, body) = if kind == ObjectKind::TokenRateLimitPolicy {
        (PolicyKind::TokenRateLimit, PolicyBody::TokenRateLimit(spec))
    } else {
        (PolicyKind::RateLimit, PolicyBody::RateLimit(spec))
    };
    Some(Validated::Policy(Box::new(Policy {
        kind: pk,
        meta,
        target: target?,
        body,
    })))
}

pub(super) fn auth_rules(r: Option<Sp<RawAuthRules>>) -> Option<Box<AuthRules>> {
    let r = r?.value;
    let resp = r.response.unwrap_or_default();
    let success = resp.success.unwrap_or_default();
    Some(Box::new(AuthRules {
        authentication: r.authentication.unwrap_or_default(),
        metadata: r.metadata.unwrap_or_default(),
        authorization: r.authorization.unwrap_or_default(),
        callbacks: r.callbacks.unwrap_or_default(),
        unauthenticated: resp.unauthenticated,
        unauthorized: resp.unauthorized,
        success_headers: success.headers.unwrap_or_default(),
        success_filters: success.filters.unwrap_or_default(),
    }))
}

/// The block a policy's rules come from when it names one (`Proper()`): `defaults` before
/// `overrides`; `None` for bare rules.
fn named_block<B>(defaults: Option<Sp<B>>, overrides: Option<Sp<B>>) -> Option<(Block, Sp<B>)> {
    match (defaults, overrides) {
        (Some(df), _) => Some((Block::Defaults, df)),
        (None, Some(ov)) => Some((Block::Overrides, ov)),
        (None, None) => None,
    }
}

pub(super) fn auth_policy(
    meta: Meta,
    s: AuthPolicySpec,
    version: KuadrantVersion,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    let target = target_ref(ObjectKind::AuthPolicy, s.target_ref, at, version, c);
    // The CRD's rules (defaults, overrides and implicit rules exclusive, each non-empty) were
    // checked before (`schema_pass`).
    let (block, strat, patterns, when, rules) =
        if let Some((block, b)) = named_block(s.defaults, s.overrides) {
            (
                block,
                strategy(&b.value.strategy),
                b.value.patterns.unwrap_or_default(),
                predicates(b.value.when, b.span, c),
                auth_rules(b.value.rules),
            )
        } else {
            let wspan = s.when.as_ref().map(|w| w.span).unwrap_or(at);
            (
                Block::Implicit,
                Strategy::Atomic,
                s.patterns.map(|p| p.value).unwrap_or_default(),
                predicates(s.when.map(|w| w.value), wspan, c),
                auth_rules(s.rules),
            )
        };
    Some(Validated::Policy(Box::new(Policy {
        kind: PolicyKind::Auth,
        meta,
        target: target?,
        body: PolicyBody::Auth(AuthSpec {
            block,
            strategy: strat,
            patterns,
            when,
            rules,
        }),
    })))
}

pub(super) fn direct_policy(
    kind: ObjectKind,
    meta: Meta,
    mut s: DirectPolicySpec,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    // DNS/TLS CRDs are identical across 1.4 and 1.5 for the checks below.
    let target = target_ref(kind, s.target_ref.take(), at, KuadrantVersion::V1_4, c);
    let pk = if kind == ObjectKind::DnsPolicy {
        PolicyKind::Dns
    } else {
        PolicyKind::Tls
    };
    let mut go_duration = |d: Option<Str>, field: &str| {
        let d = d?;
        match crate::model::duration::parse(&d.value) {
            Some(ns) => Some(crate::model::duration::format(ns)),
            None => {
                c.schema(
                    d.span,
                    format!("spec.{field} {:?} is not a Go duration", d.value),
                    "write it as Go's time.ParseDuration reads it, e.g. 2160h or 90m",
                );
                None
            }
        }
    };
    let duration = go_duration(s.duration, "duration");
    let renew_before = go_duration(s.renew_before, "renewBefore");
    let issuer = s.issuer_ref.as_ref().and_then(|ir| {
        Some(IssuerRef {
            name: ir.value.name.clone()?,
            kind: ir
                .value
                .kind
                .as_ref()
                .map(|k| k.value.clone())
                .unwrap_or_default(),
        })
    });
    let issuer_ref = s.issuer_ref.map(issuer_ref_map);
    let private_key = s.private_key.map(private_key_map);
    let body = DirectSpec {
        issuer_ref,
        common_name: s.common_name.unwrap_or_default(),
        duration,
        renew_before,
        usages: s.usages,
        revision_history_limit: s.revision_history_limit,
        private_key,
        provider_ref: s.provider_refs.and_then(|p| p.value.into_iter().next()),
        delegate: s.delegate == Some(true),
        health_check: s.health_check,
        exclude_addresses: s
            .exclude_addresses
            .map(|e| e.value.into_iter().map(|a| a.value).collect())
            .unwrap_or_default(),
        load_balancing: s.load_balancing.is_some(),
        issuer,
    };
    Some(Validated::Policy(Box::new(Policy {
        kind: pk,
        meta,
        target: target?,
        body: PolicyBody::Direct(Box::new(body)),
    })))
}

/// A TLSPolicy's `issuerRef` as the Certificate carries it (empty kind and group left out).
pub(super) fn issuer_ref_map(r: Sp<RawIssuerRef>) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert(
        "name".into(),
        Value::from(r.value.name.map(|n| n.value).unwrap_or_default()),
    );
    if let Some(k) = r.value.kind.filter(|k| !k.value.is_empty()) {
        m.insert("kind".into(), Value::from(k.value));
    }
    if let Some(g) = r.value.group.filter(|g| !g.is_empty()) {
        m.insert("group".into(), Value::from(g));
    }
    m
}

/// A TLSPolicy's `privateKey` as the Certificate carries it (empty fields left out).
pub(super) fn private_key_map(k: RawPrivateKey) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    let mut put = |key: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            m.insert(key.into(), Value::from(v));
        }
    };
    put("algorithm", k.algorithm);
    put("encoding", k.encoding);
    put("rotationPolicy", k.rotation_policy);
    if let Some(n) = k.size.filter(|n| *n != 0) {
        m.insert("size".into(), Value::from(n));
    }
    m
}
