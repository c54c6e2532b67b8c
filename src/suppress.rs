//! Suppressions: silencing a finding on purpose, with a reason, in the style of `istioctl analyze`
//! and kube-linter.
//!
//! Two sources: the annotation [`ANNOTATION`] on an object (`"PCTL3004,PCTL2006"`, with an optional
//! [`REASON_ANNOTATION`]), and the settings file's `ignore:` list (a code, an optional object pattern,
//! a required reason). Owns reading the `ignore:` list, matching findings against both sources,
//! reporting a suppression that matches nothing (`PCTL4009`), one that names an error (`PCTL4010`,
//! see [`Code::can_be_suppressed`]) and an annotation that names no code (`PCTL4011`). Must not render
//! or decide exit codes: the CLI shows what [`apply`] returns.

use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::model::{Meta, Model, Sp};
use crate::source::{SourceId, Span};
use serde::Deserialize;

/// The annotation that silences findings about the object it is on: comma-separated codes.
pub const ANNOTATION: &str = "policyctl.kuadrant.io/ignore";

/// The optional annotation that says why (shown with `-v` and in SARIF).
pub const REASON_ANNOTATION: &str = "policyctl.kuadrant.io/ignore-reason";

/// One `ignore:` entry of the settings file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: Code,
    /// A pattern over the finding's object, `Kind namespace/name`; `*` matches any run of
    /// characters (`HTTPRoute toystore/*`, `* legacy/*`). `None`: every object.
    pub object: Option<String>,
    pub reason: String,
    /// The entry in the settings file.
    pub span: Span,
}

/// A finding that a suppression silenced, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppressed {
    pub diagnostic: Diagnostic,
    /// `annotation` or `settings`.
    pub by: &'static str,
    pub reason: String,
}

/// The findings after suppression.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// What is still reported, including the findings about suppressions themselves, sorted.
    pub kept: Diagnostics,
    /// What was silenced, in the order of the input diagnostics.
    pub suppressed: Vec<Suppressed>,
}

/// An object policyctl checked: `Kind namespace/name` and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub object: String,
    pub span: Span,
}

/// Every modelled object as findings name it (`Kind namespace/name`), with its metadata.
fn objects(model: &Model) -> Vec<(String, &Meta)> {
    metas(model)
        .into_iter()
        .map(|(kind, m)| (format!("{kind} {}", m.key()), m))
        .collect()
}

/// Every modelled object's kind and metadata, in the order of [`objects`].
fn metas(model: &Model) -> Vec<(&'static str, &Meta)> {
    let mut all: Vec<(&str, &Meta)> = Vec::with_capacity(model.object_count());
    all.extend(
        model
            .gateway_classes
            .iter()
            .map(|o| ("GatewayClass", &o.meta)),
    );
    all.extend(model.gateways.iter().map(|o| ("Gateway", &o.meta)));
    all.extend(model.routes.iter().map(|o| (o.spec.kind.kind(), &o.meta)));
    all.extend(model.namespaces.iter().map(|o| ("Namespace", &o.meta)));
    all.extend(model.services.iter().map(|o| ("Service", &o.meta)));
    // A policy an extension's controller creates is not in the input: its extension policy is.
    all.extend(
        model
            .policies
            .iter()
            .filter(|p| p.meta.derived_from.is_none())
            .map(|p| (p.kind.kind(), &p.meta)),
    );
    all.extend(model.extensions.iter().map(|e| (e.kind.kind(), &e.meta)));
    all.extend(model.kuadrants.iter().map(|o| ("Kuadrant", &o.meta)));
    all.extend(model.limitadors.iter().map(|o| ("Limitador", &o.meta)));
    all.extend(model.authorinos.iter().map(|o| ("Authorino", &o.meta)));
    all
}

