//! The model the validated objects make: its lists sized once, and sorted into the canonical order.

use super::*;

impl Model {
    /// An empty model whose lists have room for exactly `objs` (growing them one push at a time
    /// would copy each list into fresh memory several times).
    pub(crate) fn with_room_for(objs: &[Validated]) -> Model {
        let mut n = [0usize; 13];
        for o in objs {
            n[o.list()] += 1;
        }
        Model {
            gateway_classes: Vec::with_capacity(n[0]),
            gateways: Vec::with_capacity(n[1]),
            routes: Vec::with_capacity(n[2]),
            namespaces: Vec::with_capacity(n[3]),
            services: Vec::with_capacity(n[4]),
            policies: Vec::with_capacity(n[5]),
            kuadrants: Vec::with_capacity(n[6]),
            limitadors: Vec::with_capacity(n[7]),
            authorinos: Vec::with_capacity(n[8]),
            issuers: Vec::with_capacity(n[10]),
            cluster_issuers: Vec::with_capacity(n[11]),
            extensions: Vec::with_capacity(n[12]),
            skipped: Vec::with_capacity(n[9]),
            secrets: Vec::new(),
            version: KuadrantVersion::default(),
            derived_objects: Vec::new(),
            left_out_routes: Vec::new(),
        }
    }
}

/// Canonical order: routes HTTP before GRPC; every list by namespace/name (policies by kind first).
pub(crate) fn sort_model(m: &mut Model) {
    // Compared in place (a key function would copy both strings on every comparison).
    fn by_key<T>(a: &Obj<T>, b: &Obj<T>) -> std::cmp::Ordering {
        (&a.meta.namespace, &a.meta.name).cmp(&(&b.meta.namespace, &b.meta.name))
    }
    fn route_order(a: &Obj<Route>, b: &Obj<Route>) -> std::cmp::Ordering {
        a.spec.kind.cmp(&b.spec.kind).then_with(|| by_key(a, b))
    }
    fn policy_order(a: &Policy, b: &Policy) -> std::cmp::Ordering {
        (a.kind, &a.meta.namespace, &a.meta.name).cmp(&(b.kind, &b.meta.namespace, &b.meta.name))
    }
    // The three long lists of a large estate are ordered on both cores, then moved.
    let parallel = m.routes.len() + m.policies.len() >= PARALLEL_FROM;
    let lists = &*m;
    let (routes, (policies, services)) = crate::par::join_if(
        parallel,
        || order_by_name(&lists.routes, |r| (r.spec.kind, &r.meta)),
        || {
            (
                order_by_name(&lists.policies, |p| (p.kind, &p.meta)),
                order_by_name(&lists.services, |s| ((), &s.meta)),
            )
        },
    );
    debug_assert_eq!(routes, order_of(&lists.routes, route_order));
    debug_assert_eq!(policies, order_of(&lists.policies, policy_order));
    debug_assert_eq!(services, order_of(&lists.services, by_key));
    // Moved on both cores too: each list is apart from the others.
    let (model_routes, model_policies, model_services) =
        (&mut m.routes, &mut m.policies, &mut m.services);
    crate::par::join_if(
        parallel,
        || apply_order(model_routes, &routes),
        || {
            apply_order(model_policies, &policies);
            apply_order(model_services, &services);
        },
    );
    sort_moving_once(&mut m.gateway_classes, by_key);
    sort_moving_once(&mut m.gateways, by_key);
    sort_moving_once(&mut m.namespaces, by_key);
    sort_moving_once(&mut m.kuadrants, by_key);
    sort_moving_once(&mut m.limitadors, by_key);
    sort_moving_once(&mut m.authorinos, by_key);
    sort_moving_once(&mut m.issuers, by_key);
    sort_moving_once(&mut m.cluster_issuers, by_key);
    sort_moving_once(&mut m.secrets, by_key);
    sort_moving_once(&mut m.extensions, |a, b| {
        (a.kind, &a.meta.namespace, &a.meta.name).cmp(&(b.kind, &b.meta.namespace, &b.meta.name))
    });
    m.skipped.sort();
}

/// Routes and policies together from which [`sort_model`] orders the long lists on every core.
const PARALLEL_FROM: usize = 8192;

/// A stable sort of `v` by `cmp` that moves each element a fixed number of times: the model's
/// objects are large, and a merge sort would move them about log n times each.
pub(super) fn sort_moving_once<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    let order = order_of(v, cmp);
    apply_order(v, &order);
}

