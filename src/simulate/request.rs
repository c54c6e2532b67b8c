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
        let mut parsed = Vec::with_capacity(headers.len());
        for h in headers {
            let Some((name, value)) = h.split_once(':') else {
                return Err(format!("-H {h:?}: a header is 'Name: value'"));
            };
            let name = name.trim();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(format!("-H {h:?}: {name:?} is not a header name"));
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
            path: path.to_string(),
            query: query.to_string(),
            headers: parsed,
            source: None,
            identity: None,
            assume: Default::default(),
            tokens: None,
            response_body: None,
            authority,
        })
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
            .is_some_and(|c| c.starts_with("application/grpc"))
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

#[cfg(test)]
mod tests {
    use super::*;

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
