//! Diagnostics as text: miette's graphical report for people, JSON for tools, GitHub workflow
//! annotations for CI logs.

use super::Style;
use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::source::{SourceMap, Span};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use std::fmt;
use std::sync::Arc;

/// Adapter from our [`Diagnostic`] to `miette::Diagnostic`, for one source file.
struct Report<'a> {
    d: &'a Diagnostic,
    source: Option<miette::NamedSource<Arc<str>>>,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.d.code.as_str()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }
}

fn clamp(sources: &SourceMap, span: Span) -> (usize, usize) {
    let len = sources.get(span.source).map(|f| f.text.len()).unwrap_or(0);
    let off = span.offset.min(len);
    (off, span.len.min(len - off))
}

/// One diagnostic, drawn by miette's graphical handler.
pub fn human(d: &Diagnostic, sources: &SourceMap, style: Style) -> String {
    let primary = d.primary_span();
    let file = primary.and_then(|s| sources.get(s.source).map(|f| (s.source, f)));
    let mut labels = Vec::new();
    let mut notes = Vec::new();
    for l in &d.labels {
        match file {
            Some((id, _)) if l.span.source == id => {
                let (off, len) = clamp(sources, l.span);
                labels.push(if l.primary {
                    LabeledSpan::new_primary_with_span(Some(l.message.clone()), (off, len))
                } else {
                    LabeledSpan::new_with_span(Some(l.message.clone()), (off, len))
                });
            }
            _ => {
                if let Some(p) = sources.position(l.span) {
                    notes.push(format!("{}: {p}", l.message));
                }
            }
        }
    }
    let mut help = d.help.clone();
    if !notes.is_empty() {
        let n = notes.join("; ");
        help = Some(match help {
            Some(h) => format!("{h}\n{n}"),
            None => n,
        });
    }
    let report = Report {
        d,
        source: file.map(|(_, f)| miette::NamedSource::new(f.name.clone(), f.text.clone())),
        labels,
        help,
    };
    let theme = match (style.unicode, style.color) {
        (true, true) => GraphicalTheme::unicode(),
        (true, false) => GraphicalTheme::unicode_nocolor(),
        (false, true) => GraphicalTheme {
            characters: miette::ThemeCharacters::ascii(),
            styles: miette::ThemeStyles::ansi(),
        },
        (false, false) => GraphicalTheme::none(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false);
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        out = format!(
            "{}: {} {}\n",
            d.severity.as_str(),
            d.code.as_str(),
            d.message
        );
    }
    if let Some(obj) = &d.object
        && !out.contains(obj.as_str())
    {
        // miette has no slot for the object; keep it visible on the first line.
        if let Some(first_nl) = out.find('\n') {
            out.insert_str(first_nl, &format!(" [{obj}]"));
        }
    }
    out
}

/// All diagnostics for people, separated by blank lines.
pub fn human_all(ds: &Diagnostics, sources: &SourceMap, style: Style) -> String {
    ds.iter()
        .map(|d| human(d, sources, style))
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(serde::Serialize)]
struct JsonDiag<'a> {
    code: &'a str,
    severity: Severity,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
}

fn json_diag<'a>(d: &'a Diagnostic, sources: &SourceMap) -> JsonDiag<'a> {
    let pos = d.primary_span().and_then(|s| sources.position(s));
    JsonDiag {
        code: d.code.as_str(),
        severity: d.severity,
        message: &d.message,
        object: d.object.as_deref(),
        file: pos.as_ref().map(|p| p.file.clone()),
        line: pos.as_ref().map(|p| p.line),
        column: pos.as_ref().map(|p| p.column),
        help: d.help.as_deref(),
    }
}

/// `{"diagnostics": [...], "summary": {...}}`, pretty-printed.
pub fn json(ds: &Diagnostics, sources: &SourceMap) -> String {
    let items: Vec<_> = ds.iter().map(|d| json_diag(d, sources)).collect();
    let v = serde_json::json!({
        "diagnostics": items,
        "summary": {
            "errors": ds.count(Severity::Error),
            "warnings": ds.count(Severity::Warning),
            "infos": ds.count(Severity::Info),
        }
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

fn gh_escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn gh_escape_prop(s: &str) -> String {
    gh_escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=CODE::message`.
pub fn github(ds: &Diagnostics, sources: &SourceMap) -> String {
    let mut out = String::new();
    for d in ds {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        if let Some(p) = d.primary_span().and_then(|s| sources.position(s)) {
            props.push(format!("file={}", gh_escape_prop(&p.file)));
            props.push(format!("line={}", p.line));
            props.push(format!("col={}", p.column));
        }
        props.push(format!("title={}", d.code.as_str()));
        let mut msg = d.message.clone();
        if let Some(o) = &d.object {
            msg = format!("{msg} ({o})");
        }
        if let Some(h) = &d.help {
            msg = format!("{msg}\nhelp: {h}");
        }
        out.push_str(&format!(
            "::{level} {}::{}\n",
            props.join(","),
            gh_escape_data(&msg)
        ));
    }
    out
}

/// One line per finding, `file:line:col: severity[CODE]: message (object)`, for `-q` and logs.
pub fn short(ds: &Diagnostics, sources: &SourceMap) -> String {
    let mut out = String::new();
    for d in ds {
        let pos = d
            .primary_span()
            .and_then(|s| sources.position(s))
            .map(|p| format!("{p}: "))
            .unwrap_or_default();
        let obj = d
            .object
            .as_ref()
            .map(|o| format!(" ({o})"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{pos}{}[{}]: {}{obj}\n",
            d.severity.as_str(),
            d.code.as_str(),
            d.message
        ));
    }
    out
}
