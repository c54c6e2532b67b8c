//! The README and CHANGELOG stay in step with the code.

use policyctl::diag::Code;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The table between the `codes:start` / `codes:end` markers, as the code describes it.
fn expected_table() -> String {
    let mut t = String::from("| code | severity | meaning |\n|---|---|---|\n");
    for c in Code::ALL {
        t.push_str(&format!(
            "| `{}` | {} | {} |\n",
            c.as_str(),
            c.severity().as_str(),
            c.description()
        ));
    }
    t
}

#[test]
fn readme_lists_every_diagnostic_code() {
    let r = readme();
    let start = r
        .find("<!-- codes:start -->\n")
        .expect("codes:start marker")
        + 21;
    let end = r.find("<!-- codes:end -->").expect("codes:end marker");
    let table = &r[start..end];
    if std::env::var_os("UPDATE_EXPECT").is_some() && std::env::var_os("CI").is_none() {
        let updated = format!("{}{}{}", &r[..start], expected_table(), &r[end..]);
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"), updated).unwrap();
        return;
    }
    assert_eq!(
        table,
        expected_table(),
        "README code table is stale: run UPDATE_EXPECT=1 cargo test --test docs"
    );
}

#[test]
fn changelog_has_unreleased_section() {
    let c = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/CHANGELOG.md")).unwrap();
    assert!(c.contains("## [Unreleased]"));
}
