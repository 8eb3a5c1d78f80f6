//! Strict mode both ways: which tools OpenAI strict mode would take arguments away from, and the
//! nulls strict mode makes the model send for optionals, dropped again before validation.
//!
//! A tool is *strict-compatible* when its `openai-strict` export lets the model send every
//! argument the tool declares: no free-form object closed, no untyped value narrowed to scalars,
//! no boolean schema replaced, nothing nested too deep to lower. The other strict lowerings lose
//! nothing the runtime needs: keywords moved into the description are still enforced by
//! validation against the tool's own schema, and an optional made required-and-nullable comes back
//! as `null`, which [`drop_strict_nulls`] removes (for serde's `Option`, absent and `null` are the
//! same value).

use super::{Dialect, Lowering, export_with_report};
use crate::schema;
use serde_json::{Map, Value};
use toolwright_core::ToolSpec;

/// Action of a free-form object closed by the strict export (the model can pass no key).
pub(super) const FREE_FORM: &str = "free-form object (keys not declared), which strict mode cannot express; exported as a closed object";
/// Action of an untyped schema narrowed to scalars.
pub(super) const UNTYPED: &str = "anyOf string | number | boolean (strict mode needs a type)";
/// Action of a boolean schema replaced.
pub(super) const BOOLEAN_SCHEMA: &str = "replaced by an empty schema";
/// Action of a part too deep to lower.
pub(super) const TOO_DEEP: &str = "left as it is (strict mode would reject it)";

/// The strict lowerings of `spec` that take arguments away from the model (see the module docs);
/// empty when `spec` is strict-compatible.
///
/// ```
/// use toolwright_catalog::dialect::strict_blockers;
/// use serde_json::json;
/// let typed = toolwright_core::ToolSpec::new("t", "T.", json!({"type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}));
/// assert!(strict_blockers(&typed).is_empty());
/// let free = toolwright_core::ToolSpec::new("f", "F.", json!({"type": "object",
///     "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}}}));
/// assert_eq!(strict_blockers(&free)[0].pointer, "/properties/labels");
/// ```
pub fn strict_blockers(spec: &ToolSpec) -> Vec<Lowering> {
    export_with_report(spec, Dialect::OpenAiStrict)
        .1
        .into_iter()
        .filter(|l| [FREE_FORM, UNTYPED, BOOLEAN_SCHEMA, TOO_DEEP].contains(&l.action.as_str()))
        .collect()
}

/// Removes from `args`, in place, every `null` given for a property the tool's own schema does not
/// require (at any depth the schema describes: properties, `items`, local `$ref`, `allOf`, and an
/// `anyOf`/`oneOf` with one object branch). Strict mode makes the model send `null` to leave an
/// optional out; after this, the call validates against `spec.parameters` as if it had been
/// left out. A `null` for a required property stays (and validation reports it).
pub fn drop_strict_nulls(spec: &ToolSpec, args: &mut Value) {
    let root = &spec.parameters;
    drop_nulls(root, root, args, 0);
}

fn drop_nulls(root: &Value, schema: &Value, v: &mut Value, depth: usize) {
    if depth > schema::MAX_DEPTH {
        return;
    }
    let schema = resolve(root, schema);
    match v {
        Value::Object(obj) => {
            let shapes = object_shapes(root, schema, depth);
            let required: Vec<String> = shapes.iter().flat_map(|s| schema::required(s)).collect();
            for s in &shapes {
                let Some(props) = schema::properties(s) else {
                    continue;
                };
                drop_in_object(root, props, &required, obj, depth);
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|i| i.is_object()) {
                for x in items {
                    drop_nulls(root, item_schema, x, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn drop_in_object(
    root: &Value,
    props: &Map<String, Value>,
    required: &[String],
    obj: &mut Map<String, Value>,
    depth: usize,
) {
    obj.retain(|k, x| !(x.is_null() && props.contains_key(k) && !required.contains(k)));
    for (k, x) in obj.iter_mut() {
        if let Some(p) = props.get(k) {
            drop_nulls(root, p, x, depth + 1);
        }
    }
}

/// `schema` with its local `$ref` chain followed (a few hops at most).
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..8 {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| schema::lookup(root, r))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// The object schemas an object value is checked against: `schema` itself when it declares
/// properties, its `allOf` members, and the single object branch of an `anyOf`/`oneOf`.
fn object_shapes<'a>(root: &'a Value, schema: &'a Value, depth: usize) -> Vec<&'a Value> {
    let mut out = Vec::new();
    if depth > schema::MAX_DEPTH {
        return out;
    }
    if schema.get("properties").is_some() {
        out.push(schema);
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            out.extend(object_shapes(root, resolve(root, s), depth + 1));
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let objects: Vec<&Value> = branches
                .iter()
                .map(|b| resolve(root, b))
                .filter(|b| b.get("properties").is_some() || b.get("allOf").is_some())
                .collect();
            if let [one] = objects.as_slice() {
                out.extend(object_shapes(root, one, depth + 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(params: Value) -> ToolSpec {
        ToolSpec::new("t", "T. Use this when testing.", params)
    }

    #[test]
    fn typed_tools_are_compatible_and_open_ones_are_not() {
        let ok = spec(json!({"type": "object", "properties": {
            "city": {"type": "string", "minLength": 2},
            "when": {"anyOf": [{"$ref": "#/$defs/Day"}, {"type": "null"}]}},
            "required": ["city"],
            "$defs": {"Day": {"type": "object", "properties": {"d": {"type": "integer"}}}}}));
        assert_eq!(strict_blockers(&ok), vec![]);
        let untyped = spec(json!({"type": "object", "properties": {"value": {}}}));
        assert_eq!(
            strict_blockers(&untyped)[0].construct,
            "schema without a type"
        );
        let free = spec(json!({"type": "object", "properties": {
            "meta": {"type": "object", "additionalProperties": true}}}));
        assert_eq!(strict_blockers(&free)[0].pointer, "/properties/meta");
    }

    #[test]
    fn nulls_for_optionals_go_and_nulls_for_required_stay() {
        let s = spec(json!({"type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "when": {"anyOf": [{"$ref": "#/$defs/Day"}, {"type": "null"}]},
                "stops": {"type": "array", "items": {"$ref": "#/$defs/Day"}}},
            "required": ["city"],
            "$defs": {"Day": {"type": "object",
                "properties": {"d": {"type": "integer"}, "note": {"type": "string"}},
                "required": ["d"]}}}));
        let mut args = json!({"city": null, "days": null,
            "when": {"d": 1, "note": null},
            "stops": [{"d": null, "note": null}, {"d": 2, "note": "x"}]});
        drop_strict_nulls(&s, &mut args);
        assert_eq!(
            args,
            json!({"city": null, "when": {"d": 1},
                "stops": [{"d": null}, {"d": 2, "note": "x"}]})
        );
        let mut absent = json!({"city": "Paris", "when": null});
        drop_strict_nulls(&s, &mut absent);
        assert_eq!(absent, json!({"city": "Paris"}));
    }
}
