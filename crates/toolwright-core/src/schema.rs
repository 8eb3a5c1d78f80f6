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