/// The objects checked, for reports with one entry per object (JUnit): every modelled object,
/// plus the objects findings name that were left out of the model (an object the schema
/// rejects), sorted by name.
pub fn checked(model: &Model, diags: &Diagnostics) -> Vec<Checked> {
    let mut out: Vec<Checked> = objects(model)
        .into_iter()
        .map(|(object, m)| Checked {
            object,
            span: m.origin.object,
        })
        .collect();
    let known: std::collections::BTreeSet<String> = out.iter().map(|c| c.object.clone()).collect();
    for d in diags {
        if let (Some(o), Some(span)) = (&d.object, d.primary_span())
            && !known.contains(o)
            && !out.iter().any(|c| &c.object == o)
        {
            out.push(Checked {
                object: o.clone(),
                span,
            });
        }
    }
    out.sort_by(|a, b| a.object.cmp(&b.object));
    out
}

/// `*` matches any run of characters, everything else itself.
pub fn matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// One annotation on one object, parsed.
struct Annotated<'a> {
    object: String,
    meta: &'a Meta,
    codes: Vec<Code>,
    reason: String,
    used: Vec<bool>,
}

/// Silence the findings the annotations of `model` and the settings `rules` name. Errors stay
/// (with a `PCTL4010` beside them). With `complete` (the diagnostics of the whole analysis, not
/// of a command that runs only part of it, like `graph`), every suppression that silenced nothing
/// is a `PCTL4009`.
pub fn apply(diags: Diagnostics, model: &Model, rules: &[Rule], complete: bool) -> Outcome {
    let mut s = Suppressor::new(model, rules);
    let mut out = Outcome::default();
    s.sift(diags, &mut out);
    s.finish(complete, &mut out);
    out
}

/// One suppression pass over findings that come in several batches (a run's input findings and its
/// stages' findings, which `watch` keeps apart): the annotations are read once, each finding is
/// decided alone, and the findings about the suppressions themselves are added once, by
/// [`Suppressor::finish`].
pub(crate) struct Suppressor<'m, 'r> {
    annotated: Vec<Annotated<'m>>,
    rules: &'r [Rule],
    rule_used: Vec<bool>,
    /// The findings about the annotations (a code that is an error, or no code).
    extra: Diagnostics,
}

impl<'m, 'r> Suppressor<'m, 'r> {
    pub(crate) fn new(model: &'m Model, rules: &'r [Rule]) -> Self {
        let mut extra = Diagnostics::new();
        let annotated = annotations(model, &mut extra);
        Suppressor {
            annotated,
            rules,
            rule_used: vec![false; rules.len()],
            extra,
        }
    }

    /// Decide each finding of `diags`: into `out.kept` (in the order given, unsorted) or
    /// `out.suppressed`.
    pub(crate) fn sift(&mut self, diags: Diagnostics, out: &mut Outcome) {
        for d in diags.into_vec() {
            match self.silenced_by(&d) {
                Some((by, reason)) => out.suppressed.push(Suppressed {
                    diagnostic: d,
                    by,
                    reason,
                }),
                None => out.kept.push(d),
            }
        }
    }

    /// The suppression that silences `d`, if any (the annotation's first, then the settings
    /// file's); every one that matches is marked used.
    fn silenced_by(&mut self, d: &Diagnostic) -> Option<(&'static str, String)> {
        if !(d.code.can_be_suppressed() && d.severity != Severity::Error) {
            return None;
        }
        let mut by = None;
        if let Some(o) = &d.object {
            for a in self.annotated.iter_mut().filter(|a| &a.object == o) {
                if let Some(i) = a.codes.iter().position(|c| *c == d.code) {
                    a.used[i] = true;
                    by.get_or_insert(("annotation", a.reason.clone()));
                }
            }
        }
        for (i, r) in self.rules.iter().enumerate() {
            // A finding about no object (the input as a whole, the settings file) is matched
            // as the empty name: `*` matches it, `Gateway *` does not.
            let object_ok = match (&r.object, &d.object) {
                (None, _) => true,
                (Some(p), o) => matches(p, o.as_deref().unwrap_or("")),
            };
            if r.code == d.code && object_ok {
                self.rule_used[i] = true;
                by.get_or_insert(("settings", r.reason.clone()));
            }
        }
        by
    }

