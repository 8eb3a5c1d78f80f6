//! A small JSON Schema → GBNF converter for constrained tool calls of a local model.
//!
//! The grammar's output is `{"tool": "<name>", "arguments": {...}}` (or, with
//! [`GrammarLimits::max_calls`] above 1, a non-empty list of those): the tool name
//! **first** (llama.cpp's own converter orders keys alphabetically, which would make the model
//! write arguments before it has chosen the tool), then the arguments with the properties in the
//! schema's order. It covers the subset tool schemas use: objects (required and optional
//! properties, fixed order), strings (length bounds), numbers and integers (sign from `minimum`),
//! booleans, null, `enum`, `const`, `anyOf`/`oneOf`, type lists, arrays (item bounds) and local
//! `$ref`s; anything else becomes a bounded generic JSON value. Strings and arrays are capped so a
//! small model cannot ramble forever inside a value.
//!
//! ```
//! use toolwright_core::ToolSpec;
//! let spec = ToolSpec::new("get_weather", "Weather for a city.", serde_json::json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}},
//!     "required": ["city"]}));
//! let g = toolwright_local::gbnf::tool_call_grammar(&[spec], &Default::default()).unwrap();
//! assert!(g.contains(r#"root ::= "{" ws "\"tool\"" ws ":" ws"#));
//! ```

use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use toolwright_core::ToolSpec;

/// Bounds that keep generation short.
#[derive(Debug, Clone)]
pub struct GrammarLimits {
    /// Longest string a value may be (characters), whatever the schema allows.
    pub max_string: usize,
    /// Most items of an array.
    pub max_items: usize,
    /// Most digits before the decimal point.
    pub max_int_digits: usize,
    /// Most digits after it.
    pub max_frac_digits: usize,
    /// Nesting depth of schemas followed.
    pub max_depth: usize,
    /// Most objects and arrays nested in a value the schema leaves free (an object without
    /// `properties`, such as a query DSL body): 4 holds a Notion title, `{"title": [{"text":
    /// {"content": "Q3"}}]}`. Without a bound a small model can nest `{"data": {"data": …` until its
    /// token budget ends and the reply does not parse (12 s lost on one request before the
    /// re-ask). A bound on runaway output, not fitted on data.
    pub max_free_depth: usize,
    /// Strings without escapes, braces or control characters: keeps a small model from writing
    /// JSON syntax into a value (`"17*23}}  # ..."`).
    pub plain_strings: bool,
    /// Also allow `{"tool": "none"}`: the model may decline to call any tool.
    pub allow_none: bool,
    /// Most calls in one reply. Above 1 the output is a JSON list of calls,
    /// `[{"tool": …, "arguments": …}, …]`, with at least one call.
    pub max_calls: usize,
}

impl Default for GrammarLimits {
    fn default() -> Self {
        GrammarLimits {
            max_string: 120,
            max_items: 8,
            max_int_digits: 13,
            max_frac_digits: 6,
            max_depth: 12,
            max_free_depth: 4,
            plain_strings: false,
            allow_none: false,
            max_calls: 1,
        }
    }
}

/// Why no grammar could be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// No tool to call.
    #[error("no tools to build a grammar for")]
    NoTools,
}

/// The grammar of one call to any of `tools`: `{"tool": name, "arguments": {...}}`.
///
/// # Errors
/// `tools` is empty.
pub fn tool_call_grammar(
    tools: &[ToolSpec],
    limits: &GrammarLimits,
) -> Result<String, GrammarError> {
    if tools.is_empty() {
        return Err(GrammarError::NoTools);
    }
    let mut b = Builder::new(limits.clone());
    let mut alts = Vec::new();
    for spec in tools {
        let mut problems = Vec::new();
        let schema = toolwright_catalog::schema::inline_refs(&spec.parameters, &mut problems);
        let args = b.object_rule(&schema, &format!("{}-args", spec.name), 0, true);
        let rule = b.add(
            &format!("call-{}", spec.name),
            format!(
                "{} ws \",\" ws \"\\\"arguments\\\"\" ws \":\" ws {args} ws \"}}\"",
                literal(&Value::String(spec.name.clone()))
            ),
        );
        alts.push(rule);
    }
    if limits.allow_none {
        alts.push("\"\\\"none\\\"\" ws \"}\"".to_string());
    }
    let call = format!(
        "\"{{\" ws \"\\\"tool\\\"\" ws \":\" ws ( {} )",
        alts.join(" | ")
    );
    if limits.max_calls <= 1 {
        return Ok(b.finish(call));
    }
    let call = b.add("one-call", call);
    let root = format!(
        "\"[\" ws {call} ( ws \",\" ws {call} ){{0,{}}} ws \"]\"",
        limits.max_calls - 1
    );
    Ok(b.finish(root))
}

