//! The people's view of traces: a short tree for one request, one line per request for a sequence.

use super::{ActionTrace, Trace};
use crate::render::terminal;

fn short(h: &str) -> &str {
    if crate::model::is_sha256_hex(h) {
        &h[..12]
    } else {
        h
    }
}

fn verdict(t: &Trace) -> String {
    if t.undecided.is_some() {
        return "- undecided".into();
    }
    let status = t
        .status
        .map(|s| s.to_string())
        .unwrap_or_else(|| "-".into());
    let word = if t.allowed {
        "allowed".to_string()
    } else if let Some(l) = &t.limit {
        format!("limited by {l:?}")
    } else {
        "refused".to_string()
    };
    match &t.grpc_status {
        Some(g) => format!("{status} {word} (gRPC {g})"),
        None => format!("{status} {word}"),
    }
}

/// The lines of an auth action: what Authorino answered, how each rule went, and what it sent.
fn auth_lines(head: &str, auth: &super::AuthTrace, sub: &mut Vec<String>) {
    use super::authorino::Outcome;
    let word = match &auth.outcome {
        Some(Outcome::Allowed { .. }) => "allowed",
        Some(Outcome::Denied { .. }) => "denied",
        Some(Outcome::Undecided { .. }) => "undecided",
        None if auth.authenticated => "allowed",
        None => "denied",
    };
    sub.push(format!("{head}: {word}"));
    for step in &auth.steps {
        sub.push(format!("  {step}"));
    }
    match &auth.outcome {
        Some(Outcome::Allowed {
            headers, metadata, ..
        }) => {
            for (k, v) in headers {
                sub.push(format!("  request header {k}: {v}"));
            }
            if !metadata.is_empty() {
                sub.push(format!(
                    "  stored as auth: {}",
                    serde_json::Value::Object(metadata.clone())
                ));
            }
        }
        Some(Outcome::Denied { headers, body, .. }) => {
            sub.push(format!("  {}", auth.reason));
            for (k, v) in headers {
                sub.push(format!("  response header {k}: {v}"));
            }
            if let Some(b) = body {
                sub.push(format!("  response body: {b}"));
            }
        }
        Some(Outcome::Undecided { reason }) => sub.push(format!("  {reason}")),
        None => sub.push(format!("  {}", auth.reason)),
    }
}

fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}.{:03}s", ms / 1000, ms % 1000)
    }
}

/// The counters an action hit, as `name 4/5 left, resets in 10s`.
fn counters(a: &ActionTrace) -> Vec<String> {
    a.limitador
        .iter()
        .flat_map(|d| d.counters.iter())
        .map(|c| {
            format!(
                "{} {}/{} left, resets in {}",
                if c.limit.is_empty() { &c.key } else { &c.limit },
                c.remaining,
                c.max_value,
                seconds(c.resets_in_ms)
            )
        })
        .collect()
}

