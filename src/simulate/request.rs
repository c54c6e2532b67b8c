//! The simulated request: curl's habits (`-X`, `-H 'Name: value'`, a URL) turned into the attributes
//! Envoy gives the wasm shim (`request.*`, `source.*`, `destination.*`) and, optionally, the identity
//! Authorino would publish under `auth.identity`.

use serde::Serialize;
use serde_json::Value;

/// One request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Request {
    /// Upper case, as Envoy's `:method`.
    pub method: String,
    /// `http` or `https`.
    pub scheme: String,
    /// Lower case, without the port (the shim strips `:port` from `request.host` before it picks an
    /// action set; Gateway API ignores the port when it matches hostnames).
    pub host: String,
    pub port: u16,
    /// The path without the query (`request.url_path`).
    pub path: String,
    /// The query without `?` (`request.query`), empty when there is none.
    pub query: String,
    /// Headers in the order given; names lower case, as Envoy presents them.
    pub headers: Vec<(String, String)>,
    /// `source.address` and `source.port`.
    pub source: Option<(String, u16)>,
    /// The identity an authentication rule that policyctl cannot evaluate offline would resolve
    /// (`--identity`): a rule that needs a live server, or an API key whose Secrets are not in the
    /// input. `None` when none is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity: Option<Value>,
    /// What the user states about rules that need a live server (`--assume`):
    /// `authentication/NAME`, `authorization/NAME`, `metadata/NAME` → `true`, `false` or a JSON value.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub assume: std::collections::BTreeMap<String, Value>,
    /// Token usage reported for token rate limits (`--tokens`): the upstream response's
    /// `usage.total_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The upstream response's JSON body (`--response-body`), which `responseBodyJSON` reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<Value>,
    /// `:authority` when it is not what the host and port make (a `--connect-to` changed the port
    /// the request reaches, not the URL the client wrote).
    #[serde(skip)]
    pub authority: Option<String>,
    /// The path as the client sent it, when Envoy's normalization changed it into `path`
    /// ([`normalized_path`]).
    #[serde(skip)]
    pub path_as_sent: Option<String>,
}

