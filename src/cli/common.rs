//! Shared CLI pieces: input flags, the UI (colour, verbosity, writers), loading and exit codes.

use clap::{Args, ValueEnum};
use policyctl::KuadrantVersion;
use policyctl::Model;
use policyctl::config::{self, Settings};
use policyctl::diag::{Diagnostics, Severity};
use policyctl::render::{self, Style};
use policyctl::suppress;
use policyctl::{Family, GenerateOptions};
use policyctl::{Input, LoadOptions, Loaded};
use policyctl::{SourceId, SourceMap};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug, Clone)]
pub struct UiArgs {
    /// When to use colour: auto (a terminal, and NO_COLOR unset), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Quiet: print findings as one line each, nothing else on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Verbose: also list skipped documents and kinds policyctl does not model.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum VersionArg {
    #[value(name = "1.4")]
    V1_4,
    #[value(name = "1.5")]
    V1_5,
}

impl From<VersionArg> for KuadrantVersion {
    fn from(v: VersionArg) -> Self {
        match v {
            VersionArg::V1_4 => KuadrantVersion::V1_4,
            VersionArg::V1_5 => KuadrantVersion::V1_5,
        }
    }
}

/// `--validate`, as kubectl's: `true` is `strict`, `false` is `ignore`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ValidateArg {
    #[value(alias = "true")]
    Strict,
    Warn,
    #[value(alias = "false")]
    Ignore,
}

impl From<ValidateArg> for policyctl::FieldValidation {
    fn from(v: ValidateArg) -> Self {
        match v {
            ValidateArg::Strict => policyctl::FieldValidation::Strict,
            ValidateArg::Warn => policyctl::FieldValidation::Warn,
            ValidateArg::Ignore => policyctl::FieldValidation::Ignore,
        }
    }
}

/// Flags of every command that reads manifests.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or -
    /// for stdin. Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub filenames: Vec<String>,
    /// Name used for stdin in diagnostics.
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    pub stdin_name: String,
    /// Namespace given to namespaced objects that have none (like kubectl apply).
    #[arg(short = 'n', long, value_name = "NS", default_value = "default")]
    pub namespace: String,
    /// Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in
    /// the settings file].
    #[arg(long, value_enum, env = "POLICYCTL_KUADRANT_VERSION")]
    pub kuadrant_version: Option<VersionArg>,
    /// Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in:
    /// istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller,
    /// envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the
    /// settings file.
    #[arg(long = "gateway-class", value_name = "NAME=CONTROLLER")]
    pub gateway_classes: Vec<String>,
    /// Fields a kind's schema does not declare, as kubectl apply's --validate: strict refuses the
    /// object (the default), warn drops the field with a warning, ignore drops it silently [also
    /// validate in the settings file].
    #[arg(long, value_enum, value_name = "MODE")]
    pub validate: Option<ValidateArg>,
    /// The settings file's values, filled in by `main` before the command runs.
    #[arg(skip)]
    pub settings: Settings,
    /// The settings file's text, for findings that point into it (its `ignore:` entries).
    #[arg(skip)]
    pub settings_sources: SourceMap,
    /// The settings file's own findings (an unknown key, an `ignore:` entry naming an error),
    /// reported with the command's in every format and counted with them (see [`Self::suppress`]).
    #[arg(skip)]
    pub settings_diagnostics: Diagnostics,
}

impl InputArgs {
    /// The flag (or `POLICYCTL_KUADRANT_VERSION`), else the settings file, else 1.5.
    pub fn version(&self) -> KuadrantVersion {
        self.kuadrant_version
            .map(KuadrantVersion::from)
            .or(self.settings.kuadrant_version)
            .unwrap_or_default()
    }

    /// `--fail-on` if given, else the settings file's `failOn`, else `error`.
    pub fn fail_on(&self, flag: Option<FailOn>) -> FailOn {
        flag.or(self.settings.fail_on.map(FailOn::from))
            .unwrap_or_default()
    }

    /// Generation options for commands without generation flags (status, explain, lint): the
    /// settings file's runtime values (the emulated version goes to the loader, see [`Self::load`]).
    pub fn generate_options(&self) -> GenerateOptions {
        GenArgs::default()
            .options(&self.settings)
            .unwrap_or_default()
    }

