//! `policyctl status` tables (comfy-table).

use comfy_table::presets::NOTHING;
use comfy_table::{ContentArrangement, Table};

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
    let mut t = Table::new();
    t.load_style(NOTHING);
    t.force_no_tty();
    match width {
        Some(w) if !wide => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
            t.set_width(u16::try_from(w).unwrap_or(u16::MAX));
        }
        _ => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
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
    t.set_header(header);
    for r in rows {
        let mut row = vec![
            r.namespace.clone(),
            r.kind.clone(),
            r.name.clone(),
            r.target.clone(),
            r.accepted.clone(),
            r.enforced.clone(),
        ];
        if wide {
            row.extend([
                r.accepted_reason.clone(),
                r.enforced_reason.clone(),
                r.overridden_by.clone(),
                r.paths.clone(),
            ]);
        }
        row.push(r.message.clone());
        t.add_row(row);
    }
    for col in t.column_iter_mut() {
        col.set_padding((0, 3));
    }
    let mut s = String::new();
    for line in t.to_string().lines() {
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}
