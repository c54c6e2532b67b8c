//! Authorino's `selector` paths: GJSON paths (tidwall/gjson v1.14.0, the version authorino v0.24.3
//! and v0.26.2 build with) over the authorization JSON, read by tidwall's own Rust port, plus the
//! custom modifiers Authorino registers (authorino `pkg/json/json.go`): `@extract`, `@replace`,
//! `@case`, `@base64`, `@strip`.
//!
//! A modifier applies to the result of the path before it (`a.b|@case:upper` or `a.b.@case:upper`,
//! gjson `parseObjectPath`: a `.` followed by `@` pipes); its argument is a JSON value or runs to the
//! next `|` (gjson `execModifier`). The port has no hook for custom modifiers, so a path is cut at
//! its modifiers and each piece is run in turn.
//!
//! Also `JSONValue.ResolveFor`'s templates (`"Hello, {auth.identity.name}!"`, `ReplaceJSONPlaceholders`)
//! and the three ways Authorino reads a result: `.Value()` (a JSON value), `.String()` and
//! `.Array()`.

use data_encoding::{BASE64, BASE64_NOPAD};
use serde_json::Value;

/// The JSON text `path` selects in `json` (empty when nothing is selected).
pub(crate) fn get(json: &str, path: &str) -> String {
    if path.len() > 1 && path.starts_with('@') {
        let (rest, out, ok) = modifier(json, path);
        if ok {
            return match rest.as_bytes().first() {
                Some(b'|' | b'.') => get(&out, &rest[1..]),
                _ => gjson::parse(&out).json().to_string(),
            };
        }
    }
    match pipe_to_modifier(path) {
        Some(i) => {
            let left = gjson::get(json, &path[..i]).json().to_string();
            get(&left, &path[i + 1..])
        }
        None => gjson::get(json, path).json().to_string(),
    }
}

