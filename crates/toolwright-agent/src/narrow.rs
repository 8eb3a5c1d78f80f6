//! Narrowing a tool's schema to what a query mentions, for a small local model.
//!
//! A 135M-parameter model fills arguments well when there is little to choose from, and badly
//! when optional parameters and long enums invite it to invent values (`"city": "celsius"`,
//! `"from_currency": "USD"` for "250 GBP"). Before the grammar is built, [`narrow_for_query`]:
//!
//! - drops optional parameters the query does not mention (by name, or by one of their allowed
//!   values), so the tool's defaults apply;
//! - restricts enum parameters to the values the query mentions, when it mentions at least as
//!   many values as there are parameters sharing that enum (`from`/`to` currency: "GBP" and
//!   "JPY" → both restricted to {GBP, JPY}; the model still chooses the order).
//!
//! The narrowed schema only admits values the real schema admits; the runtime still validates
//! every call against the tool's advertised schema.

use serde_json::{Map, Value, json};
use toolwright_core::ToolSpec;

/// Lowercase words of `text` (letters and digits).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether the query mentions `value`: a query word equal to it, or starting with it (plurals),
/// for values of 2 characters or more.
fn mentions(query_words: &[String], value: &str) -> bool {
    let v = value.to_lowercase();
    if v.chars().count() < 2 {
        return false;
    }
    let parts = words(&v);
    match parts.as_slice() {
        [] => false,
        [single] => query_words.iter().any(|w| {
            w == single || (w.starts_with(single.as_str()) && w.len() <= single.len() + 2)
        }),
        many => query_words
            .windows(many.len())
            .any(|win| win.iter().zip(many).all(|(a, b)| a == b)),
    }
}

/// The allowed string values of a property (its `enum`, or the consts/enums of its `anyOf`/`oneOf`).
fn enum_values(schema: &Value) -> Option<Vec<String>> {
    if let Some(Value::Array(e)) = schema.get("enum") {
        return Some(
            e.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
        );
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(opts)) = schema.get(key) {
            let mut vals = Vec::new();
            for o in opts {
                if o.get("type").and_then(Value::as_str) == Some("null") {
                    continue;
                }
                if let Some(c) = o.get("const").and_then(Value::as_str) {
                    vals.push(c.to_string());
                } else if let Some(inner) = enum_values(o) {
                    vals.extend(inner);
                } else {
                    return None;
                }
            }
            return (!vals.is_empty()).then_some(vals);
        }
    }
    None
}

/// What [`narrow_for_query`] changed, for the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narrowing {
    /// Optional parameters left out.
    pub dropped: Vec<String>,
    /// Parameters restricted to mentioned values, with those values.
    pub restricted: Vec<(String, Vec<String>)>,
    /// Optional parameters whose value the query names, made required so the model sets them.
    pub promoted: Vec<String>,
}

impl Narrowing {
    /// A sentence for the trace, or `None` when nothing changed.
    pub fn describe(&self, tool: &str) -> Option<String> {
        if self.dropped.is_empty() && self.restricted.is_empty() && self.promoted.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if !self.dropped.is_empty() {
            parts.push(format!(
                "left out optional parameters the query does not mention ({})",
                self.dropped.join(", ")
            ));
        }
        if !self.promoted.is_empty() {
            parts.push(format!(
                "made {} required because the query names a value",
                self.promoted.join(", ")
            ));
        }
        for (p, vals) in &self.restricted {
            parts.push(format!(
                "restricted {p} to the values the query mentions ({})",
                vals.join(", ")
            ));
        }
        Some(format!("{tool}: {}", parts.join("; ")))
    }
}

