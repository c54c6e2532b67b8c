//! Settings: the `.policyctl.yaml` file that gives defaults to the command-line flags.
//!
//! Owns finding the file (searching upward from a directory the caller names), parsing it with spans
//! (through `load`'s YAML reader) and validating every key, so that an unknown key (`PCTL4001`) or a bad value
//! (`PCTL4002`) points at the exact place in the file. Must not read the environment, the current
//! directory or flags: the CLI decides precedence (flag, then environment, then this file, then the
//! built-in default).

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{KuadrantVersion, Sp};
use crate::source::SourceMap;
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name searched for.
pub(crate) const FILE_NAME: &str = ".policyctl.yaml";

/// Settings files larger than this are refused (`PCTL4002`): a settings file is a few lines.
pub(crate) const MAX_SIZE: u64 = 1024 * 1024;

/// Every key the settings file may hold, in the order the README documents them.
pub const KEYS: &[&str] = &[
    "kuadrantVersion",
    "kuadrantNamespace",
    "wasmImage",
    "wasmSha256",
    "istioControllerNames",
    "envoyGatewayControllerNames",
    "gatewayClasses",
    "failOn",
    "validate",
    "ignore",
];

/// `failOn`: the lowest severity that makes a run exit 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    Error,
    Warning,
    Never,
}

/// The values a settings file gives; `None` (or empty) where it says nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// The file these settings came from.
    pub path: Option<PathBuf>,
    pub kuadrant_version: Option<KuadrantVersion>,
    pub kuadrant_namespace: Option<String>,
    pub wasm_image: Option<String>,
    pub wasm_sha256: Option<String>,
    pub istio_controller_names: Vec<String>,
    pub envoy_gateway_controller_names: Vec<String>,
    /// `gatewayClasses`: GatewayClasses assumed when the input does not define them (name →
    /// controllerName), on top of the well-known ones.
    pub gateway_classes: BTreeMap<String, String>,
    pub fail_on: Option<FailOn>,
    /// `validate`: how fields the schema does not declare are treated (`--validate`).
    pub validate: Option<crate::load::FieldValidation>,
    /// The `ignore:` list: findings silenced on purpose (see `crate::suppress`).
    pub ignore: Vec<crate::suppress::Rule>,
}

/// The result of reading a settings file: its text (for rendering diagnostics), the settings and
/// the findings. A `PCTL4002` among the diagnostics means the file must not be used.
#[derive(Debug, Default)]
pub struct Loaded {
    pub sources: SourceMap,
    pub settings: Settings,
    pub diagnostics: Diagnostics,
}

/// The settings file that applies in `start`: the nearest `.policyctl.yaml` in `start` or a folder
/// above it, up to and including the repository root (the nearest folder holding `.git`, a folder or
/// a file as in a git worktree or submodule), never above it. Outside a repository only `start`
/// itself is looked in. In CI the checkout is attacker-controlled but what lies above it is not
/// theirs to choose, and the reverse: a file above the checkout must not change how the
/// repository's own files are judged.
pub fn find(start: &Path) -> Option<PathBuf> {
    let root = start
        .ancestors()
        .find(|d| d.join(".git").symlink_metadata().is_ok());
    let dirs: Vec<&Path> = match root {
        Some(root) => {
            let depth = start.ancestors().count() - root.ancestors().count();
            start.ancestors().take(depth + 1).collect()
        }
        None => vec![start],
    };
    dirs.into_iter()
        .map(|d| d.join(FILE_NAME))
        .find(|p| p.symlink_metadata().is_ok())
}

/// Read and validate the settings file at `path`, named with `--config` (symbolic links are
/// followed). Only a regular file or the null device (no settings) is read: a FIFO or another device
/// would block or never end.
pub fn read(path: &Path) -> Loaded {
    read_checked(path, true)
}

/// Read and validate the settings file [`find`] found. A symbolic link is refused: discovery must
/// not read a file outside the repository.
pub fn read_found(path: &Path) -> Loaded {
    read_checked(path, false)
}

