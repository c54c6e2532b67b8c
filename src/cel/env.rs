//! The declarations of the operator's validation environment: cel-go v0.23.2's standard library
//! (common/stdlib/standard.go) with the cross-type numeric comparison overloads filtered out (cel-go
//! checker/env.go `crossTypeNumericComparisonOverloads`; the operator does not enable
//! `cel.CrossTypeNumericComparisons`), `ext.Strings()` at its latest version (ext/strings.go: no
//! option selects `math.MaxUint32`, so versions 0–3: `charAt` … `upperAscii`, `format`,
//! `strings.quote`, `join`, `reverse`), Kuadrant's `requestBodyJSON` / `responseBodyJSON`, and the
//! variables of kuadrant-operator `internal/cel/kuadrant_validator.go` (`request`, `source`,
//! `destination`, `connection`, all `cel.AnyType`) plus the policy bindings (`auth`, `ratelimit`, also
//! `cel.AnyType`, pushed by the istio / envoy-gateway extension reconcilers).

use std::collections::HashMap;
use std::sync::LazyLock;

use super::types::Type;

/// One overload: member (receiver-style) or global, its parameter types (receiver first) and result.
#[derive(Debug)]
pub(crate) struct Overload {
    #[expect(
        dead_code,
        reason = "cel-go's overload id: names the overload for a reader and in `Debug` output"
    )]
    pub id: &'static str,
    pub member: bool,
    pub params: Vec<Type>,
    pub result: Type,
}

impl Overload {
    /// Whether the signature mentions a type parameter (`A`, `B`): such overloads are instantiated
    /// with fresh type variables at each call.
    pub(crate) fn is_generic(&self) -> bool {
        fn has(t: &Type) -> bool {
            match t {
                Type::Param(_) => true,
                Type::List(e) => has(e),
                Type::Map(k, v) => has(k) || has(v),
                Type::TypeOf(Some(p)) => has(p),
                _ => false,
            }
        }
        self.params.iter().any(has) || has(&self.result)
    }
}

/// Functions by name, each with its overloads in declaration order.
pub(crate) type Functions = HashMap<&'static str, Vec<Overload>>;

fn a() -> Type {
    Type::param("A")
}
fn b() -> Type {
    Type::param("B")
}
fn list_a() -> Type {
    Type::list(a())
}
fn map_ab() -> Type {
    Type::map(a(), b())
}

fn g(id: &'static str, params: Vec<Type>, result: Type) -> Overload {
    Overload {
        id,
        member: false,
        params,
        result,
    }
}
fn m(id: &'static str, params: Vec<Type>, result: Type) -> Overload {
    Overload {
        id,
        member: true,
        params,
        result,
    }
}

static FUNCTIONS: LazyLock<Functions> = LazyLock::new(build);

/// The function declarations (the same for every policy kind).
pub(crate) fn functions() -> &'static Functions {
    &FUNCTIONS
}