/// The position of the first `.` or `|` outside brackets, parentheses and strings that is followed
/// by `@`: where the path pipes its result into a modifier.
fn pipe_to_modifier(path: &str) -> Option<usize> {
    let b = path.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'[' | b'{' | b'(' => depth += 1,
            b']' | b'}' | b')' => depth -= 1,
            b'.' | b'|' if depth <= 0 && b.get(i + 1) == Some(&b'@') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Run the modifier `path` starts with (`@name[:arg]…`) on `json`: the rest of the path, the
/// modifier's output, and whether the modifier exists.
fn modifier(json: &str, path: &str) -> (String, String, bool) {
    let mut name = &path[1..];
    let mut rest = "";
    let mut has_args = false;
    for (i, c) in path.char_indices().skip(1) {
        match c {
            ':' => {
                rest = &path[i + 1..];
                name = &path[1..i];
                has_args = !rest.is_empty();
                break;
            }
            '|' | '.' => {
                rest = &path[i..];
                name = &path[1..i];
                break;
            }
            _ => {}
        }
    }
    let mut arg = "";
    if has_args {
        let mut parsed = false;
        if matches!(rest.as_bytes().first(), Some(b'{' | b'[' | b'"'))
            && gjson::parse(rest).exists()
        {
            let n = squash(rest);
            arg = &rest[..n];
            rest = &rest[n..];
            parsed = true;
        }
        if !parsed {
            match rest.find('|') {
                Some(i) => {
                    arg = &rest[..i];
                    rest = &rest[i..];
                }
                None => {
                    arg = rest;
                    rest = "";
                }
            }
        }
    }
    let out = match name {
        "extract" => extract(json, arg),
        "replace" => replace(json, arg),
        "case" => case(json, arg),
        "base64" => base64(json, arg),
        // Authorino v0.22.0 pkg/json/json.go `stripJSONstr`: what `unicode.IsPrint` keeps.
        "strip" => json
            .chars()
            .filter(|&c| crate::gounicode::is_print(c))
            .collect(),
        // gjson v1.14's `@fromstr` and `@tostr`, which the port lacks.
        "fromstr" => {
            let v = gjson::parse(json);
            if v.kind() == gjson::Kind::String {
                v.str().to_string()
            } else {
                String::new()
            }
        }
        "tostr" => serde_json::to_string(json).unwrap_or_default(),
        // gjson's own modifiers (`@reverse`, `@this`, `@join`, …), from the port.
        "this" | "reverse" | "ugly" | "pretty" | "valid" | "flatten" | "join" => {
            let p = if arg.is_empty() {
                format!("@{name}")
            } else {
                format!("@{name}:{arg}")
            };
            gjson::get(json, &p).json().to_string()
        }
        _ => return (rest.to_string(), String::new(), false),
    };
    (rest.to_string(), out, true)
}

/// The length of the JSON value `s` starts with (gjson `squash`): a string, or an object or array
/// up to its closing bracket.
fn squash(s: &str) -> usize {
    let b = s.as_bytes();
    let mut depth = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 0 {
                    return (i + 1).min(b.len());
                }
            }
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// `"` + `s` + `"`, without escaping (Authorino's `wrap`).
fn wrap(s: &str) -> String {
    format!("\"{s}\"")
}

fn extract(json: &str, arg: &str) -> String {
    let mut sep = " ".to_string();
    let mut pos: i64 = 0;
    if !arg.is_empty() {
        let a = gjson::parse(arg);
        let s = a.get("sep");
        if s.exists() {
            sep = s.str().to_string();
        }
        let p = a.get("pos");
        if p.exists() {
            pos = p.i64();
        }
    }
    let s = string_of(json);
    let parts: Vec<&str> = if sep.is_empty() {
        // Go's strings.Split with an empty separator splits into UTF-8 sequences.
        s.char_indices()
            .map(|(i, c)| &s[i..i + c.len_utf8()])
            .collect()
    } else {
        s.split(sep.as_str()).collect()
    };
    match usize::try_from(pos).ok().and_then(|p| parts.get(p)) {
        Some(part) => wrap(part),
        // Authorino returns the invalid JSON `n` (a negative position would panic in Go).
        None => "n".into(),
    }
}

fn replace(json: &str, arg: &str) -> String {
    if arg.is_empty() {
        return json.to_string();
    }
    let a = gjson::parse(arg);
    let old = a.get("old").str().to_string();
    let new = a.get("new").str().to_string();
    let s = string_of(json);
    // The result can be far longer than its input (chained `@replace`s multiply it): its length
    // is charged to the request's evaluation budget before it is built.
    let count = if old.is_empty() {
        s.chars().count() as u64 + 1
    } else {
        s.matches(old.as_str()).count() as u64
    };
    let len = (s.len() as u64)
        .saturating_add(count.saturating_mul(new.len() as u64))
        .saturating_sub(count.saturating_mul(old.len() as u64));
    if !crate::simulate::cost::charge_request(1 + len.div_ceil(10), || {
        format!("Authorino selector modifier @replace:{arg}")
    }) {
        return wrap("");
    }
    if old.is_empty() {
        // Go's strings.ReplaceAll with an empty `old` inserts `new` around every UTF-8 sequence.
        let mut out = new.clone();
        for c in s.chars() {
            out.push(c);
            out.push_str(&new);
        }
        return wrap(&out);
    }
    wrap(&s.replace(&old, &new))
}

fn case(json: &str, arg: &str) -> String {
    match arg {
        // Go's `strings.ToUpper` / `ToLower`: a simple mapping a character at a time.
        "upper" => json.chars().map(crate::gounicode::to_upper).collect(),
        "lower" => json.chars().map(crate::gounicode::to_lower).collect(),
        _ => json.to_string(),
    }
}

fn base64(json: &str, arg: &str) -> String {
    let s = string_of(json);
    match arg {
        "encode" => wrap(&BASE64.encode(s.as_bytes())),
        "decode" => {
            let decoded = if s.len().is_multiple_of(4) {
                BASE64.decode(s.as_bytes()).ok()
            } else {
                None
            };
            let decoded = decoded
                .or_else(|| BASE64_NOPAD.decode(s.as_bytes()).ok())
                .unwrap_or_default();
            wrap(&String::from_utf8_lossy(&decoded).replace('"', "\\\""))
        }
        _ => json.to_string(),
    }
}

/// gjson `Parse(json).String()`.
fn string_of(json: &str) -> String {
    string(&gjson::parse(json))
}

/// gjson `Result.String()`: the text of a string, `true`/`false`, a number as written when it is
/// an integer (else Go's shortest decimal form), the raw JSON of an object or array, and `""` for
/// null or nothing.
pub(crate) fn string(v: &gjson::Value<'_>) -> String {
    match v.kind() {
        gjson::Kind::Number => {
            let raw = v.json();
            let digits = raw.strip_prefix('-').unwrap_or(raw);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                raw.to_string()
            } else {
                go_float(v.f64())
            }
        }
        gjson::Kind::Null => String::new(),
        _ => v.str().to_string(),
    }
}