fn read_checked(path: &Path, follow: bool) -> Loaded {
    let name = path.display().to_string();
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    };
    let bytes = match meta {
        Err(e) => Err(e.to_string()),
        Ok(m) if m.file_type().is_symlink() => Err(
            "it is a symbolic link, and a settings file found by searching is read only when it is a regular file"
                .to_string(),
        ),
        Ok(m) if m.is_file() => std::fs::File::open(path)
            .map_err(|e| e.to_string())
            .and_then(|f| {
                crate::load::read_stream(f, MAX_SIZE).map_err(|e| match e {
                    crate::load::StreamError::Io(e) => e,
                    crate::load::StreamError::TooLarge(max) => {
                        format!("larger than {max} bytes, the most a settings file may hold")
                    }
                })
            }),
        Ok(m) if crate::load::is_null_device(&m) => Ok(Vec::new()),
        Ok(_) => Err(
            "it is not a regular file (a pipe, FIFO or device would block or never end)".to_string(),
        ),
    };
    let text = bytes.and_then(|b| {
        String::from_utf8(b)
            .map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
    });
    match text {
        Ok(text) => {
            let mut loaded = parse(&name, &text);
            loaded.settings.path = Some(path.to_path_buf());
            loaded
        }
        Err(why) => {
            let mut diagnostics = Diagnostics::new();
            diagnostics.push(
                Diagnostic::new(
                    Code::ConfigInvalid,
                    format!("cannot read settings file {name}: {why}"),
                )
                .help("fix the path given to --config, or remove the file"),
            );
            Loaded {
                diagnostics,
                ..Loaded::default()
            }
        }
    }
}

/// Parse and validate settings text; `name` is shown in diagnostics.
pub fn parse(name: &str, text: &str) -> Loaded {
    let mut sources = SourceMap::new();
    let source = sources.add(name, text);
    let mut diagnostics = Diagnostics::new();
    let mut settings = Settings::default();
    match crate::load::parse_small::<Entries>(source, text, MAX_SIZE as usize) {
        Ok(Entries(entries)) => {
            for (key, value) in entries {
                apply(&mut settings, &mut diagnostics, text, key, value);
            }
        }
        Err((span, message)) => {
            diagnostics.push(
                Diagnostic::new(
                    Code::ConfigInvalid,
                    format!("cannot parse the settings file: {message}"),
                )
                .at(span, "here")
                .help(format!(
                    "write `key: value` lines; known keys: {}",
                    KEYS.join(", ")
                )),
            );
        }
    }
    diagnostics.sort();
    Loaded {
        sources,
        settings,
        diagnostics,
    }
}

/// A scalar, list or mapping as written, with where it was written.
type Value = Sp<serde_json::Value>;

/// The top-level mapping, in file order. An empty document is an empty mapping.
struct Entries(Vec<(Sp<String>, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of settings (key: value)")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Entries, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Entries, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<Sp<String>>()? {
                    let v = map.next_value::<Value>()?;
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// Read one settings key into `settings`; a bad value or an unknown key is a diagnostic.
fn apply(
    settings: &mut Settings,
    diags: &mut Diagnostics,
    text: &str,
    key: Sp<String>,
    value: Value,
) {
    let at = value.span;
    // The value as written (so `kuadrantVersion: 1.5`, a YAML float, reads as "1.5").
    let written = text
        .get(at.offset..at.offset + at.len)
        .map(|s| s.trim().trim_matches(|c| c == '"' || c == '\'').to_string());
    let invalid = |expected: &str| {
        Diagnostic::new(
            Code::ConfigInvalid,
            format!("settings key `{}`: expected {expected}", key.value),
        )
        .at(at, "invalid value")
    };
    let string = |diags: &mut Diagnostics| -> Option<String> {
        let s = non_empty_string(&value.value);
        if s.is_none() {
            diags.push(invalid("a non-empty string"));
        }
        s
    };
    let names = |diags: &mut Diagnostics| -> Vec<String> {
        controller_names(&value.value).unwrap_or_else(|| {
            diags.push(invalid(
                "a list of controller names (or one comma-separated string)",
            ));
            Vec::new()
        })
    };
    match key.value.as_str() {
        "kuadrantVersion" => {
            let parsed = match &value.value {
                serde_json::Value::String(_) | serde_json::Value::Number(_) => {
                    written.as_deref().and_then(KuadrantVersion::parse)
                }
                _ => None,
            };
            match parsed {
                Some(v) => settings.kuadrant_version = Some(v),
                None => diags.push(invalid("\"1.4\" or \"1.5\"")),
            }
        }
        "kuadrantNamespace" => {
            settings.kuadrant_namespace = string(diags).and_then(|ns| {
                if crate::load::validate::dns1123_label(&ns) {
                    Some(ns)
                } else {
                    diags.push(invalid(
                        "a namespace name (a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit)",
                    ));
                    None
                }
            })
        }
        "wasmImage" => settings.wasm_image = string(diags),
        "wasmSha256" => {
            // An all-digit hash (or one like `12e4…`) is a YAML number: read it as written.
            let hash = match &value.value {
                serde_json::Value::Number(_) => written.clone(),
                _ => string(diags),
            };
            if let Some(s) = hash {
                if crate::model::is_sha256_hex(&s) {
                    settings.wasm_sha256 = Some(s.to_lowercase());
                } else {
                    diags.push(invalid("64 hexadecimal characters"));
                }
            }
        }
        "istioControllerNames" => settings.istio_controller_names = names(diags),
        "envoyGatewayControllerNames" => settings.envoy_gateway_controller_names = names(diags),
        "gatewayClasses" => match gateway_classes(&value.value) {
            Some(c) => settings.gateway_classes = c,
            None => diags.push(invalid(
                "a mapping of GatewayClass names to controller names (e.g. `istio: istio.io/gateway-controller`)",
            )),
        },
        "failOn" => {
            settings.fail_on = match value.value.as_str() {
                Some("error") => Some(FailOn::Error),
                Some("warning") => Some(FailOn::Warning),
                Some("never") => Some(FailOn::Never),
                _ => {
                    diags.push(invalid("error, warning or never"));
                    None
                }
            }
        }
        "validate" => {
            let parsed = match &value.value {
                serde_json::Value::Bool(true) => Some(crate::load::FieldValidation::Strict),
                serde_json::Value::Bool(false) => Some(crate::load::FieldValidation::Ignore),
                v => v.as_str().and_then(crate::load::FieldValidation::parse),
            };
            match parsed {
                Some(v) => settings.validate = Some(v),
                None => diags.push(invalid("strict, warn or ignore")),
            }
        }
        "ignore" => {
            if value.value.is_array() {
                settings.ignore = crate::suppress::read_rules(at.source, text, diags);
            } else {
                diags.push(invalid("a list of {code, object, reason} entries"));
            }
        }
        other => diags.push(unknown_key(other, &key)),
    }
}

/// A string setting: trimmed, not empty.
fn non_empty_string(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    }
}

/// A list of controller names, or one comma-separated string of them; none empty.
fn controller_names(v: &serde_json::Value) -> Option<Vec<String>> {
    let items: Option<Vec<String>> = match v {
        serde_json::Value::String(s) => Some(s.split(',').map(|x| x.trim().to_string()).collect()),
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map(|s| s.trim().to_string()))
            .collect(),
        _ => None,
    };
    items.filter(|v| v.iter().all(|s| !s.is_empty()))
}

