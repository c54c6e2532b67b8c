//! CEL validation of merged wasm actions (ERRATA 3, /work/notes/cel.md): the operator parses every
//! predicate with cel-go and type-checks it in an environment that declares only `request`, `source`,
//! `destination`, `connection` (plus `auth` when an AuthPolicy is effective on the path, and `ratelimit`
//! for rate-limit kinds), the standard library, `ext.Strings()` and `requestBodyJSON` /
//! `responseBodyJSON`. policyctl parses with the `cel` crate — the same ANTLR grammar as cel-go, so
//! syntax errors carry cel-go's exact text and position — and then reports undeclared identifiers and
//! functions as cel-go's checker does. Type errors between literals (`1 + 'a'`) are not detected.

use cel::common::ast::{EntryExpr, Expr, IdedExpr, SourceInfo};

/// The declarations of one validation environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CelEnv {
    pub auth: bool,
    pub ratelimit: bool,
}

const ROOTS: &[&str] = &["request", "source", "destination", "connection"];
/// Type identifiers the standard environment declares.
const TYPE_IDENTS: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "type",
    "uint",
];
/// Functions (global or member) of the cel-go v0.23 standard library, `ext.Strings()` and Kuadrant's
/// two body functions.
const FUNCTIONS: &[&str] = &[
    "bool",
    "bytes",
    "contains",
    "double",
    "duration",
    "dyn",
    "endsWith",
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getFullYear",
    "getHours",
    "getMilliseconds",
    "getMinutes",
    "getMonth",
    "getSeconds",
    "int",
    "matches",
    "size",
    "startsWith",
    "string",
    "timestamp",
    "type",
    "uint",
    // ext.Strings (latest version)
    "charAt",
    "format",
    "indexOf",
    "join",
    "lastIndexOf",
    "lowerAscii",
    "replace",
    "reverse",
    "split",
    "substring",
    "trim",
    "upperAscii",
    // Kuadrant
    "requestBodyJSON",
    "responseBodyJSON",
];
/// Namespaced functions (`strings.quote(...)`).
const QUALIFIED_FUNCTIONS: &[&str] = &["strings.quote"];

/// Validate one expression. `Err` carries cel-go's `Issues.String()` text.
pub fn validate(expr: &str, env: CelEnv) -> Result<(), String> {
    match cel::parser::Parser::new().parse_with_source_info(expr) {
        Err(errs) => {
            let mut found: Vec<(usize, usize, String)> = errs
                .errors
                .iter()
                .map(|e| {
                    let line = e.pos.0.max(1) as usize;
                    let col0 = (e.pos.1 - 1).max(0) as usize;
                    (line, col0, e.msg.clone())
                })
                .collect();
            found.sort_by_key(|(l, c, _)| (*l, *c));
            Err(render(expr, &found))
        }
        Ok((ast, info)) => {
            let mut w = Walker {
                env,
                info: &info,
                scopes: Vec::new(),
                errors: Vec::new(),
            };
            w.walk(&ast);
            if w.errors.is_empty() {
                return Ok(());
            }
            let mut found: Vec<(usize, usize, String)> = w
                .errors
                .iter()
                .map(|(off, name)| {
                    let (l, c) = location(expr, *off);
                    (
                        l,
                        c,
                        format!("undeclared reference to '{name}' (in container '')"),
                    )
                })
                .collect();
            found.sort_by_key(|(l, c, _)| (*l, *c));
            Err(render(expr, &found))
        }
    }
}

struct Walker<'a> {
    env: CelEnv,
    info: &'a SourceInfo,
    scopes: Vec<String>,
    /// (code-point offset, name)
    errors: Vec<(usize, String)>,
}

