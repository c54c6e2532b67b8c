//! The timed request file of `simulate --requests FILE`: a list of requests, each at a time offset,
//! played in order against the simulated limits. Owns the file's two formats and their validation;
//! the simulation itself is [`super::Simulation::run`].
//!
//! Either a YAML list (a JSON array is YAML too) or JSON Lines (one JSON object per line, as k6 and
//! vegeta write and read results). Each entry:
//!
//! ```yaml
//! - at: 0s                  # time since the first request (or `after:` the previous one)
//!   method: POST            # default: -X, else GET
//!   url: http://api.toystore.com/toys
//!   headers: ["X-Tenant: acme"]     # or a mapping {X-Tenant: acme}; added to -H
//!   identity: {userid: alice}       # auth.identity; default --identity; null: none
//!   source: 10.0.0.7:52000          # default --source
//!   tokens: 120                     # default --tokens
//!   count: 6                        # send this entry 6 times …
//!   interval: 1s                    # … 1s apart (default 0)
//! ```
//!
//! Times: `at` is an offset from the start of the sequence, `after` a delay from the previous
//! request; with neither, an entry is sent at the same instant as the previous request (the first
//! at 0). Times never go back. A duration is a number with a unit (`250ms`, `1.5s`, `2m`, `1h`) or a
//! plain number of seconds.

use super::Timed;
use super::request::{self, Request};
use crate::diag::{Code, Diagnostic};
use crate::model::span::Sp;
use crate::source::{SourceId, Span};
use indexmap::IndexMap;
use serde_json::Value;
use std::time::Duration;

/// The most bytes a request file may hold (a pipe or `-` included): 64 MiB.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The most requests a file may ask for, repetitions (`count`) included.
pub(crate) const MAX_REQUESTS: u64 = 1_000_000;

/// The keys an entry may have.
pub const KEYS: [&str; 12] = [
    "at",
    "after",
    "method",
    "url",
    "headers",
    "identity",
    "source",
    "tokens",
    "responseBody",
    "assume",
    "count",
    "interval",
];

/// What the command line gives every entry of the file (`-X`, `-H`, `--identity`, `--source`,
/// `--tokens`); an entry's own fields win, and its headers come after those of `-H`.
#[derive(Clone, Debug)]
pub struct Defaults {
    pub method: String,
    pub headers: Vec<String>,
    pub identity: Option<Value>,
    pub source: Option<(String, u16)>,
    pub tokens: Option<u64>,
    /// `--assume`: an entry's own `assume` entries are added to (and win over) these.
    pub assume: std::collections::BTreeMap<String, Value>,
    pub response_body: Option<Value>,
    pub connect_to: Vec<request::ConnectTo>,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            method: "GET".into(),
            headers: vec![],
            identity: None,
            source: None,
            tokens: None,
            assume: Default::default(),
            response_body: None,
            connect_to: vec![],
        }
    }
}

/// The two formats of a request file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Yaml,
    JsonLines,
}

/// The format of a file: `.jsonl` and `.ndjson` are JSON Lines and `.yaml`, `.yml` and `.json`
/// YAML; any other name (`-`, a pipe) is JSON Lines when its first line that is not blank is a
/// JSON object on its own, YAML otherwise.
pub(crate) fn format_of(name: &str, text: &str) -> Format {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("jsonl" | "ndjson") => Format::JsonLines,
        Some("yaml" | "yml" | "json") => Format::Yaml,
        _ => {
            let first = text.lines().map(str::trim).find(|l| !l.is_empty());
            match first {
                Some(l) if l.starts_with('{') && serde_json::from_str::<Value>(l).is_ok() => {
                    Format::JsonLines
                }
                _ => Format::Yaml,
            }
        }
    }
}

/// An entry as read: its span and its fields, each with the span of its value.
struct RawEntry {
    span: Span,
    fields: IndexMap<String, Sp<Value>>,
}

fn unreadable(span: Span, message: String) -> Diagnostic {
    Diagnostic::new(Code::RequestFileUnreadable, message.clone())
        .at(span, message)
        .help("a request file is a YAML list of requests, or JSON Lines (one JSON object per line); the README's `simulate` section shows one")
}

