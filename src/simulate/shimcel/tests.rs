use super::*;
use serde_json::json;

const RELEASES: [KuadrantVersion; 2] = [KuadrantVersion::V1_4, KuadrantVersion::V1_5];

fn plain() -> Request {
    Request::parse("GET", "http://x/", &[]).unwrap()
}

/// `src` evaluated by `release`'s shim over a plain request, as JSON.
fn eval(release: KuadrantVersion, src: &str) -> Result<Option<Value>, Failure> {
    let cel = ShimCel::new(release);
    let act = cel.activation(&plain(), None);
    super::super::cost::begin_request(super::super::cost::Limits::default());
    let out = cel.json(src, &act);
    super::super::cost::end_request();
    out
}

fn error(release: KuadrantVersion, src: &str) -> String {
    match eval(release, src) {
        Err(Failure::Error(e)) => e,
        other => panic!("{release:?} {src}: {other:?}"),
    }
}

// wasm-shim v0.12.3 / v0.14.1 src/data/cel/strings.rs, test `extended_string_fn`: the values the
// shim's own test expects, on both releases' interpreters.
#[test]
fn the_shims_strings_functions_give_what_its_tests_expect() {
    let cases = [
        ("'abc'.charAt(1)", json!("b")),
        ("'hello mellow'.indexOf('')", json!(0)),
        ("'hello mellow'.indexOf('ello')", json!(1)),
        ("'hello mellow'.indexOf('jello')", json!(-1)),
        ("'hello mellow'.indexOf('', 2)", json!(2)),
        ("'hello mellow'.indexOf('ello', 20)", json!(-1)),
        ("'hello mellow'.lastIndexOf('')", json!(12)),
        ("'hello mellow'.lastIndexOf('ello')", json!(7)),
        ("'hello mellow'.lastIndexOf('jello')", json!(-1)),
        ("'hello mellow'.lastIndexOf('ello', 6)", json!(1)),
        ("'hello mellow'.lastIndexOf('ello', 20)", json!(-1)),
        ("['hello', 'mellow'].join()", json!("hellomellow")),
        ("[].join()", json!("")),
        ("['hello', 'mellow'].join(' ')", json!("hello mellow")),
        ("'TacoCat'.lowerAscii()", json!("tacocat")),
        ("'TacoC\u{c6}t Xii'.lowerAscii()", json!("tacoc\u{c6}t xii")),
        ("'TacoCat'.upperAscii()", json!("TACOCAT")),
        ("'TacoC\u{c6}t Xii'.upperAscii()", json!("TACOC\u{c6}T XII")),
        ("'  \\ttrim\\t    '.trim()", json!("trim")),
        ("'hello hello'.replace('he', 'we')", json!("wello wello")),
        (
            "'hello hello'.replace('he', 'we', -1)",
            json!("wello wello"),
        ),
        ("'hello hello'.replace('he', 'we', 1)", json!("wello hello")),
        ("'hello hello'.replace('he', 'we', 0)", json!("hello hello")),
        (
            "'hello hello'.replace('', '_')",
            json!("_h_e_l_l_o_ _h_e_l_l_o_"),
        ),
        ("'hello hello'.replace('h', '')", json!("ello ello")),
        (
            "'hello hello hello'.split(' ')",
            json!(["hello", "hello", "hello"]),
        ),
        ("'hello hello hello'.split(' ', 0)", json!([])),
        (
            "'hello hello hello'.split(' ', 1)",
            json!(["hello hello hello"]),
        ),
        (
            "'hello hello hello'.split(' ', 2)",
            json!(["hello", "hello hello"]),
        ),
        (
            "'hello hello hello'.split(' ', -1)",
            json!(["hello", "hello", "hello"]),
        ),
        ("'tacocat'.substring(4)", json!("cat")),
        ("'tacocat'.substring(0, 4)", json!("taco")),
    ];
    for release in RELEASES {
        for (src, want) in &cases {
            assert_eq!(
                eval(release, src),
                Ok(Some(want.clone())),
                "{release:?} {src}"
            );
        }
    }
}

