//! `policyctl diff` output: unified (coloured on a terminal), stat, JSON and Markdown. Here, not in
//! `render/`, so that `render` does not import `diff` while `diff` writes its sides' YAML and escapes
//! names through `render`.

use super::{Change, Impact, ObjectDiff};
use std::fmt::Write;

fn paint(line: &str, color: bool) -> String {
    if !color {
        return line.to_string();
    }
    let style = if line.starts_with("+++") || line.starts_with("---") {
        anstyle::Style::new().bold()
    } else if line.starts_with('+') {
        anstyle::AnsiColor::Green.on_default()
    } else if line.starts_with('-') {
        anstyle::AnsiColor::Red.on_default()
    } else if line.starts_with("@@") {
        anstyle::AnsiColor::Cyan.on_default()
    } else {
        anstyle::Style::new()
    };
    format!("{style}{line}{style:#}")
}

/// Every changed object: a header line and its unified diff.
pub fn unified(diffs: &[ObjectDiff], color: bool) -> String {
    let mut out = String::new();
    for d in diffs.iter().filter(|d| d.change != Change::Unchanged) {
        let _ = writeln!(
            out,
            "{}",
            paint(&format!("=== {} {}", d.change.as_str(), d.display()), color)
        );
        // The dump's text, escaped for the terminal.
        for line in d.unified.lines() {
            let _ = writeln!(
                out,
                "{}",
                paint(&crate::render::terminal::line(line), color)
            );
        }
    }
    out
}

/// One line per changed object, then a summary.
pub fn stat(diffs: &[ObjectDiff]) -> String {
    let mut out = String::new();
    let mut counts = [0usize; 3];
    for d in diffs.iter().filter(|d| d.change != Change::Unchanged) {
        let i = match d.change {
            Change::Created => 0,
            Change::Updated => 1,
            _ => 2,
        };
        // Index: `i` is 0, 1 or 2 and `counts` has three entries.
        counts[i] += 1;
        let _ = writeln!(
            out,
            "{:<9} {} (+{} -{})",
            d.change.as_str(),
            d.display(),
            d.added_lines,
            d.removed_lines
        );
    }
    let unchanged = diffs
        .iter()
        .filter(|d| d.change == Change::Unchanged)
        .count();
    let _ = writeln!(
        out,
        "{} created, {} updated, {} deleted, {} unchanged",
        counts[0], counts[1], counts[2], unchanged
    );
    out
}

/// The impact section of a base/head comparison.
pub fn impact(i: &Impact) -> String {
    let mut out = String::new();
    let list = |out: &mut String, title: &str, items: &[String]| {
        if !items.is_empty() {
            let _ = writeln!(out, "{title}:");
            for x in items {
                let _ = writeln!(out, "  {}", crate::render::terminal::line(x));
            }
        }
    };
    list(
        &mut out,
        "gateways with changed data-plane objects",
        &i.gateways,
    );
    list(&mut out, "routes with changed enforcement", &i.routes);
    list(&mut out, "limits added", &i.limits_added);
    list(&mut out, "limits removed", &i.limits_removed);
    list(
        &mut out,
        "policies whose predicted status changes",
        &i.policy_status,
    );
    out
}

/// `diff -o json`: the changed objects and the impact summary (`null` without `--base`), pretty
/// printed, terminal-safe, with a final newline.
pub fn json(diffs: &[ObjectDiff], impact: Option<&Impact>) -> String {
    let v = serde_json::json!({
        "objects": diffs.iter().filter(|d| d.change != Change::Unchanged).collect::<Vec<_>>(),
        "impact": impact,
    });
    let mut s = crate::render::terminal::json(serde_json::to_string_pretty(&v).unwrap_or_default());
    s.push('\n');
    s
}

/// A pull-request comment: summary table, impact, and one collapsible diff per object.
pub fn markdown(diffs: &[ObjectDiff], imp: Option<&Impact>) -> String {
    let mut out = String::from("### policyctl diff\n\n");
    let changed: Vec<_> = diffs
        .iter()
        .filter(|d| d.change != Change::Unchanged)
        .collect();
    if changed.is_empty() {
        out.push_str("No changes to generated objects.\n");
        return out;
    }
    out.push_str("| change | object | lines |\n|---|---|---|\n");
    for d in &changed {
        let _ = writeln!(
            out,
            "| {} | `{}` | +{} −{} |",
            d.change.as_str(),
            d.display(),
            d.added_lines,
            d.removed_lines
        );
    }
    if let Some(i) = imp {
        let text = impact(i);
        if !text.is_empty() {
            let _ = write!(out, "\n**Impact**\n\n```\n{text}```\n");
        }
    }
    for d in &changed {
        let _ = write!(
            out,
            "\n<details><summary>{} {}</summary>\n\n```diff\n{}```\n\n</details>\n",
            d.change.as_str(),
            d.display(),
            crate::render::terminal::text(&d.unified)
        );
    }
    out
}