fn invalid(span: Span, label: &str, message: String) -> Diagnostic {
    Diagnostic::new(Code::RequestFileInvalid, message)
        .at(span, label)
        .help(format!(
            "an entry has `url` and optionally {}",
            KEYS.iter()
                .filter(|k| **k != "url")
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
}

fn yaml_entries(source: SourceId, text: &str) -> Result<Vec<RawEntry>, Diagnostic> {
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(vec![]);
    }
    let list: Vec<Sp<IndexMap<String, Sp<Value>>>> = crate::load::parse_requests(source, text)
        .map_err(|(span, m)| {
            unreadable(
                span,
                format!("the request file is not a YAML list of requests: {m}"),
            )
        })?;
    Ok(list
        .into_iter()
        .map(|e| RawEntry {
            span: e.span,
            fields: e.value,
        })
        .collect())
}

fn json_lines_entries(source: SourceId, text: &str) -> Result<Vec<RawEntry>, Diagnostic> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let lead = body.len() - body.trim_start().len();
        let body = body.trim();
        if body.is_empty() {
            continue;
        }
        let span = Span::new(source, start + lead, body.len());
        let v: Value = serde_json::from_str(body).map_err(|e| {
            let col = e.column().saturating_sub(1).min(body.len());
            let at = Span::new(source, start + lead + col, 0);
            unreadable(
                at,
                format!("a line of the JSON Lines file is not JSON: {e}"),
            )
        })?;
        let Value::Object(map) = v else {
            return Err(invalid(
                span,
                "not an object",
                "a line of a JSON Lines request file is one JSON object, e.g. {\"url\": \"http://api.toystore.com/toys\"}".into(),
            ));
        };
        let fields = map
            .into_iter()
            .map(|(k, v)| (k, Sp::new(v, span)))
            .collect();
        out.push(RawEntry { span, fields });
    }
    Ok(out)
}

/// Read a request file's text (`source` in the caller's source map, so that diagnostics point
/// into it) into the timed sequence it describes.
pub fn parse(
    source: SourceId,
    name: &str,
    text: &str,
    defaults: &Defaults,
) -> Result<Vec<Timed>, Diagnostic> {
    let entries = match format_of(name, text) {
        Format::Yaml => yaml_entries(source, text)?,
        Format::JsonLines => json_lines_entries(source, text)?,
    };
    if entries.is_empty() {
        return Err(invalid(
            Span::new(source, 0, 0),
            "no request",
            "the request file holds no request".into(),
        ));
    }
    let mut out: Vec<Timed> = Vec::new();
    // The time of the last request so far.
    let mut last = Duration::ZERO;
    for (i, e) in entries.iter().enumerate() {
        let read = entry(e, defaults, last, i == 0)?;
        let total = out.len() as u64 + read.count;
        if total > MAX_REQUESTS {
            return Err(invalid(
                e.span,
                "over the bound",
                format!(
                    "the request file asks for more than {MAX_REQUESTS} requests (counts included), the most policyctl simulates in one run"
                ),
            ));
        }
        for k in 0..read.count {
            out.push(Timed {
                at: read.start + mul(read.interval, k),
                request: read.request.clone(),
            });
        }
        last = out.last().map_or(last, |t| t.at);
    }
    Ok(out)
}

fn mul(d: Duration, k: u64) -> Duration {
    Duration::from_micros(
        u64::try_from(d.as_micros())
            .unwrap_or(u64::MAX)
            .saturating_mul(k),
    )
}

/// One entry, read and checked.
struct Read {
    start: Duration,
    count: u64,
    interval: Duration,
    request: Request,
}

