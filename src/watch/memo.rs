//! What the wasm carriers' files were rendered from. A gateway's wasm plugin or filter holds the
//! configuration of all its paths (megabytes on a large gateway), and most edits of a policy do not
//! change it (a limit's value is in the Limitador, not in the action sets). An incremental cycle
//! computes the carrier again, typed (its configuration's text is made only when it is written),
//! but does not render it again when the object is the one its file was rendered from: the file's
//! text is a function of the object alone (`outdir::render_objects`).
//!
//! The state keeps a digest of each carrier object, not the object: a hundred gateways' carriers
//! would be hundreds of megabytes.

use crate::generate::object::{ActionSet, Embed, Object, WasmConfig};
use std::collections::HashMap;
use std::io::Write;

/// Whether `o` is a wasm carrier: a 1.5 wasm `EnvoyFilter`, a 1.4 `WasmPlugin` or an Envoy
/// Gateway `EnvoyExtensionPolicy`.
pub(super) fn is_carrier(o: &Object) -> bool {
    matches!(o, Object::Wasm(_))
}

/// The digest of what a carrier is (not of its text): two objects with the same digest are equal,
/// so their files are. `None` for any other object.
pub(super) fn object_digest(o: &Object) -> Option<[u8; 32]> {
    let Object::Wasm(w) = o else {
        return None;
    };
    let mut h = blake3::Hasher::new();
    h.update(b"wasm");
    value(&mut h, &w.shell);
    bytes(&mut h, w.at.as_bytes());
    h.update(match w.embed {
        Embed::Mapping => b"m",
        Embed::Json => b"j",
    });
    config(&mut h, &w.config)?;
    Some(*h.finalize().as_bytes())
}

/// The file and [`object_digest`] of every carrier among `objects`.
pub(super) fn of<'a>(objects: impl IntoIterator<Item = &'a Object>) -> HashMap<String, [u8; 32]> {
    let carriers: Vec<&Object> = objects.into_iter().filter(|o| is_carrier(o)).collect();
    crate::par::map(&carriers, 4, |o| {
        Some((crate::outdir::object_file_name(o)?, object_digest(o)?))
    })
    .into_iter()
    .flatten()
    .collect()
}

/// A wasm configuration, by its parts rather than its text (megabytes on a large gateway, which
/// would take as long to hash as to write). The parts the action sets share (the action lists,
/// the typed actions) are digested once each, by address: they live as long as the configuration.
/// What a set's text is made of: its name, hostname, predicates, actions (the list as kept, and
/// the auth action's scope, which the text puts in the list), typed actions; then the other keys.
fn config(h: &mut blake3::Hasher, c: &WasmConfig) -> Option<()> {
    let (mut action_lists, mut typed_lists) = (HashMap::new(), HashMap::new());
    h.update(b"sets");
    h.update(&(c.action_sets.len() as u64).to_le_bytes());
    for s in &c.action_sets {
        let ActionSet {
            name,
            hostname,
            predicates,
            actions,
            auth_scope,
            typed,
        } = s;
        bytes(h, name.as_str().as_bytes());
        bytes(h, hostname.as_bytes());
        h.update(&(predicates.len() as u64).to_le_bytes());
        for p in predicates.iter() {
            bytes(h, p.as_bytes());
        }
        h.update(&shared(&mut action_lists, actions)?);
        bytes(h, auth_scope.as_bytes());
        h.update(&shared(&mut typed_lists, typed)?);
    }
    h.update(b"rest");
    h.update(&(c.rest.len() as u64).to_le_bytes());
    for (k, v) in &c.rest {
        bytes(h, k.as_bytes());
        value(h, v);
    }
    Some(())
}

/// The digest of a list the action sets share, from `seen` (by address and length) when it was
/// digested already.
fn shared<T: serde::Serialize>(
    seen: &mut HashMap<(usize, usize), [u8; 32]>,
    list: &[T],
) -> Option<[u8; 32]> {
    let key = (list.as_ptr() as usize, list.len());
    if let Some(d) = seen.get(&key) {
        return Some(*d);
    }
    let d = json_digest(list)?;
    seen.insert(key, d);
    Some(d)
}

