//! Wrapper objects: a tool whose only parameter is an object of named fields (Neon's and
//! CircleCI's `{"params": {"projectId": …, "sql": …}}`, a Python server's `def tool(params:
//! Model)`, LINE's `{"message": {"type": …, "text": …}}`) is filled as if its fields were its
//! parameters, and the call is wrapped again before it leaves.
//!
//! Every argument pass reads a tool's top-level parameters: under a wrapper there is one, an
//! object, which none of them grounds, so the model wrote its fields freely and a 135M model
//! copied the tool's name into them (`{"params": {"projectId": "nolen_create_branch"}}`). With
//! the fields lifted, narrowing, grounding and the role cues see `projectId` and `branchName`
//! as they would see any tool's parameters.
//!
//! The wrapper is a field whose schema is an object with `properties` (inline or a local
//! `$ref`), and it is the schema's only property. The lifted schema keeps the field's
//! `required`, and the outer `$defs` / `definitions` so that references inside still resolve.
//! The runtime still validates the wrapped call against the advertised schema.

use serde_json::{Map, Value};
use toolwright_core::ToolSpec;

/// A tool's wrapper object: its field's name, and the fields whose schema fixes their value
/// (`const`), which the wrapped call always carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Wrapper {
    /// The wrapper's name in the tool's parameters (`params`).
    pub key: String,
    /// Fields with a `const` value (LINE's `"type": "text"`), written into every wrapped call
    /// that leaves them out: narrowing drops an optional field the request does not mention, and
    /// a fixed value is never wrong.
    pub consts: Map<String, Value>,
}

impl Wrapper {
    /// The arguments of a lifted call put back under the wrapper's name, with its `const`
    /// fields.
    ///
    /// ```
    /// use serde_json::{json, Map};
    /// use toolwright_local::wrapper::Wrapper;
    /// let w = Wrapper { key: "message".into(), consts: Map::from_iter([("type".into(), json!("text"))]) };
    /// assert_eq!(w.wrap(json!({"text": "hi"})), json!({"message": {"type": "text", "text": "hi"}}));
    /// ```
    pub fn wrap(&self, args: Value) -> Value {
        let args = match args {
            Value::Object(mut m) => {
                for (k, v) in &self.consts {
                    m.entry(k.clone()).or_insert_with(|| v.clone());
                }
                Value::Object(m)
            }
            other => other,
        };
        wrap(args, &self.key)
    }
}

/// `spec` with the fields of its wrapper object as its parameters, and the wrapper; `None` when
/// the tool has no wrapper.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::ToolSpec;
/// use toolwright_local::wrapper::unwrap;
///
/// let spec = ToolSpec::new("create_branch", "Create a branch in a Neon project",
///     json!({"type": "object", "required": ["params"], "properties": {
///         "params": {"type": "object", "required": ["projectId"], "properties": {
///             "projectId": {"type": "string"}, "branchName": {"type": "string"}}}}}));
/// let (lifted, wrapper) = unwrap(&spec).unwrap();
/// assert_eq!(wrapper.key, "params");
/// assert_eq!(lifted.parameters["required"], json!(["projectId"]));
/// assert!(lifted.parameters["properties"]["branchName"].is_object());
/// ```
pub fn unwrap(spec: &ToolSpec) -> Option<(ToolSpec, Wrapper)> {
    let params = spec.parameters.as_object()?;
    let props = params.get("properties")?.as_object()?;
    let [(key, field)] = props.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let inner = resolve(field, params)?;
    let fields = inner.get("properties")?.as_object()?;
    let is_object = inner.get("type").is_none_or(|t| t == "object");
    if fields.is_empty() || !is_object {
        return None;
    }
    let mut lifted: Map<String, Value> = inner.clone();
    lifted.insert("type".into(), Value::String("object".into()));
    for defs in ["$defs", "definitions"] {
        if let Some(d) = params.get(defs)
            && !lifted.contains_key(defs)
        {
            lifted.insert(defs.into(), d.clone());
        }
    }
    let consts = fields
        .iter()
        .filter_map(|(k, f)| Some((k.clone(), f.get("const")?.clone())))
        .collect();
    let mut out = spec.clone();
    out.parameters = Value::Object(lifted);
    Some((
        out,
        Wrapper {
            key: key.clone(),
            consts,
        },
    ))
}