// Where the shim's functions and its interpreter part from cel-go's: each follows from the source
// named beside it.
#[test]
fn the_shim_is_not_cel_go() {
    for release in RELEASES {
        // strings.rs `index_of`: a `uint` when found, and cel 0.12.0 / 0.14.0 objects.rs `Add`
        // adds only values of one type ("Unsupported binary operator", lib.rs).
        assert!(
            error(release, "'abc'.indexOf('c') + 1 == 3")
                .ends_with("Unsupported binary operator 'add': UInt(2), Int(1)"),
            "{release:?}"
        );
        // Byte offsets, not code points.
        assert_eq!(eval(release, "'\u{e9}a'.indexOf('a')"), Ok(Some(json!(2))));
        // `lastIndexOf(t, base)` searches `s[base..]` and does not add `base` back.
        assert_eq!(
            eval(release, "'abcabc'.lastIndexOf('a', 2)"),
            Ok(Some(json!(1)))
        );
        // The needle must be a string: the interpreter's extractor says so, nothing panics.
        assert!(matches!(
            eval(release, "'abc'.indexOf(1) == 0"),
            Err(Failure::Error(_))
        ));
        // strings.rs `char_at`: past the end an error, where cel-go gives ''.
        assert!(error(release, "'abc'.charAt(3) == ''").contains("No index 3 on `abc`"));
        // An error in `exists` is not absorbed by a later `true` (cel-go's is).
        assert!(matches!(
            eval(release, "['a', 1].exists(x, x > 0)"),
            Err(Failure::Error(_))
        ));
        // cel 0.12.0 / 0.14.0 functions.rs `size`: a string's length in bytes.
        assert_eq!(eval(release, "size('\u{e9}')"), Ok(Some(json!(2))));
        // No `dyn`, `format`, `strings.quote` or `reverse`, and no `queryMap` (registered only in
        // the shim's test builds).
        // `strings.quote`: cel 0.12.0 looks the member function `quote` up; cel 0.14.0 tries
        // `strings.quote` first, then reads `strings` as the target (objects.rs, `Expr::Call`).
        let quote = match release {
            KuadrantVersion::V1_4 => "quote",
            KuadrantVersion::V1_5 => "strings",
        };
        for f in ["dyn", "format", quote, "reverse", "queryMap"] {
            let src = match f {
                "dyn" => "dyn(1) == 1",
                "format" => "'%s'.format(['x']) == 'x'",
                "reverse" => "'ab'.reverse() == 'ba'",
                "queryMap" => "'v' in queryMap(request.query)",
                _ => "strings.quote('a') != ''",
            };
            let e = error(release, src);
            assert!(
                e.ends_with(&format!("Undeclared reference to '{f}'")),
                "{release:?} {src}: {e}"
            );
        }
    }
}

// The releases differ from each other too: a comparison of a string with an int is an error in
// both, with cel 0.12.0's text (lib.rs `ValuesNotComparable`) or 0.14.0's (`NoSuchOverload`).
#[test]
fn each_release_has_its_own_interpreter() {
    let src = "[1, 'a'].all(x, x > 0)";
    assert!(
        error(KuadrantVersion::V1_4, src).ends_with("String(\"a\") can not be compared to Int(0)")
    );
    assert!(error(KuadrantVersion::V1_5, src).ends_with("No such overload"));
}

// A base inside a multi-byte character: the shim slices there and panics (Rust's `str` indexing),
// which the simulation does not reproduce but reports.
#[test]
fn where_the_shim_panics_the_evaluation_is_undecided() {
    for release in RELEASES {
        for src in ["'\u{e9}a'.indexOf('a', 1)", "'\u{e9}a'.lastIndexOf('a', 1)"] {
            match eval(release, src) {
                Err(Failure::Undecided(why)) => {
                    assert!(why.contains("not a char boundary"), "{why}")
                }
                other => panic!("{release:?} {src}: {other:?}"),
            }
        }
        // On a boundary, no trap.
        assert_eq!(
            eval(release, "'\u{e9}a'.indexOf('a', 2)"),
            Ok(Some(json!(2)))
        );
    }
}

