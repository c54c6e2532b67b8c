//! Bytes → load → every pipeline stage → every renderer. The input is split on a NUL byte into up to
//! four files so that cross-file duplicates and references are reachable too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use policyctl::GenerateOptions;
use policyctl::{Input, LoadOptions, load};
use policyctl::KuadrantVersion;
use policyctl::analyze;
use policyctl::render::{self, Style, graph};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the Kuadrant version; the rest are files separated by NUL.
    let (version, rest) = match data.split_first() {
        Some((b, rest)) if b & 1 == 1 => (KuadrantVersion::V1_5, rest),
        Some((_, rest)) => (KuadrantVersion::V1_4, rest),
        None => return,
    };
    let inputs: Vec<Input> = rest
        .split(|b| *b == 0)
        .take(4)
        .enumerate()
        .map(|(i, bytes)| Input::Text {
            name: format!("f{i}.yaml"),
            bytes: bytes.to_vec(),
        })
        .collect();
    let opts = LoadOptions {
        version,
        ..LoadOptions::default()
    };
    let loaded = load(&inputs, &opts);
    let gen_opts = GenerateOptions::default();
    let a = analyze(
        &loaded.model,
        &loaded.diagnostics,
        &gen_opts,
        &Default::default(),
    );
    if let Ok(text) = render::objects::yaml_objects(&a.generated.objects) {
        assert!(text.is_empty() == a.generated.objects.is_empty());
        let values = policyctl::object_values(&a.generated.objects);
        assert_eq!(Ok(text), render::objects::yaml(&values));
    }
    // The streamed JSON list is the pretty-printed list of the trees.
    let list = render::objects::json_list(&policyctl::object_values(&a.generated.objects));
    let mut streamed = Vec::new();
    render::objects::write_json_list(&a.generated.objects, &mut streamed).unwrap();
    assert_eq!(String::from_utf8(streamed).unwrap(), list);
    let _ = render::diagnostics::human_all(&a.diagnostics, &loaded.sources, Style::plain(100), "");
    let _ = render::diagnostics::json(&a.diagnostics, 0, &loaded.sources);
    let _ = render::diagnostics::github(&a.diagnostics, &loaded.sources);
    let _ = render::diagnostics::short(&a.diagnostics, &loaded.sources);
    let sel = graph::Selection::all();
    let dot = graph::dot(&a.topology, &sel);
    assert!(dot.starts_with("digraph"));
    // The same files given in the reverse order: the same objects, findings and graph, byte for
    // byte (files are read in the order of their names).
    let reversed: Vec<Input> = inputs.iter().rev().cloned().collect();
    let again = load(&reversed, &opts);
    let b = analyze(&again.model, &again.diagnostics, &gen_opts, &Default::default());
    assert_eq!(
        render::objects::yaml_objects(&b.generated.objects).ok(),
        render::objects::yaml_objects(&a.generated.objects).ok()
    );
    assert_eq!(
        render::diagnostics::short(&b.diagnostics, &again.sources),
        render::diagnostics::short(&a.diagnostics, &loaded.sources)
    );
    assert_eq!(graph::dot(&b.topology, &sel), dot);
    // Each file's documents in the reverse order: the same objects and graph, and the same codes
    // found (their positions move). Only where the split on `---` lines is the YAML one: no
    // directives, document end markers or byte-order marks; and where both orders are read as YAML
    // (a text that starts with `{` is a stream of JSON objects, as kubectl reads it).
    let flipped: Option<Vec<Input>> = inputs
        .iter()
        .map(|i| match i {
            Input::Text { name, bytes } => {
                let text = std::str::from_utf8(bytes).ok()?;
                if text.contains('\u{feff}')
                    || text.lines().any(|l| l.starts_with('%') || l.starts_with("..."))
                {
                    return None;
                }
                let mut docs: Vec<&str> = text.split("\n---\n").collect();
                docs.reverse();
                // The end of a text reads as a line break (as kubectl's reader ends every
                // document with one), so a document moved to or from the end reads alike.
                let flipped = docs.join("\n---\n");
                let json = |t: &str| t.trim_start().starts_with(['{', '[']);
                if json(text) || json(&flipped) {
                    return None;
                }
                Some(Input::Text {
                    name: name.clone(),
                    bytes: flipped.into_bytes(),
                })
            }
            Input::Path(_) => None,
        })
        .collect();
    if let Some(flipped) = flipped {
        let again = load(&flipped, &opts);
        let c = analyze(&again.model, &again.diagnostics, &gen_opts, &Default::default());
        assert_eq!(
            render::objects::yaml_objects(&c.generated.objects).ok(),
            render::objects::yaml_objects(&a.generated.objects).ok()
        );
        assert_eq!(graph::dot(&c.topology, &sel), dot);
        let codes = |ds: &policyctl::diag::Diagnostics| {
            let mut v: Vec<&str> = ds.iter().map(|d| d.code.as_str()).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(codes(&c.diagnostics), codes(&a.diagnostics));
    }
    let _ = graph::dot_compat(&a.topology, &sel);
    let _ = graph::mermaid(&a.topology, &sel);
    let _ = graph::json(&a.topology, &sel);
});