    /// The GatewayClasses assumed when the input does not define them: the well-known ones, then the
    /// settings file's `gatewayClasses`, then `--gateway-class` (each overrides the one before, per
    /// class).
    pub fn gateway_classes(&self) -> Result<BTreeMap<String, String>, CliError> {
        let mut classes = policyctl::well_known_gateway_classes();
        classes.extend(self.settings.gateway_classes.clone());
        for entry in &self.gateway_classes {
            match entry.split_once('=') {
                Some((name, controller))
                    if !name.trim().is_empty() && !controller.trim().is_empty() =>
                {
                    classes.insert(name.trim().to_string(), controller.trim().to_string());
                }
                _ => {
                    return Err(CliError::Usage(format!(
                        "--gateway-class must be NAME=CONTROLLER (e.g. istio=istio.io/gateway-controller), got {entry:?}"
                    )));
                }
            }
        }
        Ok(classes)
    }

    /// Silence the findings the input's ignore annotations and the settings file's `ignore:` list
    /// name. The settings file joins `sources`, so that an unused entry points into it, and so do
    /// its own findings, which join `diags`: every format shows them and counts them. `complete`:
    /// `diags` come from the whole analysis, so a suppression that matches none is reported.
    pub fn suppress(
        &self,
        sources: &mut SourceMap,
        model: &Model,
        mut diags: Diagnostics,
        complete: bool,
    ) -> suppress::Outcome {
        let mut added: Vec<(SourceId, SourceId)> = Vec::new();
        let mut moved = |span: &mut policyctl::Span| {
            let from = span.source;
            let to = match added.iter().find(|(f, _)| *f == from) {
                Some((_, t)) => *t,
                None => match self.settings_sources.get(from) {
                    Some(file) => {
                        let t = sources.add(file.name.clone(), file.text.clone());
                        added.push((from, t));
                        t
                    }
                    None => return,
                },
            };
            span.source = to;
        };
        let mut rules = self.settings.ignore.clone();
        for r in &mut rules {
            moved(&mut r.span);
        }
        for d in &self.settings_diagnostics {
            let mut d = d.clone();
            for l in &mut d.labels {
                moved(&mut l.span);
            }
            diags.push(d);
        }
        suppress::apply(diags, model, &rules, complete)
    }

    /// How objects are read: the namespace, version and GatewayClasses of the flags and settings.
    pub fn load_options(&self) -> Result<LoadOptions, CliError> {
        if !policyctl::dns1123_label(&self.namespace) {
            return Err(CliError::Usage(format!(
                "--namespace must be a namespace name (a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit), got {:?}",
                self.namespace
            )));
        }
        Ok(LoadOptions {
            default_namespace: self.namespace.clone(),
            version: self.version(),
            gateway_classes: self.gateway_classes()?,
            validate: self
                .validate
                .map(policyctl::FieldValidation::from)
                .or(self.settings.validate)
                .unwrap_or_default(),
            crd_validation: true,
        })
    }

    /// Read stdin (once) and load every input; a folder with nothing to read is `PCTL4014`.
    pub fn load(&self) -> Result<Loaded, CliError> {
        let mut loaded = self.load_any()?;
        self.nothing_to_read(&mut loaded);
        Ok(loaded)
    }

    /// [`Self::load`] that takes an empty folder as an empty estate (`diff --base`: the base of a
    /// change that adds the manifests).
    pub fn load_any(&self) -> Result<Loaded, CliError> {
        let opts = self.load_options()?;
        let mut inputs = Vec::new();
        let mut stdin_used = false;
        for f in &self.filenames {
            if f == "-" {
                if stdin_used {
                    return Err(CliError::Usage("-f - may be given only once".into()));
                }
                stdin_used = true;
                let bytes =
                    policyctl::read_stream(std::io::stdin().lock(), policyctl::MAX_STREAM_BYTES)
                        .map_err(|e| {
                            let (message, help) = e.explain("stdin");
                            CliError::Io(format!("{message}; {help}"))
                        })?;
                inputs.push(Input::Text {
                    name: self.stdin_name.clone(),
                    bytes,
                });
            } else {
                inputs.push(Input::Path(f.into()));
            }
        }
        Ok(policyctl::load(&inputs, &opts))
    }