fn string<'a>(f: &'a Sp<Value>, key: &str) -> Result<&'a str, Diagnostic> {
    f.value.as_str().ok_or_else(|| {
        invalid(
            f.span,
            "not a string",
            format!("`{key}` is a string, not {}", kind(&f.value)),
        )
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn duration(f: &Sp<Value>, key: &str) -> Result<Duration, Diagnostic> {
    let text = match &f.value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        other => {
            return Err(invalid(
                f.span,
                "not a duration",
                format!(
                    "`{key}` is a duration such as 250ms, 1.5s or 2m, not {}",
                    kind(other)
                ),
            ));
        }
    };
    request::parse_duration(&text)
        .map_err(|m| invalid(f.span, "not a duration", format!("`{key}`: {m}")))
}

fn whole(f: &Sp<Value>, key: &str) -> Result<u64, Diagnostic> {
    f.value.as_u64().ok_or_else(|| {
        invalid(
            f.span,
            "not a whole number",
            format!("`{key}` is a whole number, not {}", f.value),
        )
    })
}

/// The headers of an entry as `Name: value` lines: a list of them, or a mapping from names to a
/// value or a list of values.
fn headers(f: &Sp<Value>) -> Result<Vec<String>, Diagnostic> {
    let bad = |what: String| invalid(f.span, "not a header", what);
    let line = |name: &str, v: &Value| match v {
        Value::String(s) => Ok(format!("{name}: {s}")),
        Value::Number(n) => Ok(format!("{name}: {n}")),
        Value::Bool(b) => Ok(format!("{name}: {b}")),
        other => Err(bad(format!(
            "header {name:?} has {}, not a value",
            kind(other)
        ))),
    };
    let mut out = Vec::new();
    match &f.value {
        Value::Array(items) => {
            for h in items {
                let s = h.as_str().ok_or_else(|| {
                    bad(format!(
                        "`headers` as a list holds 'Name: value' strings, not {}",
                        kind(h)
                    ))
                })?;
                out.push(s.to_string());
            }
        }
        Value::Object(m) => {
            for (name, v) in m {
                match v {
                    Value::Array(vs) => {
                        for v in vs {
                            out.push(line(name, v)?);
                        }
                    }
                    v => out.push(line(name, v)?),
                }
            }
        }
        other => {
            return Err(bad(format!(
                "`headers` is a list of 'Name: value' strings or a mapping of names to values, not {}",
                kind(other)
            )));
        }
    }
    for h in &out {
        let ok = h.split_once(':').is_some_and(|(n, _)| {
            let n = n.trim();
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_graphic())
        });
        if !ok {
            return Err(bad(format!(
                "header {h:?} is not 'Name: value' with a name of visible ASCII characters"
            )));
        }
    }
    Ok(out)
}

/// An `assume` mapping: `{authorization: {NAME: true|false}, metadata: {NAME: {...}}, …}`.
pub(crate) fn assume(v: &Value) -> Result<Vec<(String, Value)>, String> {
    let help = "`assume` maps authentication, authorization or metadata to rule names and their outcome, e.g. {authorization: {k8s-rbac: false}}";
    let Value::Object(sections) = v else {
        return Err(help.into());
    };
    let mut out = Vec::new();
    for (section, rules) in sections {
        if !matches!(
            section.as_str(),
            "authentication" | "authorization" | "metadata"
        ) {
            return Err(format!("unknown section {section:?}: {help}"));
        }
        let Value::Object(rules) = rules else {
            return Err(help.into());
        };
        for (name, outcome) in rules {
            out.push((format!("{section}/{name}"), outcome.clone()));
        }
    }
    Ok(out)
}

fn method(f: &Sp<Value>) -> Result<String, Diagnostic> {
    let m = string(f, "method")?;
    if m.is_empty() || !m.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(invalid(
            f.span,
            "not a method",
            format!("method {m:?} is not letters only, e.g. GET or POST"),
        ));
    }
    Ok(m.to_string())
}

/// The time of an entry's first request from `at` or `after`; `last` is the previous request's.
fn start(e: &RawEntry, last: Duration, first: bool) -> Result<Duration, Diagnostic> {
    let at = e.fields.get("at");
    let after = e.fields.get("after");
    match (at, after) {
        (Some(a), Some(_)) => Err(invalid(
            a.span,
            "`at` and `after`",
            "an entry has `at` (time since the first request) or `after` (delay since the previous request), not both".into(),
        )),
        (Some(a), None) => {
            let t = duration(a, "at")?;
            if t < last && !first {
                return Err(invalid(
                    a.span,
                    "earlier than the request before",
                    format!(
                        "at {} is before the previous request ({}): the requests of a file are in time order",
                        show(t),
                        show(last)
                    ),
                ));
            }
            Ok(t)
        }
        (None, Some(a)) => Ok(last.saturating_add(duration(a, "after")?)),
        (None, None) => Ok(last),
    }
}

