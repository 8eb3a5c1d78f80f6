//! The grammar builder (`toolwright_local::gbnf`, built without llama.cpp): GBNF from generated
//! tool schemas and limits.
//!
//! Checks: no panic; the grammar is well-formed in the sense llama.cpp needs: every line is
//! `name ::= body`, `root` is defined, no rule is defined twice (llama.cpp would silently keep
//! the last one), every rule a body names is defined, and quotes, character classes and
//! repetition braces are closed.
#![no_main]

#[path = "../common/mod.rs"]
mod common;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use toolwright_core::ToolSpec;
use toolwright_local::gbnf::{GrammarLimits, tool_call_grammar, value_grammar};

fn limits(u: &mut Unstructured) -> Result<GrammarLimits> {
    Ok(GrammarLimits {
        max_string: u.int_in_range(0..=200)?,
        max_items: u.int_in_range(0..=10)?,
        max_int_digits: u.int_in_range(0..=20)?,
        max_frac_digits: u.int_in_range(0..=8)?,
        max_depth: u.int_in_range(0..=14)?,
        max_free_depth: u.int_in_range(0..=5)?,
        plain_strings: u.arbitrary()?,
        allow_none: u.arbitrary()?,
        max_calls: u.int_in_range(0..=4)?,
    })
}

fn specs(u: &mut Unstructured) -> Result<Vec<ToolSpec>> {
    let n = u.int_in_range(0..=3)?;
    (0..n)
        .map(|_| {
            let name = common::key(u)?;
            Ok(ToolSpec::new(name, "A tool.", common::root_schema(u)?))
        })
        .collect()
}

/// The names a rule body refers to (outside literals, classes and `{m,n}`), or why it is
/// malformed.
fn references(body: &str) -> std::result::Result<Vec<String>, String> {
    let mut refs = Vec::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '[' => {
                let close = if c == '"' { '"' } else { ']' };
                loop {
                    match chars.next() {
                        None => return Err(format!("unclosed {c}")),
                        Some('\\') => {
                            chars.next();
                        }
                        Some(x) if x == close => break,
                        Some(_) => {}
                    }
                }
            }
            '{' => loop {
                match chars.next() {
                    None => return Err("unclosed {".into()),
                    Some('}') => break,
                    Some(x) if x.is_ascii_digit() || x == ',' => {}
                    Some(x) => return Err(format!("{x:?} inside a repetition")),
                }
            },
            c if c.is_ascii_alphanumeric() || c == '-' || c == '_' => {
                let mut name = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '-' || n == '_' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                refs.push(name);
            }
            ' ' | '|' | '(' | ')' | '?' | '*' | '+' => {}
            other => return Err(format!("unexpected {other:?}")),
        }
    }
    Ok(refs)
}

fn check(grammar: &str) {
    let mut defined = HashSet::new();
    let mut bodies = Vec::new();
    for line in grammar.lines() {
        let (name, body) = line
            .split_once(" ::= ")
            .unwrap_or_else(|| panic!("not a rule: {line:?}\n{grammar}"));
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "bad rule name {name:?}\n{grammar}"
        );
        assert!(
            defined.insert(name.to_string()),
            "rule {name} defined twice\n{grammar}"
        );
        bodies.push(body);
    }
    assert!(defined.contains("root"), "no root\n{grammar}");
    for body in bodies {
        let refs = references(body).unwrap_or_else(|e| panic!("{e} in {body:?}\n{grammar}"));
        for r in refs {
            assert!(defined.contains(&r), "undefined rule {r}\n{grammar}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(limits) = limits(&mut u) else { return };
    let Ok(tools) = specs(&mut u) else { return };
    match tool_call_grammar(&tools, &limits) {
        Ok(g) => check(&g),
        Err(_) => assert!(tools.is_empty()),
    }
    if let Some(t) = tools.first() {
        check(&value_grammar(&t.parameters, &limits));
    }
});