/// A mapping of GatewayClass names to controller names, both non-empty once trimmed.
fn gateway_classes(v: &serde_json::Value) -> Option<BTreeMap<String, String>> {
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .map(|(k, v)| match v.as_str().map(str::trim) {
                Some(c) if !k.trim().is_empty() && !c.is_empty() => {
                    Some((k.trim().to_string(), c.to_string()))
                }
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `ConfigUnknownKey`, with the key it most likely misspells or the known keys.
fn unknown_key(other: &str, key: &Sp<String>) -> Diagnostic {
    let d = Diagnostic::new(
        Code::ConfigUnknownKey,
        format!("unknown settings key `{other}`; it is ignored"),
    )
    .at(key.span, "not a policyctl setting");
    match closest(other) {
        Some(k) => d.help(format!("did you mean `{k}`?")),
        None => d.help(format!("known keys: {}", KEYS.join(", "))),
    }
}

/// The known key an unknown one most likely misspells (same letters ignoring case, `-`, `_`, or
/// at most two edits away).
fn closest(key: &str) -> Option<&'static str> {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let k = fold(key);
    KEYS.iter()
        .map(|known| (edits(&k, &fold(known)), *known))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, known)| known)
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            // Index: `row` has `b.len() + 1` entries and `j < b.len()`.
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_keys_get_a_suggestion() {
        assert_eq!(closest("kuadrant-version"), Some("kuadrantVersion"));
        assert_eq!(closest("failon"), Some("failOn"));
        assert_eq!(closest("wasmSha"), None);
        assert_eq!(edits("kitten", "sitting"), 3);
    }

    #[test]
    fn gateway_classes_are_a_mapping_of_names_to_controllers() {
        let l = parse("s.yaml", "gatewayClasses:\n  a: x.io/c\n  b: y.io/d\n");
        assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
        let want: BTreeMap<String, String> = [("a", "x.io/c"), ("b", "y.io/d")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(l.settings.gateway_classes, want);
        for bad in [
            "gatewayClasses: [a]\n",
            "gatewayClasses:\n  a: ''\n",
            "gatewayClasses:\n  a: [x]\n",
        ] {
            let l = parse("s.yaml", bad);
            assert!(l.diagnostics.has_trouble(), "{bad}");
        }
    }
}
