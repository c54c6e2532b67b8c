//! `policyctl audit` as text: the coverage table with its summary and findings, JSON, and the
//! Markdown of a pull-request comment (with what a change does when there is a base).

use crate::audit::{Audit, Change, Coverage, Delta, Row, State, route_rules};
use crate::diag::Diagnostics;
use crate::source::SourceMap;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use unicode_width::UnicodeWidthStr;

/// Listeners named in a summary line before the rest is counted.
const LISTENERS_SHOWN: usize = 10;

/// The counts of one kind of protection.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub full: usize,
    pub partial: usize,
    pub anonymous: usize,
    pub none: usize,
}

impl Counts {
    fn add(&mut self, s: State) {
        match s {
            State::Full => self.full += 1,
            State::Partial => self.partial += 1,
            State::Anonymous => self.anonymous += 1,
            State::None => self.none += 1,
        }
    }
}

/// The numbers of a coverage.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Rows: paths, each once per hostname.
    pub paths: usize,
    pub auth: Counts,
    pub rate_limit: Counts,
}

pub fn summary(rows: &[Row]) -> Summary {
    let mut s = Summary {
        paths: rows.len(),
        ..Summary::default()
    };
    for r in rows {
        s.auth.add(r.auth.state);
        s.rate_limit.add(r.rate_limit.state);
    }
    s
}

/// `ns/gateway#listener`.
fn listener(r: &Row) -> String {
    format!("{}#{}", r.gateway, r.listener)
}

/// A cell: who protects the row, and how far.
fn cell(c: &Coverage) -> String {
    let who = c.policies.join(", ");
    match c.state {
        State::Full => who,
        State::Partial if !c.when.is_empty() => {
            format!("partial: {who} when {}", c.when.join(" || "))
        }
        State::Partial => format!("partial: {who}, not on {}", c.not_on.join(", ")),
        State::Anonymous => format!("anonymous: {who}"),
        State::None => match c.reason.as_deref() {
            Some(r) if !r.starts_with("no ") => format!("none: {r}"),
            _ => "none".into(),
        },
    }
}

/// The lines of one kind of protection in the summary: the counts, then the listeners with rows
/// that are not fully protected.
fn summary_lines(out: &mut String, what: &str, rows: &[Row], pick: fn(&Row) -> &Coverage) {
    let mut counts = Counts::default();
    let mut by_listener: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for r in rows {
        let s = pick(r).state;
        counts.add(s);
        let e = by_listener.entry(listener(r)).or_default();
        e.1 += 1;
        if s != State::Full {
            e.0 += 1;
        }
    }
    let total = rows.len();
    let weak = total - counts.full;
    let mut parts = vec![format!("{} full", counts.full)];
    if counts.partial > 0 {
        parts.push(format!("{} partial", counts.partial));
    }
    if counts.anonymous > 0 {
        parts.push(format!("{} anonymous", counts.anonymous));
    }
    parts.push(format!("{} none", counts.none));
    let _ = writeln!(
        out,
        "{what}: {weak} of {} not fully covered ({})",
        count(total, "path"),
        parts.join(", ")
    );
    let listed: Vec<(&String, &(usize, usize))> =
        by_listener.iter().filter(|(_, (w, _))| *w > 0).collect();
    for (l, (w, n)) in listed.iter().take(LISTENERS_SHOWN) {
        let _ = writeln!(
            out,
            "  {w} of {n} on listener {}",
            crate::render::terminal::line(l)
        );
    }
    if listed.len() > LISTENERS_SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more listeners",
            listed.len() - LISTENERS_SHOWN
        );
    }
}