/// The BLAKE3 digest of `part`'s JSON text, streamed into the hasher (a writer).
fn json_digest<T: serde::Serialize + ?Sized>(part: &T) -> Option<[u8; 32]> {
    let mut h = blake3::Hasher::new();
    {
        let mut into = std::io::BufWriter::with_capacity(1 << 14, &mut h);
        serde_json::to_writer(&mut into, part).ok()?;
        into.flush().ok()?;
    }
    Some(*h.finalize().as_bytes())
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
    use crate::generate::actions::Action;
    use crate::generate::names::HexDigest;
    use crate::generate::object::WasmCarrier;
    use serde_json::json;
    use std::sync::Arc;

    fn action(scope: &str) -> Action {
        Action {
            service: "ratelimit-service",
            scope: scope.into(),
            predicates: vec!["request.method == 'GET'".into()],
            conditional_data: Vec::new(),
            sources: Vec::new(),
        }
    }

    fn set(name: &str, actions: &Arc<[Action]>) -> ActionSet {
        ActionSet {
            name: HexDigest::of(name),
            hostname: Arc::from("a.example.com"),
            predicates: Arc::from(vec!["request.url_path.startsWith('/')".to_string()]),
            actions: actions.clone(),
            auth_scope: Arc::from(""),
            typed: Arc::from(Vec::new()),
        }
    }

    fn carrier(sets: Vec<ActionSet>, embed: Embed) -> Object {
        let mut rest = serde_json::Map::new();
        rest.insert(
            "services".into(),
            json!({"ratelimit-service": {"type": "ratelimit"}}),
        );
        Object::Wasm(Box::new(WasmCarrier {
            shell: json!({"apiVersion": "networking.istio.io/v1alpha3", "kind": "EnvoyFilter",
                           "metadata": {"name": "kuadrant-gw", "namespace": "ns"},
                           "spec": {"value": null}}),
            at: "/spec/value",
            embed,
            config: WasmConfig {
                action_sets: sets,
                rest,
            },
        }))
    }

    /// Every part a carrier's text is made of is in its digest; how the parts are shared is not.
    #[test]
    fn equal_carriers_have_one_digest_and_any_difference_another() {
        let list: Arc<[Action]> = Arc::from(vec![action("a")]);
        let base = || carrier(vec![set("p1", &list), set("p2", &list)], Embed::Json);
        let a = object_digest(&base()).unwrap();
        assert_eq!(a, object_digest(&base()).unwrap());
        // The same lists allocated apart: the same carrier.
        let (l1, l2): (Arc<[Action]>, Arc<[Action]>) =
            (Arc::from(vec![action("a")]), Arc::from(vec![action("a")]));
        let apart = carrier(vec![set("p1", &l1), set("p2", &l2)], Embed::Json);
        assert_eq!(a, object_digest(&apart).unwrap());
        let changed = |f: &dyn Fn(&mut WasmCarrier)| {
            let mut o = base();
            let Object::Wasm(w) = &mut o else {
                unreachable!()
            };
            f(w);
            object_digest(&o).unwrap()
        };
        let other: Arc<[Action]> = Arc::from(vec![action("b")]);
        type Change<'a> = &'a dyn Fn(&mut WasmCarrier);
        let variants: [(&str, Change); 10] = [
            ("name", &|w| {
                w.config.action_sets[1].name = HexDigest::of("p3")
            }),
            ("hostname", &|w| {
                w.config.action_sets[1].hostname = Arc::from("b.example.com")
            }),
            ("predicates", &|w| {
                w.config.action_sets[1].predicates = Arc::from(Vec::new())
            }),
            ("actions", &|w| {
                w.config.action_sets[1].actions = other.clone()
            }),
            ("auth scope", &|w| {
                w.config.action_sets[1].auth_scope = Arc::from("x")
            }),
            ("typed", &|w| {
                w.config.action_sets[1].typed = Arc::from(vec![json!({})])
            }),
            ("rest", &|w| {
                w.config.rest.insert("observability".into(), json!({}));
            }),
            ("embed", &|w| w.embed = Embed::Mapping),
            ("at", &|w| w.at = "/spec/other"),
            ("shell", &|w| {
                w.shell["metadata"]["name"] = json!("kuadrant-other")
            }),
        ];
        for (what, f) in variants {
            assert_ne!(a, changed(f), "{what}");
        }
        // Not a carrier: no digest, and not among `of`'s.
        let tree = Object::Tree(json!({"kind": "EnvoyFilter"}));
        assert_eq!(object_digest(&tree), None);
        assert_eq!(of([&base(), &tree]).len(), 1);
    }

    /// The digest follows the file: carriers whose files differ have different digests.
    #[test]
    fn carriers_whose_files_differ_have_different_digests() {
        let list: Arc<[Action]> = Arc::from(vec![action("a")]);
        let objects = [
            carrier(vec![set("p1", &list)], Embed::Json),
            carrier(vec![set("p1", &list), set("p2", &list)], Embed::Json),
            carrier(vec![set("p1", &list)], Embed::Mapping),
        ];
        let texts: Vec<String> = objects
            .iter()
            .map(|o| crate::render::objects::yaml(&[o.to_value()]).unwrap())
            .collect();
        for i in 0..objects.len() {
            for j in 0..objects.len() {
                let same_text = texts[i] == texts[j];
                let same_digest = object_digest(&objects[i]) == object_digest(&objects[j]);
                assert_eq!(same_text, same_digest, "{i} {j}");
            }
        }
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
