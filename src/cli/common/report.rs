//! How a command reports its findings: the formats (`DiagFormat`, `--diagnostics-format`), the
//! machine reports, SARIF's paths and the silenced findings' lines.

use clap::{Args, ValueEnum};
use policyctl::Model;
use policyctl::SourceMap;
use policyctl::diag::Diagnostics;
use policyctl::render;
use policyctl::suppress;
use std::collections::BTreeMap;

/// The formats diagnostics can be printed in. The same renderers serve `lint -o` and
/// `--diagnostics-format` of the other commands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum DiagFormat {
    /// For people: the graphical report (one line each with -q).
    #[default]
    Text,
    /// `{"diagnostics": [...], "summary": {...}}`.
    Json,
    /// GitHub Actions workflow annotations.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines).
    Junit,
}

/// Where and how the commands whose `-o` is their main output (compute, status, explain, graph,
/// diff) print their diagnostics.
#[derive(Args, Debug, Clone, Default)]
pub struct DiagArgs {
    /// Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code
    /// does not depend on it.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = DiagFormat::Text)]
    pub diagnostics_format: DiagFormat,
    /// Write the diagnostics to FILE instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub diagnostics_file: Option<std::path::PathBuf>,
}

/// The diagnostics of a run in a machine format (`Text` is drawn by the caller): `shown` are the
/// findings still reported, `found` has the silenced ones.
pub fn machine_report(
    format: DiagFormat,
    shown: &Diagnostics,
    found: &suppress::Outcome,
    sources: &SourceMap,
    model: &Model,
) -> String {
    use render::diagnostics as rd;
    match format {
        DiagFormat::Text | DiagFormat::Json => rd::json(shown, found.suppressed.len(), sources),
        DiagFormat::Github => rd::github(shown, sources),
        DiagFormat::Sarif | DiagFormat::Junit => {
            let objects = suppress::checked(model, shown);
            let artifacts = if format == DiagFormat::Sarif {
                artifacts(sources)
            } else {
                BTreeMap::new()
            };
            let f = rd::Findings {
                shown,
                suppressed: &found.suppressed,
                sources,
                objects: &objects,
                artifacts: &artifacts,
            };
            if format == DiagFormat::Sarif {
                rd::sarif(&f)
            } else {
                rd::junit(&f)
            }
        }
    }
}

/// The repository root a SARIF log's paths are relative to: `POLICYCTL_SOURCE_ROOT` when set; else
/// the nearest folder holding `.git` (a folder, or a file in a worktree or submodule) at or above
/// the working directory, as for the settings file; else `GITHUB_WORKSPACE` (a checkout without
/// `.git`); else the working directory. Resolved through symbolic links.
pub fn source_root() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let cwd = std::env::current_dir().ok()?;
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let root = env("POLICYCTL_SOURCE_ROOT")
        .or_else(|| {
            cwd.ancestors()
                .find(|d| d.join(".git").symlink_metadata().is_ok())
                .map(std::path::Path::to_path_buf)
        })
        .or_else(|| env("GITHUB_WORKSPACE"))
        .unwrap_or_else(|| cwd.clone());
    cwd.join(root).canonicalize().ok()
}

/// Where each input file of `sources` is for SARIF: its path from [`source_root`], or its absolute
/// path when it is outside. Names that are no file (stdin) are left out, and written as named.
pub fn artifacts(sources: &SourceMap) -> BTreeMap<String, render::diagnostics::Artifact> {
    use render::diagnostics::Artifact;
    use std::path::Path;
    let root = source_root();
    let mut out = BTreeMap::new();
    for (_, f) in sources.files() {
        let path = Path::new(&f.name);
        if out.contains_key(&f.name) || !path.is_file() {
            continue;
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            continue;
        };
        // The folder resolved (a symlinked checkout), the file's own name kept.
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let Ok(dir) = parent.canonicalize() else {
            continue;
        };
        let abs = dir.join(name);
        let artifact = match root.as_ref().and_then(|r| abs.strip_prefix(r).ok()) {
            Some(rel) => Artifact::InRoot(
                rel.components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/"),
            ),
            None => Artifact::Outside(abs.to_string_lossy().into_owned()),
        };
        out.insert(f.name.clone(), artifact);
    }
    out
}

/// The silenced findings, one line each, for `-v`.
pub fn suppressed_lines(found: &suppress::Outcome, sources: &SourceMap) -> String {
    let mut out = String::new();
    for s in &found.suppressed {
        let line = render::diagnostics::one_line(&s.diagnostic, sources);
        let reason = if s.reason.is_empty() {
            String::new()
        } else {
            format!(": {}", s.reason)
        };
        // Messages, objects and reasons come from the input: escaped for the terminal.
        out.push_str(&format!(
            "suppressed: {} [by {}]\n",
            render::terminal::line(&line),
            render::terminal::line(&format!("{}{reason}", s.by))
        ));
    }
    out
}