/// A duration as the file would write it.
fn show(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

fn entry(e: &RawEntry, d: &Defaults, last: Duration, first: bool) -> Result<Read, Diagnostic> {
    if let Some((k, f)) = e.fields.iter().find(|(k, _)| !KEYS.contains(&k.as_str())) {
        return Err(invalid(
            f.span,
            "unknown key",
            format!("unknown key {k:?} in a request entry"),
        ));
    }
    let present = |k: &str| e.fields.get(k).filter(|f| !f.value.is_null());
    let Some(url) = present("url") else {
        return Err(invalid(
            e.span,
            "no url",
            "a request entry needs a `url`".into(),
        ));
    };
    let url_text = string(url, "url")?;
    let method = match present("method") {
        Some(m) => method(m)?,
        None => d.method.clone(),
    };
    let mut hs = d.headers.clone();
    if let Some(h) = present("headers") {
        hs.extend(headers(h)?);
    }
    let mut req = Request::parse(&method, url_text, &hs).map_err(|m| {
        let span = present("headers")
            .filter(|_| m.starts_with("-H"))
            .unwrap_or(url)
            .span;
        invalid(span, "not a request", m)
    })?;
    req.identity = match e.fields.get("identity") {
        None => d.identity.clone(),
        Some(f) => match &f.value {
            Value::Null => None,
            v @ Value::Object(_) => Some(v.clone()),
            other => {
                return Err(invalid(
                    f.span,
                    "not a mapping",
                    format!(
                        "`identity` is a mapping, what Authorino would put under auth.identity (e.g. {{username: alice}}), not {}",
                        kind(other)
                    ),
                ));
            }
        },
    };
    req.source = match present("source") {
        Some(f) => Some(
            request::parse_source(string(f, "source")?)
                .map_err(|m| invalid(f.span, "not an address", m))?,
        ),
        None if e.fields.contains_key("source") => None,
        None => d.source.clone(),
    };
    req.tokens = match present("tokens") {
        Some(f) => Some(whole(f, "tokens")?),
        None if e.fields.contains_key("tokens") => None,
        None => d.tokens,
    };
    req.response_body = match present("responseBody") {
        Some(f) => Some(f.value.clone()),
        None if e.fields.contains_key("responseBody") => None,
        None => d.response_body.clone(),
    };
    if req.tokens.is_some()
        && present("tokens").is_some()
        && let Some(f) = present("responseBody")
    {
        return Err(invalid(
            f.span,
            "`tokens` and `responseBody`",
            "an entry gives the token usage with `tokens` or the response with `responseBody`, not both".into(),
        ));
    }
    req.assume = d.assume.clone();
    if let Some(f) = present("assume") {
        let stated = assume(&f.value).map_err(|m| invalid(f.span, "not a statement", m))?;
        req.assume.extend(stated);
    }
    req.connect_to(url_text, &d.connect_to);
    let count = match present("count") {
        Some(f) => {
            let n = whole(f, "count")?;
            if n == 0 {
                return Err(invalid(f.span, "zero", "`count` is at least 1".into()));
            }
            n
        }
        None => 1,
    };
    let interval = match present("interval") {
        Some(f) => duration(f, "interval")?,
        None => Duration::ZERO,
    };
    Ok(Read {
        start: start(e, last, first)?,
        count,
        interval,
        request: req,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &str) -> Result<Vec<Timed>, Diagnostic> {
        parse(SourceId(0), name, text, &Defaults::default())
    }

    fn times(v: &[Timed]) -> Vec<u128> {
        v.iter().map(|t| t.at.as_millis()).collect()
    }

    #[test]
    fn formats_are_told_apart() {
        assert_eq!(format_of("a.jsonl", "- url: x"), Format::JsonLines);
        assert_eq!(format_of("a.json", "{\"url\": 1}"), Format::Yaml);
        assert_eq!(format_of("-", "\n{\"url\": \"x\"}\n{}"), Format::JsonLines);
        assert_eq!(format_of("/dev/fd/63", "- {url: x}"), Format::Yaml);
        assert_eq!(format_of("-", "{url: x}"), Format::Yaml);
    }

    #[test]
    fn times_follow_at_after_and_count() {
        let v = read(
            "r.yaml",
            "- {url: 'http://a/', count: 3, interval: 1.5s}\n- {url: 'http://a/', after: 500ms}\n- {url: 'http://a/'}\n- {url: 'http://a/', at: 11}\n",
        )
        .unwrap();
        assert_eq!(times(&v), [0, 1500, 3000, 3500, 3500, 11000]);
        let v = read(
            "r.jsonl",
            "{\"url\": \"http://a/\", \"at\": \"2s\"}\n\n{\"url\": \"http://b/x\", \"method\": \"post\", \"headers\": {\"X-A\": [\"1\", \"2\"]}}\n",
        )
        .unwrap();
        assert_eq!(times(&v), [2000, 2000]);
        assert_eq!(v[1].request.method, "POST");
        assert_eq!(
            v[1].request.headers,
            [
                ("x-a".to_string(), "1".to_string()),
                ("x-a".into(), "2".into())
            ]
        );
    }

    #[test]
    fn defaults_apply_unless_an_entry_says_otherwise() {
        let d = Defaults {
            method: "PUT".into(),
            headers: vec!["X-Tenant: acme".into()],
            identity: Some(serde_json::json!({"username": "alice"})),
            source: None,
            tokens: Some(5),
            ..Defaults::default()
        };
        let v = parse(
            SourceId(0),
            "r.yaml",
            "- url: http://a/\n- url: http://a/\n  identity: null\n  tokens: null\n  method: GET\n",
            &d,
        )
        .unwrap();
        assert_eq!(v[0].request.method, "PUT");
        assert_eq!(v[0].request.header("x-tenant"), Some("acme"));
        assert!(v[0].request.identity.is_some() && v[0].request.tokens == Some(5));
        assert!(v[1].request.identity.is_none() && v[1].request.tokens.is_none());
        assert_eq!(v[1].request.method, "GET");
    }

    /// The code, and the byte offset the diagnostic points at.
    fn error(name: &str, text: &str) -> (Code, usize, String) {
        let d = read(name, text).unwrap_err();
        (d.code, d.primary_span().unwrap().offset, d.message)
    }

    #[test]
    fn mistakes_point_at_the_value() {
        let text = "- url: http://a/\n  at: 5s\n- url: http://a/\n  at: 2s\n";
        let (code, off, m) = error("r.yaml", text);
        assert_eq!(code, Code::RequestFileInvalid);
        assert_eq!(off, text.rfind("2s").unwrap());
        assert!(m.contains("time order"), "{m}");
        let text = "- url: http://a/\n  header: {a: b}\n";
        let (_, off, m) = error("r.yaml", text);
        assert_eq!(
            (off, m.contains("\"header\"")),
            (text.find("{a").unwrap(), true)
        );
        let text = "{\"url\": \"http://a/\"}\n{\"url\": \"ftp://a/\"}\n";
        let (_, off, m) = error("r.jsonl", text);
        assert_eq!(off, text.find("{\"url\": \"ftp").unwrap());
        assert!(m.contains("scheme"), "{m}");
        let (code, off, _) = error("r.jsonl", "{\"url\": \"http://a/\"}\n{\"url\": }\n");
        assert_eq!((code, off), (Code::RequestFileUnreadable, 29));
        let (code, _, _) = error("r.yaml", "- url: [unclosed\n");
        assert_eq!(code, Code::RequestFileUnreadable);
        for (text, word) in [
            ("- {url: 'http://a/', count: 0}", "at least 1"),
            ("- {url: 'http://a/', at: 1s, after: 1s}", "not both"),
            ("- {url: 'http://a/', interval: soon}", "duration"),
            ("- {url: 'http://a/', method: 'G T'}", "letters"),
            ("- {url: 'http://a/', headers: ['nocolon']}", "Name: value"),
            ("- {url: 'http://a/', identity: alice}", "mapping"),
            ("- {url: 'http://a/', tokens: -1}", "whole number"),
            ("- {method: GET}", "needs a `url`"),
            ("# nothing\n", "no request"),
            (
                "- {url: 'http://a/', count: 600000}\n- {url: 'http://a/', count: 600000}",
                "more than",
            ),
        ] {
            let (code, _, m) = error("r.yaml", text);
            assert_eq!(code, Code::RequestFileInvalid, "{text}");
            assert!(m.contains(word), "{text}: {m}");
        }
    }
}
