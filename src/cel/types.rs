//! CEL types as cel-go v0.23.2's checker sees them (common/types/types.go) and its unification rules
//! (checker/types.go: `internalIsAssignable`, `isValidTypeSubstitution`, `mostGeneral`,
//! `notReferencedIn`, `substitute`), with the spellings of checker/format.go `FormatCELType` (error
//! messages) and of `Type.TypeName()` (the string.format validator's messages).

use std::collections::HashMap;

/// A checked type. `Any` is `google.protobuf.Any`, the type the operator gives its variables
/// (`cel.AnyType`); the checker treats it like `dyn` except where a kind is tested explicitly.
#[derive(Clone, Debug, PartialEq, Eq)]
#[expect(
    clippy::enum_variant_names,
    reason = "`TypeOf` is CEL's `type` type; clippy checks this only on crate-private enums"
)]
pub(crate) enum Type {
    Dyn,
    Any,
    Error,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Timestamp,
    Duration,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// `type`, or `type(T)`.
    TypeOf(Option<Box<Type>>),
    /// A type parameter or a free type variable (`A`, `_var3`).
    Param(String),
    /// A message type known to the registry (well-known protobuf messages only here).
    Object(String),
}

impl Type {
    pub(crate) fn list(t: Type) -> Type {
        Type::List(Box::new(t))
    }
    pub(crate) fn map(k: Type, v: Type) -> Type {
        Type::Map(Box::new(k), Box::new(v))
    }
    pub(crate) fn type_of(t: Type) -> Type {
        Type::TypeOf(Some(Box::new(t)))
    }
    pub(crate) fn param(n: &str) -> Type {
        Type::Param(n.to_string())
    }

    fn params(&self) -> Vec<&Type> {
        match self {
            Type::List(e) => vec![e],
            Type::Map(k, v) => vec![k, v],
            Type::TypeOf(Some(t)) => vec![t],
            _ => Vec::new(),
        }
    }

    pub(crate) fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn | Type::Any)
    }
    pub(crate) fn is_dyn_or_error(&self) -> bool {
        self.is_dyn() || matches!(self, Type::Error)
    }

    /// A discriminant standing for cel-go's `Kind()`.
    fn kind(&self) -> u8 {
        match self {
            Type::Dyn => 0,
            Type::Any => 1,
            Type::Error => 2,
            Type::Null => 3,
            Type::Bool => 4,
            Type::Int => 5,
            Type::Uint => 6,
            Type::Double => 7,
            Type::String => 8,
            Type::Bytes => 9,
            Type::Timestamp => 10,
            Type::Duration => 11,
            Type::List(_) => 12,
            Type::Map(..) => 13,
            Type::TypeOf(_) => 14,
            Type::Param(_) => 15,
            Type::Object(_) => 16,
        }
    }

    pub(crate) fn same_kind(&self, other: &Type) -> bool {
        self.kind() == other.kind()
    }

    /// `Type.TypeName()`: the runtime type name.
    pub(crate) fn type_name(&self) -> String {
        match self {
            Type::Dyn => "dyn".into(),
            Type::Any => "google.protobuf.Any".into(),
            Type::Error => "*error*".into(),
            Type::Null => "null_type".into(),
            Type::Bool => "bool".into(),
            Type::Int => "int".into(),
            Type::Uint => "uint".into(),
            Type::Double => "double".into(),
            Type::String => "string".into(),
            Type::Bytes => "bytes".into(),
            Type::Timestamp => "google.protobuf.Timestamp".into(),
            Type::Duration => "google.protobuf.Duration".into(),
            Type::List(_) => "list".into(),
            Type::Map(..) => "map".into(),
            Type::TypeOf(_) => "type".into(),
            Type::Param(n) => n.clone(),
            Type::Object(n) => n.clone(),
        }
    }
}

/// checker/format.go `FormatCELType`.
impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Type::Any => f.write_str("any"),
            Type::Duration => f.write_str("duration"),
            Type::Error => f.write_str("!error!"),
            Type::Null => f.write_str("null"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::TypeOf(Some(t)) => write!(f, "type({t})"),
            other => f.write_str(&other.type_name()),
        }
    }
}

/// Type-parameter bindings (checker/mapping.go).
#[derive(Clone, Debug, Default)]
pub(crate) struct Mapping(HashMap<String, Type>);

impl Mapping {
    fn find(&self, t: &Type) -> Option<&Type> {
        match t {
            Type::Param(n) => self.0.get(n),
            _ => None,
        }
    }
    pub(crate) fn add(&mut self, from: &Type, to: Type) {
        if let Type::Param(n) = from {
            self.0.insert(n.clone(), to);
        }
    }
}

/// `isEqualOrLessSpecific`.
fn equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    if t1.is_dyn() || matches!(t1, Type::Param(_)) {
        return true;
    }
    if t2.is_dyn() || matches!(t2, Type::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Type::List(a), Type::List(b)) => equal_or_less_specific(a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            equal_or_less_specific(k1, k2) && equal_or_less_specific(v1, v2)
        }
        (Type::TypeOf(_), Type::TypeOf(_)) => true,
        _ => t1 == t2,
    }
}