#[test]
fn predicates_see_the_shims_variables() {
    let mut req = Request::parse(
        "POST",
        "http://api.example.com:8080/toys?x=1",
        &["X-Tenant: acme".into()],
    )
    .unwrap();
    req.source = Some(("10.0.0.7".into(), 5000));
    let auth = json!({"identity": {"username": "alice", "groups": ["a"]}});
    for release in RELEASES {
        let cel = ShimCel::new(release);
        let act = cel.activation(&req, auth.as_object());
        for p in [
            "request.method == 'POST'",
            "request.url_path.startsWith('/toys')",
            "request.host == 'api.example.com:8080'",
            "request.path == '/toys?x=1'",
            "request.query == 'x=1'",
            "request.headers.exists(h, h.lowerAscii() == 'x-tenant' && request.headers[h] == 'acme')",
            "auth.identity.username == 'alice'",
            "'a' in auth.identity.groups",
            "source.port == 5000",
            "destination.port == 8080",
            "request.url_path.matches('^/to')",
        ] {
            assert_eq!(cel.predicate(p, &act), Ok(true), "{release:?} {p}");
        }
        assert_eq!(
            cel.scalar("auth.identity.username", &act),
            Ok("alice".into())
        );
        // A field Authorino did not return: null in the 1.4 shim, which reads each selected
        // field on its own (see `auth_is_read_field_by_field_by_the_1_4_shim`), a missing key in
        // the 1.5 one's map.
        let nope = cel.predicate("auth.identity.nope == 1", &act);
        match release {
            KuadrantVersion::V1_4 => assert_eq!(nope, Ok(false)),
            KuadrantVersion::V1_5 => assert!(matches!(nope, Err(Failure::Error(_))), "{nope:?}"),
        }
        // The shim's `Predicate::test`: a value that is no boolean is an error.
        let e = cel.predicate("request.method", &act).unwrap_err();
        assert!(
            e.message()
                .ends_with("Expected boolean value, got String(\"POST\")"),
            "{e:?}"
        );
        // A call of `requestBodyJSON` is found in the expression's tree, not in its text.
        assert!(cel.reads_request_body("[1].all(x, requestBodyJSON('/m') == 'x')"));
        assert!(!cel.reads_request_body("'requestBodyJSON' == request.method"));
    }
}

// The cost guards hold on both interpreters: a doubling string stops at the budget, and what was
// spent is charged (cel-go's message).
#[test]
fn both_interpreters_are_metered() {
    use super::super::cost;
    let src = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(b, \
               [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(c, request.path.replace('/', '//////////')))).size() > 0";
    for release in RELEASES {
        let cel = ShimCel::new(release);
        let act = cel.activation(&plain(), None);
        cost::begin_request(cost::Limits {
            expression: 1_000,
            request: 10_000,
        });
        let out = cel.predicate(src, &act);
        let exceeded = cost::end_request();
        assert_eq!(
            out,
            Err(Failure::Error(format!("{src}: {}", cost::COST_ERROR))),
            "{release:?}"
        );
        assert!(exceeded.is_some(), "{release:?}");
        // A literal repeated by the weaver (the arguments of `replace` go to its guard too) is
        // the same literal both times.
        cost::begin_request(cost::Limits::default());
        assert_eq!(
            cel.scalar("'a-b'.replace('-', '+')", &act),
            Ok("a+b".into())
        );
        cost::end_request();
    }
}

// What Envoy gives the shim and a simulated request does not carry: an evaluation that needs it is
// undecided; one that does not (short-circuited), or one reading a field Envoy has not either,
// stands.
#[test]
fn fields_envoy_has_and_the_simulation_lacks_are_undecided() {
    let mut with_source = plain();
    with_source.source = Some(("10.0.0.7".into(), 5000));
    for release in RELEASES {
        let cel = ShimCel::new(release);
        let act = cel.activation(&plain(), None);
        for (src, why) in [
            ("request.time.getHours() >= 0", "request.time"),
            ("has(request.id)", "request.id"),
            ("source.address == '10.0.0.7'", "--source"),
            ("destination.address == '10.0.0.1'", "destination.address"),
        ] {
            match cel.predicate(src, &act) {
                Err(Failure::Undecided(w)) => assert!(w.contains(why), "{release:?} {src}: {w}"),
                other => panic!("{release:?} {src}: {other:?}"),
            }
        }
        assert_eq!(
            cel.predicate(
                "request.method == 'POST' && request.time.getHours() >= 0",
                &act
            ),
            Ok(false)
        );
        assert!(matches!(
            cel.predicate("request.nope == 1", &act),
            Err(Failure::Error(_))
        ));
        let act = cel.activation(&with_source, None);
        assert_eq!(
            cel.predicate("source.address == '10.0.0.7'", &act),
            Ok(true)
        );
    }
}

