//! When a grammar-constrained call does not come out whole.
//!
//! A small model sometimes starts a valid call and then loops inside a value
//! (`"a_a_a_a…"`, the same list item again and again) until the token budget ends, so the JSON
//! never closes. Two generic answers, neither tied to a tool set:
//! - [`ends_in_loop`] lets the engine stop as soon as the output repeats itself, instead of
//!   spending the whole budget (the loops seen on the MCP dev set ran 500–700 tokens, 20–105 s);
//! - [`tight_retry`] describes one more try: the tool the cut output named (else the router's
//!   first candidate), its required parameters only, and short strings and lists, so the call
//!   fits the budget. A call that validates is more useful to the agent than no call at all;
//!   the runtime still checks it like any other.

use crate::gbnf::GrammarLimits;
use serde_json::Value;
use toolwright_core::ToolSpec;

/// Shortest repeated stretch, in bytes, that counts as a loop.
const LOOP_MIN_BYTES: usize = 64;
/// Longest repeating unit looked for, in bytes.
const LOOP_MAX_PERIOD: usize = 24;
/// Fewest repetitions of the unit: more than a reply of 4 calls can hold, so a list of
/// identical calls or of `{"tool": "none"}` items is never cut.
const LOOP_MIN_REPEATS: usize = 5;

/// Whether `out` ends with one unit of at most 24 bytes repeated over at least 64 bytes and at
/// least 5 times (`a_a_a_…`, `"x" ,"x" ,"x" …`, `1.0.0/1.0.0/…`).
///
/// ```
/// use toolwright_local::salvage::ends_in_loop;
/// assert!(ends_in_loop(format!(r#"{{"thought": "se{}"#, "jenh".repeat(17)).as_bytes()));
/// assert!(!ends_in_loop(br#"{"path": "/home/ana/projects/2024/q3/reports", "parents": true}"#));
/// ```
pub fn ends_in_loop(out: &[u8]) -> bool {
    (1..=LOOP_MAX_PERIOD).any(|p| {
        let span = (LOOP_MIN_REPEATS * p).max(LOOP_MIN_BYTES);
        let tail = out
            .get(out.len().saturating_sub(span)..)
            .unwrap_or_default();
        tail.len() == span && tail.iter().zip(tail.iter().skip(p)).all(|(a, b)| a == b)
    })
}

/// One more try at a call whose output did not parse: the tool to ask for and the limits of
/// its grammar.
#[derive(Debug, Clone)]
pub struct TightRetry {
    /// The tool, with only its required parameters (at every level of nesting).
    pub spec: ToolSpec,
    /// Single call, short strings and lists, no "none".
    pub limits: GrammarLimits,
}

/// The retry for a cut output `text` over the offered `tools` (router order): the tool the
/// output named if it is one of them, else the first; `None` without tools.
pub fn tight_retry(text: &str, tools: &[ToolSpec], base: &GrammarLimits) -> Option<TightRetry> {
    let named = named_tool(text).and_then(|n| tools.iter().find(|t| t.name == n));
    let spec = named.or_else(|| tools.first())?;
    let mut spec = spec.clone();
    spec.parameters = required_only(&spec.parameters);
    let limits = GrammarLimits {
        max_string: base.max_string.min(40),
        max_items: base.max_items.min(2),
        max_calls: 1,
        allow_none: false,
        ..base.clone()
    };
    Some(TightRetry { spec, limits })
}

/// The name in the output's first `"tool": "…"`, if it got that far (`"none"` when the model
/// declined).
///
/// ```
/// use toolwright_local::salvage::named_tool;
/// assert_eq!(named_tool(r#"[{ "tool" : "git_log", "argu"#), Some("git_log"));
/// assert_eq!(named_tool(r#"[{"tool": "none"}, {"to"#), Some("none"));
/// assert_eq!(named_tool(r#"[{"tool": "git_l"#), None);
/// ```
pub fn named_tool(text: &str) -> Option<&str> {
    let after = text.get(text.find("\"tool\"")? + 6..)?;
    let value = after.trim_start().strip_prefix(':')?.trim_start();
    let (name, _) = value.strip_prefix('"')?.split_once('"')?;
    Some(name)
}