/// `mostGeneral`.
pub(crate) fn most_general(t1: &Type, t2: &Type) -> Type {
    if equal_or_less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

/// `notReferencedIn` (the occurs check).
fn not_referenced_in(m: &Mapping, t: &Type, within: &Type) -> bool {
    if t == within {
        return false;
    }
    match within {
        Type::Param(_) => match m.find(within) {
            None => true,
            Some(sub) => not_referenced_in(m, t, &sub.clone()),
        },
        Type::List(_) | Type::Map(..) | Type::TypeOf(_) => {
            within.params().iter().all(|p| not_referenced_in(m, t, p))
        }
        _ => true,
    }
}

/// `isValidTypeSubstitution`: (valid, t2 has a substitution).
fn valid_substitution(m: &mut Mapping, t1: &Type, t2: &Type) -> (bool, bool) {
    if t1 == t2 {
        return (true, true);
    }
    if let Some(sub) = m.find(t2).cloned() {
        if *t1 == sub {
            return (true, true);
        }
        if assignable_in(m, t1, &sub) {
            let new = most_general(t1, &sub);
            if not_referenced_in(m, t2, &new) {
                m.add(t2, new);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        m.add(t2, t1.clone());
        return (true, false);
    }
    (false, false)
}

fn legacy_nullable(t: &Type) -> bool {
    matches!(
        t,
        Type::Object(_) | Type::Any | Type::Duration | Type::Timestamp
    )
}

/// `internalIsAssignable`: whether t1 is assignable to t2, updating `m`.
pub(crate) fn assignable_in(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    if matches!(t2, Type::Param(_)) {
        let (valid, has_sub) = valid_substitution(m, t1, t2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if matches!(t1, Type::Param(_)) {
        return valid_substitution(m, t2, t1).0;
    }
    if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
        return true;
    }
    if matches!(t1, Type::Null) {
        return legacy_nullable(t2) || matches!(t2, Type::Null);
    }
    if matches!(t2, Type::Null) {
        return legacy_nullable(t1);
    }
    match (t1, t2) {
        (Type::TypeOf(_), _) => matches!(t2, Type::TypeOf(_)),
        (Type::List(a), Type::List(b)) => assignable_in(m, a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            assignable_in(m, k1, k2) && assignable_in(m, v1, v2)
        }
        (Type::List(_) | Type::Map(..), _) => false,
        _ => t1 == t2,
    }
}

/// `isAssignable`: the updated mapping when t1 is assignable to t2.
pub(crate) fn assignable(m: &Mapping, t1: &Type, t2: &Type) -> Option<Mapping> {
    let mut copy = m.clone();
    assignable_in(&mut copy, t1, t2).then_some(copy)
}

/// `isAssignableList`.
pub(crate) fn assignable_list(m: &Mapping, l1: &[Type], l2: &[Type]) -> Option<Mapping> {
    if l1.len() != l2.len() {
        return None;
    }
    let mut copy = m.clone();
    for (a, b) in l1.iter().zip(l2) {
        if !assignable_in(&mut copy, a, b) {
            return None;
        }
    }
    Some(copy)
}

/// `substitute`: bound parameters replaced; unbound ones by `dyn` when `to_dyn`.
pub(crate) fn substitute(m: &Mapping, t: &Type, to_dyn: bool) -> Type {
    if let Some(sub) = m.find(t) {
        return substitute(m, sub, to_dyn);
    }
    match t {
        Type::Param(_) if to_dyn => Type::Dyn,
        Type::List(e) => Type::list(substitute(m, e, to_dyn)),
        Type::Map(k, v) => Type::map(substitute(m, k, to_dyn), substitute(m, v, to_dyn)),
        Type::TypeOf(Some(p)) => Type::type_of(substitute(m, p, to_dyn)),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_follow_format_cel_type() {
        assert_eq!(
            Type::map(Type::String, Type::Int).to_string(),
            "map(string, int)"
        );
        assert_eq!(Type::type_of(Type::Int).to_string(), "type(int)");
        assert_eq!(Type::Null.to_string(), "null");
        assert_eq!(Type::Null.type_name(), "null_type");
        assert_eq!(Type::Timestamp.to_string(), "timestamp");
        assert_eq!(Type::Any.to_string(), "any");
    }

    #[test]
    fn null_is_assignable_only_to_legacy_nullables() {
        let m = Mapping::default();
        assert!(assignable(&m, &Type::Null, &Type::Timestamp).is_some());
        assert!(assignable(&m, &Type::Null, &Type::Int).is_none());
        assert!(assignable(&m, &Type::Int, &Type::Null).is_none());
        assert!(assignable(&m, &Type::list(Type::Int), &Type::Null).is_none());
    }

    #[test]
    fn params_bind_and_widen() {
        let m = Mapping::default();
        let a = Type::param("_var0");
        let m = assignable(&m, &Type::Int, &a).unwrap();
        assert!(assignable(&m, &Type::String, &a).is_none());
        let m2 = assignable(&m, &Type::Dyn, &a).unwrap();
        assert_eq!(substitute(&m2, &a, false), Type::Dyn);
    }
}
