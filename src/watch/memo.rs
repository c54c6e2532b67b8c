//! What the wasm carriers' files were rendered from. A gateway's wasm plugin or filter holds the
//! configuration of all its paths (megabytes on a large gateway), and most edits of a policy do not
//! change it (a limit's value is in the Limitador, not in the action sets). An incremental cycle
//! computes the carrier again, but does not render it again when the object is the one its file was
//! rendered from: the file's text is a function of the object alone (`outdir::render_objects`).
//!
//! The state keeps a digest of each carrier object, not the object: a hundred gateways' carriers
//! would be hundreds of megabytes.

use crate::generate::object::Object;
use std::collections::HashMap;
use std::io::Write;

/// Whether `o` is a wasm carrier: a 1.5 wasm `EnvoyFilter` (a tree with the configuration in a
/// string) or a typed carrier (1.4 `WasmPlugin`, Envoy Gateway `EnvoyExtensionPolicy`).
pub(super) fn is_carrier(o: &Object) -> bool {
    matches!(o, Object::Wasm(_)) || crate::pipeline::is_wasm_carrier(o)
}

/// The digest of what a carrier is (not of its text): two objects with the same digest are equal,
/// so their files are. `None` for any other object.
pub(super) fn object_digest(o: &Object) -> Option<[u8; 32]> {
    let mut h = blake3::Hasher::new();
    match o {
        Object::Wasm(w) => {
            h.update(b"wasm");
            value(&mut h, &w.shell);
            bytes(&mut h, w.at.as_bytes());
            // The typed configuration as its JSON text, streamed into the hasher (a writer).
            let mut into = std::io::BufWriter::with_capacity(1 << 16, &mut h);
            serde_json::to_writer(&mut into, &w.config).ok()?;
            into.flush().ok()?;
        }
        Object::Tree(v) if is_carrier(o) => {
            h.update(b"tree");
            value(&mut h, v);
        }
        _ => return None,
    }
    Some(*h.finalize().as_bytes())
}

/// The file and [`object_digest`] of every carrier among `objects`; with `typed` false, of the
/// trees only. A typed carrier's digest serialises its configuration (tens of milliseconds for a
/// gateway of thousands of action sets, seconds for a large estate's hundred), so a full cycle
/// leaves those to the first incremental cycle that computes their gateway: it renders the carrier
/// and keeps the digest.
pub(super) fn of<'a>(
    objects: impl IntoIterator<Item = &'a Object>,
    typed: bool,
) -> HashMap<String, [u8; 32]> {
    let carriers: Vec<&Object> = objects
        .into_iter()
        .filter(|o| is_carrier(o) && (typed || !matches!(o, Object::Wasm(_))))
        .collect();
    crate::par::map(&carriers, 4, |o| {
        Some((crate::outdir::object_file_name(o)?, object_digest(o)?))
    })
    .into_iter()
    .flatten()
    .collect()
}

/// A byte string, its length first: no two sequences of them hash alike.
fn bytes(h: &mut blake3::Hasher, b: &[u8]) {
    h.update(&(b.len() as u64).to_le_bytes());
    h.update(b);
}

/// A tree, each node tagged with its type, containers with their lengths.
fn value(h: &mut blake3::Hasher, v: &serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Null => {
            h.update(b"n");
        }
        Value::Bool(b) => {
            h.update(if *b { b"t" } else { b"f" });
        }
        Value::Number(n) => {
            h.update(b"#");
            bytes(h, n.to_string().as_bytes());
        }
        Value::String(s) => {
            h.update(b"s");
            bytes(h, s.as_bytes());
        }
        Value::Array(a) => {
            h.update(b"[");
            h.update(&(a.len() as u64).to_le_bytes());
            for x in a {
                value(h, x);
            }
        }
        Value::Object(m) => {
            h.update(b"{");
            h.update(&(m.len() as u64).to_le_bytes());
            for (k, x) in m {
                bytes(h, k.as_bytes());
                value(h, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn filter(config: &str) -> Object {
        Object::Tree(json!({
            "apiVersion": "networking.istio.io/v1alpha3",
            "kind": "EnvoyFilter",
            "metadata": {"name": "kuadrant-gw", "namespace": "ns",
                         "labels": {"kuadrant.io/wasm": "true"}},
            "spec": {"value": config},
        }))
    }

    #[test]
    fn equal_carriers_have_one_digest_and_any_difference_another() {
        let a = object_digest(&filter("{\"actionSets\":[]}")).unwrap();
        assert_eq!(a, object_digest(&filter("{\"actionSets\":[]}")).unwrap());
        assert_ne!(a, object_digest(&filter("{\"actionSets\":[1]}")).unwrap());
        // Not a carrier: no digest.
        assert_eq!(
            object_digest(&Object::Tree(json!({"kind": "EnvoyFilter"}))),
            None
        );
    }

    /// A typed carrier's digest covers its shell and its configuration.
    #[test]
    fn a_typed_carrier_digest_covers_shell_and_configuration() {
        use crate::generate::object::{WasmCarrier, WasmConfig};
        let carrier = |name: &str, service: &str| {
            let mut rest = serde_json::Map::new();
            rest.insert("services".into(), json!({service: {"type": "ratelimit"}}));
            Object::Wasm(Box::new(WasmCarrier {
                shell: json!({"apiVersion": "extensions.istio.io/v1alpha1", "kind": "WasmPlugin",
                               "metadata": {"name": name, "namespace": "ns"}}),
                at: "/spec/pluginConfig",
                config: WasmConfig {
                    action_sets: Vec::new(),
                    rest,
                },
            }))
        };
        let a = object_digest(&carrier("kuadrant-gw", "a")).unwrap();
        assert_eq!(a, object_digest(&carrier("kuadrant-gw", "a")).unwrap());
        assert_ne!(a, object_digest(&carrier("kuadrant-gw", "b")).unwrap());
        assert_ne!(a, object_digest(&carrier("kuadrant-other", "a")).unwrap());
        // A full cycle's digests leave typed carriers out.
        let objects = [carrier("kuadrant-gw", "a")];
        assert_eq!(of(&objects, false).len(), 0);
        assert_eq!(of(&objects, true).len(), 1);
    }

    /// The encoding is tagged and length-prefixed: trees that would print alike when flattened
    /// do not hash alike.
    #[test]
    fn trees_that_flatten_alike_differ() {
        let d = |v: serde_json::Value| {
            let mut h = blake3::Hasher::new();
            value(&mut h, &v);
            *h.finalize().as_bytes()
        };
        let pairs = [
            (json!(["ab"]), json!(["a", "b"])),
            (json!({"a": "bc"}), json!({"ab": "c"})),
            (json!([["a"], "b"]), json!([["a", "b"]])),
            (json!("1"), json!(1)),
            (json!(null), json!("n")),
            (json!(true), json!("t")),
            (json!([]), json!({})),
        ];
        for (a, b) in pairs {
            assert_ne!(d(a.clone()), d(b.clone()), "{a} vs {b}");
        }
    }
}
