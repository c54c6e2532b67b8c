//! Bytes → load → diagnostics. Any panic, hang or runaway allocation is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use policyctl::{Input, LoadOptions, load};

fuzz_target!(|data: &[u8]| {
    let loaded = load(
        &[Input::Text {
            name: "fuzz.yaml".into(),
            bytes: data.to_vec(),
        }],
        &LoadOptions::default(),
    );
    // Every diagnostic span must resolve to a position in the source map.
    for d in loaded.diagnostics.iter() {
        if let Some(span) = d.primary_span() {
            assert!(
                loaded.sources.position(span).is_some(),
                "{} has a span outside its source",
                d.code.as_str()
            );
        }
    }
});