    /// Add the findings about the suppressions to `out.kept` (with `complete`, see [`apply`], those
    /// that silenced nothing too) and sort it.
    pub(crate) fn finish(self, complete: bool, out: &mut Outcome) {
        let mut extra = self.extra;
        if complete {
            extra.extend(unused(&self.annotated, self.rules, &self.rule_used));
        }
        out.kept.extend(extra);
        out.kept.sort();
    }
}

/// The suppression annotations of the objects of `model`, parsed; a code that is an error or not
/// a code at all is a diagnostic in `extra`.
fn annotations<'m>(model: &'m Model, extra: &mut Diagnostics) -> Vec<Annotated<'m>> {
    let mut annotated: Vec<Annotated<'m>> = Vec::new();
    // Only an annotated object's name is built: most objects have none.
    for (kind, meta) in metas(model) {
        let Some(value) = meta.annotations.get(ANNOTATION) else {
            continue;
        };
        let object = format!("{kind} {}", meta.key());
        let mut codes = Vec::new();
        let mut seen = Vec::new();
        // Items that are no code: the first few get a finding each, the rest one finding that
        // counts them, so that a huge annotation gives a report of bounded size.
        let mut invalid = 0usize;
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            // A code listed twice is one suppression (not a second, unused one).
            let code = Code::parse(item);
            if let Some(c) = code {
                if seen.contains(&c) {
                    continue;
                }
                seen.push(c);
            }
            match code {
                Some(c) if c.can_be_suppressed() => codes.push(c),
                Some(c) => extra.push(
                    Diagnostic::new(
                        Code::SuppressionRefused,
                        format!(
                            "annotation {ANNOTATION} names {}, an error: it cannot be silenced",
                            c.as_str()
                        ),
                    )
                    .object(object.clone())
                    .at(meta.origin.name, "the annotated object")
                    .help("fix the cause: the API server or the operator rejects this object"),
                ),
                None if invalid >= MAX_INVALID_ITEMS => invalid += 1,
                None => {
                    invalid += 1;
                    extra.push(
                    Diagnostic::new(
                        Code::SuppressionInvalid,
                        format!(
                            "annotation {ANNOTATION} names {:?}, which is not a policyctl code",
                            shortened(item)
                        ),
                    )
                    .object(object.clone())
                    .at(meta.origin.name, "the annotated object")
                    .help("write codes such as PCTL3004, separated by commas (see `policyctl lint --help`)"),
                    );
                }
            }
        }
        if invalid > MAX_INVALID_ITEMS {
            extra.push(
                Diagnostic::new(
                    Code::SuppressionInvalid,
                    format!(
                        "annotation {ANNOTATION} names {} more items that are not policyctl codes",
                        invalid - MAX_INVALID_ITEMS
                    ),
                )
                .object(object.clone())
                .at(meta.origin.name, "the annotated object")
                .help("write codes such as PCTL3004, separated by commas (see `policyctl lint --help`)"),
            );
        }
        let used = vec![false; codes.len()];
        annotated.push(Annotated {
            object,
            meta,
            codes,
            reason: meta
                .annotations
                .get(REASON_ANNOTATION)
                .cloned()
                .unwrap_or_default(),
            used,
        });
    }
    annotated
}

/// How many items of one ignore annotation that are not codes get a finding each; the rest are
/// counted in one more finding.
const MAX_INVALID_ITEMS: usize = 10;

/// An annotation item as a message quotes it: at most 64 characters, then `…`.
fn shortened(item: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 64;
    match item.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &item[..end]).into(),
        None => item.into(),
    }
}