/// Go's `strconv.FormatFloat(f, 'f', -1, 64)`.
fn go_float(f: f64) -> String {
    if f.is_finite() {
        let s = format!("{f}");
        if s.contains('e') {
            format!("{f:.0}")
        } else {
            s
        }
    } else if f.is_nan() {
        "NaN".into()
    } else if f > 0.0 {
        "+Inf".into()
    } else {
        "-Inf".into()
    }
}

/// gjson `Get(json, path).String()`.
pub(crate) fn get_string(json: &str, path: &str) -> String {
    string(&gjson::parse(&get(json, path)))
}

/// gjson `Get(json, path).Array()` as strings: the elements of an array, nothing for null or
/// nothing, the value itself otherwise.
pub(crate) fn get_array_strings(json: &str, path: &str) -> Vec<String> {
    let text = get(json, path);
    let v = gjson::parse(&text);
    match v.kind() {
        gjson::Kind::Array => v.array().iter().map(string).collect(),
        gjson::Kind::Null => vec![],
        _ => vec![string(&v)],
    }
}

/// gjson `Get(json, path).Value()`, as JSON: `null` when nothing is selected.
pub(crate) fn get_value(json: &str, path: &str) -> Value {
    let text = get(json, path);
    to_value(&text)
}

fn to_value(text: &str) -> Value {
    if text.is_empty() {
        return Value::Null;
    }
    serde_json::from_str(text).unwrap_or_else(|_| {
        // The modifiers may write invalid JSON (an unescaped quote): read it as gjson would.
        let v = gjson::parse(text);
        match v.kind() {
            gjson::Kind::String => Value::String(v.str().to_string()),
            gjson::Kind::Null => Value::Null,
            _ => Value::String(string(&v)),
        }
    })
}

/// Whether a `selector` is a template mixing text and `{path}` placeholders (authorino
/// `JSONValue.IsTemplate`: some `{` that does not open a modifier's argument).
pub(crate) fn is_template(pattern: &str) -> bool {
    let all = pattern.matches('{').count();
    all != modifier_braces(pattern)
}

/// The number of matches of `[^@]+@\w+:{` (non-overlapping, leftmost first), as Go's regexp counts
/// them.
fn modifier_braces(pattern: &str) -> usize {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re =
        RE.get_or_init(|| regex::Regex::new(r"[^@]+@\w+:\{").unwrap_or_else(|_| unreachable!()));
    re.find_iter(pattern).count()
}

