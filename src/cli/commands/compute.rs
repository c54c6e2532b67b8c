//! `policyctl compute`: the objects the operator would apply.

use crate::cli::common::GenArgs;
use crate::cli::common::{CliError, DiagArgs, FailOn, InputArgs, Outcome, Ui, outcome};
use clap::{Args, ValueEnum};
use policyctl::{outdir, render};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ComputeFormat {
    #[default]
    Yaml,
    Json,
}

/// Print the objects the operator would generate.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl compute -f manifests/\n  policyctl compute -f manifests/ --kuadrant-version 1.5 --only wasm,limitador -o json\n  policyctl compute -f manifests/ --gateway gateway-system/external"
)]
pub struct ComputeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diag: DiagArgs,
    /// Output format: yaml (multi-document, kubectl style) or json (a v1 List).
    #[arg(short, long, value_enum, default_value_t = ComputeFormat::Yaml)]
    pub output: ComputeFormat,
    #[command(flatten)]
    pub gen_args: GenArgs,
    /// Write one file per object into this folder (atomically), prune files generated earlier that
    /// are no longer desired, and report created / updated / unchanged / pruned. Files without
    /// policyctl's marker line are never touched.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
    /// With --out-dir: write nothing; exit 1 and list what is stale.
    #[arg(long, requires = "out_dir")]
    pub check: bool,
    /// With --out-dir: seconds to wait for another policyctl run writing the same folder to finish
    /// (0: do not wait) [default: 300].
    #[arg(long, value_name = "SECS", requires = "out_dir")]
    pub lock_timeout: Option<u64>,
    /// The lowest severity that makes the exit code 1 [default: error, or failOn in the settings
    /// file].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

pub fn run(a: ComputeArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let opts = a.gen_args.options(&a.input.settings)?;
    let mut loaded = a.input.load()?;
    let opts = policyctl::RunOptions {
        // Findings about the objects themselves (the 1.5 wasm sha256): only where the value
        // matters, in files meant to be committed, applied or checked (`--out-dir`, `--check`),
        // not in the objects printed for reading.
        output_findings: a.out_dir.is_some(),
        ..a.input.run_options(&mut loaded.sources, opts)
    };
    let run = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    ui.report(&a.diag, &loaded.sources, &loaded.model, &run.findings)?;
    let result = emit(&a, ui, &run);
    // The process exits right after this command: leak the model and the run (for large
    // estates, millions of small allocations) instead of freeing them one by one; the operating
    // system reclaims the memory at exit. Freeing took about a third of `compute`'s time.
    std::mem::forget(run);
    std::mem::forget(loaded);
    result
}

/// Write the objects (stdout or `--out-dir`); the diagnostics are already shown.
fn emit(a: &ComputeArgs, ui: &Ui, run: &policyctl::Run) -> Result<Outcome, CliError> {
    let generated = &run.generated;
    let findings = outcome(&run.findings.kept, a.input.fail_on(a.fail_on));
    if let Some(dir) = &a.out_dir {
        if findings == Outcome::Trouble {
            return Ok(Outcome::Trouble);
        }
        let io = |e: outdir::OutDirError| CliError::Io(e.to_string());
        // Held until the files are written: a second run on the folder stops instead of mixing
        // its files with ours or pruning what we write.
        if !a.check {
            outdir::prepare(dir).map_err(io)?;
        }
        let mut lock =
            crate::cli::common::lock_out_dir(ui, dir, !a.check, a.lock_timeout).map_err(io)?;
        let steps = outdir::plan_objects(dir, &generated.objects).map_err(io)?;
        let stale: Vec<_> = steps
            .iter()
            .filter(|s| s.action != outdir::Action::Unchanged)
            .collect();
        let report = outdir::report(dir, &steps, a.check);
        if a.check {
            if stale.is_empty() {
                ui.out(&format!(
                    "{} is up to date ({} files)\n",
                    shown(dir),
                    steps.len()
                ))?;
            } else {
                ui.out(&report)?;
                ui.out(&format!(
                    "{} of {} generated files are stale: run `policyctl compute … --out-dir {}`\n",
                    stale.len(),
                    steps.len(),
                    shown(dir)
                ))?;
                return Ok(findings.worst(Outcome::Findings));
            }
            return Ok(findings);
        }
        outdir::apply_holding(dir, &steps, &mut lock).map_err(io)?;
        ui.out(&report)?;
        return Ok(findings);
    }
    match a.output {
        // Streamed: the text of a large estate is ten times the size of its input. Rendering
        // cannot fail on generated objects (string keys, no floats); a closed pipe stops it.
        ComputeFormat::Yaml => ui.out_with(|o| {
            render::objects::write_yaml_objects(&generated.objects, o).map_err(CliError::from)
        })?,
        ComputeFormat::Json => ui.out_with(|o| {
            render::objects::write_json_list(&generated.objects, o).map_err(CliError::from)
        })?,
    }
    Ok(findings)
}

/// A path for the terminal: control characters escaped.
fn shown(p: &std::path::Path) -> String {
    render::terminal::line(&p.display().to_string()).into_owned()
}
