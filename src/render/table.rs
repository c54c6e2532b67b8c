//! `policyctl status` tables (comfy-table).

use comfy_table::presets::UTF8_FULL_CONDENSED;
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

/// The status table; `wide` adds reasons, overriding policies and enforced paths.
pub fn status(rows: &[StatusRow], wide: bool, width: usize) -> String {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.force_no_tty();
    if wide {
        t.set_content_arrangement(ContentArrangement::Disabled);
    } else {
        t.set_content_arrangement(ContentArrangement::Dynamic);
        t.set_width(u16::try_from(width).unwrap_or(u16::MAX));
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
    let mut s = t.to_string();
    s.push('\n');
    s
}