impl Request {
    /// A request from curl-like arguments. `Err` says what is wrong with which argument.
    pub fn parse(method: &str, url: &str, headers: &[String]) -> Result<Request, String> {
        let method = method.trim();
        if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(format!(
                "-X {method:?}: a method is letters only, e.g. GET or POST"
            ));
        }
        // A URL holds no control character and no space (RFC 3986 §2; curl refuses one as
        // malformed): a raw line break would reach the predicates as part of the path.
        if let Some(c) = url.chars().find(|c| c.is_ascii_control() || *c == ' ') {
            return Err(format!(
                "URL {url:?}: {} is not allowed in a URL (percent-encode it: %{:02X})",
                char_name(c),
                c as u32
            ));
        }
        let (scheme, rest) = match url.split_once("://") {
            Some((s, r)) => (s.to_ascii_lowercase(), r),
            None => ("http".to_string(), url),
        };
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            other => {
                return Err(format!(
                    "URL {url:?}: scheme {other:?} is not http or https"
                ));
            }
        };
        let (authority, path_query) = match rest.find(['/', '?']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !p.is_empty() => {
                let port = p
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| format!("URL {url:?}: port {p:?} is not 1-65535"))?;
                (h, port)
            }
            Some((h, _)) => (h, default_port),
            None => (authority, default_port),
        };
        if host.is_empty()
            || !host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        {
            return Err(format!(
                "URL {url:?}: {host:?} is not a host name (letters, digits, '.', '-')"
            ));
        }
        let path_query = path_query.split_once('#').map_or(path_query, |(p, _)| p);
        let (path, query) = match path_query.split_once('?') {
            Some((p, q)) => (p, q),
            None => (path_query, ""),
        };
        let path = if path.is_empty() { "/" } else { path };
        let (path, path_as_sent) = match normalized_path(path) {
            Ok(Some(n)) => (n, Some(path.to_string())),
            Ok(None) => (path.to_string(), None),
            Err(e) => return Err(format!("URL {url:?}: {e}")),
        };
        let mut parsed = Vec::with_capacity(headers.len());
        for h in headers {
            let Some((name, value)) = h.split_once(':') else {
                return Err(format!("-H {h:?}: a header is 'Name: value'"));
            };
            let name = name.trim();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(format!("-H {h:?}: {name:?} is not a header name"));
            }
            // RFC 9110 §5.5: CR, LF and NUL in a field value are invalid and dangerous; Envoy
            // refuses a request that carries one (rather than replacing it with a space).
            if let Some(c) = value.chars().find(|c| matches!(c, '\r' | '\n' | '\0')) {
                return Err(format!(
                    "-H {h:?}: {} is not allowed in a header value (RFC 9110 §5.5; Envoy refuses the request)",
                    char_name(c)
                ));
            }
            parsed.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
        // As with curl, a Host header names the host Envoy sees (`:authority`); the URL's host
        // and port still say where the request is sent.
        let mut host = host.to_ascii_lowercase();
        let mut authority = None;
        if let Some(i) = parsed.iter().position(|(n, _)| n == "host") {
            let (_, v) = parsed.remove(i);
            let h = v.rsplit_once(':').map_or(v.as_str(), |(h, _)| h);
            if h.is_empty()
                || !h
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
            {
                return Err(format!("-H 'Host: {v}': {h:?} is not a host name"));
            }
            host = h.to_ascii_lowercase();
            // curl sends the Host header as written: that is `:authority`.
            authority = Some(v.to_ascii_lowercase());
        }
        Ok(Request {
            method: method.to_ascii_uppercase(),
            scheme,
            host,
            port,
            path,
            query: query.to_string(),
            headers: parsed,
            source: None,
            identity: None,
            assume: Default::default(),
            tokens: None,
            response_body: None,
            authority,
            path_as_sent,
        })
    }

    /// The headers as Envoy hands them to the shim and to Authorino: a repeated name's values
    /// joined with `,`, and `:authority` ([`Request::authority`]) unless a header gave it.
    pub fn joined_headers(&self) -> std::collections::BTreeMap<String, String> {
        let mut headers = std::collections::BTreeMap::new();
        for (n, v) in &self.headers {
            headers
                .entry(n.clone())
                .and_modify(|x: &mut String| {
                    x.push(',');
                    x.push_str(v);
                })
                .or_insert_with(|| v.clone());
        }
        headers
            .entry(":authority".into())
            .or_insert_with(|| self.authority());
        headers
    }

    /// `:authority` as Envoy sees it: the host, with the port when it is not the scheme's default.
    pub fn authority(&self) -> String {
        if let Some(a) = &self.authority {
            return a.clone();
        }
        let default = matches!(
            (self.scheme.as_str(), self.port),
            ("http", 80) | ("https", 443)
        );
        if default {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// Whether the request is gRPC (`content-type: application/grpc…`).
    pub fn is_grpc(&self) -> bool {
        self.header("content-type")
            .is_some_and(is_grpc_content_type)
    }

    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The query parameters, in order, `+` and percent escapes left as written.
    pub fn query_params(&self) -> Vec<(&str, &str)> {
        self.query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .collect()
    }

    /// `path?query`, as Envoy's `:path`.
    pub fn full_path(&self) -> String {
        if self.query.is_empty() {
            self.path.clone()
        } else {
            format!("{}?{}", self.path, self.query)
        }
    }

    /// The URL as curl would show it.
    pub fn url(&self) -> String {
        if let Some(a) = &self.authority {
            return format!("{}://{}{}", self.scheme, a, self.full_path());
        }
        let default = matches!(
            (self.scheme.as_str(), self.port),
            ("http", 80) | ("https", 443)
        );
        if default {
            format!("{}://{}{}", self.scheme, self.host, self.full_path())
        } else {
            format!(
                "{}://{}:{}{}",
                self.scheme,
                self.host,
                self.port,
                self.full_path()
            )
        }
    }
}

/// One `--assume SECTION/NAME=VALUE`: a statement about a rule policyctl cannot evaluate offline.
/// SECTION is `authentication`, `authorization` or `metadata`; VALUE is `true`, `false` or JSON.
pub fn parse_assume(s: &str) -> Result<(String, Value), String> {
    let bad = || {
        format!(
            "--assume {s:?}: expected SECTION/NAME=VALUE, SECTION one of authentication, authorization, metadata (e.g. authorization/k8s-rbac=false)"
        )
    };
    let (key, value) = s.split_once('=').ok_or_else(bad)?;
    let (section, name) = key.split_once('/').ok_or_else(bad)?;
    if !matches!(section, "authentication" | "authorization" | "metadata") || name.is_empty() {
        return Err(bad());
    }
    let v = match value.trim() {
        "true" | "allow" | "allowed" => Value::Bool(true),
        "false" | "deny" | "denied" => Value::Bool(false),
        other => serde_json::from_str(other)
            .map_err(|e| format!("--assume {s:?}: {other:?} is not true, false or JSON: {e}"))?,
    };
    Ok((key.to_string(), v))
}

/// One `--connect-to HOST1:PORT1:HOST2:PORT2` (curl's): a request for HOST1:PORT1 (empty: any) is
/// sent to HOST2:PORT2 (empty: unchanged). Only the port matters offline: it picks the listener.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectTo {
    pub from_host: String,
    pub from_port: Option<u16>,
    pub to_port: Option<u16>,
}

