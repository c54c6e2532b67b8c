//! Locators: the string id of every topology node, as policy-machinery builds them.

use std::fmt;
use std::sync::Arc;

/// `lower(Kind.group):namespace/name` (`Kind` alone for the core group; no `namespace/` for
/// cluster-scoped objects); sections append `#name`. Group and kind are lower-cased, names are not.
/// The text is shared: the topology index, its node and the effective policies hold one copy.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Locator(Arc<str>);

impl Locator {
    pub fn object(kind: &str, group: &str, namespace: &str, name: &str) -> Self {
        let mut s =
            String::with_capacity(kind.len() + group.len() + namespace.len() + name.len() + 3);
        s.push_str(&kind.to_lowercase());
        if !group.is_empty() {
            s.push('.');
            s.push_str(&group.to_lowercase());
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
        Locator(format!("{}#{section}", self.0).into())
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

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
