//! What the wasm carriers' files were rendered from. A gateway's wasm plugin or filter holds the
//! configuration of all its paths (megabytes on a large gateway), and most edits of a policy do not
//! change it (a limit's value is in the Limitador, not in the action sets). An incremental cycle
//! computes the carrier again, typed (its configuration's text is made only when it is written),
//! but does not render it again when the object is the one its file was rendered from: the file's
//! text is a function of the object alone (`outdir::render_objects`).
//!
//! The state keeps a digest of each carrier object, not the object: a hundred gateways' carriers
//! would be hundreds of megabytes.

use crate::generate::object::{Embed, Object, SHARED, SharedId, WasmCarrier};
use serde::Serialize;
use serde::ser;
use std::collections::HashMap;

/// Whether `o` is a wasm carrier: a 1.5 wasm `EnvoyFilter`, a 1.4 `WasmPlugin` or an Envoy
/// Gateway `EnvoyExtensionPolicy`.
pub(super) fn is_carrier(o: &Object) -> bool {
    matches!(o, Object::Wasm(_))
}

/// The digest of what a carrier is (not of its text): two objects with the same digest are equal,
/// so their files are. `None` for any other object.
///
/// Its parts go through their own `Serialize` implementations (those of the text), into
/// [`Digest`]: a field added to an action set is digested without a line here. The carrier's own
/// fields are named below, so the compiler asks for a new one.
pub(super) fn object_digest(o: &Object) -> Option<[u8; 32]> {
    let Object::Wasm(w) = o else {
        return None;
    };
    let WasmCarrier {
        shell,
        at,
        embed,
        config,
    } = &**w;
    let embed = match embed {
        Embed::Mapping => "mapping",
        Embed::Json => "json",
    };
    let mut sink = Sink::default();
    ("wasm", shell, at, embed, config)
        .serialize(Digest {
            sink: &mut sink,
            seen: &mut HashMap::new(),
        })
        .ok()?;
    Some(sink.finish())
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

/// Bytes on their way into a BLAKE3 hasher, in large updates.
#[derive(Default)]
struct Sink {
    buf: Vec<u8>,
    h: blake3::Hasher,
}

impl Sink {
    fn push(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= 1 << 16 {
            self.h.update(&self.buf);
            self.buf.clear();
        }
    }

    /// A length, then the bytes: no two sequences of byte strings encode alike.
    fn bytes(&mut self, b: &[u8]) {
        self.push(&(b.len() as u64).to_le_bytes());
        self.push(b);
    }

    fn finish(mut self) -> [u8; 32] {
        self.h.update(&self.buf);
        *self.h.finalize().as_bytes()
    }
}

/// A carrier's configuration is megabytes of text on a large gateway, which would take as long to
/// hash as to write: its parts are digested instead, each scalar tagged with its type (strings and
/// bytes with their length), containers opened and closed, so that the encoding of a value is
/// self-delimiting and two different values never encode alike. A part the action sets share
/// (`generate::object::SHARED`: the action lists, the typed actions) is digested once, by its
/// identity (it lives as long as the configuration), and its digest stands for it: how the parts
/// are shared does not change the digest.
struct Digest<'a> {
    sink: &'a mut Sink,
    seen: &'a mut HashMap<SharedId, [u8; 32]>,
}

/// A shape `Digest` refuses (none of a carrier's parts has it): no digest, the carrier is written.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl ser::Error for Refused {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Refused(msg.to_string())
    }
}

impl<'a> Digest<'a> {
    fn tag(self, t: &[u8]) -> Result<(), Refused> {
        self.sink.push(t);
        Ok(())
    }

    fn open(self, t: &[u8]) -> Compound<'a> {
        self.sink.push(t);
        Compound {
            d: self,
            shared: None,
        }
    }

    fn reborrow(&mut self) -> Digest<'_> {
        Digest {
            sink: &mut *self.sink,
            seen: &mut *self.seen,
        }
    }
}