/// `PCTL4009` for every annotation code and settings rule that silenced nothing.
fn unused(annotated: &[Annotated<'_>], rules: &[Rule], rule_used: &[bool]) -> Diagnostics {
    let mut extra = Diagnostics::new();
    // Which audit findings exist depends on the command and its flags (`audit --require`): a
    // suppression of one is never reported unused.
    for a in annotated {
        for (c, used) in a.codes.iter().zip(&a.used) {
            if !used && !c.is_audit() {
                extra.push(
                    Diagnostic::new(
                        Code::SuppressionUnused,
                        format!(
                            "annotation {ANNOTATION} silences {} but there is no such finding on this object",
                            c.as_str()
                        ),
                    )
                    .object(a.object.clone())
                    .at(a.meta.origin.name, "the annotated object")
                    .help("remove the code from the annotation"),
                );
            }
        }
    }
    for (r, used) in rules.iter().zip(rule_used) {
        if !used && !r.code.is_audit() {
            let what = match &r.object {
                Some(p) => format!("{} on {p:?}", r.code.as_str()),
                None => r.code.as_str().to_string(),
            };
            extra.push(
                Diagnostic::new(
                    Code::SuppressionUnused,
                    format!("settings `ignore` entry for {what} matches no finding"),
                )
                .at(r.span, "this entry")
                .help("remove the entry, or fix its code or object pattern"),
            );
        }
    }
    extra
}

#[derive(Deserialize)]
struct Doc {
    #[serde(default)]
    ignore: Option<Vec<Sp<RawRule>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    code: Option<Sp<String>>,
    object: Option<Sp<String>>,
    reason: Option<Sp<String>>,
}

/// Read the settings file's `ignore:` list from its `text` (in `source`). An entry without a known
/// code or without a reason is a `PCTL4002`; one that names an error is a `PCTL4010`. `max_size`
/// is the settings file's bound (`config` owns it; suppression does not import `config`).
pub(crate) fn read_rules(
    source: SourceId,
    text: &str,
    max_size: usize,
    diags: &mut Diagnostics,
) -> Vec<Rule> {
    let help = "write entries as `- {code: PCTL3004, object: \"HTTPRoute toystore/*\", reason: \"…\"}` (object is optional)";
    let doc = match crate::load::parse_small::<Doc>(source, text, max_size) {
        Ok(d) => d,
        Err((span, message)) => {
            diags.push(
                Diagnostic::new(
                    Code::ConfigInvalid,
                    format!("settings key `ignore`: {message}"),
                )
                .at(span, "here")
                .help(help),
            );
            return Vec::new();
        }
    };
    let mut rules = Vec::new();
    for entry in doc.ignore.unwrap_or_default() {
        let invalid = |m: String| {
            Diagnostic::new(Code::ConfigInvalid, format!("settings key `ignore`: {m}"))
                .at(entry.span, "this entry")
                .help(help)
        };
        let Some(code_text) = &entry.value.code else {
            diags.push(invalid("an entry has no `code`".into()));
            continue;
        };
        let Some(code) = Code::parse(code_text) else {
            diags.push(invalid(format!(
                "{:?} is not a policyctl code",
                code_text.value
            )));
            continue;
        };
        let reason = entry
            .value
            .reason
            .as_ref()
            .map(|r| r.value.trim().to_string())
            .unwrap_or_default();
        if reason.is_empty() {
            diags.push(invalid(format!(
                "the entry for {} has no `reason`: say why the finding is acceptable",
                code.as_str()
            )));
            continue;
        }
        if !code.can_be_suppressed() {
            diags.push(
                Diagnostic::new(
                    Code::SuppressionRefused,
                    format!(
                        "settings `ignore` entry names {}, an error: it cannot be silenced",
                        code.as_str()
                    ),
                )
                .at(entry.span, "this entry")
                .help("fix the cause: the API server or the operator rejects the object"),
            );
            continue;
        }
        rules.push(Rule {
            code,
            object: entry
                .value
                .object
                .as_ref()
                .map(|o| o.value.trim().to_string())
                .filter(|o| !o.is_empty()),
            reason,
            span: entry.span,
        });
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_patterns() {
        assert!(matches("HTTPRoute toystore/*", "HTTPRoute toystore/api"));
        assert!(!matches("HTTPRoute toystore/*", "HTTPRoute shop/api"));
        assert!(matches("* legacy/*", "RateLimitPolicy legacy/old"));
        assert!(matches("*", ""));
        assert!(matches("a*b*c", "aXbYc"));
        assert!(!matches("a*b*c", "aXcYb"));
        assert!(!matches("ab*ba", "aba"));
        assert!(matches("Gateway gw", "Gateway gw"));
        assert!(!matches("Gateway gw", "Gateway gw2"));
    }

    #[test]
    fn errors_cannot_be_suppressed() {
        for c in Code::ALL {
            if c.severity() == Severity::Error {
                assert!(!c.can_be_suppressed(), "{}", c.as_str());
            }
        }
        assert!(Code::TieBreakByName.can_be_suppressed());
        assert!(!Code::TargetNotFound.can_be_suppressed());
        assert_eq!(Code::parse(" pctl3004"), Some(Code::TieBreakByName));
        assert_eq!(Code::parse("PCTL9999"), None);
    }

    fn settings(text: &str) -> (Vec<Rule>, Vec<(Code, usize)>) {
        let loaded = crate::config::parse("s.yaml", text);
        let diags = loaded
            .diagnostics
            .iter()
            .map(|d| {
                let line = d
                    .primary_span()
                    .and_then(|s| loaded.sources.position(s))
                    .map_or(0, |p| p.line);
                (d.code, line)
            })
            .collect();
        (loaded.settings.ignore, diags)
    }

    #[test]
    fn settings_entries_need_a_known_code_and_a_reason() {
        let (rules, diags) = settings(
            "failOn: warning\nignore:\n  - code: pctl3004\n    object: \"HTTPRoute a/*\"\n    reason: ok\n  - code: PCTL2006\n    reason: \"  \"\n  - code: PCTL0000\n    reason: x\n  - reason: x\n  - code: PCTL2001\n    reason: x\n",
        );
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].code, Code::TieBreakByName);
        assert_eq!(rules[0].object.as_deref(), Some("HTTPRoute a/*"));
        assert_eq!(rules[0].reason, "ok");
        assert_eq!(
            diags,
            vec![
                (Code::ConfigInvalid, 6),
                (Code::ConfigInvalid, 8),
                (Code::ConfigInvalid, 10),
                (Code::SuppressionRefused, 11),
            ]
        );
    }

    #[test]
    fn settings_entries_with_unknown_keys_or_the_wrong_shape_are_invalid() {
        let (rules, diags) =
            settings("ignore:\n  - code: PCTL3004\n    reason: x\n    because: y\n");
        assert!(rules.is_empty());
        assert_eq!(diags.first().map(|d| d.0), Some(Code::ConfigInvalid));
        let (rules, diags) = settings("ignore: PCTL3004\n");
        assert!(rules.is_empty());
        assert_eq!(diags, vec![(Code::ConfigInvalid, 1)]);
    }

    #[test]
    fn unused_rules_are_reported_only_for_a_complete_run() {
        let rule = Rule {
            code: Code::TieBreakByName,
            object: Some("Gateway *".into()),
            reason: "r".into(),
            span: Span::default(),
        };
        let model = Model::default();
        let mut diags = Diagnostics::new();
        diags.push(Diagnostic::new(Code::TieBreakByName, "m").object("HTTPRoute a/b"));
        let out = apply(diags.clone(), &model, std::slice::from_ref(&rule), true);
        assert!(out.suppressed.is_empty(), "the pattern does not match");
        let codes: Vec<Code> = out.kept.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![Code::TieBreakByName, Code::SuppressionUnused]);
        let out = apply(diags.clone(), &model, std::slice::from_ref(&rule), false);
        assert_eq!(out.kept.len(), 1);
        let matching = Rule {
            object: Some("HTTPRoute a/*".into()),
            ..rule
        };
        let out = apply(diags, &model, &[matching], true);
        assert_eq!(out.suppressed.len(), 1);
        assert_eq!(out.suppressed[0].by, "settings");
        assert!(out.kept.is_empty());
    }
}