/// The grammar of a value of `schema` alone (used for argument-only generation and tests).
pub fn value_grammar(schema: &Value, limits: &GrammarLimits) -> String {
    let mut problems = Vec::new();
    let schema = toolwright_catalog::schema::inline_refs(schema, &mut problems);
    let mut b = Builder::new(limits.clone());
    let r = b.rule_for(&schema, "value", 0);
    b.finish(r)
}

/// An `enum` longer than this is written as a prefix tree ([`Builder::trie`]).
const TRIE_FROM: usize = 8;

/// The longest beginning all of `texts` share (at least the first character when all begin
/// with it), cut at a character boundary.
fn common_prefix<'t>(texts: &[&'t str]) -> &'t str {
    let Some(first) = texts.first() else {
        return "";
    };
    let mut end = first.len();
    for t in texts.iter().skip(1) {
        end = first
            .char_indices()
            .zip(t.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    first.get(..end).unwrap_or("")
}

/// A GBNF string literal for the JSON text of `v`.
fn literal(v: &Value) -> String {
    quoted(&v.to_string())
}

/// `text` as a GBNF string literal.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes `value`, `object` and `array`, the rules of a value the schema leaves free, with
/// at most `depth` objects and arrays nested (at least 1): level `d` is `value`, `object`,
/// `array` at 1 and `ValueD`, `ObjectD`, `ArrayD` below (capitalised: a rule built from a
/// schema is lower-case, so they never meet), and `Scalar` past the last level.
fn free_values(out: &mut String, depth: usize, max_items: usize) {
    let depth = depth.max(1);
    let more = max_items.saturating_sub(1);
    let name = |kind: &str, d: usize| {
        if d == 1 {
            kind.to_lowercase()
        } else {
            format!("{kind}{d}")
        }
    };
    let _ = writeln!(out, "Scalar ::= string | number | boolean | null");
    for d in 1..=depth {
        let inner = if d == depth {
            "Scalar".to_string()
        } else {
            name("Value", d + 1)
        };
        let (value, object, array) = (name("Value", d), name("Object", d), name("Array", d));
        let _ = writeln!(out, "{value} ::= {object} | {array} | Scalar");
        let _ = writeln!(
            out,
            "{object} ::= \"{{\" ws ( string ws \":\" ws {inner} ( ws \",\" ws string ws \":\" ws {inner} ){{0,{more}}} )? ws \"}}\""
        );
        let _ = writeln!(
            out,
            "{array} ::= \"[\" ws ( {inner} ( ws \",\" ws {inner} ){{0,{more}}} )? ws \"]\""
        );
    }
}

/// The rules `Builder::finish` always writes: no added rule may take one of these names (a
/// second definition would replace the first in llama.cpp).
const BUILTIN_RULES: &[&str] = &[
    "root", "ws", "char", "string", "number", "integer", "boolean", "null", "value", "object",
    "array",
];

struct Builder {
    limits: GrammarLimits,
    rules: Vec<(String, String)>,
    by_body: HashMap<String, String>,
    used: HashMap<String, usize>,
    /// Every rule name given out, so a suffixed name (`a-b` + `-2`) never meets a base one (`a-b-2`).
    taken: HashSet<String>,
}

impl Builder {
    fn new(limits: GrammarLimits) -> Self {
        Builder {
            limits,
            rules: Vec::new(),
            by_body: HashMap::new(),
            used: HashMap::new(),
            taken: HashSet::new(),
        }
    }

    /// Adds a rule (or reuses an identical one) and returns its name.
    /// A rule matching exactly one of `texts` (sorted, distinct), as a prefix tree: each rule
    /// offers the distinct next characters once, with the text they share after them, so the
    /// sampler follows a few branches instead of every value (a long `enum` of values that share
    /// beginnings, such as the spans of a request, costs what its distinct prefixes cost).
    fn trie(&mut self, hint: &str, texts: &[String]) -> String {
        let ends = texts.iter().any(String::is_empty);
        let mut alts = Vec::new();
        let mut rest = texts.iter().filter(|t| !t.is_empty()).peekable();
        while let Some(first) = rest.next() {
            let c = first.chars().next().unwrap_or_default();
            let mut group = vec![first.as_str()];
            while let Some(t) = rest.next_if(|t| t.starts_with(c)) {
                group.push(t);
            }
            let shared = common_prefix(&group);
            let tails: Vec<String> = group
                .iter()
                .map(|t| t[shared.len()..].to_string())
                .collect();
            if tails.iter().all(String::is_empty) {
                alts.push(quoted(shared));
            } else {
                let sub = self.trie(&format!("{hint}-t"), &tails);
                alts.push(format!("{} {sub}", quoted(shared)));
            }
        }
        let body = alts.join(" | ");
        let body = if ends { format!("( {body} )?") } else { body };
        self.add(hint, body)
    }

    fn add(&mut self, hint: &str, body: String) -> String {
        if let Some(name) = self.by_body.get(&body) {
            return name.clone();
        }
        let mut base: String = hint
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        if base.is_empty() || base.starts_with('-') {
            base.insert(0, 'r');
        }
        let n = self.used.entry(base.clone()).or_insert(0);
        let name = loop {
            *n += 1;
            let candidate = if *n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            if !BUILTIN_RULES.contains(&candidate.as_str()) && self.taken.insert(candidate.clone())
            {
                break candidate;
            }
        };
        self.by_body.insert(body.clone(), name.clone());
        self.rules.push((name.clone(), body));
        name
    }

    fn finish(self, root: String) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "root ::= {root}");
        for (name, body) in &self.rules {
            let _ = writeln!(out, "{name} ::= {body}");
        }
        let _ = writeln!(out, "ws ::= \" \"?");
        if self.limits.plain_strings {
            out.push_str("char ::= [^\"\\\\{}\\x7F\\x00-\\x1F]\n");
        } else {
            out.push_str(
                "char ::= [^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4})\n",
            );
        }
        out.push_str(&format!(
            "\
             string ::= \"\\\"\" char{{0,{}}} \"\\\"\"\n\
             number ::= \"-\"? ([0-9] | [1-9] [0-9]{{0,{}}}) (\".\" [0-9]{{1,{}}})?\n\
             integer ::= \"-\"? ([0-9] | [1-9] [0-9]{{0,{}}})\n\
             boolean ::= \"true\" | \"false\"\n\
             null ::= \"null\"\n",
            self.limits.max_string,
            self.limits.max_int_digits.saturating_sub(1),
            self.limits.max_frac_digits.max(1),
            self.limits.max_int_digits.saturating_sub(1),
        ));
        free_values(&mut out, self.limits.max_free_depth, self.limits.max_items);
        out
    }

    /// The rule (or inline expression) for a value of `schema`.
    fn rule_for(&mut self, schema: &Value, hint: &str, depth: usize) -> String {
        if depth > self.limits.max_depth {
            return "value".to_string();
        }
        let Some(obj) = schema.as_object() else {
            // `true` or anything unreadable: any value.
            return "value".to_string();
        };
        if let Some(c) = obj.get("const") {
            return literal(c);
        }
        if let Some(Value::Array(options)) = obj.get("enum") {
            if options.is_empty() {
                return "value".to_string();
            }
            if options.len() > TRIE_FROM {
                let mut texts: Vec<String> = options.iter().map(Value::to_string).collect();
                texts.sort();
                texts.dedup();
                return self.trie(hint, &texts);
            }
            let body = options.iter().map(literal).collect::<Vec<_>>().join(" | ");
            return self.add(hint, body);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = obj.get(key) {
                let alts: Vec<String> = options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| {
                        let merged = merge_siblings(obj, o, key);
                        self.rule_for(&merged, &format!("{hint}-{i}"), depth + 1)
                    })
                    .collect();
                if alts.is_empty() {
                    return "value".to_string();
                }
                return self.add(hint, alts.join(" | "));
            }
        }
        if let Some(Value::Array(all)) = obj.get("allOf") {
            if let [single] = all.as_slice() {
                let merged = merge_siblings(obj, single, "allOf");
                return self.rule_for(&merged, hint, depth + 1);
            }
            return "value".to_string();
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.typed(obj, t, hint, depth),
            Some(Value::Array(ts)) => {
                let alts: Vec<String> = ts
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.typed(obj, t, &format!("{hint}-{t}"), depth))
                    .collect();
                if alts.is_empty() {
                    "value".to_string()
                } else {
                    self.add(hint, alts.join(" | "))
                }
            }
            _ if obj.contains_key("properties") => self.object_rule(schema, hint, depth, false),
            _ => "value".to_string(),
        }
    }

    fn typed(&mut self, obj: &Map<String, Value>, t: &str, hint: &str, depth: usize) -> String {
        let nonneg = obj
            .get("minimum")
            .or_else(|| obj.get("exclusiveMinimum"))
            .and_then(Value::as_f64)
            .is_some_and(|m| m >= 0.0);
        match t {
            "string" => {
                let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                let max = obj
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX)
                    .min(self.limits.max_string as u64);
                let min = min.min(max);
                if min == 0 && max == self.limits.max_string as u64 {
                    "string".to_string()
                } else {
                    self.add(
                        &format!("string-{min}-{max}"),
                        format!("\"\\\"\" char{{{min},{max}}} \"\\\"\""),
                    )
                }
            }
            "number" if nonneg => self.add(
                "number-nonneg",
                format!(
                    "([0-9] | [1-9] [0-9]{{0,{}}}) (\".\" [0-9]{{1,{}}})?",
                    self.limits.max_int_digits.saturating_sub(1),
                    self.limits.max_frac_digits.max(1)
                ),
            ),
            "number" => "number".to_string(),
            "integer" if nonneg => self.add(
                "integer-nonneg",
                format!(
                    "[0-9] | [1-9] [0-9]{{0,{}}}",
                    self.limits.max_int_digits.saturating_sub(1)
                ),
            ),
            "integer" => "integer".to_string(),
            "boolean" => "boolean".to_string(),
            "null" => "null".to_string(),
            "array" => {
                let item = match obj.get("items") {
                    Some(items) => self.rule_for(items, &format!("{hint}-item"), depth + 1),
                    None => "value".to_string(),
                };
                let cap = self.limits.max_items.max(1);
                let min = usize::try_from(obj.get("minItems").and_then(Value::as_u64).unwrap_or(0))
                    .unwrap_or(usize::MAX)
                    .min(cap);
                let max = usize::try_from(
                    obj.get("maxItems")
                        .and_then(Value::as_u64)
                        .unwrap_or(cap as u64),
                )
                .unwrap_or(cap)
                .min(cap)
                .max(min);
                let body = if max == 0 {
                    "\"[\" ws \"]\"".to_string()
                } else {
                    let rest_min = min.saturating_sub(1);
                    let rest_max = max - 1;
                    let list = format!("{item} ( ws \",\" ws {item} ){{{rest_min},{rest_max}}}");
                    if min == 0 {
                        format!("\"[\" ws ( {list} )? ws \"]\"")
                    } else {
                        format!("\"[\" ws {list} ws \"]\"")
                    }
                };
                self.add(hint, body)
            }
            "object" => {
                let schema = Value::Object(obj.clone());
                self.object_rule(&schema, hint, depth, false)
            }
            _ => "value".to_string(),
        }
    }

    /// An object with its properties in schema order: required ones always, optional ones
    /// may be left out. Without properties: any object (or `{}` for `top`-level arguments).
    fn object_rule(&mut self, schema: &Value, hint: &str, depth: usize, top: bool) -> String {
        let props: Vec<(String, Value)> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        if props.is_empty() {
            return if top {
                self.add(hint, "\"{\" ws \"}\"".to_string())
            } else {
                "object".to_string()
            };
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // One key-value rule per property.
        let mut kvs = Vec::new();
        for (name, sub) in &props {
            let v = self.rule_for(sub, &format!("{hint}-{name}"), depth + 1);
            let kv = format!("{} ws \":\" ws {v}", literal(&Value::String(name.clone())));
            kvs.push((
                self.add(&format!("{hint}-{name}-kv"), kv),
                required.contains(&name.as_str()),
            ));
        }
        // rest_i: the properties from i on, each preceded by a comma (optional ones may be absent).
        // first_i: the properties from i on where the first present one has no comma.
        let n = kvs.len();
        let mut rest = vec![String::new(); n + 1];
        let mut first = vec![String::new(); n + 1];
        for i in (0..n).rev() {
            let (kv, req) = kvs.get(i).cloned().unwrap_or_default();
            let next_rest = rest.get(i + 1).cloned().unwrap_or_default();
            let next_first = first.get(i + 1).cloned().unwrap_or_default();
            let r = if req {
                format!("ws \",\" ws {kv} {next_rest}")
            } else {
                format!("( ws \",\" ws {kv} )? {next_rest}")
            };
            let seq = format!("{kv} {next_rest}").trim().to_string();
            let f = if req {
                seq
            } else if next_first.trim().is_empty() {
                format!("( {seq} )?")
            } else {
                format!("( {seq} | {next_first} )")
            };
            if let Some(slot) = rest.get_mut(i) {
                *slot = r.trim().to_string();
            }
            if let Some(slot) = first.get_mut(i) {
                *slot = f.trim().to_string();
            }
            // Name the pieces so the grammar stays linear in size.
            // `rest0` would never be used: the object starts with `from0`.
            if i > 0
                && let Some(slot) = rest.get_mut(i)
            {
                let body = slot.clone();
                *slot = self.add(&format!("{hint}-rest{i}"), body);
            }
            if let Some(slot) = first.get_mut(i) {
                let body = slot.clone();
                *slot = self.add(&format!("{hint}-from{i}"), body);
            }
        }
        let body = format!(
            "\"{{\" ws {} ws \"}}\"",
            first.first().cloned().unwrap_or_default()
        );
        self.add(hint, body)
    }
}

