//! Tool definitions that come from elsewhere: an OpenAI `tools` array, bare
//! `{name, description, parameters}` objects, or an MCP `tools/list` result.
//!
//! Schemas are taken as JSON Schema, as they are written: a format that names its types
//! otherwise is rewritten by whoever knows that format before the definitions reach this module.

use crate::spec::ToolSpec;
use serde_json::Value;

/// Parses definitions in any of the common external forms into specs.
///
/// Accepted: an array (or a `{"tools": [...]}` object) whose items are
/// `{"type":"function","function":{name, description, parameters}}` (OpenAI),
/// `{name, description, parameters}` (bare), `{name, description, inputSchema}` (MCP) or
/// `{name, description, input_schema}` (Anthropic); a single such object works too. A
/// definition without a schema takes an empty object schema.
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
/// [`DefinitionError`]: the value is neither an array nor an object, or an item has no usable
/// name.
pub fn parse_definitions(v: &Value) -> Result<Vec<ToolSpec>, DefinitionError> {
    let items: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        Value::Object(m) => match m.get("tools").or_else(|| m.get("functions")) {
            Some(Value::Array(a)) => a.iter().collect(),
            _ => vec![v],
        },
        _ => return Err(DefinitionError::NotAList),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| parse_one(item).ok_or(DefinitionError::NoName(i)))
        .collect()
}

/// Why external definitions could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionError {
    /// The value is neither a JSON array nor an object.
    NotAList,
    /// The item at this index has no string `name`.
    NoName(usize),
}

impl std::fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DefinitionError::NotAList => write!(f, "definitions must be a JSON array or object"),
            DefinitionError::NoName(i) => write!(f, "definition {i} has no `name`"),
        }
    }
}

impl std::error::Error for DefinitionError {}

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
    let mut spec = ToolSpec::new(name, description, parameters);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_three_common_forms() {
        let openai =
            json!([{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]);
        let bare = json!([{"name":"b","description":"d","parameters":{"type":"object","properties":{"x":{"type":"number"}}}}]);
        let mcp = json!({"tools":[{"name":"c","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]});
        assert_eq!(parse_definitions(&openai).map(|s| s.len()), Ok(1));
        let b = parse_definitions(&bare).unwrap_or_default();
        assert_eq!(b[0].parameters["type"], "object");
        assert_eq!(b[0].parameters["properties"]["x"]["type"], "number");
        let c = parse_definitions(&mcp).unwrap_or_default();
        assert_eq!(c[0].meta.side_effects, crate::SideEffects::Read);
        let e = parse_definitions(&json!([{"nope": 1}])).unwrap_err();
        assert_eq!(e, DefinitionError::NoName(0));
        assert_eq!(e.to_string(), "definition 0 has no `name`");
        assert_eq!(
            parse_definitions(&json!(3)).unwrap_err().to_string(),
            "definitions must be a JSON array or object"
        );
    }
}
