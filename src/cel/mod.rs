//! CEL validation as the Kuadrant operator does it (kuadrant-operator v1.4.6 and v1.5.2
//! `internal/cel/validator.go`): parse, then type-check in the environment of the policy kind, with
//! cel-go v0.23.2's decisions and error text. Parsing uses the `cel` crate (the same ANTLR grammar as
//! cel-go, so syntax errors carry cel-go's text and positions); [`check`] is a port of cel-go's checker
//! over [`env`]'s declarations; [`issues`] renders `Issues.String()`.
//!
//! The environment of a policy kind holds the policy bindings pushed up to and including its own:
//! `auth` (only when an AuthPolicy is effective on the path) before `ratelimit` (RateLimitPolicy and
//! TokenRateLimitPolicy), so an AuthPolicy action never sees `ratelimit`.

pub(crate) mod check;
pub(crate) mod env;
pub(crate) mod issues;
pub(crate) mod types;

use ::cel::common::ast::{EntryExpr, Expr, IdedExpr, SourceInfo};

use issues::{Issue, location, render};

/// The policy bindings of one validation environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CelEnv {
    pub auth: bool,
    pub ratelimit: bool,
}

/// cel-go parser/macro.go `AccumulatorName`: an iteration variable may not take it.
const ACCUMULATOR: &str = "__result__";

/// Build, on a thread of the pool, what the first [`validate`] of a run would otherwise wait for:
/// the parser's ANTLR tables, deserialised on first use (about a millisecond of CPU, most of a
/// small estate's CEL work). Called before the stages that leave a core idle (the topology is
/// built on one), for a model whose policies the generator will validate. Once a process: the
/// tables are kept (a `watch` cycle analyses again).
pub(crate) fn prepare() {
    static ASKED: std::sync::Once = std::sync::Once::new();
    ASKED.call_once(|| {
        crate::par::spawn(|| {
            let env = CelEnv {
                auth: false,
                ratelimit: true,
            };
            let _ = validate("request.method != 'GET'", env);
        });
    });
}

/// Parse and check one expression. `Err` carries cel-go's `Issues.String()` text.
pub fn validate(expr: &str, env: CelEnv) -> Result<(), String> {
    let (ast, info) = match ::cel::parser::Parser::new().parse_with_source_info(expr) {
        Err(errs) => {
            // The crate adds notes of its own where its visitor meets a node ANTLR already reported
            // (`No `MemberContextAll`!`); cel-go has no such errors.
            let own = |m: &str| m.starts_with("No `") || m.starts_with("Incomplete `");
            let keep_all = errs.errors.iter().all(|e| own(&e.msg));
            let found: Vec<Issue> = errs
                .errors
                .iter()
                .filter(|e| keep_all || !own(&e.msg))
                .map(|e| parse_issue(expr, e.pos, &e.msg))
                .collect();
            return Err(render(expr, &found));
        }
        Ok(parsed) => parsed,
    };
    let overwrites = accumulator_overwrites(expr, &ast, &info);
    if !overwrites.is_empty() {
        return Err(render(expr, &overwrites));
    }
    let mut checker = check::Checker::new(env.auth, env.ratelimit);
    checker.check(&ast);
    if checker.errors.is_empty() {
        checker.validate_formats(&ast);
    }
    if checker.errors.is_empty() {
        return Ok(());
    }
    let found: Vec<Issue> = checker
        .errors
        .iter()
        .map(|(id, msg)| {
            let (l, c) = info
                .offset_for(*id)
                .map_or((1, 0), |(s, _)| location(expr, s as usize));
            (l, c, msg.clone())
        })
        .collect();
    Err(render(expr, &found))
}

