//! What Envoy knows of a request and a simulated request does not carry: the attributes the shim
//! (wasm-shim v0.12.3 / v0.14.1 src/data/cel.rs `new_well_known_attribute_map`) and Authorino
//! (authorino v0.26.2 pkg/service/well_known_attributes.go) read from Envoy, less those a simulated
//! request gives. An expression or selector that needs one has no decided outcome offline.

/// The variables the shim and Authorino bind for an expression: a name among them is a variable
/// read (and charged as one, see `super::cost`); another name is a type or a function's namespace.
pub(crate) const ROOTS: [&str; 6] = [
    "request",
    "source",
    "destination",
    "connection",
    "auth",
    "metadata",
];

/// The variables whose fields are Envoy's attributes of the request.
pub(crate) const ENVOY_ROOTS: [&str; 3] = ["request", "source", "destination"];

/// Why `root.field` has no value offline (`None` when it has one, or when neither the shim nor
/// Authorino would have one either). `source_given`: whether the request says where it comes
/// from.
pub(crate) fn missing(root: &str, field: &str, source_given: bool) -> Option<String> {
    match (root, field) {
        ("request", "time" | "id" | "size" | "body" | "raw_body" | "duration" | "total_size") => {
            Some(format!(
                "request.{field} is what Envoy knows of the request as it arrives, which a simulated request does not carry"
            ))
        }
        ("source", "address" | "port") if !source_given => Some(format!(
            "source.{field}: the request's source is not given (--source, or `source:` in a request file or test case)"
        )),
        (
            "source" | "destination",
            "remote_address" | "service" | "principal" | "certificate" | "labels",
        )
        | ("destination", "address") => Some(format!(
            "{root}.{field} depends on the connection and the mesh, not known offline"
        )),
        _ => None,
    }
}

/// The `request.x`, `source.x` and `destination.x` a text (a CEL expression, a selector) names,
/// as `(root, field)`: a scan of the text, so a name inside a string literal counts too, which can
/// only make an outcome undecided, never decide one.
pub(crate) fn named(text: &str) -> Vec<(&'static str, &str)> {
    let mut out = Vec::new();
    for root in ENVOY_ROOTS {
        let pattern = format!("{root}.");
        let mut from = 0;
        while let Some(i) = text[from..].find(&pattern) {
            let at = from + i;
            from = at + pattern.len();
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[from..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if end > 0 {
                out.push((root, &rest[..end]));
            }
        }
    }
    out
}

/// Why `text` may need what a simulated request does not carry: the first name it has of one.
pub(crate) fn needs_missing(text: &str, source_given: bool) -> Option<String> {
    named(text)
        .into_iter()
        .find_map(|(root, field)| missing(root, field, source_given))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_in_expressions_and_selectors() {
        assert_eq!(
            named("request.time.getHours() > 9 && has(source.address) || xrequest.id"),
            [("request", "time"), ("source", "address")]
        );
        assert_eq!(
            named("context.request.http.headers.x"),
            [("request", "http")]
        );
        assert!(needs_missing("request.headers['x'] == request.method", false).is_none());
        assert!(needs_missing("source.address == 'a'", true).is_none());
        assert!(
            needs_missing("source.address == 'a'", false).is_some_and(|w| w.contains("--source"))
        );
        assert!(needs_missing("destination.labels.app", true).is_some());
    }
}
