//! JSON Schema helpers shared by the dialect export, the diff and the linter: reference
//! inlining, type sets and JSON Pointer escaping.

use serde_json::{Map, Value};

/// Deepest nesting the helpers follow; deeper parts are left as they are.
pub const MAX_DEPTH: usize = 48;
/// Most schema nodes [`inline_refs`] produces: references that fan out (A uses B twice, B uses C
/// twice, ...) grow exponentially, and past this size further references are cut.
pub const MAX_INLINED_NODES: usize = 50_000;

/// Escapes one JSON Pointer segment (`~` → `~0`, `/` → `~1`).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `base` + `/segment` (escaped).
pub fn child(base: &str, segment: &str) -> String {
    format!("{base}/{}", escape(segment))
}

/// Looks up a local reference (`#`, `#/$defs/X`, `#/definitions/X`, any `#/json/pointer`).
pub fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// A note about a reference that could not be inlined.
#[derive(Debug, Clone, PartialEq)]
pub struct RefProblem {
    /// Where the reference was.
    pub pointer: String,
    /// The reference.
    pub reference: String,
    /// `true` when the reference was cut (a cycle, or the inlined schema grew past
    /// [`MAX_INLINED_NODES`]); `false` for a reference that does not resolve.
    pub recursive: bool,
}

/// `schema` with every local `$ref` replaced by what it points to (sibling keywords kept, they win)
/// and `$defs`/`definitions` removed. A recursive reference is cut: it becomes
/// `{"type": "object", "description": "(recursive: X)"}`; an unresolvable one becomes `{}`. Both
/// are listed in `problems`.
pub fn inline_refs(schema: &Value, problems: &mut Vec<RefProblem>) -> Value {
    let mut stack = Vec::new();
    let mut budget = MAX_INLINED_NODES;
    let mut cx = Cx {
        root: schema,
        stack: &mut stack,
        problems,
        budget: &mut budget,
    };
    let mut out = inline(&mut cx, schema, "", 0);
    if let Value::Object(m) = &mut out {
        m.remove("$defs");
        m.remove("definitions");
    }
    out
}

struct Cx<'a> {
    root: &'a Value,
    stack: &'a mut Vec<String>,
    problems: &'a mut Vec<RefProblem>,
    budget: &'a mut usize,
}

fn inline(cx: &mut Cx<'_>, v: &Value, ptr: &str, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return v.clone();
    }
    *cx.budget = cx.budget.saturating_sub(1);
    let root = cx.root;
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                let name = r.rsplit('/').next().unwrap_or(r).to_string();
                if *cx.budget == 0 || cx.stack.iter().any(|s| s == r) {
                    cx.problems.push(RefProblem {
                        pointer: ptr.to_string(),
                        reference: r.to_string(),
                        recursive: true,
                    });
                    let mut cut = Map::new();
                    cut.insert("type".into(), Value::String("object".into()));
                    cut.insert(
                        "description".into(),
                        Value::String(format!("(recursive: {name})")),
                    );
                    return Value::Object(cut);
                }
                let Some(target) = lookup(root, r) else {
                    cx.problems.push(RefProblem {
                        pointer: ptr.to_string(),
                        reference: r.to_string(),
                        recursive: false,
                    });
                    let mut rest = m.clone();
                    rest.remove("$ref");
                    return inline(cx, &Value::Object(rest), ptr, depth + 1);
                };
                cx.stack.push(r.to_string());
                let mut resolved = inline(cx, target, ptr, depth + 1);
                cx.stack.pop();
                if let Value::Object(rm) = &mut resolved {
                    rm.remove("$defs");
                    rm.remove("definitions");
                    for (k, x) in m {
                        if k != "$ref" {
                            rm.insert(k.clone(), inline(cx, x, &child(ptr, k), depth + 1));
                        }
                    }
                }
                return resolved;
            }
            let mut out = Map::new();
            for (k, x) in m {
                if k == "$defs" || k == "definitions" {
                    continue;
                }
                let nested = match k.as_str() {
                    // Maps of names to schemas.
                    "properties" | "patternProperties" | "$defs" | "definitions"
                    | "dependentSchemas" => match x {
                        Value::Object(props) => Value::Object(
                            props
                                .iter()
                                .map(|(pk, pv)| {
                                    let p = child(&child(ptr, k), pk);
                                    (pk.clone(), inline(cx, pv, &p, depth + 1))
                                })
                                .collect(),
                        ),
                        other => other.clone(),
                    },
                    // Values that are data, not schemas.
                    "enum" | "const" | "default" | "examples" | "example" | "required" => x.clone(),
                    _ => inline(cx, x, &child(ptr, k), depth + 1),
                };
                out.insert(k.clone(), nested);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| inline(cx, x, &child(ptr, &i.to_string()), depth + 1))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The JSON types a schema allows, from `type` (string or array); empty when unconstrained.
pub fn types(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// The first non-null type of a schema, if any.
pub fn main_type(schema: &Value) -> Option<String> {
    types(schema).into_iter().find(|t| t != "null")
}

/// Names listed in `required`.
pub fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The `properties` map, if any.
pub fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inlines_defs_and_cuts_cycles() {
        let s = json!({
            "type": "object",
            "properties": {
                "money": {"$ref": "#/$defs/Money", "description": "How much."},
                "node": {"$ref": "#/$defs/Node"},
                "bad": {"$ref": "#/$defs/Nope"}
            },
            "$defs": {
                "Money": {"type": "object", "properties": {"amount": {"type": "number"}}},
                "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}
            }
        });
        let mut problems = Vec::new();
        let out = inline_refs(&s, &mut problems);
        assert!(out.get("$defs").is_none());
        assert_eq!(
            out["properties"]["money"]["properties"]["amount"]["type"],
            "number"
        );
        assert_eq!(out["properties"]["money"]["description"], "How much.");
        assert_eq!(
            out["properties"]["node"]["properties"]["next"]["type"],
            "object"
        );
        assert_eq!(problems.len(), 2);
        assert!(
            problems
                .iter()
                .any(|p| p.recursive && p.pointer == "/properties/node/properties/next")
        );
        assert!(
            problems
                .iter()
                .any(|p| !p.recursive && p.reference == "#/$defs/Nope")
        );
        assert!(!out.to_string().contains("$ref"));
    }

    #[test]
    fn fan_out_references_stay_bounded() {
        // D0 uses D1 twice, D1 uses D2 twice, ...: 2^30 nodes if inlined naively.
        let mut defs = serde_json::Map::new();
        for i in 0..30 {
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {
                    "a": {"$ref": format!("#/$defs/D{}", i + 1)},
                    "b": {"$ref": format!("#/$defs/D{}", i + 1)}}}),
            );
        }
        defs.insert("D30".into(), json!({"type": "string"}));
        let s =
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs});
        let t = std::time::Instant::now();
        let mut problems = Vec::new();
        let out = inline_refs(&s, &mut problems);
        assert!(t.elapsed().as_secs() < 5);
        assert!(!problems.is_empty());
        assert!(out.to_string().len() < 20_000_000);
    }

    #[test]
    fn escapes_pointers() {
        assert_eq!(child("", "a/b~c"), "/a~1b~0c");
    }
}
