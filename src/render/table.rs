//! `policyctl status` tables: plain columns, or comfy-table when wrapping to a terminal.

use comfy_table::presets::NOTHING;
use comfy_table::{ContentArrangement, Table};
use unicode_width::UnicodeWidthStr;

/// One row of the status table.
#[derive(Clone, Debug, Default)]
pub struct StatusRow {
    pub namespace: String,
    pub kind: String,
    pub name: String,
    pub target: String,
    pub accepted: String,
    pub enforced: String,
    pub message: String,
    /// Wide only.
    pub accepted_reason: String,
    pub enforced_reason: String,
    pub overridden_by: String,
    pub paths: String,
}

/// The status table, borderless like `kubectl get`; `wide` adds reasons, overriding policies and
/// enforced paths. `width` wraps the message column to a terminal's width; `None` never wraps (pipes,
/// files, tests).
pub fn status(rows: &[StatusRow], wide: bool, width: Option<usize>) -> String {
    match width {
        // Wrapping to a terminal is comfy-table's job: only MESSAGE wraps, between words, so a
        // terminal too narrow for the other columns and the longest word gets plain columns.
        Some(w) if !wide && fits(rows, w) => comfy(rows, wide, Some(w)),
        // Without wrapping the layout is plain columns: written in two passes over the rows
        // instead of through comfy-table, which lays out every cell of every row in memory first
        // (40,000 policies: about 2 s and 1 GB). Same bytes (tested against comfy-table; see
        // `columns` for lines over 65,535 columns).
        _ => columns(rows, wide),
    }
}

/// Whether the table fits in `width` columns with only the MESSAGE column wrapped, and never inside
/// a word: every other column is as wide as its widest cell.
fn fits(rows: &[StatusRow], width: usize) -> bool {
    let header = header(false);
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for r in rows {
        for (i, cell) in cells(r, false).iter().enumerate() {
            let w = if i + 1 == widths.len() {
                // MESSAGE: its longest word.
                cell.split_whitespace()
                    .map(|w| w.width())
                    .max()
                    .unwrap_or(0)
            } else {
                cell.split('\n').map(|l| l.width()).max().unwrap_or(0)
            };
            widths[i] = widths[i].max(w);
        }
    }
    widths.iter().map(|w| w + GAP).sum::<usize>() <= width
}

fn header(wide: bool) -> Vec<&'static str> {
    let mut header = vec![
        "NAMESPACE",
        "KIND",
        "NAME",
        "TARGET",
        "ACCEPTED",
        "ENFORCED",
    ];
    if wide {
        header.extend([
            "ACCEPTED REASON",
            "ENFORCED REASON",
            "OVERRIDDEN BY",
            "ENFORCED ON PATHS",
        ]);
    }
    header.push("MESSAGE");
    header
}

fn cells(r: &StatusRow, wide: bool) -> Vec<&str> {
    let mut row = vec![
        r.namespace.as_str(),
        &r.kind,
        &r.name,
        &r.target,
        &r.accepted,
        &r.enforced,
    ];
    if wide {
        row.extend([
            r.accepted_reason.as_str(),
            &r.enforced_reason,
            &r.overridden_by,
            &r.paths,
        ]);
    }
    row.push(&r.message);
    row
}

/// Space between columns (comfy-table's right padding in [`comfy`]).
const GAP: usize = 3;

