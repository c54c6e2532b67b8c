//! `policyctl audit` as text: the coverage table with its summary and findings, JSON, and the
//! Markdown of a pull-request comment (with what a change does when there is a base).

use crate::audit::{Audit, Change, Coverage, Delta, Row, State, route_rules};
use crate::diag::Diagnostics;
use crate::source::SourceMap;
use serde::Serialize;
use std::collections::HashMap;
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
    /// Paths (gateway, listener, route rule): their hostnames are covered alike.
    pub paths: usize,
    pub auth: Counts,
    pub rate_limit: Counts,
}

/// The rows of each path: consecutive rows of one path index (its hostnames), as ranges. Every
/// hostname of a path has the same action lists and route predicates, so the same coverage.
fn paths(rows: &[Row]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        match out.last_mut() {
            Some(last) if rows[last.start].path == r.path => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

pub fn summary(rows: &[Row]) -> Summary {
    let groups = paths(rows);
    let mut s = Summary {
        paths: groups.len(),
        ..Summary::default()
    };
    for g in groups {
        s.auth.add(rows[g.start].auth.state);
        s.rate_limit.add(rows[g.start].rate_limit.state);
    }
    s
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

/// The lines of one kind of protection in the summary: the counts, then the listeners with paths
/// that are not fully protected.
fn summary_lines(out: &mut String, what: &str, rows: &[Row], pick: fn(&Row) -> &Coverage) {
    let mut counts = Counts::default();
    // By listener (its gateway and listener texts; runs of the walk have their own copies of a
    // listener's text, so not by address): not full, all.
    let mut by_listener: HashMap<(&str, &str), (&Row, usize, usize)> = HashMap::new();
    let groups = paths(rows);
    for g in &groups {
        let r = &rows[g.start];
        let s = pick(r).state;
        counts.add(s);
        let key = (&*r.gateway, &*r.listener);
        let e = by_listener.entry(key).or_insert((r, 0, 0));
        e.2 += 1;
        if s != State::Full {
            e.1 += 1;
        }
    }
    let total = groups.len();
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
    let mut listed: Vec<(String, usize, usize)> = by_listener
        .values()
        .filter(|(_, w, _)| *w > 0)
        .map(|(r, w, n)| (format!("{}#{}", r.gateway, r.listener), *w, *n))
        .collect();
    listed.sort();
    for (l, w, n) in listed.iter().take(LISTENERS_SHOWN) {
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

/// The widest a padded column gets: a longer cell (a long reason, many hostnames) pushes the rest
/// of its line out rather than every line of the table.
const COLUMN_CAP: usize = 60;

/// The table: one line per path (its hostnames together: they are covered alike), then the
/// summary, the change (with a base) and the findings, one line each. Columns are padded to their
/// widest cell (at most [`COLUMN_CAP`]), two spaces apart.
pub fn table(a: &Audit, change: Option<&Change>, sources: &SourceMap) -> String {
    let mut out = Vec::new();
    // Writing to memory does not fail.
    let _ = write_table(a, change, sources, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The distinct cells of the table, made safe and measured once: every cell text is shared by
/// many lines (the same gateway, route, coverage), found by the address of the value it shows.
struct Cells {
    /// (text, width).
    texts: Vec<(String, usize)>,
    by_address: HashMap<usize, usize>,
    /// Per column: the address of the last cell and its index (lines of one route follow each
    /// other).
    last: [(usize, usize); 8],
}

impl Cells {
    fn add(&mut self, text: &str) -> usize {
        let t = crate::render::terminal::line(text).into_owned();
        let w = t.width();
        self.texts.push((t, w));
        self.texts.len() - 1
    }

    fn get(&mut self, column: usize, address: usize, make: impl FnOnce() -> String) -> usize {
        if self.last[column].0 == address {
            return self.last[column].1;
        }
        let i = match self.by_address.get(&address) {
            Some(i) => *i,
            None => {
                let i = self.add(&make());
                self.by_address.insert(address, i);
                i
            }
        };
        self.last[column] = (address, i);
        i
    }
}

/// [`table`], written to `w` as it is made: a large estate has hundreds of thousands of lines,
/// written in blocks, each block's lines in parts on the cores.
pub fn write_table(
    a: &Audit,
    change: Option<&Change>,
    sources: &SourceMap,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    const HEADER: [&str; 8] = [
        "GATEWAY",
        "LISTENER",
        "HOSTNAMES",
        "ROUTE",
        "RULE",
        "MATCHES",
        "AUTH",
        "RATE LIMIT",
    ];
    let rows = &a.coverage;
    // The summary (and the line index of the files the findings point into) is made on a core of
    // its own while the table's cells are.
    let (summary, (texts, keys)) = crate::par::join(
        || {
            let mut out = String::from("\n");
            summary_lines(&mut out, "authentication", rows, |r| &r.auth);
            summary_lines(&mut out, "rate limiting", rows, |r| &r.rate_limit);
            let mut warmed = std::collections::BTreeSet::new();
            for d in a.findings.iter() {
                if let Some(span) = d.primary_span()
                    && warmed.insert(span.source)
                {
                    sources.position(span);
                }
            }
            out
        },
        || table_cells(rows),
    );
    let texts = &texts;
    let mut widths = HEADER.map(UnicodeWidthStr::width);
    for k in &keys {
        for (w, key) in widths.iter_mut().zip(k) {
            *w = (*w).max(texts[*key].1.min(COLUMN_CAP));
        }
    }
    if rows.is_empty() {
        w.write_all(b"No paths: no route is attached to a Gateway.\n")?;
    } else {
        let push_line = |out: &mut String, parts: [(&str, usize); 8]| {
            const SPACES: &str = "                                                                ";
            let start = out.len();
            for (i, (c, w)) in parts.iter().enumerate() {
                out.push_str(c);
                if i + 1 < parts.len() {
                    let mut pad = widths[i].saturating_sub(*w) + 2;
                    while pad > 0 {
                        let n = pad.min(SPACES.len());
                        out.push_str(&SPACES[..n]);
                        pad -= n;
                    }
                }
            }
            let kept = out[start..].trim_end().len();
            out.truncate(start + kept);
            out.push('\n');
        };
        let mut header = String::new();
        push_line(&mut header, HEADER.map(|h| (h, h.width())));
        w.write_all(header.as_bytes())?;
        let line_len = widths.iter().sum::<usize>() + 16;
        let cores = crate::par::cores();
        for block in keys.chunks(cores * LINES_PER_RUN) {
            let runs = cores.min(block.len() / LINES_PER_RUN).max(1);
            let parts = crate::par::map_ranges(crate::par::even_ranges(block.len(), runs), |r| {
                let mut part = String::with_capacity(r.len() * line_len);
                for k in &block[r] {
                    push_line(&mut part, k.map(|i| (texts[i].0.as_str(), texts[i].1)));
                }
                part
            });
            for p in parts {
                w.write_all(p.as_bytes())?;
            }
        }
    }
    let mut out = summary;
    if let Some(c) = change {
        out.push('\n');
        out.push_str(&change_text(c));
    }
    out.push('\n');
    if a.findings.is_empty() {
        out.push_str("No findings.\n");
        w.write_all(out.as_bytes())?;
    } else {
        let _ = writeln!(out, "Findings ({}):", a.findings.len());
        w.write_all(out.as_bytes())?;
        for part in short(&a.findings, sources) {
            w.write_all(part.as_bytes())?;
        }
    }
    Ok(())
}

/// The distinct texts of the table's cells (with their widths), and each path's line as the
/// indices of its eight cells.
fn table_cells(rows: &[Row]) -> (Vec<(String, usize)>, Vec<[usize; 8]>) {
    let groups = paths(rows);
    // Runs of lines on the cores, each with its own cells; a cell both runs show is made twice,
    // with the same text.
    let runs = crate::par::cores().min(groups.len() / LINES_PER_RUN).max(1);
    let parts = crate::par::map_ranges(crate::par::even_ranges(groups.len(), runs), |r| {
        run_cells(rows, &groups[r])
    });
    let mut texts = Vec::new();
    let mut keys = Vec::with_capacity(groups.len());
    for (t, k) in parts {
        let offset = texts.len();
        texts.extend(t);
        keys.extend(k.into_iter().map(|line| line.map(|i| i + offset)));
    }
    (texts, keys)
}

/// The cells of the lines of `groups` (runs of rows), and each line's cells.
fn run_cells(
    rows: &[Row],
    groups: &[std::ops::Range<usize>],
) -> (Vec<(String, usize)>, Vec<[usize; 8]>) {
    let mut cells = Cells {
        texts: Vec::new(),
        by_address: HashMap::new(),
        last: [(usize::MAX, 0); 8],
    };
    let addr = |s: &str| s.as_ptr() as usize;
    let mut keys: Vec<[usize; 8]> = Vec::with_capacity(groups.len());
    for g in groups {
        let r = &rows[g.start];
        let host = if g.len() == 1 {
            let h = r.hostname.as_deref().unwrap_or("-");
            cells.get(2, addr(h), || h.to_string())
        } else {
            // Hostname lists of several rows have no shared address: one cell each.
            let joined: Vec<&str> = rows[g.clone()]
                .iter()
                .map(|x| x.hostname.as_deref().unwrap_or("-"))
                .collect();
            cells.add(&joined.join(", "))
        };
        keys.push([
            cells.get(0, addr(&r.gateway), || r.gateway.to_string()),
            cells.get(1, addr(&r.listener), || r.listener.to_string()),
            host,
            cells.get(3, addr(&r.route), || r.route.to_string()),
            cells.get(4, addr(&r.rule), || r.rule.to_string()),
            cells.get(
                5,
                std::sync::Arc::as_ptr(&r.matches) as *const String as usize,
                || r.matches.join(" | "),
            ),
            cells.get(6, std::sync::Arc::as_ptr(&r.auth) as usize, || {
                cell(&r.auth)
            }),
            cells.get(7, std::sync::Arc::as_ptr(&r.rate_limit) as usize, || {
                cell(&r.rate_limit)
            }),
        ]);
    }
    (cells.texts, keys)
}

/// Lines written by one thread at least.
const LINES_PER_RUN: usize = 8192;

/// What `render::diagnostics::short` writes, in parts made on the cores: an audit of a large
/// estate has tens of thousands of findings.
fn short(ds: &Diagnostics, sources: &SourceMap) -> Vec<String> {
    let all: Vec<&crate::diag::Diagnostic> = ds.iter().collect();
    let runs = crate::par::cores().min(all.len() / LINES_PER_RUN).max(1);
    crate::par::map_ranges(crate::par::even_ranges(all.len(), runs), |r| {
        let mut part = String::new();
        for d in &all[r] {
            part.push_str(&crate::render::terminal::text(
                &crate::render::diagnostics::one_line(d, sources),
            ));
            part.push('\n');
        }
        part
    })
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
    let rows = &a.coverage;
    let weak: Vec<std::ops::Range<usize>> = paths(rows)
        .into_iter()
        .filter(|g| {
            let r = &rows[g.start];
            r.auth.state != State::Full || r.rate_limit.state != State::Full
        })
        .collect();
    if !weak.is_empty() {
        let _ = write!(
            out,
            "\n<details><summary>Paths not fully covered ({})</summary>\n\n",
            weak.len()
        );
        out.push_str("| gateway | listener | hostnames | route rule | matches | authentication | rate limiting |\n|---|---|---|---|---|---|---|\n");
        for g in weak {
            let r = &rows[g.start];
            let hosts: Vec<&str> = rows[g]
                .iter()
                .map(|x| x.hostname.as_deref().unwrap_or("-"))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} {} {} | {} | {} | {} |",
                md(&r.gateway),
                md(&r.listener),
                md(&hosts.join(", ")),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn row(path: usize, listener: &str, host: &str, auth: State) -> Row {
        let c = |state| {
            Arc::new(Coverage {
                state,
                policies: vec![],
                when: vec![],
                kinds: vec![],
                not_on: vec![],
                reason: None,
            })
        };
        Row {
            path,
            gateway: Arc::from("ns/gw"),
            listener: Arc::from(listener),
            hostname: Some(Arc::from(host)),
            route_kind: "HTTPRoute",
            route: Arc::from("ns/r"),
            rule: Arc::from("rule-1"),
            matches: Arc::from(vec!["/*".to_string()]),
            auth: c(auth),
            rate_limit: c(State::Full),
        }
    }

    /// Parallel runs of the walk each have their own copy of a listener's text: the summary
    /// still counts the listener once. Path 0 has two hostnames (one path), paths 1 and 2 one
    /// each: 3 paths, 2 of them (0 and 2) without authentication, all on listener `api`.
    #[test]
    fn summary_counts_paths_and_listeners_by_text() {
        let rows = vec![
            row(0, "api", "a.example.com", State::None),
            row(0, "api", "b.example.com", State::None),
            row(1, "api", "c.example.com", State::Full),
            row(2, "api", "d.example.com", State::None),
        ];
        let s = summary(&rows);
        assert_eq!((s.paths, s.auth.full, s.auth.none), (3, 1, 2));
        let mut out = String::new();
        summary_lines(&mut out, "authentication", &rows, |r| &r.auth);
        assert_eq!(
            out,
            "authentication: 2 of 3 paths not fully covered (1 full, 2 none)\n  2 of 3 on listener ns/gw#api\n"
        );
    }
}