/// The overloads of every function, by function name.
// Long: one declaration table, an entry per function as in cel-go's standard library.
fn build() -> Functions {
    use Type::{Bool, Bytes, Double, Duration, Int, String as Str, Timestamp, Uint};
    let mut f: Functions = HashMap::new();
    let bb = || vec![Bool, Bool];
    f.insert("_?_:_", vec![g("conditional", vec![Bool, a(), a()], a())]);
    f.insert("_&&_", vec![g("logical_and", bb(), Bool)]);
    f.insert("_||_", vec![g("logical_or", bb(), Bool)]);
    f.insert("!_", vec![g("logical_not", vec![Bool], Bool)]);
    f.insert(
        "@not_strictly_false",
        vec![g("not_strictly_false", vec![Bool], Bool)],
    );
    f.insert("_==_", vec![g("equals", vec![a(), a()], Bool)]);
    f.insert("_!=_", vec![g("not_equals", vec![a(), a()], Bool)]);
    f.insert(
        "_+_",
        vec![
            g("add_bytes", vec![Bytes, Bytes], Bytes),
            g("add_double", vec![Double, Double], Double),
            g("add_duration_duration", vec![Duration, Duration], Duration),
            g(
                "add_duration_timestamp",
                vec![Duration, Timestamp],
                Timestamp,
            ),
            g(
                "add_timestamp_duration",
                vec![Timestamp, Duration],
                Timestamp,
            ),
            g("add_int64", vec![Int, Int], Int),
            g("add_list", vec![list_a(), list_a()], list_a()),
            g("add_string", vec![Str, Str], Str),
            g("add_uint64", vec![Uint, Uint], Uint),
        ],
    );
    f.insert(
        "_/_",
        vec![
            g("divide_double", vec![Double, Double], Double),
            g("divide_int64", vec![Int, Int], Int),
            g("divide_uint64", vec![Uint, Uint], Uint),
        ],
    );
    f.insert(
        "_%_",
        vec![
            g("modulo_int64", vec![Int, Int], Int),
            g("modulo_uint64", vec![Uint, Uint], Uint),
        ],
    );
    f.insert(
        "_*_",
        vec![
            g("multiply_double", vec![Double, Double], Double),
            g("multiply_int64", vec![Int, Int], Int),
            g("multiply_uint64", vec![Uint, Uint], Uint),
        ],
    );
    f.insert(
        "-_",
        vec![
            g("negate_double", vec![Double], Double),
            g("negate_int64", vec![Int], Int),
        ],
    );
    f.insert(
        "_-_",
        vec![
            g("subtract_double", vec![Double, Double], Double),
            g(
                "subtract_duration_duration",
                vec![Duration, Duration],
                Duration,
            ),
            g("subtract_int64", vec![Int, Int], Int),
            g(
                "subtract_timestamp_duration",
                vec![Timestamp, Duration],
                Timestamp,
            ),
            g(
                "subtract_timestamp_timestamp",
                vec![Timestamp, Timestamp],
                Duration,
            ),
            g("subtract_uint64", vec![Uint, Uint], Uint),
        ],
    );
    // Comparisons: the same-type overloads only (cross-type ones are filtered at check time).
    for (op, prefix) in [
        ("_<_", "less"),
        ("_<=_", "less_equals"),
        ("_>_", "greater"),
        ("_>=_", "greater_equals"),
    ] {
        let ids: [&'static str; 8] = match prefix {
            "less" => [
                "less_bool",
                "less_int64",
                "less_uint64",
                "less_double",
                "less_string",
                "less_bytes",
                "less_timestamp",
                "less_duration",
            ],
            "less_equals" => [
                "less_equals_bool",
                "less_equals_int64",
                "less_equals_uint64",
                "less_equals_double",
                "less_equals_string",
                "less_equals_bytes",
                "less_equals_timestamp",
                "less_equals_duration",
            ],
            "greater" => [
                "greater_bool",
                "greater_int64",
                "greater_uint64",
                "greater_double",
                "greater_string",
                "greater_bytes",
                "greater_timestamp",
                "greater_duration",
            ],
            _ => [
                "greater_equals_bool",
                "greater_equals_int64",
                "greater_equals_uint64",
                "greater_equals_double",
                "greater_equals_string",
                "greater_equals_bytes",
                "greater_equals_timestamp",
                "greater_equals_duration",
            ],
        };
        let tys = [Bool, Int, Uint, Double, Str, Bytes, Timestamp, Duration];
        f.insert(
            op,
            ids.iter()
                .zip(tys)
                .map(|(id, t)| g(id, vec![t.clone(), t], Bool))
                .collect(),
        );
    }
    f.insert(
        "_[_]",
        vec![
            g("index_list", vec![list_a(), Int], a()),
            g("index_map", vec![map_ab(), a()], b()),
        ],
    );
    f.insert(
        "@in",
        vec![
            g("in_list", vec![a(), list_a()], Bool),
            g("in_map", vec![a(), map_ab()], Bool),
        ],
    );
    f.insert(
        "size",
        vec![
            g("size_bytes", vec![Bytes], Int),
            m("bytes_size", vec![Bytes], Int),
            g("size_list", vec![list_a()], Int),
            m("list_size", vec![list_a()], Int),
            g("size_map", vec![map_ab()], Int),
            m("map_size", vec![map_ab()], Int),
            g("size_string", vec![Str], Int),
            m("string_size", vec![Str], Int),
        ],
    );
    f.insert("type", vec![g("type", vec![a()], Type::type_of(a()))]);
    f.insert(
        "bool",
        vec![
            g("bool_to_bool", vec![Bool], Bool),
            g("string_to_bool", vec![Str], Bool),
        ],
    );
    f.insert(
        "bytes",
        vec![
            g("bytes_to_bytes", vec![Bytes], Bytes),
            g("string_to_bytes", vec![Str], Bytes),
        ],
    );
    f.insert(
        "double",
        vec![
            g("double_to_double", vec![Double], Double),
            g("int64_to_double", vec![Int], Double),
            g("string_to_double", vec![Str], Double),
            g("uint64_to_double", vec![Uint], Double),
        ],
    );
    f.insert(
        "duration",
        vec![
            g("duration_to_duration", vec![Duration], Duration),
            g("int64_to_duration", vec![Int], Duration),
            g("string_to_duration", vec![Str], Duration),
        ],
    );
    f.insert("dyn", vec![g("to_dyn", vec![a()], Type::Dyn)]);
    f.insert(
        "int",
        vec![
            g("int64_to_int64", vec![Int], Int),
            g("double_to_int64", vec![Double], Int),
            g("duration_to_int64", vec![Duration], Int),
            g("string_to_int64", vec![Str], Int),
            g("timestamp_to_int64", vec![Timestamp], Int),
            g("uint64_to_int64", vec![Uint], Int),
        ],
    );
    f.insert(
        "string",
        vec![
            g("string_to_string", vec![Str], Str),
            g("bool_to_string", vec![Bool], Str),
            g("bytes_to_string", vec![Bytes], Str),
            g("double_to_string", vec![Double], Str),
            g("duration_to_string", vec![Duration], Str),
            g("int64_to_string", vec![Int], Str),
            g("timestamp_to_string", vec![Timestamp], Str),
            g("uint64_to_string", vec![Uint], Str),
        ],
    );
    f.insert(
        "timestamp",
        vec![
            g("timestamp_to_timestamp", vec![Timestamp], Timestamp),
            g("int64_to_timestamp", vec![Int], Timestamp),
            g("string_to_timestamp", vec![Str], Timestamp),
        ],
    );
    f.insert(
        "uint",
        vec![
            g("uint64_to_uint64", vec![Uint], Uint),
            g("double_to_uint64", vec![Double], Uint),
            g("int64_to_uint64", vec![Int], Uint),
            g("string_to_uint64", vec![Str], Uint),
        ],
    );
    f.insert("contains", vec![m("contains_string", vec![Str, Str], Bool)]);
    f.insert(
        "endsWith",
        vec![m("ends_with_string", vec![Str, Str], Bool)],
    );
    f.insert(
        "startsWith",
        vec![m("starts_with_string", vec![Str, Str], Bool)],
    );
    f.insert(
        "matches",
        vec![
            g("matches", vec![Str, Str], Bool),
            m("matches_string", vec![Str, Str], Bool),
        ],
    );
    // Timestamp accessors, with and without a time zone; the duration ones where declared.
    for (name, with_duration) in [
        ("getFullYear", false),
        ("getMonth", false),
        ("getDayOfYear", false),
        ("getDayOfMonth", false),
        ("getDate", false),
        ("getDayOfWeek", false),
        ("getHours", true),
        ("getMinutes", true),
        ("getSeconds", true),
        ("getMilliseconds", true),
    ] {
        let mut v = vec![
            m("timestamp_accessor", vec![Timestamp], Int),
            m("timestamp_accessor_with_tz", vec![Timestamp, Str], Int),
        ];
        if with_duration {
            v.push(m("duration_accessor", vec![Duration], Int));
        }
        f.insert(name, v);
    }
    // ext.Strings()
    f.insert("charAt", vec![m("string_char_at_int", vec![Str, Int], Str)]);
    for name in ["indexOf", "lastIndexOf"] {
        f.insert(
            name,
            vec![
                m("string_index_of_string", vec![Str, Str], Int),
                m("string_index_of_string_int", vec![Str, Str, Int], Int),
            ],
        );
    }
    f.insert("lowerAscii", vec![m("string_lower_ascii", vec![Str], Str)]);
    f.insert(
        "replace",
        vec![
            m("string_replace_string_string", vec![Str, Str, Str], Str),
            m(
                "string_replace_string_string_int",
                vec![Str, Str, Str, Int],
                Str,
            ),
        ],
    );
    f.insert(
        "split",
        vec![
            m("string_split_string", vec![Str, Str], Type::list(Str)),
            m(
                "string_split_string_int",
                vec![Str, Str, Int],
                Type::list(Str),
            ),
        ],
    );
    f.insert(
        "substring",
        vec![
            m("string_substring_int", vec![Str, Int], Str),
            m("string_substring_int_int", vec![Str, Int, Int], Str),
        ],
    );
    f.insert("trim", vec![m("string_trim", vec![Str], Str)]);
    f.insert("upperAscii", vec![m("string_upper_ascii", vec![Str], Str)]);
    f.insert(
        "format",
        vec![m("string_format", vec![Str, Type::list(Type::Dyn)], Str)],
    );
    f.insert("strings.quote", vec![g("strings_quote", vec![Str], Str)]);
    f.insert(
        "join",
        vec![
            m("list_join", vec![Type::list(Str)], Str),
            m("list_join_string", vec![Type::list(Str), Str], Str),
        ],
    );
    f.insert("reverse", vec![m("string_reverse", vec![Str], Str)]);
    // Kuadrant (internal/cel/kuadrant_validator.go)
    f.insert(
        "requestBodyJSON",
        vec![g("request_body_json_string", vec![Str], Type::Any)],
    );
    f.insert(
        "responseBodyJSON",
        vec![g("response_body_json_string", vec![Str], Type::Any)],
    );
    f
}

