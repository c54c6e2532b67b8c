//! JUnit XML, one dialect for every report (`lint -o junit`, `--diagnostics-format junit`, `test -o
//! junit`): quick-junit's (nextest's) serializer, the shape Jenkins' `junit` step, GitLab's
//! `artifacts:reports:junit` and GitHub test-report actions read. `<testsuites>` with the totals,
//! one `<testsuite>` per group, one `<testcase>` per check with a dotted logical `classname`
//! (`policyctl.lint.RateLimitPolicy`, `policyctl.test.tests.toystore`) and the file it is about in a
//! `file` attribute (GitLab links it); a failure is `<failure message type>` with the details as
//! its text, a check that could not decide is `<skipped message>`, notes go to `<system-out>`.
//! Text from the input has its control characters escaped (XML 1.0 forbids most of them, and the
//! report is read in terminals too).

use super::terminal;

/// The outcome of one test case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// `message` (one line), `kind` (the `type` attribute: codes, or the kind of failure) and the
    /// details.
    Failed {
        message: String,
        kind: String,
        details: String,
    },
    /// Neither passed nor failed: why it could not be decided.
    Skipped {
        message: String,
    },
}

/// One test case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// A dotted logical name (no file paths): `policyctl.<command>.<group>`.
    pub classname: String,
    pub name: String,
    /// The file the case is about, when there is one.
    pub file: Option<String>,
    pub verdict: Verdict,
    /// Lines for `<system-out>`.
    pub output: Vec<String>,
}

/// A group of cases: a `<testsuite>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suite {
    pub name: String,
    pub cases: Vec<Case>,
}

/// A dotted class name segment from free text: path separators and blanks become dots, control
/// characters and anything but `A-Z a-z 0-9 _ - .` become `_`, empty segments are dropped.
pub fn class_segment(s: &str) -> String {
    s.split(|c: char| c == '/' || c == '\\' || c.is_whitespace())
        .filter(|p| !p.is_empty() && *p != ".")
        .map(|p| {
            p.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The report `name` of these suites.
pub fn report(name: &str, suites: &[Suite]) -> String {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let text = |s: &str| terminal::text(s).into_owned();
    let mut report = Report::new(text(name));
    for s in suites {
        let mut suite = TestSuite::new(text(&s.name));
        for c in &s.cases {
            let status = match &c.verdict {
                Verdict::Passed => TestCaseStatus::success(),
                Verdict::Failed {
                    message,
                    kind,
                    details,
                } => {
                    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    st.set_message(terminal::line(message).into_owned())
                        .set_type(text(kind))
                        .set_description(text(details));
                    st
                }
                Verdict::Skipped { message } => {
                    let mut st = TestCaseStatus::skipped();
                    st.set_message(terminal::line(message).into_owned());
                    st
                }
            };
            let mut case = TestCase::new(text(&c.name), status);
            case.set_classname(text(&c.classname));
            if let Some(file) = &c.file {
                case.extra
                    .insert("file".into(), terminal::line(file).into_owned().into());
            }
            if !c.output.is_empty() {
                case.set_system_out(text(&(c.output.join("\n") + "\n")));
            }
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_segments_are_dotted_names() {
        assert_eq!(
            class_segment("testdata/tests/toystore"),
            "testdata.tests.toystore"
        );
        assert_eq!(class_segment("./a b/\u{1b}c"), "a.b._c");
        assert_eq!(class_segment("RateLimitPolicy"), "RateLimitPolicy");
    }

    #[test]
    fn every_verdict_in_one_dialect() {
        let case = |name: &str, verdict| Case {
            classname: "policyctl.test.cases".into(),
            name: name.into(),
            file: Some("cases.yaml".into()),
            verdict,
            output: vec![],
        };
        let xml = report(
            "policyctl test",
            &[Suite {
                name: "cases.yaml".into(),
                cases: vec![
                    case("ok", Verdict::Passed),
                    case(
                        "bad\u{1b}[2J",
                        Verdict::Failed {
                            message: "limited".into(),
                            kind: "expectation".into(),
                            details: "request 3: 429".into(),
                        },
                    ),
                    case(
                        "unknown",
                        Verdict::Skipped {
                            message: "undecided".into(),
                        },
                    ),
                ],
            }],
        );
        assert!(xml.contains("<testsuites name=\"policyctl test\" tests=\"3\" skipped=\"1\" failures=\"1\" errors=\"0\">"), "{xml}");
        assert!(
            xml.contains("classname=\"policyctl.test.cases\" file=\"cases.yaml\""),
            "{xml}"
        );
        assert!(xml.contains("<skipped message=\"undecided\"/>"), "{xml}");
        assert!(xml.contains("name=\"bad\\e[2J\""), "{xml}");
    }
}
