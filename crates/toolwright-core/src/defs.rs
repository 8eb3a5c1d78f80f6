//! Tool definitions that come from elsewhere: an OpenAI `tools` array, bare
//! `{name, description, parameters}` objects, an MCP `tools/list` result, or BFCL-style entries.

use crate::spec::ToolSpec;
use serde_json::Value;

/// Parses definitions in any of the common external forms into specs.
///
/// Accepted: an array (or a `{"tools": [...]}` object) whose items are
/// `{"type":"function","function":{name, description, parameters}}` (OpenAI),
/// `{name, description, parameters}` (bare, BFCL), `{name, description, inputSchema}` (MCP) or
/// `{name, description, input_schema}` (Anthropic); a single such object works too. BFCL's
/// `"type": "dict"` is read as `"object"`.
///
/// ```
/// let defs = serde_json::json!([{"type": "function", "function": {"name": "get_weather",
///     "description": "Weather for a city.", "parameters": {"type": "object",
///     "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]);
/// let specs = toolwright_core::defs::parse_definitions(&defs).unwrap();
/// assert_eq!(specs[0].name, "get_weather");
/// ```
///
/// # Errors
/// A message naming the item that has no usable name.
pub fn parse_definitions(v: &Value) -> Result<Vec<ToolSpec>, String> {
    let items: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Object(m) => match m.get("tools").or_else(|| m.get("functions")) {
            Some(Value::Array(a)) => a.iter().collect(),
            _ => vec![v],
        },
        _ => return Err("definitions must be a JSON array or object".to_string()),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| parse_one(item).ok_or_else(|| format!("definition {i} has no `name`")))
        .collect()
}

fn parse_one(item: &Value) -> Option<ToolSpec> {
    let f = item
        .get("function")
        .filter(|f| f.is_object())
        .unwrap_or(item);
    let name = f.get("name")?.as_str()?.to_string();
    let description = f
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let parameters = ["parameters", "inputSchema", "input_schema"]
        .iter()
        .find_map(|k| f.get(*k))
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    let mut spec = ToolSpec::new(name, description, normalize_schema(parameters));
    if let Some(ann) = f.get("annotations") {
        if ann.get("readOnlyHint").and_then(Value::as_bool) == Some(true) {
            spec.meta.side_effects = crate::SideEffects::Read;
        }
        if ann.get("destructiveHint").and_then(Value::as_bool) == Some(true)
            && spec.meta.side_effects != crate::SideEffects::Read
        {
            spec.meta.side_effects = crate::SideEffects::Destructive;
        }
        if ann.get("idempotentHint").and_then(Value::as_bool) == Some(true) {
            spec.meta.idempotent = true;
        }
        if let Some(t) = ann.get("title").and_then(Value::as_str) {
            spec.meta.display_label = Some(t.to_string());
        }
    }
    Some(spec)
}

/// Rewrites dialect quirks into JSON Schema: BFCL's `dict` → `object`, `float` → `number`,
/// `tuple` → `array`, `any` → no type; Python type names such as `str`/`int`/`bool`/`list`.
pub fn normalize_schema(mut v: Value) -> Value {
    fix(&mut v, 0);
    v
}

fn fix(v: &mut Value, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Object(m) => {
            let mut drop_type = false;
            if let Some(Value::String(t)) = m.get_mut("type") {
                let mapped = match t.as_str() {
                    "dict" | "object" => Some("object"),
                    "float" | "double" | "number" => Some("number"),
                    "int" | "integer" | "long" => Some("integer"),
                    "str" | "string" | "String" => Some("string"),
                    "bool" | "boolean" => Some("boolean"),
                    "list" | "tuple" | "array" | "set" => Some("array"),
                    "null" | "None" => Some("null"),
                    "any" | "Any" => None,
                    _ => Some("string"),
                };
                match mapped {
                    Some(n) => *t = n.to_string(),
                    None => drop_type = true,
                }
            }
            if drop_type {
                m.remove("type");
            }
            for (k, x) in m.iter_mut() {
                // `properties` is a map of names to schemas; everything else nests schemas directly.
                if k == "properties" || k == "$defs" || k == "definitions" {
                    if let Value::Object(props) = x {
                        for p in props.values_mut() {
                            fix(p, depth + 1);
                        }
                    }
                } else if k != "enum" && k != "const" && k != "default" && k != "examples" {
                    fix(x, depth + 1);
                }
            }
        }
        Value::Array(a) => {
            for x in a {
                fix(x, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_three_common_forms() {
        let openai =
            json!([{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]);
        let bare = json!([{"name":"b","description":"d","parameters":{"type":"dict","properties":{"x":{"type":"float"}}}}]);
        let mcp = json!({"tools":[{"name":"c","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]});
        assert_eq!(parse_definitions(&openai).map(|s| s.len()), Ok(1));
        let b = parse_definitions(&bare).unwrap_or_default();
        assert_eq!(b[0].parameters["type"], "object");
        assert_eq!(b[0].parameters["properties"]["x"]["type"], "number");
        let c = parse_definitions(&mcp).unwrap_or_default();
        assert_eq!(c[0].meta.side_effects, crate::SideEffects::Read);
        assert!(parse_definitions(&json!([{"nope": 1}])).is_err());
        assert!(parse_definitions(&json!(3)).is_err());
    }
}