// wasm-shim v0.14.1 src/data/cel.rs `resolve_grpc`: a gRPC request's service and method under
// `request.grpc`; v0.12.3 has no such attribute. gRPC runs on HTTP/2.
#[test]
fn grpc_requests_carry_their_method_on_1_5() {
    let req = Request::parse(
        "POST",
        "http://x/pkg.Toys/Get",
        &["content-type: application/grpc".into()],
    )
    .unwrap();
    let src = "request.grpc.service == 'pkg.Toys' && request.grpc.method == 'Get'";
    let cel = ShimCel::new(KuadrantVersion::V1_5);
    let act = cel.activation(&req, None);
    assert_eq!(cel.predicate(src, &act), Ok(true));
    assert_eq!(
        cel.predicate("request.protocol == 'HTTP/2'", &act),
        Ok(true)
    );
    let cel = ShimCel::new(KuadrantVersion::V1_4);
    let act = cel.activation(&req, None);
    assert!(matches!(cel.predicate(src, &act), Err(Failure::Error(_))));
    // Not a gRPC request: no `request.grpc`, on either release.
    let cel = ShimCel::new(KuadrantVersion::V1_5);
    let act = cel.activation(&plain(), None);
    assert!(matches!(cel.predicate(src, &act), Err(Failure::Error(_))));
}

// A descriptor entry's value: the 1.4 shim writes a scalar itself (wasm-shim v0.12.3
// src/kuadrant/pipeline/tasks/ratelimit.rs); the 1.5 shim's request is built with CEL, the value
// as `string(value)` (v0.14.1 src/configuration/legacy_translation.rs), and cel 0.14.0 has no
// `string` overload for a bool or null.
#[test]
fn descriptor_values_are_written_as_each_release_writes_them() {
    let text = |release, src: &str| {
        let cel = ShimCel::new(release);
        let act = cel.activation(&plain(), None);
        cel.entry_value(src, &act)
    };
    for release in RELEASES {
        for (src, want) in [
            ("'gold'", "gold"),
            ("5u", "5"),
            ("-3", "-3"),
            ("1.5", "1.5"),
        ] {
            assert_eq!(text(release, src), Ok(want.into()), "{release:?} {src}");
        }
    }
    let v14 = KuadrantVersion::V1_4;
    assert_eq!(text(v14, "true"), Ok("true".into()));
    assert_eq!(text(v14, "null"), Ok("null".into()));
    assert!(matches!(
        text(v14, "[1]"),
        Err(Failure::Error(e)) if e.ends_with("Only scalar values can be sent as data")
    ));
    for src in ["true", "null"] {
        assert!(
            matches!(
                text(KuadrantVersion::V1_5, src),
                Err(Failure::Error(e)) if e.ends_with("Undeclared reference to 'string'")
            ),
            "{src}"
        );
    }
}

