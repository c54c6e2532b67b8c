//! Colour, verbosity, terminal widths and the writers (`Ui`), and the flags that set them.

use super::{CliError, DiagArgs, DiagFormat, Outcome, machine_report, suppressed_lines};
use clap::{Args, ValueEnum};
use policyctl::Loaded;
use policyctl::Model;
use policyctl::SourceMap;
use policyctl::diag::{Diagnostic, Diagnostics, Severity};
use policyctl::render::{self, Style};
use policyctl::suppress;
use std::io::{IsTerminal, Write};

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
        widen_pipe(&o);
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
                        render::diagnostics::human_all(
                            &shown,
                            sources,
                            style,
                            "-q or --diagnostics-format json lists every finding",
                        )
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

    /// Report one finding that stops the run (a bad flag, a budget exceeded) and return the
    /// outcome it gives: trouble, exit code 2.
    pub fn trouble(&self, d: Diagnostic) -> Outcome {
        self.trouble_in(&SourceMap::default(), d)
    }

    /// [`Ui::trouble`] for a finding located in `sources`.
    pub fn trouble_in(&self, sources: &SourceMap, d: Diagnostic) -> Outcome {
        let mut diags = Diagnostics::default();
        diags.push(d);
        self.diagnostics_in(sources, &diags);
        Outcome::Trouble
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
                "-q lists every finding",
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

/// Lock `--out-dir` (see `outdir::lock`), waiting up to `--lock-timeout` seconds for another run
/// and saying so on stderr once, as cargo does for its build folder.
pub fn lock_out_dir(
    ui: &Ui,
    dir: &std::path::Path,
    exclusive: bool,
    timeout_secs: Option<u64>,
) -> Result<policyctl::outdir::Lock, policyctl::outdir::OutDirError> {
    use policyctl::outdir;
    let timeout = timeout_secs.map_or(outdir::DEFAULT_LOCK_TIMEOUT, std::time::Duration::from_secs);
    outdir::lock(dir, exclusive, timeout, || {
        if ui.quiet {
            return;
        }
        ui.err(&format!(
            "Blocking waiting for the lock on {}: another policyctl run is writing to it (--lock-timeout {} s)\n",
            render::terminal::line(&dir.display().to_string()),
            timeout.as_secs()
        ));
    })
}

/// A pipe's buffer, if `out` is one, widened to 1 MiB (Linux's default ceiling for unprivileged
/// processes, `/proc/sys/fs/pipe-max-size`) from its usual 64 KiB: a streamed output of megabytes
/// then goes into the pipe in a sixteenth of the hand-overs to its reader, each a wake-up of one
/// side by the other (#1085's 5.6 MB took twice as long to write through a 64 KiB pipe). Anything
/// else (a file, a terminal, a pipe already as wide, a refusal) is left as it is.
#[cfg(target_os = "linux")]
fn widen_pipe(out: &impl std::os::fd::AsFd) {
    const WIDE: usize = 1 << 20;
    if rustix::pipe::fcntl_getpipe_size(out).is_ok_and(|size| size < WIDE) {
        let _ = rustix::pipe::fcntl_setpipe_size(out, WIDE);
    }
}

#[cfg(not(target_os = "linux"))]
fn widen_pipe<T>(_: &T) {}
