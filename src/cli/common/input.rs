//! The flags of every command that reads manifests (`InputArgs`) and of the commands that generate
//! (`GenArgs`): reading the input, the settings file's fallbacks, and the options of a run.

use super::{CliError, FailOn};
use clap::{Args, ValueEnum};
use policyctl::KuadrantVersion;
use policyctl::config::Settings;
use policyctl::diag::Diagnostics;
use policyctl::render;
use policyctl::{Family, GenerateOptions};
use policyctl::{Input, LoadOptions, Loaded};
use policyctl::{SourceId, SourceMap};
use std::collections::{BTreeMap, BTreeSet};

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
    /// The most bytes the run reads, files and streams together (watch: every cycle); the input
    /// that would go beyond it and those after it are left out with PCTL1019, exit 2.
    #[arg(long, value_name = "N", default_value_t = policyctl::MAX_INPUT_BYTES)]
    pub max_input_bytes: u64,
    /// The most documents the run reads (YAML documents, objects of a JSON stream, items of a List;
    /// watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2.
    #[arg(long, value_name = "N", default_value_t = policyctl::MAX_DOCUMENTS)]
    pub max_documents: usize,
    /// The most paths (class → gateway → listener → route → rule) the run computes; routes beyond
    /// it are left out with PCTL1019, exit 2.
    #[arg(long, value_name = "N", default_value_t = policyctl::MAX_PATHS)]
    pub max_paths: u64,
    /// The most wasm action sets (a path's hostnames × its rule's matches) the run computes; routes
    /// beyond it are left out with PCTL1019, exit 2.
    #[arg(long, value_name = "N", default_value_t = policyctl::MAX_ACTION_SETS)]
    pub max_action_sets: u64,
    /// The settings file's values, filled in by `main` before the command runs.
    #[arg(skip)]
    pub settings: Settings,
    /// The settings file's text, for findings that point into it (its `ignore:` entries).
    #[arg(skip)]
    pub settings_sources: SourceMap,
    /// The settings file's own findings (an unknown key, an `ignore:` entry naming an error),
    /// reported with the command's in every format and counted with them (see [`Self::run_options`]).
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

    /// The options of a whole run ([`policyctl::run`]) with `generate`: every stage, the settings
    /// file's `ignore:` list and its own findings, and every unused suppression reported. The
    /// settings file joins `sources`, so that its findings and an unused entry point into it. A
    /// command changes what differs for it.
    pub fn run_options(
        &self,
        sources: &mut SourceMap,
        generate: GenerateOptions,
    ) -> policyctl::RunOptions {
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
        let mut ignore = self.settings.ignore.clone();
        for r in &mut ignore {
            moved(&mut r.span);
        }
        let mut settings_findings = Diagnostics::new();
        for d in &self.settings_diagnostics {
            let mut d = d.clone();
            for l in &mut d.labels {
                moved(&mut l.span);
            }
            settings_findings.push(d);
        }
        policyctl::RunOptions {
            generate,
            ignore,
            settings_findings,
            unused_suppressions: true,
            ..Default::default()
        }
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
            max_input_bytes: self.max_input_bytes,
            max_documents: self.max_documents,
            max_paths: self.max_paths,
            max_action_sets: self.max_action_sets,
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