// cel 0.14.0 panics on `value()` of what is not an optional (src/common/types/optional.rs
// `optional_value`: `expect("must be `CelOptional`")`), and so would the 1.5 shim: undecided, and
// the process goes on. cel 0.12.0 reports an error (src/functions.rs `optional_value`: `try_from`).
#[test]
fn a_panic_of_the_interpreter_is_undecided() {
    let src = "(775 / 822 - 734).value() == 1";
    match eval(KuadrantVersion::V1_5, src) {
        Err(Failure::Undecided(why)) => assert!(why.contains("panics"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        eval(KuadrantVersion::V1_4, src),
        Err(Failure::Error(_))
    ));
}

/// Before the auth action stored anything, the 1.5 shim binds `auth` to null (wasm-shim v0.14.1
/// src/data/cel.rs `eval`: the `auth` binding falls back to `Value::Null` when no `auth.` value is
/// stored), and cel 0.14.0 has no overload for a field of null, not even under `has`.
#[test]
fn auth_is_null_before_the_1_5_auth_action() {
    let v15 = KuadrantVersion::V1_5;
    for src in ["has(auth.identity)", "auth.identity.userid == 'x'"] {
        assert_eq!(error(v15, src), format!("{src}: No such overload"));
    }
    assert_eq!(eval(v15, "auth == null"), Ok(Some(json!(true))));
    // After it, `auth` is Authorino's dynamic metadata as the shim converts a protobuf `Struct`
    // (src/services/dynamic/converters.rs: a double for a `number_value`): a number is a double,
    // and a double plus an int has no overload in cel 0.14.0.
    let cel = ShimCel::new(v15);
    let stored = json!({"identity": {"age": 30, "tags": [1]}});
    let act = cel.activation(&plain(), stored.as_object());
    super::super::cost::begin_request(super::super::cost::Limits::default());
    assert_eq!(cel.json("auth.identity.age", &act), Ok(Some(json!(30.0))));
    assert_eq!(
        cel.json("auth.identity.tags[0]", &act),
        Ok(Some(json!(1.0)))
    );
    assert_eq!(cel.predicate("auth.identity.age == 30", &act), Ok(true));
    assert!(matches!(
        cel.json("auth.identity.age + 1", &act),
        Err(Failure::Error(_))
    ));
    super::super::cost::end_request();
}

/// The 1.4 shim (wasm-shim v0.12.3) stores what Authorino returned leaf by leaf
/// (src/kuadrant/pipeline/tasks/auth.rs `process_metadata`: a value that is not an object is
/// stored as JSON at its path) and reads each field chain an expression selects from there
/// (src/data/cel.rs `properties`, `AttributeMap`; src/kuadrant/context.rs `fetch_attribute`), null
/// where nothing is stored. So before authentication `auth.identity.userid` is null, not an error,
/// and `has()` of a selected field holds (its key is in the map the shim builds); after it, an
/// object (`auth.identity`) is null, a number is a double (protobuf's `Struct`), and an index
/// (`auth.identity['userid']`) reads the object, null, and fails.
#[test]
fn auth_is_read_field_by_field_by_the_1_4_shim() {
    let v14 = KuadrantVersion::V1_4;
    let cel = ShimCel::new(v14);
    let req = plain();
    let before = cel.activation(&req, None);
    super::super::cost::begin_request(super::super::cost::Limits::default());
    assert_eq!(
        cel.scalar("auth.identity.userid", &before),
        Ok("null".into())
    );
    for p in [
        "auth.identity.userid != 'bob'",
        "has(auth.identity.userid)",
        "auth.identity.userid == null",
    ] {
        assert_eq!(cel.predicate(p, &before), Ok(true), "{p}");
    }
    let stored = json!({"identity": {"userid": "bob", "age": 30, "groups": ["a", "b"]}});
    let after = cel.activation(&req, stored.as_object());
    assert_eq!(cel.scalar("auth.identity.userid", &after), Ok("bob".into()));
    assert_eq!(cel.json("auth.identity", &after), Ok(Some(json!(null))));
    assert_eq!(cel.json("auth.identity.age", &after), Ok(Some(json!(30.0))));
    assert_eq!(
        cel.predicate("'b' in auth.identity.groups", &after),
        Ok(true)
    );
    // The chain read for an index is the object's: null, and an index of null fails.
    assert!(matches!(
        cel.predicate("auth.identity['userid'] == 'bob'", &after),
        Err(Failure::Error(_))
    ));
    // A shorter chain placed first stands for the longer one through it (`AttributeMap::new`):
    // `auth.identity` is null, so `auth.identity.userid` is a field of null here.
    assert!(matches!(
        cel.predicate(
            "auth.identity == null && auth.identity.userid == 'bob'",
            &after
        ),
        Err(Failure::Error(_))
    ));
    super::super::cost::end_request();
}