/// comfy-table's layout without borders, wrapping or styling, written directly: a column is as wide
/// as its widest line (at least 1), a cell's lines (split at `\n`) are left-aligned and followed by
/// [`GAP`] spaces, a row is as tall as its tallest cell, and every printed line is trimmed at the end.
/// One difference, on purpose: comfy-table caps a column at 65,535 columns and wraps longer lines
/// (a MESSAGE naming thousands of overriding policies); here such a line stays whole.
fn columns(rows: &[StatusRow], wide: bool) -> String {
    let header = header(wide);
    let mut widths = vec![1usize; header.len()];
    let mut measure = |cells: &[&str]| {
        for (w, cell) in widths.iter_mut().zip(cells) {
            for line in cell.split('\n') {
                *w = (*w).max(line.width());
            }
        }
    };
    measure(&header);
    for r in rows {
        measure(&cells(r, wide));
    }
    let mut out = String::new();
    let write_row = |out: &mut String, cells: &[&str]| {
        let mut lines: Vec<_> = cells.iter().map(|c| c.split('\n')).collect();
        let height = cells
            .iter()
            .map(|c| c.split('\n').count())
            .max()
            .unwrap_or(0);
        for _ in 0..height {
            let start = out.len();
            for (line, w) in lines.iter_mut().zip(&widths) {
                let text = line.next().unwrap_or("");
                out.push_str(text);
                let pad = w.saturating_sub(text.width()) + GAP;
                out.extend(std::iter::repeat_n(' ', pad));
            }
            let kept = out[start..].trim_end().len();
            out.truncate(start + kept);
            out.push('\n');
        }
    };
    write_row(&mut out, &header);
    for r in rows {
        write_row(&mut out, &cells(r, wide));
    }
    out
}

/// One row of `status --routes`: a condition the operator writes on a route's parent entry.
#[derive(Clone, Debug, Default)]
pub struct RouteRow {
    pub namespace: String,
    pub kind: String,
    pub name: String,
    /// The parent Gateway, `namespace/name`.
    pub gateway: String,
    pub condition: String,
    pub status: String,
    pub message: String,
}

/// The `status --routes` table: plain borderless columns like `kubectl get` (messages are not wrapped:
/// they name the policies, which a reader wants whole).
pub fn routes(rows: &[RouteRow]) -> String {
    let header = [
        "NAMESPACE",
        "KIND",
        "NAME",
        "GATEWAY",
        "CONDITION",
        "STATUS",
        "MESSAGE",
    ];
    let cells = |r: &RouteRow| -> [String; 7] {
        [
            &r.namespace,
            &r.kind,
            &r.name,
            &r.gateway,
            &r.condition,
            &r.status,
            &r.message,
        ]
        .map(|c| crate::render::terminal::line(c).into_owned())
    };
    let body: Vec<[String; 7]> = rows.iter().map(cells).collect();
    plain(&header, &body)
}

/// One row of `status --gateways`: a condition the operator writes on a Gateway (`listener` `-`) or
/// on one of its listeners.
#[derive(Clone, Debug, Default)]
pub struct GatewayRow {
    pub namespace: String,
    pub name: String,
    pub listener: String,
    pub condition: String,
    pub status: String,
    pub message: String,
}

/// The `status --gateways` table, laid out as [`routes`].
pub fn gateways(rows: &[GatewayRow]) -> String {
    let header = [
        "NAMESPACE",
        "NAME",
        "LISTENER",
        "CONDITION",
        "STATUS",
        "MESSAGE",
    ];
    let body: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                &r.namespace,
                &r.name,
                &r.listener,
                &r.condition,
                &r.status,
                &r.message,
            ]
            .map(|c| crate::render::terminal::line(c).into_owned())
        })
        .collect();
    plain(&header, &body)
}

/// Borderless columns like `kubectl get`, nothing wrapped.
fn plain<const N: usize>(header: &[&str; N], body: &[[String; N]]) -> String {
    let mut widths = header.map(str::width);
    for row in body {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.width());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let start = out.len();
        for (c, w) in cells.iter().zip(&widths) {
            out.push_str(c);
            out.extend(std::iter::repeat_n(' ', w.saturating_sub(c.width()) + GAP));
        }
        let kept = out[start..].trim_end().len();
        out.truncate(start + kept);
        out.push('\n');
    };
    line(header);
    for row in body {
        line(&row.each_ref().map(String::as_str));
    }
    out
}