/// The table: one line per path and hostname, then the summary, the change (with a base) and
/// the findings, one line each. Columns are padded to their widest cell, two spaces apart. A large
/// estate has hundreds of thousands of lines: every cell text is shared by many rows (the same
/// gateway, route, coverage), so each distinct text is made safe and measured once, and the lines
/// are written straight into the text.
pub fn table(a: &Audit, change: Option<&Change>, sources: &SourceMap) -> String {
    const HEADER: [&str; 8] = [
        "GATEWAY",
        "LISTENER",
        "HOSTNAME",
        "ROUTE",
        "RULE",
        "MATCHES",
        "AUTH",
        "RATE LIMIT",
    ];
    // Each distinct cell by the address of the value it shows: (text, width).
    let mut texts: HashMap<usize, (String, usize)> = HashMap::new();
    let mut text = |key: usize, make: &dyn Fn() -> String| -> usize {
        texts.entry(key).or_insert_with(|| {
            let t = crate::render::terminal::line(&make()).into_owned();
            let w = t.width();
            (t, w)
        });
        key
    };
    let addr = |s: &str| s.as_ptr() as usize;
    let mut keys: Vec<[usize; 8]> = Vec::with_capacity(a.coverage.len());
    for r in &a.coverage {
        let host = r.hostname.as_deref().unwrap_or("-");
        keys.push([
            text(addr(&r.gateway), &|| r.gateway.to_string()),
            text(addr(&r.listener), &|| r.listener.to_string()),
            text(addr(host), &|| host.to_string()),
            text(addr(&r.route), &|| r.route.to_string()),
            text(addr(&r.rule), &|| r.rule.to_string()),
            text(
                std::sync::Arc::as_ptr(&r.matches) as *const String as usize,
                &|| r.matches.join(" | "),
            ),
            text(std::sync::Arc::as_ptr(&r.auth) as usize, &|| cell(&r.auth)),
            text(std::sync::Arc::as_ptr(&r.rate_limit) as usize, &|| {
                cell(&r.rate_limit)
            }),
        ]);
    }
    let mut widths = HEADER.map(UnicodeWidthStr::width);
    for k in &keys {
        for (w, key) in widths.iter_mut().zip(k) {
            *w = (*w).max(texts[key].1);
        }
    }
    let mut out = String::new();
    if a.coverage.is_empty() {
        out.push_str("No paths: no route is attached to a Gateway.\n");
    } else {
        let push_line = |out: &mut String, parts: [(&str, usize); 8]| {
            let start = out.len();
            for (i, (c, w)) in parts.iter().enumerate() {
                out.push_str(c);
                if i + 1 < parts.len() {
                    out.extend(std::iter::repeat_n(' ', widths[i] - w + 2));
                }
            }
            let kept = out[start..].trim_end().len();
            out.truncate(start + kept);
            out.push('\n');
        };
        out.reserve(a.coverage.len() * (widths.iter().sum::<usize>() + 16));
        push_line(&mut out, HEADER.map(|h| (h, h.width())));
        for k in &keys {
            push_line(
                &mut out,
                k.map(|key| {
                    let (t, w) = &texts[&key];
                    (t.as_str(), *w)
                }),
            );
        }
    }
    out.push('\n');
    summary_lines(&mut out, "authentication", &a.coverage, |r| &r.auth);
    summary_lines(&mut out, "rate limiting", &a.coverage, |r| &r.rate_limit);
    if let Some(c) = change {
        out.push('\n');
        out.push_str(&change_text(c));
    }
    out.push('\n');
    if a.findings.is_empty() {
        out.push_str("No findings.\n");
    } else {
        let _ = writeln!(out, "Findings ({}):", a.findings.len());
        out.push_str(&crate::render::diagnostics::short(&a.findings, sources));
    }
    out
}

