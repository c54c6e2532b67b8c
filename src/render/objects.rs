//! Generated objects as text: multi-document YAML (kubectl style, `---` between documents) or a JSON
//! `List`. Keys are printed in the order the values hold (the generator sorts them).

use serde_json::{Value, json};

/// `---`-separated YAML documents; empty string for no objects.
pub fn yaml(objects: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    for (i, o) in objects.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        let opts = serde_saphyr::ser_options! { prefer_block_scalars: false };
        let s = serde_saphyr::to_string_with_options(o, opts).map_err(|e| e.to_string())?;
        out.push_str(&s);
        if !s.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

/// `{"apiVersion":"v1","kind":"List","items":[...]}`, pretty-printed, with a trailing newline.
pub fn json_list(objects: &[Value]) -> String {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    let mut s = serde_json::to_string_pretty(&list).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_separated_and_ambiguous_scalars_quoted() {
        let objs = vec![
            json!({"kind": "A", "metadata": {"labels": {"kuadrant.io/managed": "true"}}}),
            json!({"kind": "B", "value": "line1\nline2", "n": 1}),
        ];
        let y = yaml(&objs).unwrap();
        assert!(y.contains("\n---\nkind: B\n"), "{y}");
        assert!(
            y.contains("kuadrant.io/managed: 'true'")
                || y.contains("kuadrant.io/managed: \"true\""),
            "{y}"
        );
        assert!(!y.contains('|'), "no block scalars: {y}");
        let back: Vec<Value> = y
            .split("---\n")
            .map(|d| serde_saphyr::from_str::<Value>(d).unwrap())
            .collect();
        assert_eq!(back, objs);
        assert!(json_list(&objs).starts_with("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\""));
        assert_eq!(yaml(&[]).unwrap(), "");
    }
}
