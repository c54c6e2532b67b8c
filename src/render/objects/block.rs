//! The fast writer's layout as a `serde::Serializer`: a typed part of a generated object (an action
//! set, a Limitador limit) is written through its own `Serialize` implementation, the one serde_json
//! and the trees use, so a field added there is written here without a line of this writer. The
//! text is what [`super::write_entry`] and [`super::write_seq`] write for the part's tree
//! (`tests::serializer_writes_what_the_tree_writer_writes`), its scalars through the same
//! [`Scalars`] (serde-saphyr's quoting).
//!
//! The serializer says it is not human-readable: a part action sets share then comes as the tuple
//! struct [`SHARED`], and its text is written once per column and reused.

use super::{Scalars, indent};
use crate::generate::object::{SHARED, SharedId};
use serde::Serialize;
use serde::ser::{self, Impossible};
use std::fmt::Write as _;

/// Why a part could not be written: a shape generated objects do not have, or a scalar
/// serde-saphyr refused.
#[derive(Debug)]
pub(super) struct Error(pub(super) String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl From<String> for Error {
    fn from(s: String) -> Self {
        Error(s)
    }
}

/// What precedes a value on its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum At {
    /// `key:` of a mapping whose keys sit at the column.
    Entry,
    /// `- ` of a sequence whose dashes sit at the column.
    Item,
}

/// Writes one value after what `at` says, at column `col` (of the key or of the dash).
pub(super) struct Block<'a, 'v> {
    pub(super) out: &'a mut String,
    pub(super) sc: &'a mut Scalars<'v>,
    pub(super) col: usize,
    pub(super) at: At,
}

/// `$name(args) -> Err`: the serializer methods for shapes generated objects do not have.
macro_rules! unsupported {
    ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ret, Error> {
            Err(Error(concat!("cannot write YAML for ", stringify!($name)).into()))
        })*
    };
}

impl<'a, 'v> Block<'a, 'v> {
    /// A scalar on the current line, then the newline.
    fn scalar(
        self,
        text: impl FnOnce(&mut String, &mut Scalars<'v>) -> Result<(), String>,
    ) -> Result<(), Error> {
        if self.at == At::Entry {
            self.out.push(' ');
        }
        text(self.out, self.sc)?;
        self.out.push('\n');
        Ok(())
    }

    fn number(self, n: impl std::fmt::Display) -> Result<(), Error> {
        self.scalar(|out, _| {
            let _ = write!(out, "{n}");
            Ok(())
        })
    }

    /// A mapping or a sequence: a key's value starts on the next line, its keys indented, its
    /// dashes not; an item's first key or dash continues the `- ` line.
    fn compound(self, seq: bool) -> Compound<'a, 'v> {
        let child = match (self.at, seq) {
            (At::Entry, true) => self.col,
            _ => self.col + 2,
        };
        Compound {
            out: self.out,
            sc: self.sc,
            child,
            at: self.at,
            seq,
            first: true,
        }
    }
}

impl<'a, 'v> ser::Serializer for Block<'a, 'v> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'v>;
    type SerializeTuple = Compound<'a, 'v>;
    type SerializeTupleStruct = TupleStruct<'a, 'v>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Compound<'a, 'v>;
    type SerializeStruct = Compound<'a, 'v>;
    type SerializeStructVariant = Impossible<(), Error>;