/// The field's schema, following one local reference (`#/$defs/X`, `#/definitions/X`).
fn resolve<'a>(field: &'a Value, root: &'a Map<String, Value>) -> Option<&'a Map<String, Value>> {
    let field = field.as_object()?;
    let Some(r) = field.get("$ref").and_then(Value::as_str) else {
        return Some(field);
    };
    let (defs, name) = r
        .strip_prefix("#/$defs/")
        .map(|n| ("$defs", n))
        .or_else(|| r.strip_prefix("#/definitions/").map(|n| ("definitions", n)))?;
    root.get(defs)?.get(name)?.as_object()
}

/// The arguments of a lifted call put back under the wrapper's name.
///
/// ```
/// use serde_json::json;
/// use toolwright_local::wrapper::wrap;
/// assert_eq!(wrap(json!({"projectId": "p1"}), "params"), json!({"params": {"projectId": "p1"}}));
/// ```
pub fn wrap(args: Value, key: &str) -> Value {
    let mut m = Map::new();
    m.insert(key.to_string(), args);
    Value::Object(m)
}

/// The fields of a wrapped call (the arguments themselves when they are not wrapped under
/// `key`), to show the model the call it wrote in the shape it was asked for.
pub fn fields<'a>(args: &'a Value, key: &str) -> &'a Value {
    match args.as_object() {
        Some(m) if m.len() == 1 => m.get(key).unwrap_or(args),
        _ => args,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(parameters: Value) -> ToolSpec {
        ToolSpec::new("t", "a tool", parameters)
    }

    #[test]
    fn a_referenced_wrapper_is_lifted_with_its_definitions() {
        // What pydantic writes for `def tool(params: Query)`.
        let s = spec(json!({"type": "object", "required": ["params"],
            "properties": {"params": {"$ref": "#/$defs/Query"}},
            "$defs": {"Query": {"type": "object", "required": ["sql"],
                "properties": {"sql": {"type": "string"}, "when": {"$ref": "#/$defs/When"}}},
                "When": {"type": "string", "format": "date"}}}));
        let (lifted, wrapper) = unwrap(&s).unwrap();
        assert_eq!(wrapper.key, "params");
        assert!(wrapper.consts.is_empty());
        assert_eq!(lifted.parameters["required"], json!(["sql"]));
        assert_eq!(
            lifted.parameters["$defs"]["When"]["format"], "date",
            "{}",
            lifted.parameters
        );
    }

    #[test]
    fn a_fixed_field_left_out_is_written_back() {
        let s = spec(
            json!({"type": "object", "required": ["message"], "properties": {
            "message": {"type": "object", "required": ["text"], "properties": {
                "type": {"type": "string", "const": "text", "default": "text"},
                "text": {"type": "string"}}}}}),
        );
        let (_, wrapper) = unwrap(&s).unwrap();
        assert_eq!(
            wrapper.wrap(json!({"text": "closed on Monday"})),
            json!({"message": {"type": "text", "text": "closed on Monday"}})
        );
    }

    #[test]
    fn only_a_sole_object_of_fields_is_a_wrapper() {
        let two = spec(json!({"type": "object", "properties": {
            "params": {"type": "object", "properties": {"a": {"type": "string"}}},
            "b": {"type": "string"}}}));
        assert!(unwrap(&two).is_none());
        let free = spec(json!({"type": "object", "properties": {
            "queryBody": {"type": "object", "additionalProperties": true}}}));
        assert!(unwrap(&free).is_none());
        let text = spec(json!({"type": "object", "properties": {"q": {"type": "string"}}}));
        assert!(unwrap(&text).is_none());
        let dangling = spec(json!({"type": "object",
            "properties": {"params": {"$ref": "#/$defs/Missing"}}}));
        assert!(unwrap(&dangling).is_none());
    }

    #[test]
    fn the_fields_of_a_wrapped_call_are_read_back() {
        let wrapped = json!({"params": {"projectId": "p1"}});
        assert_eq!(fields(&wrapped, "params"), &json!({"projectId": "p1"}));
        let flat = json!({"projectId": "p1"});
        assert_eq!(fields(&flat, "params"), &flat);
    }
}