/// `schema` with only the required properties of each object, recursively (through
/// `properties` and `items`).
pub fn required_only(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = map.clone();
    if let Some(Value::Object(props)) = map.get("properties") {
        let kept = props
            .iter()
            .filter(|(k, _)| required.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), required_only(v)))
            .collect();
        out.insert("properties".to_string(), Value::Object(kept));
    }
    if let Some(items) = map.get("items") {
        out.insert("items".to_string(), required_only(items));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(name: &str, parameters: Value) -> ToolSpec {
        ToolSpec::new(name, "a tool", parameters)
    }

    #[test]
    fn loops_are_found_whatever_their_unit() {
        let cases = [
            format!(r#"{{"paths": ["aesgruppa{}"#, "_a".repeat(33)),
            format!(
                r#"["Morning meetings"{}"#,
                r#" ,"Morning meetings""#.repeat(5)
            ),
            format!(r#""parent": "{}"#, "1234567890".repeat(7)),
            format!(r#""file_path": "x{}"#, "/1.0.0".repeat(11)),
        ];
        for c in cases {
            assert!(ends_in_loop(c.as_bytes()), "{c}");
        }
    }

    #[test]
    fn ordinary_calls_are_not_loops() {
        let cases: [&[u8]; 4] = [
            br#"[{"tool": "write_file", "arguments": {"path": "/home/ana/todo.md", "content": "- buy milk"}}]"#,
            br#"{"tool": "git_log", "arguments": {"repo_path": "/srv/app", "max_count": 10}}"#,
            br#"[{ "tool": "none" }, { "tool": "none" }, { "tool": "none" }, { "tool": "none" }"#,
            br#"{"ids": ["7c9e6679-7425-40de-944b-e07fc1f90ae7", "6794760a-1f15-45cd-9c65-0dfe42f5135a"]}"#,
        ];
        for c in cases {
            assert!(!ends_in_loop(c), "{}", String::from_utf8_lossy(c));
        }
    }

    #[test]
    fn the_retry_keeps_the_named_tool_and_its_required_parameters() {
        let tools = vec![
            spec("first", json!({"type": "object", "properties": {}})),
            spec(
                "push_files",
                json!({"type": "object", "required": ["branch", "files"], "properties": {
                    "branch": {"type": "string"},
                    "message": {"type": "string"},
                    "files": {"type": "array", "items": {"type": "object", "required": ["path"],
                        "properties": {"path": {"type": "string"}, "mode": {"type": "string"}}}}
                }}),
            ),
        ];
        let text = r#"[{ "tool": "push_files" ,"arguments": {"branch": "x/1.0.0/1.0.0/1.0"#;
        let r = tight_retry(text, &tools, &GrammarLimits::default()).expect("a retry");
        assert_eq!(r.spec.name, "push_files");
        assert_eq!(
            r.spec.parameters,
            json!({"type": "object", "required": ["branch", "files"], "properties": {
                "branch": {"type": "string"},
                "files": {"type": "array", "items": {"type": "object", "required": ["path"],
                    "properties": {"path": {"type": "string"}}}}
            }})
        );
        assert_eq!((r.limits.max_calls, r.limits.max_items), (1, 2));
        assert!(r.limits.max_string <= 40 && !r.limits.allow_none);
    }

    #[test]
    fn an_unknown_or_missing_name_falls_back_to_the_first_candidate() {
        let tools = vec![spec("first", json!({"type": "object"}))];
        for text in [r#"[{"tool": "elsewhere", "argu"#, "garbage", ""] {
            let r = tight_retry(text, &tools, &GrammarLimits::default()).expect("a retry");
            assert_eq!(r.spec.name, "first");
        }
        assert!(tight_retry("x", &[], &GrammarLimits::default()).is_none());
    }
}