    /// Not: a shared part comes with its identity ([`SHARED`]).
    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, b: bool) -> Result<(), Error> {
        self.scalar(|out, _| {
            out.push_str(if b { "true" } else { "false" });
            Ok(())
        })
    }
    fn serialize_i8(self, n: i8) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_i16(self, n: i16) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_i32(self, n: i32) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_i64(self, n: i64) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_u8(self, n: u8) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_u16(self, n: u16) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_u32(self, n: u32) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_u64(self, n: u64) -> Result<(), Error> {
        self.number(n)
    }
    fn serialize_f32(self, f: f32) -> Result<(), Error> {
        self.serialize_f64(f64::from(f))
    }
    /// As serde-saphyr writes the number (the tree writer hands it floats too).
    fn serialize_f64(self, f: f64) -> Result<(), Error> {
        self.scalar(|out, _| {
            let doc = serde_saphyr::to_string_with_options(&f, super::saphyr_options())
                .map_err(|e| e.to_string())?;
            out.push_str(doc.strip_suffix('\n').unwrap_or(&doc));
            Ok(())
        })
    }
    fn serialize_char(self, c: char) -> Result<(), Error> {
        self.serialize_str(c.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, s: &str) -> Result<(), Error> {
        self.scalar(|out, sc| sc.value(out, s))
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.scalar(|out, _| {
            out.push_str("null");
            Ok(())
        })
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> Result<(), Error> {
        self.serialize_str(v)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a, 'v>, Error> {
        Ok(self.compound(true))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a, 'v>, Error> {
        Ok(self.compound(true))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        _: usize,
    ) -> Result<TupleStruct<'a, 'v>, Error> {
        Ok(if name == SHARED {
            TupleStruct::Shared(Shared {
                block: self,
                id: None,
                shared: None,
            })
        } else {
            TupleStruct::Seq(self.compound(true))
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a, 'v>, Error> {
        Ok(self.compound(false))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, 'v>, Error> {
        Ok(self.compound(false))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(Error("cannot write YAML for a newtype variant".into()))
    }
    unsupported! {
        serialize_bytes(&[u8]) -> ();
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
    }
}

/// A mapping or a sequence being written: its keys or dashes at column `child`.
pub(super) struct Compound<'a, 'v> {
    out: &'a mut String,
    sc: &'a mut Scalars<'v>,
    child: usize,
    at: At,
    seq: bool,
    first: bool,
}

impl<'v> Compound<'_, 'v> {
    /// What precedes a key or an item.
    fn next(&mut self) {
        if !self.first {
            indent(self.out, self.child);
        } else if self.at == At::Entry {
            self.out.push('\n');
            indent(self.out, self.child);
        }
        self.first = false;
        if self.seq {
            self.out.push_str("- ");
        }
    }

    fn item<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.next();
        v.serialize(Block {
            out: self.out,
            sc: self.sc,
            col: self.child,
            at: At::Item,
        })
    }

    fn key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), Error> {
        self.next();
        k.serialize(Key {
            out: self.out,
            sc: self.sc,
        })?;
        self.out.push(':');
        Ok(())
    }

    fn value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        v.serialize(Block {
            out: self.out,
            sc: self.sc,
            col: self.child,
            at: At::Entry,
        })
    }

    /// An empty one is `[]` or `{}` on the line.
    fn close(self) -> Result<(), Error> {
        if self.first {
            if self.at == At::Entry {
                self.out.push(' ');
            }
            self.out.push_str(if self.seq { "[]\n" } else { "{}\n" });
        }
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), Error> {
        self.key(k)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.value(v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        k: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.key(k)?;
        self.value(v)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// A tuple struct: a part the action sets share, or a sequence.
pub(super) enum TupleStruct<'a, 'v> {
    Shared(Shared<'a, 'v>),
    Seq(Compound<'a, 'v>),
}

/// A shared part ([`SHARED`]): its identity, whether other sets hold it, then the part, whose
/// text is kept by identity, column and place when other sets hold it.
pub(super) struct Shared<'a, 'v> {
    block: Block<'a, 'v>,
    id: Option<SharedId>,
    shared: Option<bool>,
}

impl Shared<'_, '_> {
    fn field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        let (Some(id), Some(shared)) = (self.id, self.shared) else {
            match v.serialize(Field)? {
                FieldValue::Id(id) if self.id.is_none() => self.id = Some(id),
                FieldValue::Bool(b) if self.id.is_some() => self.shared = Some(b),
                _ => return Err(Error("a shared part's head out of order".into())),
            }
            return Ok(());
        };
        let b = &mut self.block;
        let key = (id, b.col, b.at);
        if shared && let Some(text) = b.sc.shared.get(&key) {
            b.out.push_str(text);
            return Ok(());
        }
        let start = b.out.len();
        v.serialize(Block {
            out: &mut *b.out,
            sc: &mut *b.sc,
            col: b.col,
            at: b.at,
        })?;
        if shared {
            let text = b.out[start..].to_string();
            b.sc.shared.insert(key, text);
        }
        Ok(())
    }
}

impl ser::SerializeTupleStruct for TupleStruct<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        match self {
            TupleStruct::Seq(c) => c.item(v),
            TupleStruct::Shared(s) => s.field(v),
        }
    }
    fn end(self) -> Result<(), Error> {
        match self {
            TupleStruct::Seq(c) => c.close(),
            TupleStruct::Shared(_) => Ok(()),
        }
    }
}

