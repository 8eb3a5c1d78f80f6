//! JSON Schema helpers shared by the dialect export, the diff and the linter: reference
//! inlining, type sets and JSON Pointer escaping.

use serde_json::{Map, Value};

/// Deepest nesting the helpers follow; deeper parts are left as they are.
pub const MAX_DEPTH: usize = 48;

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
    /// `true` for a cycle, `false` for a reference that does not resolve.
    pub recursive: bool,
}

/// `schema` with every local `$ref` replaced by what it points to (sibling keywords kept, they win)
/// and `$defs`/`definitions` removed. A recursive reference is cut: it becomes
/// `{"type": "object", "description": "(recursive: X)"}`; an unresolvable one becomes `{}`. Both
/// are listed in `problems`.
pub fn inline_refs(schema: &Value, problems: &mut Vec<RefProblem>) -> Value {
    let mut stack = Vec::new();
    let mut out = inline(schema, schema, "", &mut stack, problems, 0);
    if let Value::Object(m) = &mut out {
        m.remove("$defs");
        m.remove("definitions");
    }
    out
}

fn inline(
    root: &Value,
    v: &Value,
    ptr: &str,
    stack: &mut Vec<String>,
    problems: &mut Vec<RefProblem>,
    depth: usize,
) -> Value {
    if depth > MAX_DEPTH {
        return v.clone();
    }
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                let name = r.rsplit('/').next().unwrap_or(r).to_string();
                if stack.iter().any(|s| s == r) {
                    problems.push(RefProblem {
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
                    problems.push(RefProblem {
                        pointer: ptr.to_string(),
                        reference: r.to_string(),
                        recursive: false,
                    });
                    let mut rest = m.clone();
                    rest.remove("$ref");
                    return inline(root, &Value::Object(rest), ptr, stack, problems, depth + 1);
                };
                stack.push(r.to_string());
                let mut resolved = inline(root, target, ptr, stack, problems, depth + 1);
                stack.pop();
                if let Value::Object(rm) = &mut resolved {
                    rm.remove("$defs");
                    rm.remove("definitions");
                    for (k, x) in m {
                        if k != "$ref" {
                            rm.insert(
                                k.clone(),
                                inline(root, x, &child(ptr, k), stack, problems, depth + 1),
                            );
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
                                    (pk.clone(), inline(root, pv, &p, stack, problems, depth + 1))
                                })
                                .collect(),
                        ),
                        other => other.clone(),
                    },
                    // Values that are data, not schemas.
                    "enum" | "const" | "default" | "examples" | "example" | "required" => x.clone(),
                    _ => inline(root, x, &child(ptr, k), stack, problems, depth + 1),
                };
                out.insert(k.clone(), nested);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| {
                    inline(
                        root,
                        x,
                        &child(ptr, &i.to_string()),
                        stack,
                        problems,
                        depth + 1,
                    )
                })
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
    fn escapes_pointers() {
        assert_eq!(child("", "a/b~c"), "/a~1b~0c");
    }
}