impl<'a> ser::Serializer for Digest<'a> {
    type Ok = ();
    type Error = Refused;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    /// Not: a shared part comes with its identity.
    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, b: bool) -> Result<(), Refused> {
        self.tag(if b { b"T" } else { b"F" })
    }
    fn serialize_i8(self, n: i8) -> Result<(), Refused> {
        self.serialize_i64(i64::from(n))
    }
    fn serialize_i16(self, n: i16) -> Result<(), Refused> {
        self.serialize_i64(i64::from(n))
    }
    fn serialize_i32(self, n: i32) -> Result<(), Refused> {
        self.serialize_i64(i64::from(n))
    }
    fn serialize_i64(self, n: i64) -> Result<(), Refused> {
        self.sink.push(b"i");
        self.tag(&n.to_le_bytes())
    }
    fn serialize_u8(self, n: u8) -> Result<(), Refused> {
        self.serialize_u64(u64::from(n))
    }
    fn serialize_u16(self, n: u16) -> Result<(), Refused> {
        self.serialize_u64(u64::from(n))
    }
    fn serialize_u32(self, n: u32) -> Result<(), Refused> {
        self.serialize_u64(u64::from(n))
    }
    fn serialize_u64(self, n: u64) -> Result<(), Refused> {
        self.sink.push(b"u");
        self.tag(&n.to_le_bytes())
    }
    fn serialize_f32(self, f: f32) -> Result<(), Refused> {
        self.serialize_f64(f64::from(f))
    }
    fn serialize_f64(self, f: f64) -> Result<(), Refused> {
        self.sink.push(b"f");
        self.tag(&f.to_bits().to_le_bytes())
    }
    fn serialize_char(self, c: char) -> Result<(), Refused> {
        self.serialize_str(c.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, s: &str) -> Result<(), Refused> {
        self.sink.push(b"s");
        self.sink.bytes(s.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, b: &[u8]) -> Result<(), Refused> {
        self.sink.push(b"b");
        self.sink.bytes(b);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Refused> {
        self.tag(b"n")
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), Refused> {
        self.sink.push(b"?");
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Refused> {
        self.tag(b"n")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Refused> {
        self.tag(b"n")
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> Result<(), Refused> {
        self.sink.push(b"v");
        self.sink.bytes(v.as_bytes());
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Refused> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Refused> {
        self.sink.push(b"V");
        self.sink.bytes(variant.as_bytes());
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Refused> {
        Ok(self.open(b"["))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Refused> {
        Ok(self.open(b"["))
    }
    fn serialize_tuple_struct(self, name: &'static str, _: usize) -> Result<Compound<'a>, Refused> {
        if name == SHARED {
            return Ok(Compound {
                d: self,
                shared: Some(Head::default()),
            });
        }
        Ok(self.open(b"["))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Refused> {
        self.sink.push(b"V");
        self.sink.bytes(variant.as_bytes());
        Ok(self.open(b"["))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Refused> {
        Ok(self.open(b"{"))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Refused> {
        Ok(self.open(b"{"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Refused> {
        self.sink.push(b"V");
        self.sink.bytes(variant.as_bytes());
        Ok(self.open(b"{"))
    }
}

/// The head of a shared part read so far: its identity, and whether the flag saying that other
/// sets hold it went by (it does not matter here).
#[derive(Default)]
struct Head {
    id: Option<SharedId>,
    flag: bool,
}

/// A container being digested (closed by its end tag), or a shared part.
struct Compound<'a> {
    d: Digest<'a>,
    shared: Option<Head>,
}

impl Compound<'_> {
    fn element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Refused> {
        let Some(head) = &mut self.shared else {
            return v.serialize(self.d.reborrow());
        };
        match (head.id, head.flag) {
            (None, _) => {
                let mut id = Sink::default();
                v.serialize(Digest {
                    sink: &mut id,
                    seen: &mut HashMap::new(),
                })?;
                // The identity's own encoding: a tag, a length, the bytes.
                let b = id.buf.get(9..).unwrap_or_default();
                head.id = Some(
                    SharedId::try_from(b)
                        .map_err(|_| Refused("a shared part's identity".into()))?,
                );
            }
            (Some(_), false) => head.flag = true,
            (Some(id), true) => {
                let digest = match self.d.seen.get(&id) {
                    Some(d) => *d,
                    None => {
                        let mut part = Sink::default();
                        v.serialize(Digest {
                            sink: &mut part,
                            seen: &mut *self.d.seen,
                        })?;
                        let d = part.finish();
                        self.d.seen.insert(id, d);
                        d
                    }
                };
                self.d.sink.push(b"S");
                self.d.sink.push(&digest);
            }
        }
        Ok(())
    }

    fn close(self, t: &[u8]) -> Result<(), Refused> {
        if self.shared.is_none() {
            self.d.sink.push(t);
        }
        Ok(())
    }
}

/// The list-like compounds: each element hashed in turn, then the closing bracket.
macro_rules! list_like {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Refused;
            fn $method<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Refused> {
                self.element(v)
            }
            fn end(self) -> Result<(), Refused> {
                self.close(b"]")
            }
        }
    )*};
}

list_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), Refused> {
        self.element(k)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Refused> {
        self.element(v)
    }
    fn end(self) -> Result<(), Refused> {
        self.close(b"}")
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        k: &'static str,
        v: &T,
    ) -> Result<(), Refused> {
        self.element(k)?;
        self.element(v)
    }
    fn end(self) -> Result<(), Refused> {
        self.close(b"}")
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        k: &'static str,
        v: &T,
    ) -> Result<(), Refused> {
        self.element(k)?;
        self.element(v)
    }
    fn end(self) -> Result<(), Refused> {
        self.close(b"}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::actions::Action;
    use crate::generate::names::HexDigest;
    use crate::generate::object::{ActionSet, WasmConfig};
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
            predicates: Arc::from(vec!["request.url_path.startsWith('/')".to_string()]),
            ..ActionSet::for_tests(name, "a.example.com", actions.clone())
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
        let variants: [(&str, Change); 9] = [
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
        // The auth scope is in the text, so in the digest, when the list has an auth action.
        let auth: Arc<[Action]> = Arc::from(vec![Action {
            service: crate::generate::actions::AUTH_SERVICE,
            ..action("")
        }]);
        let scoped = |scope: &str| {
            let mut s = set("p1", &auth);
            s.auth_scope = Arc::from(scope);
            object_digest(&carrier(vec![s], Embed::Json)).unwrap()
        };
        assert_eq!(scoped("x"), scoped("x"));
        assert_ne!(scoped("x"), scoped("y"));
        // Without one, the text has no auth scope, nor does the digest.
        let unscoped = |scope: &str| {
            let mut s = set("p1", &list);
            s.auth_scope = Arc::from(scope);
            object_digest(&carrier(vec![s], Embed::Json)).unwrap()
        };
        assert_eq!(unscoped("x"), unscoped("y"));
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
            let mut sink = Sink::default();
            v.serialize(Digest {
                sink: &mut sink,
                seen: &mut HashMap::new(),
            })
            .unwrap();
            sink.finish()
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