    /// `PCTL4014` for each folder named with `-f` that held no manifest file: as `kubectl apply -f`
    /// says "no objects passed", a lint of a mistyped or emptied folder must not pass quietly (exit 2:
    /// the run could not do its job). A file that holds no document is read, and is not this.
    fn nothing_to_read(&self, loaded: &mut Loaded) {
        use policyctl::diag::{Code, Diagnostic};
        for f in &self.filenames {
            let dir = std::path::Path::new(f);
            if f == "-" || !dir.is_dir() {
                continue;
            }
            if loaded
                .files
                .iter()
                .any(|name| std::path::Path::new(name).starts_with(dir))
            {
                continue;
            }
            loaded.diagnostics.push(
                Diagnostic::new(
                    Code::NothingToRead,
                    format!(
                        "nothing to read: {} holds no .yaml, .yml or .json file",
                        render::terminal::line(f)
                    ),
                )
                .help("check the path given to -f; folders are read recursively, hidden entries skipped"),
            );
        }
    }
}

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

/// What a command found; mapped to the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    Findings,
    Trouble,
}

impl Outcome {
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Clean => ExitCode::SUCCESS,
            Outcome::Findings => ExitCode::from(1),
            Outcome::Trouble => ExitCode::from(2),
        }
    }

    pub fn worst(self, other: Outcome) -> Outcome {
        use Outcome::*;
        match (self, other) {
            (Trouble, _) | (_, Trouble) => Trouble,
            (Findings, _) | (_, Findings) => Findings,
            _ => Clean,
        }
    }
}

/// `--fail-on`: the lowest severity that makes the exit code 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum FailOn {
    #[default]
    Error,
    Warning,
    Never,
}

impl From<config::FailOn> for FailOn {
    fn from(f: config::FailOn) -> Self {
        match f {
            config::FailOn::Error => FailOn::Error,
            config::FailOn::Warning => FailOn::Warning,
            config::FailOn::Never => FailOn::Never,
        }
    }
}

/// Exit outcome of a set of diagnostics.
pub fn outcome(diags: &Diagnostics, fail_on: FailOn) -> Outcome {
    if diags.has_trouble() {
        return Outcome::Trouble;
    }
    let failing = match fail_on {
        FailOn::Error => diags.has_errors(),
        FailOn::Warning => diags
            .iter()
            .any(|d| matches!(d.severity, Severity::Error | Severity::Warning)),
        FailOn::Never => false,
    };
    if failing {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
    #[error("broken pipe")]
    BrokenPipe,
}

impl CliError {
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::BrokenPipe)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Io(e.to_string())
        }
    }
}

/// A streamed writer's failure: a closed pipe stays [`CliError::BrokenPipe`].
impl From<policyctl::render::objects::WriteError> for CliError {
    fn from(e: policyctl::render::objects::WriteError) -> Self {
        match e {
            policyctl::render::objects::WriteError::Io(e) => CliError::from(e),
            policyctl::render::objects::WriteError::Render(m) => CliError::Io(m),
        }
    }
}

/// Colour, verbosity and the writers.
pub struct Ui {
    pub color_out: bool,
    pub color_err: bool,
    pub quiet: bool,
    pub verbose: bool,
    /// Width to wrap diagnostics on stdout to (`lint`), see [`text_width`]; `usize::MAX`: no wrapping.
    pub width: usize,
    /// Width to wrap diagnostics on stderr to, as `width`.
    pub err_width: usize,
    /// Width to wrap tables to: a terminal's width (COLUMNS, else the terminal's); `None` when
    /// stdout is not a terminal, so piped tables never wrap.
    pub table_width: Option<usize>,
}

/// The width text written to a stream wraps at. A terminal: `COLUMNS` when set, else the
/// terminal's width. Not a terminal: no wrapping (`usize::MAX`), as rustc, cargo and ripgrep do for
/// a pipe or a file, unless `COLUMNS` is set (clap's rule for help: an exported `COLUMNS` is an
/// explicit request; shells set it without exporting it). Wrapping never breaks a word, a path or a
/// command (see `render::diagnostics`), so what is printed can be copied.
pub fn text_width(tty: bool, columns: Option<usize>, terminal: Option<usize>) -> usize {
    match (columns.filter(|&c| c > 0), tty) {
        (Some(c), _) => c,
        (None, true) => terminal.filter(|&w| w > 0).unwrap_or(100),
        (None, false) => usize::MAX,
    }
}

