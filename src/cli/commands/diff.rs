//! `policyctl diff`: what would change, desired (from -f) against current (`--against`), or between
//! the generated output of two input trees (`--base`).

use crate::cli::common::{CliError, DiagArgs, FailOn, GenArgs, InputArgs, Outcome, Ui, outcome};
use clap::{Args, ValueEnum};
use policyctl::Input;
use policyctl::diff::{self, Change, Impact, ObjectDiff};
use policyctl::render;
use serde_json::Value;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum DiffFormat {
    #[default]
    Unified,
    Stat,
    Json,
    Markdown,
}

/// Show what would change: generated objects against current ones, or between two input trees.
#[derive(Args, Debug)]
#[command(
    group(clap::ArgGroup::new("current").required(true).args(["against", "base"])),
    after_help = "Examples:\n  policyctl diff -f manifests/ --against generated/\n  kubectl get envoyfilters,wasmplugins,authconfigs,limitadors -A -o yaml | policyctl diff -f manifests/ --against -\n  policyctl diff -f head/manifests --base base/manifests -o markdown > comment.md\n\n\
Exit codes: 0 no differences, 1 differences, 2 trouble (like kubectl diff).\n\
POLICYCTL_EXTERNAL_DIFF=\"diff -u\" runs that program on two folders (current, desired) instead."
)]
pub struct DiffArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diag: DiagArgs,
    /// Current objects: a file, a folder (e.g. `compute --out-dir` output), or - for stdin (e.g. a
    /// `kubectl get … -o yaml` dump). Only Kuadrant-managed objects, the Limitador CR and the
    /// operator's Certificates and DNSRecords are compared.
    #[arg(long, value_name = "FILE|DIR|-")]
    pub against: Option<String>,
    /// Another input tree (e.g. the pull request's base): compute both and compare the outputs.
    #[arg(long, value_name = "PATH")]
    pub base: Option<String>,
    /// Output: unified (default), stat, json or markdown (a pull-request comment).
    #[arg(short, long, value_enum, default_value_t = DiffFormat::Unified)]
    pub output: DiffFormat,
    /// Lines of context in unified diffs.
    #[arg(long, default_value_t = 3)]
    pub context: usize,
    #[command(flatten)]
    pub gen_args: GenArgs,
}