/// A field of a shared part's head.
enum FieldValue {
    Id(SharedId),
    Bool(bool),
}

/// Reads a shared part's identity or flag.
struct Field;

impl ser::Serializer for Field {
    type Ok = FieldValue;
    type Error = Error;
    type SerializeSeq = Impossible<FieldValue, Error>;
    type SerializeTuple = Impossible<FieldValue, Error>;
    type SerializeTupleStruct = Impossible<FieldValue, Error>;
    type SerializeTupleVariant = Impossible<FieldValue, Error>;
    type SerializeMap = Impossible<FieldValue, Error>;
    type SerializeStruct = Impossible<FieldValue, Error>;
    type SerializeStructVariant = Impossible<FieldValue, Error>;

    fn serialize_bytes(self, b: &[u8]) -> Result<FieldValue, Error> {
        SharedId::try_from(b)
            .map(FieldValue::Id)
            .map_err(|_| Error("a shared part's id has the wrong length".into()))
    }
    fn serialize_bool(self, b: bool) -> Result<FieldValue, Error> {
        Ok(FieldValue::Bool(b))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<FieldValue, Error> {
        Err(Error("not a shared part's head".into()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<FieldValue, Error> {
        Err(Error("not a shared part's head".into()))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<FieldValue, Error> {
        Err(Error("not a shared part's head".into()))
    }
    unsupported! {
        serialize_i8(i8) -> FieldValue;
        serialize_i16(i16) -> FieldValue;
        serialize_i32(i32) -> FieldValue;
        serialize_i64(i64) -> FieldValue;
        serialize_u8(u8) -> FieldValue;
        serialize_u16(u16) -> FieldValue;
        serialize_u32(u32) -> FieldValue;
        serialize_u64(u64) -> FieldValue;
        serialize_f32(f32) -> FieldValue;
        serialize_f64(f64) -> FieldValue;
        serialize_char(char) -> FieldValue;
        serialize_str(&str) -> FieldValue;
        serialize_none() -> FieldValue;
        serialize_unit() -> FieldValue;
        serialize_unit_struct(&'static str) -> FieldValue;
        serialize_unit_variant(&'static str, u32, &'static str) -> FieldValue;
        serialize_seq(Option<usize>) -> Impossible<FieldValue, Error>;
        serialize_tuple(usize) -> Impossible<FieldValue, Error>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<FieldValue, Error>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<FieldValue, Error>;
        serialize_map(Option<usize>) -> Impossible<FieldValue, Error>;
        serialize_struct(&'static str, usize) -> Impossible<FieldValue, Error>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<FieldValue, Error>;
    }
}

/// Writes a mapping key (a string) as [`Scalars::key`] does.
struct Key<'a, 'v> {
    out: &'a mut String,
    sc: &'a mut Scalars<'v>,
}

impl ser::Serializer for Key<'_, '_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, s: &str) -> Result<(), Error> {
        Ok(self.sc.key(self.out, s)?)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Error> {
        Err(Error("a mapping key that is not a string".into()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(Error("a mapping key that is not a string".into()))
    }
    unsupported! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Error>;
        serialize_tuple(usize) -> Impossible<(), Error>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        serialize_map(Option<usize>) -> Impossible<(), Error>;
        serialize_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
    }
}