/// A template with its `{path}` placeholders replaced by the text of what each selects (authorino
/// `ReplaceJSONPlaceholders`; `\` escapes a brace outside placeholders).
pub(crate) fn replace_placeholders(source: &str, json: &str) -> String {
    let mut out: Vec<u8> = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    let (mut escaping, mut inside) = (false, false);
    let mut nested = 0;
    for &b in source.as_bytes() {
        match b {
            b'{' => {
                if escaping {
                    out.push(b);
                } else if inside {
                    buf.push(b);
                    nested += 1;
                } else {
                    inside = true;
                }
                escaping = false;
            }
            b'}' => {
                if inside {
                    if nested > 0 {
                        buf.push(b);
                        nested -= 1;
                    } else {
                        if !buf.is_empty() {
                            let path = String::from_utf8_lossy(&buf).into_owned();
                            out.extend_from_slice(get_string(json, &path).as_bytes());
                            buf.clear();
                        }
                        inside = false;
                    }
                } else {
                    out.push(b);
                }
                escaping = false;
            }
            b'\\' => {
                if inside {
                    buf.push(b);
                } else {
                    if escaping {
                        out.push(b);
                    }
                    escaping = !escaping;
                }
            }
            _ => {
                if inside {
                    buf.push(b);
                } else {
                    out.push(b);
                }
                escaping = false;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// authorino `JSONValue.ResolveFor` of a `selector`: a template's text, else the selected value.
pub(crate) fn resolve(pattern: &str, json: &str) -> Value {
    if is_template(pattern) {
        Value::String(replace_placeholders(pattern, json))
    } else {
        get_value(json, pattern)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Every expected value below is an assertion of authorino v0.26.2 pkg/json/json_test.go, on
    // the same input.
    const IDENTITY: &str = r#"{"auth":{"identity":{"username":"john","email":"john@test","email_verified":true,
        "address":{"line_1":"123 Test St","postal_code":987654},"roles":["user","admin"],"exp":1629884250,
        "github.com":"https://github.com/john"}}}"#;

    #[test]
    fn resolve_for() {
        // TestJSONValueResolveFor
        assert_eq!(resolve("auth.identity.username", IDENTITY), json!("john"));
        assert_eq!(
            resolve("auth.identity.email_verified", IDENTITY),
            json!(true)
        );
        assert_eq!(
            resolve("auth.identity.address", IDENTITY),
            json!({"line_1": "123 Test St", "postal_code": 987654})
        );
        assert_eq!(
            resolve("auth.identity.roles", IDENTITY),
            json!(["user", "admin"])
        );
        assert_eq!(
            resolve("Hello, {auth.identity.username}!", IDENTITY),
            json!("Hello, john!")
        );
        assert_eq!(
            resolve(
                r#"Email domain: {auth.identity.email.@extract:{"sep":"@","pos":1}}"#,
                IDENTITY
            ),
            json!("Email domain: test")
        );
        assert_eq!(
            resolve(
                r#"auth.identity.email.@extract:{"sep":"@","pos":1}"#,
                IDENTITY
            ),
            json!("test")
        );
    }

    #[test]
    fn templates() {
        // TestIsTemplate
        for (p, want) in [
            ("Just a static string", false),
            ("Hello, {auth.identity.username}!", true),
            (
                "http://talker-api.authorino.svc.cluster.local:3000/metadata?encoding=text/plain&original_path={context.request.http.path}",
                true,
            ),
            (
                r"auth.identity.metadata.annotations.authorino\.kuadrant\.io/username",
                false,
            ),
            (
                r"auth.identity.metadata.annotations.authorino\.kuadrant\.io/username|@case:lower",
                false,
            ),
            (
                r#"auth.identity.metadata.name.@replace:{"old":"john","new":"John"}"#,
                false,
            ),
            ("{auth.identity.metadata.creationTimestamp}", true),
            (
                r#"Hello, {auth.identity.metadata.annotations.authorino\.kuadrant\.io/name|@extract:{"pos":1}}!"#,
                true,
            ),
            (
                r#"Email username: {auth.identity.email.@extract:{"sep":"@","pos":0}} | Email domain: {auth.identity.email.@extract:{"sep":"@","pos":1}}"#,
                true,
            ),
            ("Not a valid {template!", true),
        ] {
            assert_eq!(is_template(p), want, "{p}");
        }
        // TestReplaceJSONPlaceholders
        for (src, want) in [
            ("Nothing to replace", "Nothing to replace"),
            ("Username: {auth.identity.username}", "Username: john"),
            (
                "Username: {auth.identity.username.@case:upper}",
                "Username: JOHN",
            ),
            (
                r#"Domain: {auth.identity.email.@extract:{"sep":"@","pos":1}}"#,
                "Domain: test",
            ),
            (
                "Username: {auth.identity.username}, Email: {auth.identity.email}",
                "Username: john, Email: john@test",
            ),
            ("{auth.identity.email_verified} (bool)", "true (bool)"),
            (
                r"Github.com: {auth.identity.github\.com}",
                "Github.com: https://github.com/john",
            ),
            (
                r#"Github username: {auth.identity.github\.com|@extract:{"sep":"/","pos":3}|@case:upper}"#,
                "Github username: JOHN",
            ),
            (
                r"This is NOT a \{variable placeholder\}, {auth.identity.username}!",
                "This is NOT a {variable placeholder}, john!",
            ),
            (
                r#"\{"msg":"I can build a JSON with dynamic values","username":"{auth.identity.github\.com|@extract:{"sep":"/","pos":3}|@case:upper}"\}"#,
                r#"{"msg":"I can build a JSON with dynamic values","username":"JOHN"}"#,
            ),
            ("{auth.identity.username}", "john"),
            (r"\\{auth.identity.username} \\o/", r"\john \o/"),
            (
                r"\\\{auth.identity.username\}",
                r"\{auth.identity.username}",
            ),
            ("username: {auth.identity.username", "username: "),
        ] {
            assert_eq!(replace_placeholders(src, IDENTITY), want, "{src}");
        }
    }

    #[test]
    fn modifiers() {
        // TestExtractJSONStr
        let j = r#"{"auth":{"identity":{"serviceaccount":{"name":"my:ns:sa","long-name":"SA in the NS namespace"}}}}"#;
        assert_eq!(
            get_string(j, "auth.identity.serviceaccount.long-name.@extract"),
            "SA"
        );
        assert_eq!(
            get_string(
                j,
                r#"auth.identity.serviceaccount.long-name.@extract:{"pos":0}"#
            ),
            "SA"
        );
        assert_eq!(
            get_string(
                j,
                r#"auth.identity.serviceaccount.long-name.@extract:{"pos":8}"#
            ),
            ""
        );
        assert_eq!(
            get_string(
                j,
                r#"auth.identity.serviceaccount.name.@extract:{"sep":":","pos":1}"#
            ),
            "ns"
        );
        // TestReplaceJSONStr
        let j = r#"{"auth":{"identity":{"fullname":"John Doe"}}}"#;
        assert_eq!(
            get_string(
                j,
                r#"auth.identity.fullname.@replace:{"old":"John","new":"Jane"}"#
            ),
            "Jane Doe"
        );
        assert_eq!(
            get_string(
                j,
                r#"auth.identity.fullname.@replace:{"old":"Peter","new":"Jane"}"#
            ),
            "John Doe"
        );
        // TestCaseJSONStr
        assert_eq!(
            get_string(j, "auth.identity.fullname.@case:upper"),
            "JOHN DOE"
        );
        assert_eq!(
            get_string(j, "auth.identity.fullname.@case:lower"),
            "john doe"
        );
        // TestBase64JSONStr
        for j in [
            r#"{"auth":{"identity":{"username":{"encoded":"am9obg","decoded":"john"}}}}"#,
            r#"{"auth":{"identity":{"username":{"encoded":"am9obg==","decoded":"john"}}}}"#,
        ] {
            assert_eq!(
                get_string(j, "auth.identity.username.encoded.@base64:decode"),
                "john"
            );
            assert_eq!(
                get_string(j, "auth.identity.username.decoded.@base64:encode"),
                "am9obg=="
            );
        }
        let j = r#"{"auth":{"identity":{"username":{"encoded":"bXkgbmFtZSBpcyAiam9obiI=","decoded":"my name is \"john\""}}}}"#;
        assert_eq!(
            get_string(j, "auth.identity.username.encoded.@base64:decode"),
            r#"my name is "john""#
        );
        assert_eq!(
            get_string(j, "auth.identity.username.decoded.@base64:encode"),
            "bXkgbmFtZSBpcyAiam9obiI="
        );
        // TestParseJWTFromAuthzHeader: a JWT's claims out of an Authorization header.
        let j = r#"{"access_token":"Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6IlJ1azhkY29PdjdrSnFtY2hJSlB0a3M3c0hpcmwyN0VyRmhmT1ZwQkNsSEUifQ.eyJhdWQiOlsiaHR0cHM6Ly9rdWJlcm5ldGVzLmRlZmF1bHQuc3ZjLmNsdXN0ZXIubG9jYWwiXSwiZXhwIjoxNjg1NTU3Njc1LCJpYXQiOjE2ODU1NTQwNzUsImlzcyI6Imh0dHBzOi8va3ViZXJuZXRlcy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIiwia3ViZXJuZXRlcy5pbyI6eyJuYW1lc3BhY2UiOiJkZWZhdWx0Iiwic2VydmljZWFjY291bnQiOnsibmFtZSI6ImRlZmF1bHQiLCJ1aWQiOiIxZWRmZDc2OC1kMDVhLTQ0NWYtYTAzYS0wYTgzNGI0NTY4OGUifX0sIm5iZiI6MTY4NTU1NDA3NSwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OmRlZmF1bHQ6ZGVmYXVsdCJ9.0Kxjm"}"#;
        assert_eq!(
            get_value(
                j,
                r#"access_token.@extract:{"pos":1}|@extract:{"sep":".","pos":1}|@base64:decode|@fromstr.exp"#
            ),
            json!(1685557675)
        );
        // TestStripJSONStr
        let j = "{\"auth\":{\"identity\":{\"username\": \"\n\nbob\u{12}\"}}}";
        assert_eq!(get_string(j, "auth.identity.username.@strip"), "bob");
        // What `unicode.IsPrint` refuses besides controls: no-break and zero-width spaces, a line
        // separator, private use and unassigned code points; the ASCII space and marks stay.
        let j = "{\"u\": \"b\u{A0}o\u{200B}b\u{2028}\u{E000}\u{378} d\u{301}\"}";
        assert_eq!(get_string(j, "u.@strip"), "bob d\u{301}");
        // `strings.ToUpper` / `ToLower`: simple mappings, no final sigma.
        let j = r#"{"u": "Straße", "g": "ΟΔΟΣ"}"#;
        assert_eq!(get_string(j, "u.@case:upper"), "STRAßE");
        assert_eq!(get_string(j, "g.@case:lower"), "οδοσ");
    }
}
