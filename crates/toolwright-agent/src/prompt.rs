//! Tool listings in plain text, for models that read tools from the prompt (prompted JSON and the
//! local model).

use serde_json::Value;
use std::fmt::Write as _;
use toolwright_core::ToolSpec;

/// A short type description of a schema: `string`, `integer ≥ 1`, `one of: USD, EUR`...
pub fn type_text(schema: &Value) -> String {
    let Some(o) = schema.as_object() else {
        return "any".to_string();
    };
    if let Some(c) = o.get("const") {
        return format!("exactly {c}");
    }
    if let Some(Value::Array(e)) = o.get("enum") {
        let items: Vec<String> = e
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), String::from))
            .collect();
        return format!("one of: {}", items.join(", "));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(opts)) = o.get(key) {
            let consts: Vec<String> = opts
                .iter()
                .filter_map(|x| x.get("const"))
                .map(|v| v.as_str().map_or_else(|| v.to_string(), String::from))
                .collect();
            if consts.len() == opts.len() && !consts.is_empty() {
                return format!("one of: {}", consts.join(", "));
            }
            let parts: Vec<String> = opts.iter().map(type_text).filter(|t| t != "null").collect();
            let nullable = opts
                .iter()
                .any(|x| x.get("type").and_then(Value::as_str) == Some("null"));
            let mut s = parts.join(" or ");
            if nullable {
                s.push_str(" (or null)");
            }
            return s;
        }
    }
    let mut base = match o.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            let mut s = names.join(" or ");
            if ts.iter().any(|t| t == "null") {
                s.push_str(" (or null)");
            }
            s
        }
        _ if o.contains_key("properties") => "object".to_string(),
        _ => "any".to_string(),
    };
    if base.starts_with("array")
        && let Some(items) = o.get("items")
    {
        base = format!("array of {}", type_text(items));
    }
    let mut bounds = Vec::new();
    if let Some(m) = o.get("minimum") {
        bounds.push(format!("≥ {m}"));
    }
    if let Some(m) = o.get("maximum") {
        bounds.push(format!("≤ {m}"));
    }
    if !bounds.is_empty() {
        base = format!("{base} {}", bounds.join(", "));
    }
    base
}

/// The first paragraph of a description.
pub fn first_paragraph(text: &str) -> &str {
    text.split("\n\n").next().unwrap_or(text).trim()
}

/// A tool written for a prompt: name, description, parameters (type, required, description,
/// default) and, when `examples`, its example arguments.
pub fn tool_text(spec: &ToolSpec, full_description: bool, examples: bool) -> String {
    let mut problems = Vec::new();
    let schema = toolwright_catalog::schema::inline_refs(&spec.parameters, &mut problems);
    let mut s = String::new();
    let desc = if full_description {
        spec.description.trim()
    } else {
        first_paragraph(&spec.description)
    };
    let _ = writeln!(s, "## {}\n{}", spec.name, desc);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match schema.get("properties").and_then(Value::as_object) {
        Some(props) if !props.is_empty() => {
            let _ = writeln!(s, "Parameters:");
            for (name, p) in props {
                let mut line = format!("- {name} ({}", type_text(p));
                if required.contains(&name.as_str()) {
                    line.push_str(", required");
                }
                if let Some(d) = p.get("default") {
                    let _ = write!(line, ", default {d}");
                }
                line.push(')');
                if let Some(d) = p.get("description").and_then(Value::as_str) {
                    let _ = write!(line, ": {}", d.trim());
                }
                let _ = writeln!(s, "{line}");
            }
        }
        _ => {
            let _ = writeln!(s, "Parameters: none");
        }
    }
    if examples {
        for ex in spec.meta.examples.iter().take(2) {
            let _ = writeln!(s, "Example args: {ex}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_read_like_a_person_would_write_them() {
        assert_eq!(
            type_text(&json!({"type": "string", "enum": ["a", "b"]})),
            "one of: a, b"
        );
        assert_eq!(
            type_text(&json!({"type": "integer", "minimum": 1, "maximum": 100})),
            "integer ≥ 1, ≤ 100"
        );
        assert_eq!(
            type_text(&json!({"type": ["string", "null"]})),
            "string (or null)"
        );
        assert_eq!(
            type_text(&json!({"oneOf": [{"const": "celsius"}, {"const": "fahrenheit"}]})),
            "one of: celsius, fahrenheit"
        );
        assert_eq!(
            type_text(&json!({"type": "array", "items": {"type": "string"}})),
            "array of string"
        );
    }

    #[test]
    fn tool_text_lists_parameters() {
        let spec = ToolSpec::new(
            "get_weather",
            "Current weather.\n\nUse it for weather.",
            json!({"type": "object", "properties": {"city": {"type": "string", "description": "City"},
                   "units": {"$ref": "#/$defs/U", "default": "celsius"}},
                   "required": ["city"], "$defs": {"U": {"enum": ["celsius", "fahrenheit"]}}}),
        );
        let t = tool_text(&spec, false, false);
        assert!(t.contains("- city (string, required): City"), "{t}");
        assert!(
            t.contains("- units (one of: celsius, fahrenheit, default \"celsius\")"),
            "{t}"
        );
        assert!(!t.contains("Use it for weather"));
    }
}