/// The type of a global identifier: the declared variables and the standard type identifiers
/// (common/stdlib/standard.go `stdTypes`, named by their runtime type names).
pub(crate) fn global_ident(name: &str, auth: bool, ratelimit: bool) -> Option<Type> {
    use Type::*;
    Some(match name {
        "request" | "source" | "destination" | "connection" => Any,
        "auth" if auth => Any,
        "ratelimit" if ratelimit => Any,
        "bool" => Type::type_of(Bool),
        "bytes" => Type::type_of(Bytes),
        "double" => Type::type_of(Double),
        "google.protobuf.Duration" => Type::type_of(Duration),
        "int" => Type::type_of(Int),
        "list" => Type::type_of(list_a()),
        "map" => Type::type_of(map_ab()),
        "null_type" => Type::type_of(Null),
        "string" => Type::type_of(String),
        "google.protobuf.Timestamp" => Type::type_of(Timestamp),
        "type" => Type::type_of(Type::TypeOf(None)),
        "uint" => Type::type_of(Uint),
        // Well-known protobuf messages the default registry knows (common/types/provider.go
        // `NewRegistry` registers every message of the well-known files).
        // Well-known protobuf messages the default registry knows (common/types/provider.go
        // `NewRegistry`), sanitised as common/types/types.go `checkedWellKnowns` does: wrappers as
        // their primitive (their nullability is not modelled), `Value` as dyn, `ListValue` and
        // `Struct` as JSON list and map.
        "google.protobuf.Any" => Type::type_of(Any),
        "google.protobuf.Value" => Type::type_of(Dyn),
        "google.protobuf.ListValue" => Type::type_of(Type::list(Dyn)),
        "google.protobuf.Struct" => Type::type_of(Type::map(String, Dyn)),
        "google.protobuf.BoolValue" => Type::type_of(Bool),
        "google.protobuf.BytesValue" => Type::type_of(Bytes),
        "google.protobuf.DoubleValue" | "google.protobuf.FloatValue" => Type::type_of(Double),
        "google.protobuf.Int32Value" | "google.protobuf.Int64Value" => Type::type_of(Int),
        "google.protobuf.StringValue" => Type::type_of(String),
        "google.protobuf.UInt32Value" | "google.protobuf.UInt64Value" => Type::type_of(Uint),
        "google.protobuf.Empty" | "google.protobuf.FieldMask" => {
            Type::type_of(Object(name.to_string()))
        }
        _ => return None,
    })
}