impl Ui {
    pub fn new(a: &UiArgs) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
            || std::env::var("TERM").is_ok_and(|t| t == "dumb");
        let decide = |tty: bool| match a.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && !no_color,
        };
        let columns: Option<usize> = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
        let (out_tty, err_tty) = (
            std::io::stdout().is_terminal(),
            std::io::stderr().is_terminal(),
        );
        let size =
            |tty: bool, of: &dyn Fn() -> Option<(terminal_size::Width, terminal_size::Height)>| {
                if tty {
                    of().map(|(w, _)| usize::from(w.0))
                } else {
                    None
                }
            };
        let out_size = size(out_tty, &|| {
            terminal_size::terminal_size_of(std::io::stdout())
        });
        let err_size = size(err_tty, &|| {
            terminal_size::terminal_size_of(std::io::stderr())
        });
        let width = text_width(out_tty, columns, out_size);
        Ui {
            color_out: decide(out_tty),
            color_err: decide(err_tty),
            quiet: a.quiet,
            verbose: a.verbose,
            width,
            err_width: text_width(err_tty, columns, err_size),
            table_width: out_tty.then_some(width),
        }
    }

    /// Write to stdout; a closed pipe becomes [`CliError::BrokenPipe`].
    pub fn out(&self, s: &str) -> Result<(), CliError> {
        let mut o = std::io::stdout().lock();
        o.write_all(s.as_bytes())?;
        o.flush()?;
        Ok(())
    }

    /// Write to stdout through `f` (for output streamed in pieces), then flush.
    pub fn out_with(
        &self,
        f: impl FnOnce(&mut std::io::StdoutLock<'static>) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        let mut o = std::io::stdout().lock();
        f(&mut o)?;
        o.flush()?;
        Ok(())
    }

    pub fn err(&self, s: &str) {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(s.as_bytes());
    }

    /// A fatal error; what it quotes from the input (paths, names) has its control characters escaped.
    pub fn error(&self, msg: &str) {
        let msg = policyctl::render::terminal::text(msg);
        self.err(&format!("error: {msg}\n"));
    }

    pub fn style_err(&self) -> Style {
        Style {
            color: self.color_err,
            width: self.err_width,
            unicode: true,
        }
    }

    /// Diagnostics to stderr, respecting -q/-v: errors and warnings; infos only with -v.
    pub fn diagnostics(&self, loaded: &Loaded, diags: &Diagnostics) {
        self.diagnostics_in(&loaded.sources, diags);
    }

    /// The diagnostics of a command whose stdout is taken by its main output: text as
    /// [`Ui::diagnostics`] does (and the silenced findings with -v), or the format and file
    /// `--diagnostics-format` / `--diagnostics-file` ask for.
    pub fn report(
        &self,
        args: &DiagArgs,
        sources: &SourceMap,
        model: &Model,
        found: &suppress::Outcome,
    ) -> Result<(), CliError> {
        let text = match args.diagnostics_format {
            DiagFormat::Text => {
                let shown = self.visible(&found.kept, self.verbose);
                let mut t = String::new();
                if !shown.is_empty() {
                    t = if self.quiet {
                        render::diagnostics::short(&shown, sources)
                    } else {
                        let mut style = self.style_err();
                        style.color &= args.diagnostics_file.is_none();
                        render::diagnostics::human_all(&shown, sources, style)
                    };
                }
                if self.verbose {
                    t.push_str(&suppressed_lines(found, sources));
                }
                t
            }
            f => machine_report(f, &self.visible(&found.kept, true), found, sources, model),
        };
        match &args.diagnostics_file {
            Some(path) => std::fs::write(path, text).map_err(|e| {
                CliError::Io(format!(
                    "cannot write the diagnostics to {}: {e}",
                    path.display()
                ))
            }),
            None => {
                self.err(&text);
                Ok(())
            }
        }
    }

    /// Like [`Ui::diagnostics`], for diagnostics about other sources (the settings file).
    pub fn diagnostics_in(&self, sources: &SourceMap, diags: &Diagnostics) {
        let shown = self.visible(diags, self.verbose);
        if shown.is_empty() {
            return;
        }
        if self.quiet {
            self.err(&render::diagnostics::short(&shown, sources));
        } else {
            self.err(&render::diagnostics::human_all(
                &shown,
                sources,
                self.style_err(),
            ));
        }
    }

    /// The diagnostics to show: unknown-kind notices only with -v; other infos when `infos`.
    pub fn visible(&self, diags: &Diagnostics, infos: bool) -> Diagnostics {
        let mut shown = Diagnostics::new();
        for d in diags {
            if d.code == policyctl::diag::Code::UnknownKind && !self.verbose {
                continue;
            }
            if d.severity == Severity::Info && !infos {
                continue;
            }
            shown.push(d.clone());
        }
        shown
    }
}