/// `spec` with its parameters narrowed to what `query` mentions (see the module docs).
pub fn narrow_for_query(spec: &ToolSpec, query: &str) -> (ToolSpec, Narrowing) {
    let mut problems = Vec::new();
    let schema = toolwright_catalog::schema::inline_refs(&spec.parameters, &mut problems);
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return (spec.clone(), Narrowing::default());
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let qw = words(query);
    let mut report = Narrowing::default();
    let mut kept = Map::new();
    for (name, p) in props {
        let is_required = required.contains(&name.as_str());
        let values = enum_values(p);
        let name_mentioned = mentions(&qw, &name.replace('_', " "));
        let value_mentioned = values
            .as_ref()
            .is_some_and(|v| v.iter().any(|x| mentions(&qw, x)));
        if !is_required && !name_mentioned && !value_mentioned {
            report.dropped.push(name.clone());
            continue;
        }
        if !is_required && value_mentioned {
            report.promoted.push(name.clone());
        }
        kept.insert(name.clone(), p.clone());
    }
    // Enum restriction, per group of parameters sharing one set of values.
    let mut groups: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for (name, p) in &kept {
        if let Some(vals) = enum_values(p) {
            match groups.iter_mut().find(|(v, _)| *v == vals) {
                Some((_, names)) => names.push(name.clone()),
                None => groups.push((vals, vec![name.clone()])),
            }
        }
    }
    for (vals, names) in groups {
        let mentioned: Vec<String> = vals.iter().filter(|v| mentions(&qw, v)).cloned().collect();
        if mentioned.is_empty() || mentioned.len() < names.len() || mentioned.len() == vals.len() {
            continue;
        }
        for n in names {
            if let Some(p) = kept.get_mut(&n) {
                let mut m = Map::new();
                m.insert("type".into(), json!("string"));
                m.insert("enum".into(), json!(mentioned));
                if let Some(d) = p.get("description") {
                    m.insert("description".into(), d.clone());
                }
                *p = Value::Object(m);
                report.restricted.push((n.clone(), mentioned.clone()));
            }
        }
    }
    let mut out = spec.clone();
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    let kept_required: Vec<Value> = kept
        .keys()
        .filter(|k| required.contains(&k.as_str()) || report.promoted.contains(k))
        .map(|k| json!(k))
        .collect();
    root.insert("properties".into(), Value::Object(kept));
    root.insert("required".into(), Value::Array(kept_required));
    out.parameters = Value::Object(root);
    (out, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn currency() -> ToolSpec {
        ToolSpec::new(
            "convert_currency",
            "Convert.",
            json!({"type": "object", "properties": {
                "amount": {"type": "number"},
                "from_currency": {"$ref": "#/$defs/C"},
                "to_currency": {"$ref": "#/$defs/C"}},
              "required": ["amount", "from_currency", "to_currency"],
              "$defs": {"C": {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY"]}}}),
        )
    }

    #[test]
    fn enums_narrow_to_mentioned_values_when_enough_are_mentioned() {
        let (s, r) = narrow_for_query(&currency(), "Convert 250 GBP to JPY");
        assert_eq!(
            s.parameters["properties"]["from_currency"]["enum"],
            json!(["GBP", "JPY"])
        );
        assert_eq!(r.restricted.len(), 2);
        // One currency named for two parameters: no restriction.
        let (s, r) = narrow_for_query(&currency(), "Convert 100 dollars to EUR");
        assert_eq!(
            s.parameters["properties"]["from_currency"]["enum"],
            json!(["USD", "EUR", "GBP", "JPY"])
        );
        assert!(r.restricted.is_empty());
    }

    #[test]
    fn unmentioned_optional_parameters_are_left_out() {
        let weather = ToolSpec::new(
            "get_weather",
            "Weather.",
            json!({"type": "object", "properties": {
                "city": {"type": "string"},
                "units": {"oneOf": [{"const": "celsius"}, {"const": "fahrenheit"}], "default": "celsius"}},
              "required": ["city"]}),
        );
        let (s, r) = narrow_for_query(&weather, "Is it raining in Tokyo?");
        assert!(s.parameters["properties"].get("units").is_none());
        assert_eq!(r.dropped, vec!["units".to_string()]);
        let (s, _) = narrow_for_query(&weather, "Weather in Tokyo in fahrenheit");
        assert!(s.parameters["properties"].get("units").is_some());
    }

    #[test]
    fn optional_enums_are_kept_and_restricted_when_mentioned() {
        let users = ToolSpec::new(
            "query_users",
            "Users.",
            json!({"type": "object", "properties": {
                "name": {"type": ["string", "null"]},
                "role": {"anyOf": [{"type": "string", "enum": ["admin", "developer", "manager"]}, {"type": "null"}]},
                "department": {"anyOf": [{"type": "string", "enum": ["engineering", "sales"]}, {"type": "null"}]},
                "limit": {"type": "integer"}}}),
        );
        let (s, r) = narrow_for_query(&users, "Who are the admins in engineering?");
        let props = s.parameters["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), vec!["role", "department"]);
        assert_eq!(props["role"]["enum"], json!(["admin"]));
        assert_eq!(r.dropped, vec!["name".to_string(), "limit".to_string()]);
        assert_eq!(
            r.promoted,
            vec!["role".to_string(), "department".to_string()]
        );
        assert_eq!(s.parameters["required"], json!(["role", "department"]));
    }
}
