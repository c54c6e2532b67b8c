//! Action-set hostnames (`docs/semantics/generated-objects.md`): the route hostnames that are a *subset* of the listener
//! hostname, in route order — a filter, not a Gateway API intersection.

pub(crate) use crate::model::hostname_subset_of as subset_of;

/// The hostnames of the action sets of a path: `[listener or "*"]` when the route has none, else the
/// route hostnames that are a subset of the listener hostname, in route order. Empty means the path is
/// invalid (no action set, and on 1.5 no limits or cluster objects either).
pub(crate) fn select<'a>(listener: Option<&'a str>, route: &[&'a str]) -> Vec<&'a str> {
    select_in(listener, route.iter().copied())
}

/// [`select`] over the route hostnames as they come.
pub(crate) fn select_in<'a>(
    listener: Option<&'a str>,
    route: impl ExactSizeIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let l = listener.unwrap_or("*");
    if route.len() == 0 {
        return vec![l];
    }
    route.filter(|h| subset_of(h, l)).collect()
}

/// The number of DNS labels of a hostname.
pub(crate) fn labels(h: &str) -> usize {
    h.bytes().filter(|&c| c == b'.').count() + 1
}

/// `CompareHostnamesSpecificity`: whether `a` is more specific than `b` (more labels; then
/// non-wildcard first; then lexicographic), each with its label count already known. The
/// reference of the hostname step of `predicates::compare`, which is tested against it.
#[cfg(test)]
pub(crate) fn more_specific_counted((a, la): (&str, usize), (b, lb): (&str, usize)) -> bool {
    if la != lb {
        return la > lb;
    }
    let wa = a.starts_with('*');
    let wb = b.starts_with('*');
    if wa != wb {
        return !wa;
    }
    a < b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn more_specific(a: &str, b: &str) -> bool {
        more_specific_counted((a, labels(a)), (b, labels(b)))
    }

    #[test]
    fn g4_selection() {
        assert_eq!(select(None, &[]), vec!["*"]);
        assert_eq!(
            select(Some("*.gw.example.com"), &[]),
            vec!["*.gw.example.com"]
        );
        assert_eq!(
            select(None, &["*.toystore.acme.com", "api.toystore.io"]),
            vec!["*.toystore.acme.com", "api.toystore.io"]
        );
        assert!(select(Some("api.example.com"), &["*.example.com"]).is_empty());
    }

    #[test]
    fn hostname_specificity() {
        assert!(more_specific("a.b.c", "*.c"));
        assert!(more_specific("a.b", "*.b"));
        assert!(!more_specific("*.b", "a.b"));
        assert!(more_specific("a.b", "c.b"));
        assert!(more_specific("*.toystore.acme.com", "api.toystore.io"));
    }
}