/// The table through comfy-table: the only way with a terminal width to wrap to.
fn comfy(rows: &[StatusRow], wide: bool, width: Option<usize>) -> String {
    let mut t = Table::new();
    t.load_style(NOTHING);
    t.force_no_tty();
    match width {
        Some(w) => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
            t.set_width(u16::try_from(w).unwrap_or(u16::MAX));
        }
        None => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    t.set_header(header(wide));
    for r in rows {
        t.add_row(cells(r, wide));
    }
    let last = t.column_count().saturating_sub(1);
    for (i, col) in t.column_iter_mut().enumerate() {
        col.set_padding((0, GAP as u16));
        // Names, kinds and conditions are never wrapped (a kind split in two cannot be read or
        // copied); MESSAGE takes the width that is left and wraps between words.
        if width.is_some() && i < last {
            col.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
        }
    }
    let mut s = String::new();
    for line in t.to_string().lines() {
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Cell text full of what makes widths hard: wide CJK and emoji, combining marks, zero-width
    /// joiners, tabs, carriage returns, control characters, newlines (taller rows) and trailing blanks.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                4 => "[a-z0-9/#|.-]{1,12}",
                1 => Just(" ".to_string()),
                1 => Just("\n".to_string()),
                1 => prop::sample::select(vec![
                    "漢字", "🙂", "e\u{301}", "\u{200d}", "\t", "\r", "\u{7}", "…", "  ", "\u{a0}",
                    "\u{3000}", "ｗｉｄｅ",
                ])
                .prop_map(str::to_string),
            ],
            0..6,
        )
        .prop_map(|parts| parts.concat())
    }

    fn row() -> impl Strategy<Value = StatusRow> {
        proptest::collection::vec(text(), 11).prop_map(|c| StatusRow {
            namespace: c[0].clone(),
            kind: c[1].clone(),
            name: c[2].clone(),
            target: c[3].clone(),
            accepted: c[4].clone(),
            enforced: c[5].clone(),
            message: c[6].clone(),
            accepted_reason: c[7].clone(),
            enforced_reason: c[8].clone(),
            overridden_by: c[9].clone(),
            paths: c[10].clone(),
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn plain_columns_are_comfy_tables_layout(
            rows in proptest::collection::vec(row(), 0..8),
            wide in any::<bool>(),
        ) {
            prop_assert_eq!(columns(&rows, wide), comfy(&rows, wide, None));
        }
    }

    /// On a narrow terminal only MESSAGE wraps, between words: `RateLimitPolicy` is never split
    /// (`RateLimitPolic` / `y`), and a terminal too narrow for that gets plain columns.
    #[test]
    fn a_terminal_width_wraps_only_the_message_between_words() {
        let row = StatusRow {
            namespace: "gateway-system".into(),
            kind: "RateLimitPolicy".into(),
            name: "gw-defaults".into(),
            target: "Gateway prod-web".into(),
            accepted: "True".into(),
            enforced: "True".into(),
            message: "RateLimitPolicy has been partially enforced".into(),
            ..Default::default()
        };
        let rows = std::slice::from_ref(&row);
        for width in [60, 80, 100, 120, 200] {
            let t = status(rows, false, Some(width));
            for word in [
                "RateLimitPolicy",
                "gateway-system",
                "gw-defaults",
                "prod-web",
                "partially",
            ] {
                assert!(t.contains(word), "{width}: {word} split:\n{t}");
            }
        }
        // The other columns and MESSAGE's longest word take 108 columns; the row, 128.
        let narrow = status(rows, false, Some(115));
        assert!(
            narrow.lines().count() > 2,
            "the message wraps at 115:\n{narrow}"
        );
        assert!(narrow.lines().all(|l| l.width() <= 115), "{narrow}");
        assert_eq!(status(rows, false, Some(80)), status(rows, false, None));
    }

    #[test]
    fn without_a_terminal_width_the_table_is_plain_columns() {
        let row = StatusRow {
            namespace: "ns".into(),
            kind: "RateLimitPolicy".into(),
            name: "漢字".into(),
            target: "Gateway gw".into(),
            accepted: "True".into(),
            enforced: "True".into(),
            message: "done".into(),
            paths: "a\nb".into(),
            ..Default::default()
        };
        let expected = "\
NAMESPACE   KIND              NAME   TARGET       ACCEPTED   ENFORCED   MESSAGE
ns          RateLimitPolicy   漢字   Gateway gw   True       True       done
";
        assert_eq!(status(std::slice::from_ref(&row), false, None), expected);
        let wide = status(&[row], true, None);
        assert_eq!(wide.lines().count(), 3, "{wide}");
        assert!(wide.lines().nth(2).unwrap().trim() == "b", "{wide}");
    }
}