/// One request as a tree.
pub fn tree(t: &Trace) -> String {
    let mut lines = vec![format!("{} {} -> {}", t.method, t.url, verdict(t))];
    let mut items: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(sent) = &t.path_as_sent {
        items.push((
            format!("path {sent} normalized by Envoy (RFC 3986 dot segments)"),
            vec![],
        ));
    }
    match &t.routing {
        Some(r) => {
            let host = r
                .listener_hostname
                .as_deref()
                .map(|h| format!(", {h}"))
                .unwrap_or_default();
            items.push((
                format!(
                    "gateway {} listener {} ({} {}{host})",
                    r.gateway, r.listener, r.listener_protocol, r.listener_port
                ),
                vec![],
            ));
            match (&r.route, &r.rule) {
                (Some(route), Some(rule)) => items.push((format!("route {route} {rule}"), vec![])),
                _ => items.push(("no route rule matches".into(), vec![])),
            }
        }
        None => items.push(("no gateway listener".into(), vec![])),
    }
    if !t.other_gateways.is_empty() {
        items.push((
            format!(
                "also listening: {} (choose with --gateway)",
                t.other_gateways.join(", ")
            ),
            vec![],
        ));
    }
    match &t.action_set {
        Some(s) => {
            let mut sub = Vec::new();
            for a in &t.actions {
                let head = format!("{} {}", a.service, short(&a.scope));
                if let Some(p) = &a.skipped_by {
                    sub.push(format!("{head}: skipped, {} is false", p.trim()));
                } else if let Some(e) = &a.error {
                    sub.push(format!("{head}: error: {e}"));
                } else if let Some(auth) = &a.auth {
                    auth_lines(&head, auth, &mut sub);
                } else if a.descriptor.is_empty() {
                    sub.push(format!("{head}: no descriptor entry, nothing sent"));
                } else {
                    let d: Vec<String> = a
                        .descriptor
                        .iter()
                        .map(|e| format!("{}={}", e.key, e.value))
                        .collect();
                    let extra: Vec<String> = (a.request_data.iter())
                        .map(|e| format!("{}={}", e.key, e.value))
                        .collect();
                    if extra.is_empty() {
                        sub.push(format!("{head}: {}", d.join(" ")));
                    } else {
                        sub.push(format!(
                            "{head}: {}; requestData {}",
                            d.join(" "),
                            extra.join(" ")
                        ));
                    }
                    for c in counters(a) {
                        sub.push(format!("  {c}"));
                    }
                }
            }
            for n in &t.not_simulated {
                sub.push(format!("{n}: not simulated (typed action)"));
            }
            items.push((
                format!(
                    "action set {} ({})",
                    short(s),
                    t.action_set_hostname.as_deref().unwrap_or("")
                ),
                sub,
            ));
        }
        None => items.push(("no action set: no Kuadrant policy applies".into(), vec![])),
    }
    items.push((t.decided_by.clone(), vec![]));
    let n = items.len();
    for (i, (head, sub)) in items.into_iter().enumerate() {
        let last = i + 1 == n;
        lines.push(format!("{}{head}", if last { "└─ " } else { "├─ " }));
        let bar = if last { "   " } else { "│  " };
        for s in sub {
            lines.push(format!("{bar}{s}"));
        }
    }
    // URLs, header values and identities come from the command line or a request file: no
    // control character of theirs reaches the terminal.
    let lines: Vec<_> = lines.iter().map(|l| terminal::line(l)).collect();
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Request `number` (from 1) of a sequence, on one line.
pub fn line(number: u64, t: &Trace) -> String {
    let detail = if t.allowed {
        t.actions
            .iter()
            .flat_map(counters)
            .collect::<Vec<_>>()
            .join("; ")
    } else {
        t.decided_by.clone()
    };
    let line = format!(
        "{:>3} {:>8} {} {} {}{}",
        number,
        format!("+{}", seconds(t.at_ms)),
        t.method,
        t.url,
        verdict(t),
        if detail.is_empty() {
            String::new()
        } else {
            format!("  ({detail})")
        }
    );
    let mut out = terminal::line(&line).into_owned();
    out.push('\n');
    out
}

/// The last line of a sequence of `n` requests.
pub fn summary(n: u64, allowed: u64, undecided: u64) -> String {
    if undecided == 0 {
        format!("{allowed} allowed, {} refused\n", n - allowed)
    } else {
        format!(
            "{allowed} allowed, {} refused, {undecided} undecided\n",
            n - allowed - undecided
        )
    }
}

/// One line per request, and the summary.
pub fn lines(traces: &[Trace]) -> String {
    let mut out = String::new();
    for (i, t) in traces.iter().enumerate() {
        out.push_str(&line(i as u64 + 1, t));
    }
    let allowed = traces.iter().filter(|t| t.allowed).count() as u64;
    let undecided = traces.iter().filter(|t| t.undecided.is_some()).count() as u64;
    out.push_str(&summary(traces.len() as u64, allowed, undecided));
    out
}