/// A parse error of the `cel` crate as cel-go reports it: the crate's column counts bytes, cel-go's
/// code points; the crate words the bad iteration variable of `map` / `filter` as the quantifiers'
/// (cel-go parser/macro.go `MakeMap` / `MakeFilter` say "argument is not an identifier").
fn parse_issue(src: &str, pos: (isize, isize), msg: &str) -> Issue {
    let line = pos.0.max(1) as usize;
    let byte_col = (pos.1 - 1).max(0) as usize;
    let text = src.split('\n').nth(line - 1).unwrap_or("");
    let col = text
        .char_indices()
        .take_while(|(i, _)| *i < byte_col)
        .count();
    let mut msg = msg.to_string();
    // cel-go parser/unescape.go words a bad escape as "invalid unicode code point" or "unable to
    // unescape string"; the crate prints its error value.
    if msg.starts_with("invalid string literal: ") || msg.starts_with("invalid bytes literal: ") {
        msg = if msg.contains("InvalidUnicode") {
            "invalid unicode code point".to_string()
        } else {
            "unable to unescape string".to_string()
        };
    }
    if msg == "argument must be a simple name" {
        // The macro's name: the identifier before the innermost unclosed `(` left of the argument.
        let mut depth = 0usize;
        let mut open = None;
        for (i, c) in text[..byte_col.min(text.len())].char_indices().rev() {
            match c {
                ')' | ']' | '}' => depth += 1,
                '(' | '[' | '{' if depth > 0 => depth -= 1,
                '(' => {
                    open = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let before = open.map_or("", |i| text[..i].trim_end());
        let name: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if name == "map" || name == "filter" {
            msg = "argument is not an identifier".to_string();
        }
    }
    (line, col, msg)
}

/// Macros whose iteration variable is `__result__`: cel-go's parser rejects them; the crate, which
/// names its accumulator `@result`, does not. Located at the variable (the first argument).
fn accumulator_overwrites(src: &str, e: &IdedExpr, info: &SourceInfo) -> Vec<Issue> {
    let mut out = Vec::new();
    walk(e, &mut |x| {
        if let Expr::Comprehension(c) = &x.expr
            && c.iter_var == ACCUMULATOR
        {
            let call = info.offset_for(x.id).map_or(0, |(s, _)| s as usize);
            let at = src[call.min(src.len())..]
                .find(ACCUMULATOR)
                .map_or(call, |i| call + i);
            let (l, c) = location(src, at);
            out.push((
                l,
                c,
                "iteration variable overwrites accumulator variable".to_string(),
            ));
        }
    });
    out
}

fn walk<'a>(e: &'a IdedExpr, f: &mut impl FnMut(&'a IdedExpr)) {
    f(e);
    match &e.expr {
        Expr::Select(s) => walk(&s.operand, f),
        Expr::Call(c) => {
            if let Some(t) = c.target.as_deref() {
                walk(t, f);
            }
            c.args.iter().for_each(|a| walk(a, f));
        }
        Expr::List(l) => l.elements.iter().for_each(|x| walk(x, f)),
        Expr::Map(m) => {
            for en in &m.entries {
                if let EntryExpr::MapEntry(me) = &en.expr {
                    walk(&me.key, f);
                    walk(&me.value, f);
                }
            }
        }
        Expr::Struct(s) => {
            for en in &s.entries {
                if let EntryExpr::StructField(fe) = &en.expr {
                    walk(&fe.value, f);
                }
            }
        }
        Expr::Comprehension(c) => {
            walk(&c.iter_range, f);
            walk(&c.accu_init, f);
            walk(&c.loop_cond, f);
            walk(&c.loop_step, f);
            walk(&c.result, f);
        }
        Expr::Unspecified | Expr::Literal(_) | Expr::Ident(_) => {}
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    const BASE: CelEnv = CelEnv {
        auth: false,
        ratelimit: true,
    };

    #[test]
    fn undeclared_auth_matches_cel_go() {
        assert_eq!(
            validate("auth.identity.username != 'root'", BASE).unwrap_err(),
            "ERROR: <input>:1:1: undeclared reference to 'auth' (in container '')\n | auth.identity.username != 'root'\n | ^"
        );
        assert!(
            validate(
                "auth.identity.username != 'root'",
                CelEnv {
                    auth: true,
                    ratelimit: true
                }
            )
            .is_ok()
        );
    }

    #[test]
    fn two_errors_sorted_by_position() {
        assert_eq!(
            validate("has(auth.identity) && auth.identity.group != 'admin'", BASE).unwrap_err(),
            "ERROR: <input>:1:5: undeclared reference to 'auth' (in container '')\n | has(auth.identity) && auth.identity.group != 'admin'\n | ....^\nERROR: <input>:1:23: undeclared reference to 'auth' (in container '')\n | has(auth.identity) && auth.identity.group != 'admin'\n | ......................^"
        );
    }

    #[test]
    fn verified_shapes_from_notes() {
        let e = validate("request.headers.x-api-key == 'a'", BASE).unwrap_err();
        assert!(e.contains("1:19: undeclared reference to 'api'"), "{e}");
        assert!(e.contains("1:23: undeclared reference to 'key'"), "{e}");
        assert!(
            validate("metadata.filter_metadata['x'] == 'y'", BASE)
                .unwrap_err()
                .contains("undeclared reference to 'metadata'")
        );
        assert!(
            validate("descriptors[0].x == 1", BASE)
                .unwrap_err()
                .contains("undeclared reference to 'descriptors'")
        );
        let auth_env = CelEnv {
            auth: true,
            ratelimit: false,
        };
        assert!(
            validate("ratelimit.domain == 'x'", auth_env)
                .unwrap_err()
                .contains("undeclared reference to 'ratelimit'")
        );
        assert!(
            validate("request.path.foo()", BASE)
                .unwrap_err()
                .starts_with("ERROR: <input>:1:17: undeclared reference to 'foo'")
        );
        assert_eq!(
            validate("request.path == \"/x\" &&\n  auth.x == 1", BASE).unwrap_err(),
            "ERROR: <input>:2:3: undeclared reference to 'auth' (in container '')\n |   auth.x == 1\n | ..^"
        );
        for ok in [
            "request.method == 'GET'",
            "request.headers.exists(h, h == 'x')",
            "request.host.lowerAscii() == 'a'",
            "ratelimit.x == 1 && responseBodyJSON('/a') == 1",
            "[1, 2].map(x, x * 2).size() == 2",
            "strings.quote('a') == 'a'",
            "type(request.x) == string",
        ] {
            assert_eq!(validate(ok, BASE), Ok(()), "{ok}");
        }
        assert!(validate("auth.identity.x == 'x'", auth_env).is_ok());
    }

    #[test]
    fn syntax_errors_carry_antlr_text() {
        let expecting = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
        assert_eq!(
            validate("request.method == ", BASE).unwrap_err(),
            format!(
                "ERROR: <input>:1:19: Syntax error: mismatched input '<EOF>' expecting {expecting}\n | request.method == \n | ..................^"
            )
        );
        let e = validate("request.method = 'GET'", BASE).unwrap_err();
        assert!(
            e.starts_with("ERROR: <input>:1:16: Syntax error: token recognition error at: '= '"),
            "{e}"
        );
        assert!(
            e.contains(
                "\nERROR: <input>:1:18: Syntax error: extraneous input ''GET'' expecting <EOF>"
            ),
            "{e}"
        );
    }

    #[test]
    fn comprehension_variables_are_scoped() {
        let e = validate("request.headers.exists(h, h == 'x') && h == 'y'", BASE).unwrap_err();
        assert!(e.contains("undeclared reference to 'h'"), "{e}");
        assert_eq!(e.matches("ERROR").count(), 1);
    }

    #[test]
    fn multibyte_snippet_markers() {
        let e = validate("'é' == auth.x", BASE).unwrap_err();
        assert_eq!(
            e,
            "ERROR: <input>:1:8: undeclared reference to 'auth' (in container '')\n | 'é' == auth.x\n | .．.....^"
        );
    }
}