pub fn parse_connect_to(s: &str) -> Result<ConnectTo, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let [h1, p1, _h2, p2] = parts[..] else {
        return Err(format!(
            "--connect-to {s:?}: expected HOST1:PORT1:HOST2:PORT2, e.g. localhost:9081::80 (empty parts match any host or port)"
        ));
    };
    let port = |p: &str| -> Result<Option<u16>, String> {
        if p.is_empty() {
            return Ok(None);
        }
        p.parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .map(Some)
            .ok_or_else(|| format!("--connect-to {s:?}: port {p:?} is not 1-65535"))
    };
    Ok(ConnectTo {
        from_host: h1.to_ascii_lowercase(),
        from_port: port(p1)?,
        to_port: port(p2)?,
    })
}

impl Request {
    /// Apply the first `--connect-to` that matches the URL's host and port (as curl does): the
    /// request reaches the listener of the new port; its `:authority` stays what it was.
    pub fn connect_to(&mut self, url: &str, rules: &[ConnectTo]) {
        let Ok(plain) = Request::parse("GET", url, &[]) else {
            return;
        };
        for r in rules {
            let host_ok = r.from_host.is_empty() || r.from_host == plain.host;
            let port_ok = r.from_port.is_none_or(|p| p == plain.port);
            if host_ok && port_ok {
                if self.authority.is_none() {
                    self.authority = Some(self.authority());
                }
                if let Some(p) = r.to_port {
                    self.port = p;
                }
                return;
            }
        }
    }
}

/// Whether a `content-type` is gRPC's (`application/grpc`, `application/grpc+proto`, …): what Envoy,
/// the shim (wasm-shim v0.14.1 src/data/grpc.rs) and Authorino (v0.26.2
/// pkg/service/well_known_attributes.go) test.
pub(crate) fn is_grpc_content_type(content_type: &str) -> bool {
    content_type.starts_with("application/grpc")
}

/// The service and method of a gRPC path `/Service/Method`: both non-empty, nothing more (a
/// GRPCRoute method match; wasm-shim v0.14.1 src/data/grpc.rs `parse_grpc_path`; authorino v0.26.2
/// pkg/service/well_known_attributes.go `parseGRPCPath`).
pub(crate) fn grpc_service_method(path: &str) -> Option<(&str, &str)> {
    let (service, method) = path.strip_prefix('/')?.split_once('/')?;
    (!service.is_empty() && !method.is_empty() && !method.contains('/'))
        .then_some((service, method))
}

/// `ADDRESS[:PORT]` of `--source`.
pub fn parse_source(s: &str) -> Result<(String, u16), String> {
    match s.rsplit_once(':') {
        Some((a, p)) if !a.is_empty() && !a.ends_with(':') => {
            let port = p
                .parse::<u16>()
                .map_err(|_| format!("--source {s:?}: port {p:?} is not 0-65535"))?;
            Ok((a.trim_matches(['[', ']']).to_string(), port))
        }
        _ if !s.is_empty() => Ok((s.to_string(), 0)),
        _ => Err("--source: an address is needed, e.g. 10.0.0.7:52000".into()),
    }
}

/// A duration as Kuadrant writes windows (`10s`, `1m`, `500ms`, `2h`), with an optional decimal
/// fraction (`1.5s`), or a bare number of seconds. Kept to the microsecond (the simulated clock's).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let bad = || format!("{s:?} is not a duration (e.g. 500ms, 1.5s, 10s, 1m)");
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    if whole.is_empty() || (num.contains('.') && frac.is_empty()) || frac.contains('.') {
        return Err(bad());
    }
    let unit_us: u128 = match unit {
        "ms" => 1_000,
        "" | "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        _ => return Err(bad()),
    };
    let too_long = || format!("{s:?} is too long a duration");
    let whole: u128 = whole.parse().map_err(|_| too_long())?;
    // Digits beyond the microsecond are dropped.
    let mut frac_us: u128 = 0;
    let mut scale = unit_us;
    for d in frac.bytes().take(12) {
        scale /= 10;
        frac_us += u128::from(d - b'0') * scale;
    }
    let us = whole
        .checked_mul(unit_us)
        .and_then(|w| w.checked_add(frac_us))
        .and_then(|u| u64::try_from(u).ok())
        .ok_or_else(too_long)?;
    Ok(std::time::Duration::from_micros(us))
}