impl Walker<'_> {
    fn declared(&self, name: &str) -> bool {
        ROOTS.contains(&name)
            || TYPE_IDENTS.contains(&name)
            || (self.env.auth && name == "auth")
            || (self.env.ratelimit && name == "ratelimit")
            || self.scopes.iter().any(|s| s == name)
    }

    fn offset(&self, e: &IdedExpr) -> usize {
        self.info.offset_for(e.id).map_or(0, |(s, _)| s as usize)
    }

    fn walk(&mut self, e: &IdedExpr) {
        match &e.expr {
            Expr::Unspecified | Expr::Literal(_) => {}
            Expr::Ident(name) => {
                if !self.declared(name) {
                    self.errors.push((self.offset(e), name.clone()));
                }
            }
            Expr::Select(s) => self.walk(&s.operand),
            Expr::Call(c) => {
                for a in &c.args {
                    self.walk(a);
                }
                let is_operator = !c
                    .func_name
                    .chars()
                    .next()
                    .is_some_and(|ch| ch.is_alphabetic() || ch == '_')
                    || c.func_name.starts_with('_') && c.func_name.ends_with('_')
                    || c.func_name.starts_with('@');
                match &c.target {
                    None => {
                        if !is_operator && !FUNCTIONS.contains(&c.func_name.as_str()) {
                            self.errors.push((self.offset(e), c.func_name.clone()));
                        }
                    }
                    Some(t) => {
                        if let Some(q) = qualified_name(t)
                            && QUALIFIED_FUNCTIONS
                                .contains(&format!("{q}.{}", c.func_name).as_str())
                        {
                            return;
                        }
                        self.walk(t);
                        if !is_operator && !FUNCTIONS.contains(&c.func_name.as_str()) {
                            self.errors.push((self.offset(e), c.func_name.clone()));
                        }
                    }
                }
            }
            Expr::Comprehension(c) => {
                self.walk(&c.iter_range);
                self.walk(&c.accu_init);
                let n = self.scopes.len();
                self.scopes.push(c.accu_var.clone());
                self.scopes.push(c.iter_var.clone());
                if let Some(v2) = &c.iter_var2 {
                    self.scopes.push(v2.clone());
                }
                self.walk(&c.loop_cond);
                self.walk(&c.loop_step);
                self.scopes.truncate(n);
                self.scopes.push(c.accu_var.clone());
                self.walk(&c.result);
                self.scopes.truncate(n);
            }
            Expr::List(l) => {
                for x in &l.elements {
                    self.walk(x);
                }
            }
            Expr::Map(m) => {
                for en in &m.entries {
                    if let EntryExpr::MapEntry(me) = &en.expr {
                        self.walk(&me.key);
                        self.walk(&me.value);
                    }
                }
            }
            Expr::Struct(s) => {
                for en in &s.entries {
                    if let EntryExpr::StructField(f) = &en.expr {
                        self.walk(&f.value);
                    }
                }
            }
        }
    }
}

/// `a.b.c` as a dotted name when the expression is an identifier or a select chain over one.
fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(s) if !s.test => {
            qualified_name(&s.operand).map(|q| format!("{q}.{}", s.field))
        }
        _ => None,
    }
}

/// 1-based line and 0-based code-point column of a byte offset (the parser's offsets are bytes;
/// cel-go counts code points).
fn location(src: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut col = 0;
    for (i, ch) in src.char_indices() {
        if i >= offset {
            break;
        }
        if ch == '\n' {
            line += 1;
            col = 0;
        } else {
            col += 1;
        }
    }
    (line, col)
}

/// cel-go's `Errors.ToDisplayString`: each error as `ERROR: <input>:L:C: msg` plus the source line
/// and a caret, joined with newlines (at most 100, then a truncation line).
fn render(src: &str, errors: &[(usize, usize, String)]) -> String {
    let mut parts = Vec::new();
    for (line, col0, msg) in errors.iter().take(100) {
        let mut s = format!("ERROR: <input>:{line}:{}: {msg}", col0 + 1);
        if let Some(text) = src.split('\n').nth(line - 1)
            && !src.is_empty()
            && text.chars().count() <= 16384
        {
            s.push_str("\n | ");
            s.push_str(&text.replace('\t', " "));
            s.push_str("\n | ");
            for ch in text.chars().take(*col0) {
                s.push(if ch.len_utf8() > 1 { '．' } else { '.' });
            }
            let at = text.chars().nth(*col0);
            s.push(if at.is_some_and(|c| c.len_utf8() > 1) {
                '＾'
            } else {
                '^'
            });
        }
        parts.push(s);
    }
    if errors.len() > 100 {
        parts.push(format!("{} more errors were truncated", errors.len() - 100));
    }
    parts.join("\n")
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