/// What a change does, as lines.
fn change_text(c: &Change) -> String {
    let mut out = String::new();
    if c.is_empty() {
        out.push_str("This change does not change coverage or findings.\n");
        return out;
    }
    for (what, weak, strong) in [
        ("authentication", &c.auth_weakened, &c.auth_strengthened),
        (
            "rate limiting",
            &c.rate_limit_weakened,
            &c.rate_limit_strengthened,
        ),
    ] {
        if !weak.is_empty() {
            let rules = route_rules(weak);
            let _ = writeln!(
                out,
                "This change leaves {} without full {what}:",
                count(rules.len(), "route rule")
            );
            for d in weak {
                let _ = writeln!(out, "  {}", crate::render::terminal::line(&delta_line(d)));
            }
        }
        if !strong.is_empty() {
            let _ = writeln!(
                out,
                "This change strengthens {what} on {}.",
                count(route_rules(strong).len(), "route rule")
            );
        }
    }
    for (title, items) in [
        ("New findings", &c.findings_added),
        ("Resolved findings", &c.findings_resolved),
    ] {
        if !items.is_empty() {
            let _ = writeln!(out, "{title} ({}):", items.len());
            for i in items {
                let _ = writeln!(out, "  {}", crate::render::terminal::line(i));
            }
        }
    }
    out
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn state(s: Option<State>) -> &'static str {
    s.map_or("new", State::as_str)
}

/// `HTTPRoute ns/r rule-1 on ns/gw#listener (host): full → none (no AuthPolicy)`.
fn delta_line(d: &Delta) -> String {
    let host = d
        .hostname
        .as_deref()
        .map(|h| format!(" ({h})"))
        .unwrap_or_default();
    let detail = if d.detail.is_empty() {
        String::new()
    } else {
        format!(": {}", d.detail)
    };
    format!(
        "{} {} on {}#{}{host}: {} → {}{detail}",
        d.route,
        d.rule,
        d.gateway,
        d.listener,
        state(d.before),
        state(d.after)
    )
}

#[derive(Serialize)]
struct JsonAudit<'a> {
    coverage: &'a [Row],
    findings: Vec<serde_json::Value>,
    summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<&'a Change>,
}

/// `{"coverage": [...], "findings": [...], "summary": {...}, "change": {...}}`, pretty-printed,
/// terminal-safe, with a final newline. `findings` have the shape of `lint -o json`'s
/// diagnostics (`code`, `severity`, `message`, `object`, `file`, `line`, `column`, `help`).
pub fn json(a: &Audit, change: Option<&Change>, sources: &SourceMap) -> String {
    let v = JsonAudit {
        coverage: &a.coverage,
        findings: findings_json(&a.findings, sources),
        summary: summary(&a.coverage),
        change,
    };
    let mut s = crate::render::terminal::json(serde_json::to_string_pretty(&v).unwrap_or_default());
    s.push('\n');
    s
}

fn findings_json(ds: &Diagnostics, sources: &SourceMap) -> Vec<serde_json::Value> {
    ds.iter()
        .filter_map(|d| {
            serde_json::to_value(crate::render::diagnostics::json_diag(d, sources)).ok()
        })
        .collect()
}

/// A Markdown table cell: pipes escaped, one line, terminal-safe.
fn md(s: &str) -> String {
    crate::render::terminal::line(&s.replace('|', "\\|")).into_owned()
}

