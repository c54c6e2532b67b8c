//! Locators: the string id of every topology node, as policy-machinery builds them, and the one
//! parser of the `KIND/NAMESPACE/NAME[#SECTION]` references people type (`graph --for`, `explain`).

use std::fmt;
use std::sync::Arc;

/// `lower(Kind.group):namespace/name` (`Kind` alone for the core group; no `namespace/` for
/// cluster-scoped objects); sections append `#name`. Group and kind are lower-cased, names are not.
/// The text is shared: the topology index, its node and the effective policies hold one copy.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Locator(Arc<str>);

/// `t` lower-cased (`str::to_lowercase`), without a string of its own for ASCII text.
fn push_lowercase(s: &mut String, t: &str) {
    if t.is_ascii() {
        // Copied, then lower-cased in place (a character at a time through `extend` is several
        // times slower, and a million locators make the topology of a large estate).
        let at = s.len();
        s.push_str(t);
        if let Some(added) = s.get_mut(at..) {
            added.make_ascii_lowercase();
        }
    } else {
        s.push_str(&t.to_lowercase());
    }
}

impl Locator {
    pub fn object(kind: &str, group: &str, namespace: &str, name: &str) -> Self {
        let mut s =
            String::with_capacity(kind.len() + group.len() + namespace.len() + name.len() + 3);
        push_lowercase(&mut s, kind);
        if !group.is_empty() {
            s.push('.');
            push_lowercase(&mut s, group);
        }
        s.push(':');
        if !namespace.is_empty() {
            s.push_str(namespace);
            s.push('/');
        }
        s.push_str(name);
        Locator(s.into())
    }

    pub fn section(&self, section: &str) -> Self {
        let mut s = String::with_capacity(self.0.len() + 1 + section.len());
        s.push_str(&self.0);
        s.push('#');
        s.push_str(section);
        Locator(s.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The object's locator and the section name, when this locator names a section.
    pub fn split_section(&self) -> Option<(Locator, &str)> {
        self.0
            .rsplit_once('#')
            .map(|(object, section)| (Locator(object.into()), section))
    }

    /// The `namespace/name[#section]` part after the `:`.
    pub fn name_part(&self) -> &str {
        self.0.split_once(':').map(|(_, n)| n).unwrap_or(&self.0)
    }
}

/// One word a typed reference may start with (matched case-insensitively), and what it names.
#[derive(Clone, Copy, Debug)]
pub struct RefKind {
    pub word: &'static str,
    /// The kind and group of the object the locator names (a listener names its Gateway's).
    pub kind: &'static str,
    pub group: &'static str,
    /// `KIND/NAME`, no namespace.
    pub cluster_scoped: bool,
    /// The reference must name a section (`listener/NS/GW#LISTENER`).
    pub needs_section: bool,
}

/// Why a typed reference is not one; each command words its own message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefError {
    /// Not `KIND/NAMESPACE/NAME` (or `KIND/NAME` for a cluster-scoped kind); the kind as typed
    /// when there was one.
    Syntax(Option<String>),
    /// A kind the caller does not take, as typed.
    UnknownKind(String),
    /// A `#` with nothing after it.
    EmptySection,
    /// A kind that names a section, without one (the kind as typed).
    NeedsSection(String),
}

impl Locator {
    /// Parse `KIND/NAMESPACE/NAME[#SECTION]`, or `KIND/NAME[#SECTION]` for a cluster-scoped kind,
    /// with `KIND` one of `kinds`.
    pub fn parse_ref(spec: &str, kinds: &[RefKind]) -> Result<Locator, RefError> {
        let (typed, rest) = spec.split_once('/').ok_or(RefError::Syntax(None))?;
        let k = kinds
            .iter()
            .find(|k| k.word.eq_ignore_ascii_case(typed))
            .ok_or_else(|| RefError::UnknownKind(typed.to_string()))?;
        let syntax = || RefError::Syntax(Some(typed.to_string()));
        let (rest, section) = match rest.split_once('#') {
            Some((_, "")) => return Err(RefError::EmptySection),
            Some((r, s)) => (r, Some(s)),
            None => (rest, None),
        };
        if k.needs_section && section.is_none() {
            return Err(RefError::NeedsSection(typed.to_string()));
        }
        let (ns, name) = if k.cluster_scoped {
            if rest.contains('/') {
                return Err(syntax());
            }
            ("", rest)
        } else {
            rest.split_once('/').ok_or_else(syntax)?
        };
        if name.is_empty() || (!k.cluster_scoped && ns.is_empty()) || name.contains('/') {
            return Err(syntax());
        }
        let base = Locator::object(k.kind, k.group, ns, name);
        Ok(match section {
            Some(s) => base.section(s),
            None => base,
        })
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_references_parse_once_for_every_command() {
        const KINDS: &[RefKind] = &[
            RefKind {
                word: "gatewayclass",
                kind: "GatewayClass",
                group: "gateway.networking.k8s.io",
                cluster_scoped: true,
                needs_section: false,
            },
            RefKind {
                word: "listener",
                kind: "Gateway",
                group: "gateway.networking.k8s.io",
                cluster_scoped: false,
                needs_section: true,
            },
        ];
        let parse = |s: &str| Locator::parse_ref(s, KINDS).map(|l| l.as_str().to_string());
        assert_eq!(
            parse("Listener/ns/gw#http").as_deref(),
            Ok("gateway.gateway.networking.k8s.io:ns/gw#http")
        );
        assert_eq!(
            parse("gatewayclass/istio").as_deref(),
            Ok("gatewayclass.gateway.networking.k8s.io:istio")
        );
        assert_eq!(parse("listener"), Err(RefError::Syntax(None)));
        assert_eq!(
            parse("gatewayclass/a/b"),
            Err(RefError::Syntax(Some("gatewayclass".into())))
        );
        assert_eq!(
            parse("listener//gw#http"),
            Err(RefError::Syntax(Some("listener".into())))
        );
        assert_eq!(
            parse("widget/ns/x"),
            Err(RefError::UnknownKind("widget".into()))
        );
        assert_eq!(parse("listener/ns/gw#"), Err(RefError::EmptySection));
        assert_eq!(
            parse("LISTENER/ns/gw"),
            Err(RefError::NeedsSection("LISTENER".into()))
        );
    }

    #[test]
    fn locators_match_policy_machinery() {
        assert_eq!(
            Locator::object("Gateway", "gateway.networking.k8s.io", "ns", "gw")
                .section("http")
                .as_str(),
            "gateway.gateway.networking.k8s.io:ns/gw#http"
        );
        assert_eq!(
            Locator::object("GatewayClass", "gateway.networking.k8s.io", "", "istio").as_str(),
            "gatewayclass.gateway.networking.k8s.io:istio"
        );
        assert_eq!(
            Locator::object("Service", "", "ns", "svc").as_str(),
            "service:ns/svc"
        );
        assert_eq!(
            Locator::object("RateLimitPolicy", "kuadrant.io", "ns", "P").as_str(),
            "ratelimitpolicy.kuadrant.io:ns/P"
        );
    }
}
