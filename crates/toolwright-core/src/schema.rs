//! Schema generation for `#[tool]` functions (JSON Schema draft 2020-12 via schemars).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The schema of `T` as a tool's argument object: draft 2020-12, no `title`/`$schema`,
/// `additionalProperties: false` at the root.
pub fn schema_for<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut v = schema.to_value();
    if let Value::Object(m) = &mut v {
        m.remove("title");
        m.remove("$schema");
        if m.get("type").and_then(Value::as_str) == Some("object") {
            m.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            m.entry("additionalProperties")
                .or_insert(Value::Bool(false));
        }
    }
    v
}

/// The schema for a `#[tool]` function's generated argument struct `T`. When `single` is set
/// (the function has one parameter) and that parameter is a struct, the struct's own schema
/// becomes the tool's schema, so its fields are the tool's arguments. Returns the schema and
/// whether that flattening happened.
pub fn params_schema<T: JsonSchema>(single: bool) -> (Value, bool) {
    let wrapper = schema_for::<T>();
    if !single {
        return (wrapper, false);
    }
    let Some(prop) = wrapper
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.values().next())
    else {
        return (wrapper, false);
    };
    let target = crate::validate::resolve(&wrapper, prop);
    let is_struct = target.get("type").and_then(Value::as_str) == Some("object")
        && target.get("properties").is_some();
    if !is_struct {
        return (wrapper, false);
    }
    let mut inner = target.clone();
    let own_def = prop
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .map(str::to_string);
    if let Value::Object(m) = &mut inner {
        m.remove("title");
        m.entry("additionalProperties")
            .or_insert(Value::Bool(false));
        if let Some(Value::Object(defs)) = wrapper.get("$defs") {
            let mut defs = defs.clone();
            if let Some(own) = &own_def {
                // Keep the struct's own definition only if it refers to itself.
                let self_ref = format!("#/$defs/{own}");
                if !inner_refers_to(&Value::Object(m.clone()), &self_ref) {
                    defs.remove(own);
                }
            }
            if !defs.is_empty() {
                m.insert("$defs".to_string(), Value::Object(defs));
            }
        }
    }
    (inner, true)
}

fn inner_refers_to(v: &Value, r: &str) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, x)| (k == "$ref" && x.as_str() == Some(r)) || inner_refers_to(x, r)),
        Value::Array(a) => a.iter().any(|x| inner_refers_to(x, r)),
        _ => false,
    }
}

/// Whether `schema` describes an object at its root (`"type": "object"`), as MCP requires of
/// an `outputSchema`.
pub fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The schema of a tool's return type `T` (draft 2020-12, no `$schema`), or `None` when it is
/// not an object schema: structs and maps have one, strings, numbers, arrays, `Value` and
/// enums do not.
pub fn output_schema_for<T: JsonSchema>() -> Option<Value> {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut v = schema.to_value();
    if let Value::Object(m) = &mut v {
        m.remove("$schema");
    }
    is_object_schema(&v).then_some(v)
}

/// The key under which [`envelope_schema`] keeps a data schema that refers to its own root.
const DATA_DEF: &str = "ToolwrightData";

/// The JSON Schema (2020-12) of the whole envelope of a tool whose successful `data` follows
/// `data` (a [`ToolSpec::output_schema`](crate::ToolSpec::output_schema)): what the MCP
/// server advertises as `outputSchema`, because `structuredContent` is the envelope.
///
/// `status`, `message` and `meta` are always there; `error` has its code, message, suggestion
/// and retryability. `data` must follow `data` when the status is `success` and no fallback
/// answered (`meta.fallback_from` absent). A `partial` result is cut to the output budget, a
/// `needs_confirmation` one carries the preview and a fallback's is another tool's, so their
/// `data` is left open. The data schema's `$defs` move to the root so its references resolve.
///
/// ```
/// use serde_json::json;
/// let data = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
/// let env = toolwright_core::schema::envelope_schema(&data);
/// assert_eq!(env["type"], "object");
/// assert_eq!(env["then"]["properties"]["data"]["required"], json!(["n"]));
/// ```
pub fn envelope_schema(data: &Value) -> Value {
    let mut data = data.clone();
    let mut defs = match &mut data {
        Value::Object(m) => {
            m.remove("$schema");
            match m.remove("$defs") {
                Some(Value::Object(d)) => d,
                _ => Map::new(),
            }
        }
        _ => Map::new(),
    };
    let data_ref = if refers_to_root(&data) {
        let mut key = DATA_DEF.to_string();
        while defs.contains_key(&key) {
            key.push('_');
        }
        let target = format!("#/$defs/{key}");
        retarget_root_refs(&mut data, &target);
        defs.insert(key, data);
        serde_json::json!({ "$ref": target })
    } else {
        data
    };
    let codes: Vec<&str> = crate::ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let mut env = serde_json::json!({
        "type": "object",
        "description": "The toolwright envelope: the result is `data` when `status` is \
                        `success`; `error` says what went wrong when it is `error`.",
        "properties": {
            "status": {"type": "string", "enum": ["success", "partial", "error", "needs_confirmation"]},
            "message": {"type": "string"},
            "data": true,
            "instruction": {"type": "string"},
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "enum": codes},
                    "message": {"type": "string"},
                    "suggestion": {"type": "string"},
                    "retryable": {"type": "boolean"},
                    "fields": {"type": "array", "items": {"type": "object"}},
                    "retry_after_ms": {"type": "integer", "minimum": 0}
                },
                "required": ["code", "message", "suggestion", "retryable"]
            },
            "meta": {
                "type": "object",
                "properties": {"tool": {"type": "string"}, "call_id": {"type": "string"}},
                "required": ["tool", "call_id"]
            }
        },
        "required": ["status", "message", "meta"],
        "if": {
            "properties": {
                "status": {"const": "success"},
                "meta": {"not": {"required": ["fallback_from"]}}
            },
            "required": ["status"]
        },
        "then": {"properties": {"data": data_ref}, "required": ["data"]}
    });
    if !defs.is_empty()
        && let Value::Object(m) = &mut env
    {
        m.insert("$defs".into(), Value::Object(defs));
    }
    env
}

/// Whether `v` holds a `$ref` to its own root (`"#"`), as schemars writes for recursive types.
fn refers_to_root(v: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, x)| (k == "$ref" && x.as_str() == Some("#")) || refers_to_root(x)),
        Value::Array(a) => a.iter().any(refers_to_root),
        _ => false,
    }
}

/// Points every `"$ref": "#"` inside `v` at `target`.
fn retarget_root_refs(v: &mut Value, target: &str) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "$ref" && x.as_str() == Some("#") {
                    *x = Value::String(target.to_string());
                } else {
                    retarget_root_refs(x, target);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| retarget_root_refs(x, target)),
        _ => {}
    }
}