/// A pull-request comment: what the change does (with a base), the counts, the paths that are
/// not fully covered, and the findings.
pub fn markdown(a: &Audit, change: Option<&Change>, sources: &SourceMap) -> String {
    let mut out = String::from("### policyctl audit\n\n");
    if let Some(c) = change {
        out.push_str(&change_markdown(c));
    }
    let s = summary(&a.coverage);
    let _ = writeln!(
        out,
        "{} (gateway, listener, hostname, route rule):\n",
        count(s.paths, "path")
    );
    out.push_str("| | full | partial | anonymous | none |\n|---|---|---|---|---|\n");
    let _ = writeln!(
        out,
        "| authentication | {} | {} | {} | {} |",
        s.auth.full, s.auth.partial, s.auth.anonymous, s.auth.none
    );
    let _ = writeln!(
        out,
        "| rate limiting | {} | {} | – | {} |",
        s.rate_limit.full, s.rate_limit.partial, s.rate_limit.none
    );
    let weak: Vec<&Row> = a
        .coverage
        .iter()
        .filter(|r| r.auth.state != State::Full || r.rate_limit.state != State::Full)
        .collect();
    if !weak.is_empty() {
        let _ = write!(
            out,
            "\n<details><summary>Paths not fully covered ({})</summary>\n\n",
            weak.len()
        );
        out.push_str("| gateway | listener | hostname | route rule | matches | authentication | rate limiting |\n|---|---|---|---|---|---|---|\n");
        for r in weak {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} {} {} | {} | {} | {} |",
                md(&r.gateway),
                md(&r.listener),
                md(r.hostname.as_deref().unwrap_or("-")),
                r.route_kind,
                md(&r.route),
                md(&r.rule),
                md(&r.matches.join(", ")),
                md(&cell(&r.auth)),
                md(&cell(&r.rate_limit)),
            );
        }
        out.push_str("\n</details>\n");
    }
    if a.findings.is_empty() {
        out.push_str("\nNo findings.\n");
    } else {
        let _ = write!(
            out,
            "\n**Findings ({})**\n\n| code | severity | object | where | message |\n|---|---|---|---|---|\n",
            a.findings.len()
        );
        for d in &a.findings {
            let at = d
                .primary_span()
                .and_then(|sp| sources.position(sp))
                .map(|p| format!("{}:{}", p.file, p.line))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                d.code.as_str(),
                d.severity.as_str(),
                md(d.object.as_deref().unwrap_or("")),
                md(&at),
                md(&d.message)
            );
        }
    }
    out
}

/// The change section of the comment.
fn change_markdown(c: &Change) -> String {
    let mut out = String::from("#### What this change does\n\n");
    if c.is_empty() {
        out.push_str("Coverage and findings are the same as on the base.\n\n");
        return out;
    }
    for (what, weak, strong) in [
        ("authentication", &c.auth_weakened, &c.auth_strengthened),
        (
            "rate limiting",
            &c.rate_limit_weakened,
            &c.rate_limit_strengthened,
        ),
    ] {
        if !weak.is_empty() {
            let rules = route_rules(weak);
            let _ = writeln!(
                out,
                "- :warning: This change leaves **{}** without full {what}: {}",
                count(rules.len(), "route rule"),
                rules
                    .iter()
                    .map(|r| format!("`{}`", md(r)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !strong.is_empty() {
            let _ = writeln!(
                out,
                "- This change strengthens {what} on {}.",
                count(route_rules(strong).len(), "route rule")
            );
        }
    }
    if !c.findings_added.is_empty() || !c.findings_resolved.is_empty() {
        let _ = writeln!(
            out,
            "- Findings: {} new, {} resolved.",
            c.findings_added.len(),
            c.findings_resolved.len()
        );
    }
    let weak: Vec<(&str, &Delta)> = c
        .auth_weakened
        .iter()
        .map(|d| ("authentication", d))
        .chain(c.rate_limit_weakened.iter().map(|d| ("rate limiting", d)))
        .collect();
    if !weak.is_empty() {
        out.push_str("\n| route rule | where | | before | after | |\n|---|---|---|---|---|---|\n");
        for (what, d) in weak {
            let host = d
                .hostname
                .as_deref()
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| {} {} | {}#{}{} | {what} | {} | {} | {} |",
                md(&d.route),
                md(&d.rule),
                md(&d.gateway),
                md(&d.listener),
                md(&host),
                state(d.before),
                state(d.after),
                md(&d.detail)
            );
        }
    }
    for (title, items) in [
        ("New findings", &c.findings_added),
        ("Resolved findings", &c.findings_resolved),
    ] {
        if !items.is_empty() {
            let _ = write!(
                out,
                "\n<details><summary>{title} ({})</summary>\n\n",
                items.len()
            );
            for i in items {
                let _ = writeln!(out, "- {}", md(i));
            }
            out.push_str("\n</details>\n");
        }
    }
    out.push('\n');
    out
}