pub fn run(a: DiffArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let opts = a.gen_args.options(&a.input.settings)?;
    let mut loaded = a.input.load()?;
    let opts = policyctl::RunOptions {
        // Findings about the compared objects themselves (the 1.5 wasm sha256), desired side
        // only, and only against current objects: with --base both sides carry the same
        // placeholder, so it makes no difference there.
        output_findings: a.base.is_none(),
        ..a.input.run_options(&mut loaded.sources, opts)
    };
    let head = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    ui.report(&a.diag, &loaded.sources, &loaded.model, &head.findings)?;
    let mut trouble = outcome(&head.findings.kept, FailOn::Never);
    let external_cmd = std::env::var("POLICYCTL_EXTERNAL_DIFF")
        .ok()
        .filter(|cmd| !cmd.trim().is_empty() && a.output == DiffFormat::Unified);

    // With --base both sides are trees (the impact summary reads them). Against current objects,
    // the dump is compared a window of documents at a time as it is parsed, and each desired tree
    // is built only while compared.
    let (diffs, sides, impact) = if let Some(base) = &a.base {
        against_base(&a, base, &opts, &head, ui, &mut trouble)?
    } else {
        let objects = &head.generated.objects;
        against_current(&a, objects, external_cmd.is_some(), ui, &mut trouble)?
    };
    if trouble == Outcome::Trouble {
        return Ok(Outcome::Trouble);
    }

    let changed = diffs.iter().any(|d| d.change != Change::Unchanged);
    if let Some(cmd) = &external_cmd {
        external(cmd, &sides.0, &sides.1)?;
    } else {
        ui.out(&text(a.output, &diffs, impact.as_ref(), ui.color_out))?;
    }
    Ok(if changed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// What a comparison gives: the per-object diffs, both sides as trees (desired, current) when they
/// are kept, and the impact summary of `--base`.
type Compared = (Vec<ObjectDiff>, (Vec<Value>, Vec<Value>), Option<Impact>);

/// `--base`: compute the base tree too and compare the two outputs, with the impact summary.
fn against_base(
    a: &DiffArgs,
    base: &str,
    opts: &policyctl::RunOptions,
    head: &policyctl::Run<'_>,
    ui: &Ui,
    trouble: &mut Outcome,
) -> Result<Compared, CliError> {
    let base_input = InputArgs {
        filenames: vec![base.to_string()],
        ..a.input.clone()
    };
    let base_loaded = base_input.load_any()?;
    // The base's own findings are shown only when it cannot be computed; the settings file's
    // findings are the head's, and an unused suppression is the head's to report.
    let base_opts = policyctl::RunOptions {
        settings_findings: Default::default(),
        unused_suppressions: false,
        output_findings: false,
        ..opts.clone()
    };
    let b = policyctl::run(
        &base_loaded.model,
        &base_loaded.sources,
        &base_loaded.diagnostics,
        &base_opts,
    );
    if b.findings.kept.has_trouble() {
        ui.diagnostics(&base_loaded, &b.findings.kept);
        *trouble = Outcome::Trouble;
    }
    let desired = policyctl::object_values(&head.generated.objects);
    let base = policyctl::object_values(&b.generated.objects);
    let mut imp = diff::impact(&base, &desired);
    let changes = policyctl::policy_changes(side(&b), side(head));
    imp.limits_added = changes.limits_added;
    imp.limits_removed = changes.limits_removed;
    imp.policy_status = changes.statuses;
    let diffs = diff::diff(&desired, &base, a.context);
    Ok((diffs, (desired, base), Some(imp)))
}

/// `--against`: compare the generated `objects` with the current ones read from a file, a folder
/// or stdin, a window at a time; with `keep` (an external differ) both sides are kept as trees.
fn against_current(
    a: &DiffArgs,
    objects: &[policyctl::Object],
    keep: bool,
    ui: &Ui,
    trouble: &mut Outcome,
) -> Result<Compared, CliError> {
    let against = a.against.clone().unwrap_or_default();
    let input = if against == "-" {
        if a.input.filenames.iter().any(|f| f == "-") {
            return Err(CliError::Usage(
                "stdin cannot be both -f - and --against -".into(),
            ));
        }
        // A stream, bounded as `-f -` is.
        let bytes = policyctl::read_stream(std::io::stdin().lock(), policyctl::MAX_STREAM_BYTES)
            .map_err(|e| CliError::Io(e.explain("stdin (--against -)").0))?;
        Input::Text {
            name: "<current>".into(),
            bytes,
        }
    } else {
        Input::Path(against.into())
    };
    let mut comparison = diff::Comparison::new(objects, a.context);
    if keep {
        comparison = comparison.keep_current();
    }
    let (sources, diags) =
        policyctl::values_in_windows(&[input], CURRENT_WINDOW, |batch| comparison.add(batch));
    if !diags.is_empty() {
        ui.err(&render::diagnostics::human_all(
            &diags,
            &sources,
            ui.style_err(),
            "",
        ));
    }
    if diags.has_trouble() {
        *trouble = Outcome::Trouble;
    }
    let current = comparison.take_kept();
    let desired = if keep {
        policyctl::object_values(objects)
    } else {
        Vec::new()
    };
    Ok((comparison.finish(), (desired, current), None))
}

/// The diff in the chosen output format.
fn text(output: DiffFormat, diffs: &[ObjectDiff], impact: Option<&Impact>, color: bool) -> String {
    match output {
        DiffFormat::Unified => {
            let mut t = diff::text::unified(diffs, color);
            if let Some(i) = impact {
                t.push_str(&diff::text::impact(i));
            }
            t
        }
        DiffFormat::Stat => {
            let mut t = diff::text::stat(diffs);
            if let Some(i) = impact {
                t.push_str(&diff::text::impact(i));
            }
            t
        }
        DiffFormat::Json => diff::text::json(diffs, impact),
        DiffFormat::Markdown => diff::text::markdown(diffs, impact),
    }
}

/// One side of the policy-level comparison of `--base`.
fn side<'a, 'm>(a: &'a policyctl::Run<'m>) -> policyctl::Side<'a, 'm> {
    policyctl::Side {
        topology: &a.topology,
        effective: &a.effective,
        statuses: &a.statuses,
    }
}

/// Text of `--against` parsed and compared at a time: bounds the trees held for a large dump.
const CURRENT_WINDOW: usize = 16 << 20;

/// Write both sides into a fresh private temporary folder (one file per object, normalised) and run
/// the user's differ on its `LIVE` and `MERGED` folders. The folder has an unpredictable name and
/// mode 0700 (`tempfile::TempDir`, created exclusively), so nothing in the temp folder can be planted
/// in it; it is removed afterwards, whatever the differ did.
fn external(cmd: &str, desired: &[Value], current: &[Value]) -> Result<(), CliError> {
    let tmp = tempfile::Builder::new()
        .prefix("policyctl-diff-")
        .tempdir()
        .map_err(|e| CliError::Io(format!("cannot create a temporary folder: {e}")))?;
    let live = tmp.path().join("LIVE");
    let merged = tmp.path().join("MERGED");
    let write = |dir: &std::path::Path, objs: &[Value], others: &[Value]| -> Result<(), CliError> {
        std::fs::create_dir(dir)?;
        let others = diff::by_key(others);
        for o in objs {
            let other = diff::key_of(o).and_then(|k| others.get(&k).copied());
            if let Some(name) = policyctl::outdir::file_name(o) {
                // A new file each time: two objects with one file name are an error, not an overwrite.
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(dir.join(&name))
                    .map_err(|e| {
                        CliError::Io(format!(
                            "cannot write {} for POLICYCTL_EXTERNAL_DIFF: {e}",
                            render::terminal::line(&name)
                        ))
                    })?;
                std::io::Write::write_all(
                    &mut f,
                    diff::to_yaml(&diff::normalize(o, other)).as_bytes(),
                )?;
            }
        }
        Ok(())
    };
    let result = (|| {
        write(&live, current, desired)?;
        write(&merged, desired, &[])?;
        let mut parts = cmd.split_whitespace();
        let prog = parts.next().unwrap_or("diff");
        let shown = render::terminal::line(prog);
        let status = std::process::Command::new(prog)
            .args(parts)
            .arg(&live)
            .arg(&merged)
            .status()
            .map_err(|e| {
                CliError::Io(format!("cannot run POLICYCTL_EXTERNAL_DIFF ({shown}): {e}"))
            })?;
        if status.code().is_some_and(|c| c > 1) || status.code().is_none() {
            return Err(CliError::Io(format!(
                "POLICYCTL_EXTERNAL_DIFF ({shown}) failed: {status}"
            )));
        }
        Ok(())
    })();
    let removed = tmp.close();
    result?;
    removed.map_err(|e| CliError::Io(format!("cannot remove the temporary folder: {e}")))
}