/// The path Envoy routes and the filters see, for a path as the client sent it: the gateways
/// Kuadrant supports normalize it (RFC 3986) before routing, Istio's by default
/// (`meshConfig.pathNormalization` DEFAULT, Envoy's `normalize_path`) and Envoy Gateway's by
/// default too. `Ok(None)` when it is unchanged; `Ok(Some)` when its `.` and `..` segments are
/// removed (RFC 3986 §5.2.4: `/toys/../admin` is `/admin`, and `..` never climbs above `/`).
///
/// What the two differ on, or what policyctl does not model, is refused with what to write
/// instead rather than routed on a path Envoy would not route: adjacent slashes (Envoy Gateway
/// merges them by default, Istio keeps them), percent-escapes that normalization decodes or
/// treats as separators (of an unreserved character, `/` or `\`) or writes in another case, and
/// characters that normalization percent-encodes.
pub fn normalized_path(path: &str) -> Result<Option<String>, String> {
    fn unreserved(b: u8) -> bool {
        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
    }
    let bytes = path.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = path.get(i + 1..i + 3).filter(|h| {
                h.bytes()
                    .all(|x| x.is_ascii_digit() || (b'A'..=b'F').contains(&x))
            });
            let Some(hex) = hex else {
                return Err(format!(
                    "the path {path:?} has a '%' not followed by two upper-case hex digits, which Envoy's path normalization rewrites or refuses; write the escape as %XX"
                ));
            };
            let byte = u8::from_str_radix(hex, 16).unwrap_or(0);
            if unreserved(byte) || byte == b'/' || byte == b'\\' {
                return Err(format!(
                    "the path {path:?} escapes {:?} as %{hex}, which Envoy's path normalization decodes or treats by the gateway's settings; write the path as the gateway routes it",
                    byte as char
                ));
            }
            i += 3;
            continue;
        }
        let plain = unreserved(b)
            || matches!(
                b,
                b'/' | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            );
        if !plain {
            let c = path[i..].chars().next().unwrap_or('?');
            return Err(format!(
                "the path {path:?} has {c:?}, which Envoy's path normalization percent-encodes before routing; write it percent-encoded (%XX, upper case)"
            ));
        }
        i += 1;
    }
    if path.contains("//") {
        return Err(format!(
            "the path {path:?} has adjacent slashes, which Envoy Gateway merges by default and Istio keeps; write the path as the gateway routes it"
        ));
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("the path {path:?} does not start with '/'"));
    };
    // RFC 3986 §5.2.4, on whole segments.
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = rest.split('/').collect();
    let mut changed = false;
    for (n, seg) in segments.iter().enumerate() {
        let last = n + 1 == segments.len();
        match *seg {
            "." => {
                changed = true;
                if last {
                    out.push("");
                }
            }
            ".." => {
                changed = true;
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    Ok(changed.then(|| format!("/{}", out.join("/"))))
}

/// A character named for a message: `a line feed (\n)`, `U+0007`.
fn char_name(c: char) -> String {
    match c {
        '\n' => "a line feed (\\n)".into(),
        '\r' => "a carriage return (\\r)".into(),
        '\0' => "a NUL byte".into(),
        '\t' => "a tab".into(),
        ' ' => "a space".into(),
        c => format!("the control character U+{:04X}", c as u32),
    }
}

/// A duration as a request file would write it (`2s`, `1500ms`).
pub fn show_duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 3986 §5.2.4 and its examples (§5.4.1: `g/./h` → `g/h`, `../g` above the root stays at
    // the root); what normalization would rewrite otherwise is refused.
    #[test]
    fn paths_are_normalized_as_envoy_normalizes_them() {
        for (sent, routed) in [
            ("/toys/../admin", Some("/admin")),
            ("/a/./b", Some("/a/b")),
            ("/a/b/.", Some("/a/b/")),
            ("/a/b/..", Some("/a/")),
            ("/..", Some("/")),
            ("/../../g", Some("/g")),
            ("/a/b/../../../c/", Some("/c/")),
            ("/", None),
            ("/toys/.hidden/..x/a..", None),
            ("/a%20b/%C3%A9;x=1,y@z:w", None),
        ] {
            assert_eq!(normalized_path(sent).unwrap().as_deref(), routed, "{sent}");
        }
        for refused in [
            "//toys",
            "/a//b",
            "/%2e%2e/admin",
            "/a%2Fb",
            "/a%5Cb",
            "/%41",
            "/a%2",
            "/a%c3%a9",
            "/a\\b",
            "/a\"b",
            "/a<b>",
            "/é",
            "/a{b}",
            "/a|b",
        ] {
            assert!(normalized_path(refused).is_err(), "{refused}");
        }
        let r = Request::parse("GET", "http://x/toys/../cars?q=1", &[]).unwrap();
        assert_eq!(
            (r.path.as_str(), r.path_as_sent.as_deref()),
            ("/cars", Some("/toys/../cars"))
        );
        assert_eq!(r.url(), "http://x/cars?q=1");
        let e = Request::parse("GET", "http://x/a%2Fb", &[]).unwrap_err();
        assert!(e.contains("%2F"), "{e}");
    }

    #[test]
    fn url_parts() {
        let r = Request::parse(
            "post",
            "https://API.example.com:8443/toys?q=1&x#frag",
            &["X-Api-Key: abc ".into()],
        )
        .unwrap();
        assert_eq!(r.method, "POST");
        assert_eq!(r.scheme, "https");
        assert_eq!(r.host, "api.example.com");
        assert_eq!(r.port, 8443);
        assert_eq!(r.path, "/toys");
        assert_eq!(r.query, "q=1&x");
        assert_eq!(r.query_params(), vec![("q", "1"), ("x", "")]);
        assert_eq!(r.header("x-api-key"), Some("abc"));
        assert_eq!(r.url(), "https://api.example.com:8443/toys?q=1&x");
        let r = Request::parse("GET", "toystore.example.com", &[]).unwrap();
        assert_eq!((r.port, r.path.as_str()), (80, "/"));
        assert_eq!(r.url(), "http://toystore.example.com/");
        let r = Request::parse(
            "GET",
            "http://10.0.0.1/toy",
            &["Host: api.toystore.com".into()],
        )
        .unwrap();
        assert_eq!((r.host.as_str(), r.headers.len()), ("api.toystore.com", 0));
    }

    #[test]
    fn bad_arguments_say_which() {
        assert!(
            Request::parse("GET", "ftp://x/", &[])
                .unwrap_err()
                .contains("scheme")
        );
        assert!(
            Request::parse("GET", "http://x:99999/", &[])
                .unwrap_err()
                .contains("port")
        );
        assert!(
            Request::parse("GET", "http:///a", &[])
                .unwrap_err()
                .contains("host")
        );
        assert!(
            Request::parse("G T", "http://x/", &[])
                .unwrap_err()
                .contains("-X")
        );
        assert!(
            Request::parse("GET", "http://x/", &["nocolon".into()])
                .unwrap_err()
                .contains("-H")
        );
        // CR, LF and NUL in a header value (RFC 9110 §5.5), control characters and spaces in a URL.
        for h in ["X-A: a\r\nX-B: b", "X-A: a\n", "X-A: \0", "X-A: a\rb"] {
            let e = Request::parse("GET", "http://x/", &[h.into()]).unwrap_err();
            assert!(e.contains("RFC 9110"), "{h:?}: {e}");
        }
        for u in [
            "http://x/a\r\nb",
            "http://x/a b",
            "http://x/\u{7f}",
            "http://x/?q=\n",
        ] {
            let e = Request::parse("GET", u, &[]).unwrap_err();
            assert!(e.contains("not allowed in a URL"), "{u:?}: {e}");
        }
        assert!(Request::parse("GET", "http://x/a%20b", &["X-A: a\tb".into()]).is_ok());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s").unwrap().as_millis(), 10_000);
        assert_eq!(parse_duration("2").unwrap().as_millis(), 2_000);
        assert_eq!(parse_duration("1m").unwrap().as_millis(), 60_000);
        assert_eq!(parse_duration("250ms").unwrap().as_millis(), 250);
        assert!(parse_duration("10 parsecs").is_err());
        assert_eq!(parse_duration("1.5s").unwrap().as_millis(), 1_500);
        assert_eq!(parse_duration("0.25").unwrap().as_millis(), 250);
        assert_eq!(parse_duration("2.5ms").unwrap().as_micros(), 2_500);
        for bad in ["", ".5s", "1.s", "1.2.3s", "s", "99999999999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_source("10.0.0.7:52000").unwrap(),
            ("10.0.0.7".into(), 52000)
        );
    }
}