/// The generation flags shared by `compute` and `diff`. Each falls back to the settings file.
#[derive(Args, Debug, Clone, Default)]
pub struct GenArgs {
    #[arg(long, value_delimiter = ',', value_name = "FAMILY", help = only_help(),
          value_parser = FamilyNames, hide_possible_values = true)]
    pub only: Vec<String>,
    /// Only paths through this gateway.
    #[arg(long, value_name = "NS/NAME")]
    pub gateway: Option<String>,
    /// sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter)
    /// [default: empty; the operator computes it from the module at run time].
    #[arg(long, value_name = "HEX")]
    pub wasm_sha256: Option<String>,
    /// wasm-shim image (default: the image of the emulated operator release).
    #[arg(long, value_name = "URL")]
    pub wasm_image: Option<String>,
    /// Namespace used when the input has no Kuadrant object [default: kuadrant-system].
    #[arg(long, value_name = "NS")]
    pub kuadrant_namespace: Option<String>,
    /// GatewayClass controller names handled as Istio (comma-separated; the default is appended).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub istio_controller_names: Vec<String>,
    /// GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub envoy_gateway_controller_names: Vec<String>,
}

/// `--only`'s values as typed (checked, with our message, by [`GenArgs::options`]), offering the
/// families of [`Family::ALL`] to shell completion instead of file names.
#[derive(Clone, Copy, Debug)]
pub struct FamilyNames;

impl clap::builder::TypedValueParser for FamilyNames {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Family::ALL
                .into_iter()
                .map(|f| clap::builder::PossibleValue::new(f.name())),
        ))
    }
}

/// `--only`'s help: the families of [`Family::ALL`].
fn only_help() -> String {
    format!(
        "Only these object families (comma-separated): {}",
        Family::names(", ")
    )
}

impl GenArgs {
    /// The generation options these flags ask for; a flag not given takes the settings file's value.
    pub fn options(&self, settings: &Settings) -> Result<GenerateOptions, CliError> {
        let mut only = BTreeSet::new();
        for f in &self.only {
            let f = f.trim();
            only.insert(Family::parse(f).ok_or_else(|| {
                CliError::Usage(format!(
                    "--only: unknown family {f:?} (expected {})",
                    Family::names(", ")
                ))
            })?);
        }
        let gateway = match &self.gateway {
            None => None,
            Some(g) => match g.split_once('/') {
                Some((ns, name)) if !ns.is_empty() && !name.is_empty() => {
                    Some((ns.to_string(), name.to_string()))
                }
                _ => {
                    return Err(CliError::Usage(format!(
                        "--gateway must be NAMESPACE/NAME, got {g:?}"
                    )));
                }
            },
        };
        let wasm_sha256 = self
            .wasm_sha256
            .clone()
            .or_else(|| settings.wasm_sha256.clone())
            .unwrap_or_else(|| policyctl::WASM_SHA256_PLACEHOLDER.to_string());
        let sha_ok = wasm_sha256.is_empty() || policyctl::is_sha256_hex(&wasm_sha256);
        if !sha_ok {
            return Err(CliError::Usage(
                "--wasm-sha256 must be 64 hexadecimal characters".into(),
            ));
        }
        if let Some(ns) = &self.kuadrant_namespace
            && !policyctl::dns1123_label(ns)
        {
            return Err(CliError::Usage(format!(
                "--kuadrant-namespace must be a namespace name (a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit), got {ns:?}"
            )));
        }
        Ok(GenerateOptions {
            kuadrant_namespace: self
                .kuadrant_namespace
                .clone()
                .or_else(|| settings.kuadrant_namespace.clone())
                .unwrap_or_else(|| policyctl::DEFAULT_KUADRANT_NAMESPACE.to_string()),
            wasm_image: self
                .wasm_image
                .clone()
                .or_else(|| settings.wasm_image.clone()),
            wasm_sha256: wasm_sha256.to_lowercase(),
            istio_controllers: policyctl::controller_names(
                or_settings(
                    &self.istio_controller_names,
                    &settings.istio_controller_names,
                ),
                policyctl::ISTIO_CONTROLLER,
            ),
            envoy_gateway_controllers: policyctl::controller_names(
                or_settings(
                    &self.envoy_gateway_controller_names,
                    &settings.envoy_gateway_controller_names,
                ),
                policyctl::ENVOY_GATEWAY_CONTROLLER,
            ),
            only: (!only.is_empty()).then_some(only),
            gateway,
            ..GenerateOptions::default()
        })
    }
}

/// A list flag's values, or the settings file's when the flag was not given.
fn or_settings<'a>(flag: &'a [String], settings: &'a [String]) -> &'a [String] {
    if flag.is_empty() { settings } else { flag }
}
