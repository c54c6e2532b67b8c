//! `policyctl explain` as a text tree.

use crate::resolve::explain::{Explanation, KindEntry, RuleContent};
use crate::resolve::merge::MergeStrategy;
use std::fmt::Write;

fn strategy(s: MergeStrategy) -> &'static str {
    match s {
        MergeStrategy::AtomicDefaults | MergeStrategy::AtomicOverrides => "atomic",
        MergeStrategy::MergeDefaults | MergeStrategy::MergeOverrides => "merge",
    }
}

fn block(b: crate::model::Block) -> &'static str {
    match b {
        crate::model::Block::Implicit => "implicit defaults",
        crate::model::Block::Defaults => "defaults",
        crate::model::Block::Overrides => "overrides",
    }
}

fn kind_tree(out: &mut String, k: &KindEntry, pad: &str) {
    let _ = writeln!(out, "{pad}{}", k.kind);
    let _ = writeln!(out, "{pad}  merge order (least → most specific):");
    for (i, p) in k.policies.iter().enumerate() {
        let ts = p
            .creation_timestamp
            .as_deref()
            .map(|t| format!(", created {t}"))
            .unwrap_or_default();
        let from = p
            .created_by
            .as_deref()
            .map(|e| format!(" (created by {e})"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{pad}    {}. {}{from} on {} — {}, {}{ts}",
            i + 1,
            p.policy,
            p.attached_to,
            block(p.block),
            strategy(p.strategy)
        );
    }
    let _ = writeln!(out, "{pad}  rules:");
    for r in &k.rules {
        match &r.winner {
            Some(w) => {
                let _ = writeln!(
                    out,
                    "{pad}    {}: {w}",
                    crate::render::terminal::line(&r.field)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{pad}    {}: (not effective)",
                    crate::render::terminal::line(&r.field)
                );
            }
        }
        if let Some(c) = &r.content {
            content(out, c, &format!("{pad}      "));
        }
        for l in &r.losers {
            let _ = writeln!(out, "{pad}      ✗ {}: {}", l.policy, l.explanation);
        }
    }
    let _ = writeln!(
        out,
        "{pad}  source policies: [{}]",
        k.source_policies.join(" ")
    );
}

/// A rule's content under its field path: rates on one line, `when` and `counters` as lists, an
/// AuthPolicy section as the YAML it was written as.
fn content(out: &mut String, c: &RuleContent, pad: &str) {
    if !c.rates.is_empty() {
        let _ = writeln!(out, "{pad}rates: {}", c.rates.join(", "));
    }
    for (title, items) in [("when", &c.when), ("counters", &c.counters)] {
        if !items.is_empty() {
            let _ = writeln!(out, "{pad}{title}:");
            for x in items {
                let _ = writeln!(out, "{pad}  - {}", crate::render::terminal::line(x));
            }
        }
    }
    if let Some(v) = &c.spec {
        let yaml = crate::render::objects::yaml_document(v).unwrap_or_else(|e| format!("{e}\n"));
        for line in yaml.lines().filter(|l| *l != "---") {
            let _ = writeln!(out, "{pad}{}", crate::render::terminal::line(line));
        }
    }
}

/// The explanation as an indented tree (no colour).
pub fn text(e: &Explanation) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "target {}", e.target);
    if e.paths.is_empty() {
        let _ = writeln!(
            out,
            "  no path from a GatewayClass to a route rule runs through this target"
        );
    }
    for p in &e.paths {
        let _ = writeln!(out, "path {}", p.path_id);
        if let Some(why) = &p.invalid {
            let _ = writeln!(
                out,
                "  ! {why}: the operator skips this path for status and enforcement"
            );
        }
        if p.kinds.is_empty() {
            let _ = writeln!(out, "  no policies");
        }
        for k in &p.kinds {
            kind_tree(&mut out, k, "  ");
        }
    }
    out
}