/// The stable order of `v` by `cmp`: `order[i]` is the index of the element that belongs at `i`.
fn order_of<T>(v: &[T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    // Index: `order` holds indices of `v`.
    order.sort_by(|&a, &b| cmp(&v[a], &v[b]));
    order
}

/// The stable order of `v` by class, namespace and name (`of` gives the first and the object's
/// metadata): what [`order_of`] gives with that comparison, found without reading the objects at
/// every comparison. Each comparison of a large list there read two objects and four strings
/// scattered over the heap, a cache miss each. Here the namespaces are ranked once (a few distinct
/// ones among thousands of objects), and the objects are sorted on a compact key of class,
/// namespace rank and the name's first 16 bytes, reading a name whole only when two names share
/// those bytes.
fn order_by_name<'v, T, K: Ord + Copy>(
    v: &'v [T],
    of: impl Fn(&'v T) -> (K, &'v Meta),
) -> Vec<usize> {
    // Each namespace numbered as first met, then renumbered by rank once they are sorted.
    let mut first_met: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    let mut keys: Vec<(K, usize, u128, usize)> = (v.iter().enumerate())
        .map(|(i, x)| {
            let (class, meta) = of(x);
            let n = first_met.len();
            let ns = *first_met.entry(meta.namespace.as_str()).or_insert(n);
            (class, ns, name_prefix(&meta.name), i)
        })
        .collect();
    let mut namespaces: Vec<(&str, usize)> = first_met.into_iter().collect();
    namespaces.sort_unstable();
    let mut rank = vec![0; namespaces.len()];
    for (r, (_, first)) in namespaces.iter().enumerate() {
        // Index: the numbers first met are 0..namespaces.len().
        rank[*first] = r;
    }
    for k in &mut keys {
        // Index: as above.
        k.1 = rank[k.1];
    }
    keys.sort_unstable_by(|a, b| {
        (a.0, a.1, a.2)
            .cmp(&(b.0, b.1, b.2))
            // Index: the keys' last fields are indices of `v`.
            .then_with(|| of(&v[a.3]).1.name.cmp(&of(&v[b.3]).1.name))
            .then(a.3.cmp(&b.3))
    });
    keys.into_iter().map(|k| k.3).collect()
}

/// A name's first 16 bytes, zero-padded, as a number that orders as the bytes do: two names whose
/// numbers differ are in the order of the numbers (a name that ends first has 0, the least byte,
/// where the other goes on), and two whose numbers are equal need comparing whole.
fn name_prefix(name: &str) -> u128 {
    let mut b = [0u8; 16];
    let n = name.len().min(16);
    b[..n].copy_from_slice(&name.as_bytes()[..n]);
    u128::from_be_bytes(b)
}

/// Put `v` in `order` (from [`order_of`] on `v`) in place, cycle by cycle, so no second vector of
/// objects is allocated (fresh memory costs a page fault per page).
fn apply_order<T>(v: &mut [T], order: &[usize]) {
    let mut placed = vec![false; v.len()];
    for start in 0..v.len() {
        // Index: `order` is a permutation of `0..v.len()`, so every index below is in range.
        if placed[start] {
            continue;
        }
        // Follow the cycle through `start`: each swap puts the right element at `i`; the element
        // first at `start` travels along and ends where it belongs.
        let mut i = start;
        while order[i] != start {
            let next = order[i];
            v.swap(i, next);
            placed[i] = true;
            i = next;
        }
        placed[i] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-place sort gives `sort_by`'s stable order, on every length up to 40 and on inputs
    /// with many equal keys (each element tagged with its original index to see stability).
    #[test]
    fn sort_moving_once_is_a_stable_sort() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..=40 {
            for _ in 0..20 {
                let v: Vec<(u64, usize)> = (0..len)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % 5, i)
                    })
                    .collect();
                let mut expected = v.clone();
                expected.sort_by_key(|a| a.0);
                let mut got = v;
                sort_moving_once(&mut got, |a, b| a.0.cmp(&b.0));
                assert_eq!(got, expected);
            }
        }
    }

    /// The keyed order is the comparison's stable order: names that share their first 16 bytes or
    /// are a prefix of another, a NUL byte, text past ASCII, empty names and namespaces, equal
    /// keys (the input order kept), and classes.
    #[test]
    fn order_by_name_is_the_order_of_the_comparison() {
        let parts = [
            "",
            "a",
            "a\0",
            "b",
            "route-1234567890ab",
            "route-1234567890abc",
            "route-12345",
            "é",
            "z\u{10ffff}",
            "0123456789abcdef",
            "0123456789abcdefg",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for len in [0, 1, 2, 5, 40, 300] {
            for _ in 0..20 {
                let v: Vec<(u8, Meta)> = (0..len)
                    .map(|_| {
                        let meta = Meta {
                            namespace: format!("{}{}", parts[next(parts.len())], parts[next(3)]),
                            name: format!(
                                "{}{}",
                                parts[next(parts.len())],
                                parts[next(parts.len())]
                            ),
                            ..Meta::default()
                        };
                        (next(3) as u8, meta)
                    })
                    .collect();
                let expected = order_of(&v, |a, b| {
                    (a.0, &a.1.namespace, &a.1.name).cmp(&(b.0, &b.1.namespace, &b.1.name))
                });
                assert_eq!(order_by_name(&v, |x| (x.0, &x.1)), expected);
            }
        }
    }
}