/// `option` with the sibling keys of its parent (description, defaults) it does not set itself,
/// minus the combinator `key`.
fn merge_siblings(parent: &Map<String, Value>, option: &Value, key: &str) -> Value {
    let Some(o) = option.as_object() else {
        return option.clone();
    };
    let mut m = o.clone();
    for (k, v) in parent {
        if k != key && k != "description" && k != "default" && !m.contains_key(k) {
            m.insert(k.clone(), v.clone());
        }
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rule names a grammar's bodies use that it never defines (quoted texts and character
    /// classes skipped).
    fn undefined_rules(g: &str) -> Vec<String> {
        let mut defined = HashSet::new();
        let mut used = Vec::new();
        for line in g.lines() {
            let Some((name, body)) = line.split_once(" ::= ") else {
                continue;
            };
            defined.insert(name.to_string());
            let (mut word, mut quoted, mut class, mut esc) = (String::new(), false, false, false);
            for c in body.chars().chain([' ']) {
                match c {
                    _ if esc => esc = false,
                    '\\' if quoted || class => esc = true,
                    '"' if !class => quoted = !quoted,
                    '[' if !quoted => class = true,
                    ']' if !quoted && class => class = false,
                    c if !quoted && !class && (c.is_ascii_alphanumeric() || c == '-') => {
                        word.push(c);
                        continue;
                    }
                    _ => {}
                }
                if !word.is_empty() && word.chars().any(|c| c.is_ascii_alphabetic()) {
                    used.push(std::mem::take(&mut word));
                }
                word.clear();
            }
        }
        used.retain(|u| !defined.contains(u));
        used.sort();
        used.dedup();
        used
    }

    #[test]
    fn free_values_nest_only_so_deep() {
        let s = spec(
            "search",
            json!({"type": "object", "properties": {
                "index": {"type": "string"},
                "queryBody": {"type": "object", "additionalProperties": {}}},
              "required": ["index", "queryBody"]}),
        );
        let limits = GrammarLimits {
            max_free_depth: 2,
            ..GrammarLimits::default()
        };
        let g = tool_call_grammar(&[s], &limits).unwrap();
        assert!(
            undefined_rules(&g).is_empty(),
            "{:?}\n{g}",
            undefined_rules(&g)
        );
        assert!(g.contains("value ::= object | array | Scalar"), "{g}");
        assert!(
            g.contains(r#"object ::= "{" ws ( string ws ":" ws Value2"#),
            "{g}"
        );
        assert!(
            g.contains(r#"Object2 ::= "{" ws ( string ws ":" ws Scalar"#),
            "{g}"
        );
        assert!(!g.contains("Value3"), "{g}");
        // Every default grammar is closed too.
        let g = tool_call_grammar(
            &[spec(
                "t",
                json!({"type": "object", "properties": {"x": {}}}),
            )],
            &GrammarLimits::default(),
        )
        .unwrap();
        assert!(
            undefined_rules(&g).is_empty(),
            "{:?}\n{g}",
            undefined_rules(&g)
        );
    }

    fn spec(name: &str, params: Value) -> ToolSpec {
        ToolSpec::new(name, "A tool.", params)
    }

    #[test]
    fn the_tool_name_comes_first_and_keys_keep_schema_order() {
        let s = spec(
            "convert",
            json!({"type": "object", "properties": {
                "zeta": {"type": "number", "minimum": 0},
                "alpha": {"$ref": "#/$defs/C"}},
              "required": ["zeta", "alpha"],
              "$defs": {"C": {"type": "string", "enum": ["USD", "EUR"]}}}),
        );
        let g = tool_call_grammar(&[s], &GrammarLimits::default()).unwrap();
        let root = g.lines().next().unwrap();
        assert!(
            root.starts_with(r#"root ::= "{" ws "\"tool\"" ws ":" ws ( call-convert )"#),
            "{root}"
        );
        assert!(
            g.contains(r#"call-convert ::= "\"convert\"" ws "," ws "\"arguments\"""#),
            "{g}"
        );
        // zeta before alpha, as in the schema (not alphabetical).
        let zeta = g.find(r#""\"zeta\"""#).unwrap();
        let alpha = g.find(r#""\"alpha\"""#).unwrap();
        assert!(zeta < alpha);
        assert!(g.contains(r#""\"USD\"" | "\"EUR\"""#), "{g}");
        assert!(g.contains("number-nonneg"), "minimum 0 drops the sign");
    }

    #[test]
    fn optional_properties_may_be_absent_without_stray_commas() {
        let s = spec(
            "q",
            json!({"type": "object", "properties": {
                "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}}}),
        );
        let g = tool_call_grammar(&[s], &GrammarLimits::default()).unwrap();
        // The first present property has no comma before it; later ones do.
        assert!(
            g.contains(r#"q-args-from0 ::= ( q-args-a-kv q-args-rest1 | q-args-from1 )"#),
            "{g}"
        );
        assert!(
            g.contains(r#"q-args-rest2 ::= ( ws "," ws q-args-c-kv )?"#),
            "{g}"
        );
        assert!(g.contains(r#"q-args-from2 ::= ( q-args-c-kv )?"#), "{g}");
    }

    #[test]
    fn choices_none_and_plain_strings() {
        let a = spec(
            "a",
            json!({"type": "object", "properties": {"x": {"type": "string", "maxLength": 5}}, "required": ["x"]}),
        );
        let b = spec("b", json!({"type": "object", "properties": {}}));
        let limits = GrammarLimits {
            allow_none: true,
            plain_strings: true,
            ..GrammarLimits::default()
        };
        let g = tool_call_grammar(&[a, b], &limits).unwrap();
        assert!(
            g.lines()
                .next()
                .unwrap()
                .contains(r#"( call-a | call-b | "\"none\"" ws "}" )"#),
            "{g}"
        );
        assert!(g.contains(r#"char{0,5}"#));
        assert!(g.contains(r#"char ::= [^"\\{}\x7F\x00-\x1F]"#), "{g}");
        assert_eq!(tool_call_grammar(&[], &limits), Err(GrammarError::NoTools));
    }

    /// Every text `rule` of grammar `g` matches, for grammars made of literals, rule names,
    /// alternatives and `( ... )?` groups only (what an enum's prefix tree is made of).
    fn texts_of(g: &str, rule: &str) -> Vec<String> {
        let rules: std::collections::HashMap<&str, &str> =
            g.lines().filter_map(|l| l.split_once(" ::= ")).collect();
        fn alts(body: &str) -> Vec<&str> {
            let (mut depth, mut quoted, mut esc, mut start) = (0, false, false, 0);
            let mut out = Vec::new();
            for (i, c) in body.char_indices() {
                match c {
                    _ if esc => esc = false,
                    '\\' if quoted => esc = true,
                    '"' => quoted = !quoted,
                    '(' if !quoted => depth += 1,
                    ')' if !quoted => depth -= 1,
                    '|' if !quoted && depth == 0 => {
                        out.push(body[start..i].trim());
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            out.push(body[start..].trim());
            out
        }
        fn expand(rules: &std::collections::HashMap<&str, &str>, body: &str) -> Vec<String> {
            let mut all = Vec::new();
            for alt in alts(body) {
                let mut acc = vec![String::new()];
                let mut rest = alt.trim();
                while !rest.is_empty() {
                    let (items, tail): (Vec<String>, &str) = if let Some(r) = rest.strip_prefix('"')
                    {
                        let mut end = 0;
                        let mut esc = false;
                        let mut lit = String::new();
                        for (i, c) in r.char_indices() {
                            if esc {
                                lit.push(c);
                                esc = false;
                            } else if c == '\\' {
                                esc = true;
                            } else if c == '"' {
                                end = i;
                                break;
                            } else {
                                lit.push(c);
                            }
                        }
                        (vec![lit], &r[end + 1..])
                    } else if let Some(r) = rest.strip_prefix('(') {
                        let close = r.rfind(")?").unwrap();
                        let mut v = expand(rules, &r[..close]);
                        v.push(String::new());
                        (v, &r[close + 2..])
                    } else {
                        let end = rest.find(' ').unwrap_or(rest.len());
                        (expand(rules, rules[&rest[..end]]), &rest[end..])
                    };
                    acc = acc
                        .iter()
                        .flat_map(|a| items.iter().map(move |b| format!("{a}{b}")))
                        .collect();
                    rest = tail.trim();
                }
                all.extend(acc);
            }
            all
        }
        let mut v = expand(&rules, rules[rule]);
        v.sort();
        v
    }

    #[test]
    fn long_enums_are_prefix_trees_matching_exactly_their_values() {
        let values = [
            "acme",
            "acme/webapp",
            "webapp",
            "a",
            "issue 17",
            "issue",
            "of acme/webapp",
            "17",
            "on",
            "on issue",
            "leave",
            "\"quoted\" \\ text",
            "é",
        ];
        let g = value_grammar(&json!({"enum": values}), &GrammarLimits::default());
        let mut want: Vec<String> = values.iter().map(|v| json!(v).to_string()).collect();
        want.sort();
        assert_eq!(texts_of(&g, "root"), want, "{g}");
        // Each rule offers each next character once.
        for line in g.lines().filter(|l| l.starts_with("value-")) {
            let body = line.split_once(" ::= ").unwrap().1;
            let body = body.trim_start_matches("( ").trim_end_matches(" )?");
            let firsts: Vec<String> = body
                .split(" | ")
                .map(|a| a.trim_start_matches('"').chars().take(2).collect())
                .collect();
            let mut distinct = firsts.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), firsts.len(), "{line}");
        }
        // A short enum stays a list of literals.
        let g = value_grammar(&json!({"enum": ["x", "y"]}), &GrammarLimits::default());
        assert!(g.contains(r#""\"x\"" | "\"y\"""#), "{g}");
    }

    #[test]
    fn several_calls_are_a_bounded_non_empty_list() {
        let a = spec(
            "a",
            json!({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}),
        );
        let limits = GrammarLimits {
            max_calls: 4,
            ..GrammarLimits::default()
        };
        let g = tool_call_grammar(std::slice::from_ref(&a), &limits).unwrap();
        assert!(
            g.lines()
                .next()
                .unwrap()
                .contains(r#"root ::= "[" ws one-call ( ws "," ws one-call ){0,3} ws "]""#),
            "{g}"
        );
        assert!(
            g.contains(r#"one-call ::= "{" ws "\"tool\"" ws ":" ws ( call-a )"#),
            "{g}"
        );
        // one call: the object alone, as before
        let g1 = tool_call_grammar(&[a], &GrammarLimits::default()).unwrap();
        assert!(g1.starts_with(r#"root ::= "{""#), "{g1}");
    }

    /// The rule names defined more than once in `g`.
    fn defined_twice(g: &str) -> Vec<String> {
        let mut seen = HashSet::new();
        g.lines()
            .filter_map(|l| l.split_once(" ::= ").map(|(n, _)| n.to_string()))
            .filter(|n| !seen.insert(n.clone()))
            .collect()
    }

    /// Found by the `gbnf` fuzz target: `value_grammar` named its own rule `value`, which the
    /// built-in `value` rule (any JSON value) then redefined.
    #[test]
    fn value_grammar_never_redefines_a_builtin_rule() {
        for schema in [
            json!({"enum": ["a", "b"]}),
            json!({"type": "object", "properties": {"mode": {"type": "null"}}}),
            json!({"type": "array", "items": {"type": "integer"}}),
        ] {
            let g = value_grammar(&schema, &GrammarLimits::default());
            assert_eq!(defined_twice(&g), Vec::<String>::new(), "{g}");
            let root = g.lines().next().unwrap();
            assert_ne!(root, "root ::= value", "{g}");
        }
        let g = value_grammar(&json!({"enum": ["a", "b"]}), &GrammarLimits::default());
        assert!(g.starts_with("root ::= value-2\n"), "{g}");
        assert!(g.contains(r#"value-2 ::= "\"a\"" | "\"b\"""#), "{g}");
    }

    /// A suffixed name (`x-a-b` + `-2`) must not meet a property whose own name ends in `-2`.
    #[test]
    fn rule_names_stay_unique_when_hints_collide() {
        let s = spec(
            "x",
            json!({"type": "object", "properties": {
                "a b": {"enum": [1]}, "a-b": {"enum": [2]}, "a-b-2": {"enum": [3]},
                "value": {"enum": [4]}}}),
        );
        let g = tool_call_grammar(&[s], &GrammarLimits::default()).unwrap();
        assert_eq!(defined_twice(&g), Vec::<String>::new(), "{g}");
    }

    #[test]
    fn unions_arrays_and_recursion_stay_bounded() {
        let s = spec(
            "t",
            json!({"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
                "maybe": {"type": ["integer", "null"]},
                "units": {"oneOf": [{"const": "c"}, {"const": "f"}]},
                "node": {"$ref": "#/$defs/Node"}},
              "required": ["tags"],
              "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}}),
        );
        let g = tool_call_grammar(&[s], &GrammarLimits::default()).unwrap();
        assert!(g.contains(r#"( ws "," ws string ){0,2}"#), "{g}");
        assert!(g.contains("integer | null"), "{g}");
        assert!(g.contains(r#""\"c\"" | "\"f\"""#), "{g}");
        assert!(g.len() < 20_000);
    }
}
