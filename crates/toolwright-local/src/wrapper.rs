//! Wrapper objects: a tool whose parameters hold an object of named fields is filled as if those
//! fields were its parameters, and the call is wrapped again before it leaves.
//!
//! - A *sole wrapper* is the schema's only property: Neon's and CircleCI's `{"params":
//!   {"projectId": …, "sql": …}}`, a Python server's `def tool(params: Model)`, LINE's
//!   `{"message": {"type": …, "text": …}}`.
//! - An *object beside other parameters* is what servers generated from an API description
//!   write: Plane's `create_cycle {"project_id": …, "cycle_data": {"name": …, "start_date":
//!   …}}`.
//!
//! Every argument pass reads a tool's top-level parameters: an object is one parameter that none
//! of them grounds, so the model wrote its fields freely and a 135M model copied the tool's name
//! into them (`{"params": {"projectId": "nolen_create_branch"}}`), or filled Plane's
//! `cycle_data` with the server-owned counters of its schema. With the fields lifted,
//! narrowing, grounding and the role cues see `projectId`, `branchName` or `name` as they would
//! see any tool's parameters.
//!
//! What is lifted, and what is not:
//! - An object is a field whose schema is an object with `properties` (inline or a local
//!   `$ref`). A lifted field is required when the object is required and lists it as required.
//! - Fields marked `readOnly` are the server's (ids, counters, timestamps it sets): they are
//!   left out unless the object requires them.
//! - A field with the name of a top-level parameter (`cycle_data.project_id` beside
//!   `project_id`) is not lifted: the wrapped call copies the top-level value into it.
//! - An object one of whose fields another object has already lifted (or that holds a field
//!   named like itself) stays as it is, and so does a `$ref` that does not resolve locally.
//!
//! The lifted schema keeps the outer `$defs` / `definitions` so that references inside still
//! resolve. The runtime still validates the wrapped call against the advertised schema.

use serde_json::{Map, Value};
use toolwright_core::ToolSpec;

/// One lifted object of a tool's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Wrapper {
    /// The object's name in the tool's parameters (`params`, `cycle_data`).
    pub key: String,
    /// Fields with a `const` value (LINE's `"type": "text"`), written into every wrapped call
    /// that leaves them out: narrowing drops an optional field the request does not mention, and
    /// a fixed value is never wrong.
    pub consts: Map<String, Value>,
    /// The fields lifted to the top level. Empty for a sole wrapper, which takes every argument.
    pub fields: Vec<String>,
    /// Fields named like a top-level parameter, which take its value.
    pub shared: Vec<String>,
    /// Whether the object is written even when none of its fields is (it is required).
    pub required: bool,
    /// Whether the object is the tool's only parameter (every argument is one of its fields).
    pub sole: bool,
}

impl Wrapper {
    /// A sole wrapper named `key` with these `const` fields.
    pub fn sole(key: impl Into<String>, consts: Map<String, Value>) -> Wrapper {
        Wrapper {
            key: key.into(),
            consts,
            fields: Vec::new(),
            shared: Vec::new(),
            required: true,
            sole: true,
        }
    }

    /// The arguments of a lifted call put back under the wrapper's name, with its `const`
    /// fields (see [`Lifted::wrap`] for a tool's every object).
    ///
    /// ```
    /// use serde_json::{json, Map};
    /// use toolwright_local::wrapper::Wrapper;
    /// let w = Wrapper::sole("message", Map::from_iter([("type".into(), json!("text"))]));
    /// assert_eq!(w.wrap(json!({"text": "hi"})), json!({"message": {"type": "text", "text": "hi"}}));
    /// ```
    pub fn wrap(&self, args: Value) -> Value {
        match args {
            Value::Object(m) => Value::Object(self.wrap_into(m)),
            other => wrap(other, &self.key),
        }
    }

    fn wrap_into(&self, mut m: Map<String, Value>) -> Map<String, Value> {
        let with_consts = |mut inner: Map<String, Value>| {
            for (k, v) in &self.consts {
                inner.entry(k.clone()).or_insert_with(|| v.clone());
            }
            Value::Object(inner)
        };
        if self.sole {
            let mut out = Map::new();
            out.insert(self.key.clone(), with_consts(m));
            return out;
        }
        let mut inner = Map::new();
        for f in &self.fields {
            if let Some(v) = m.remove(f) {
                inner.insert(f.clone(), v);
            }
        }
        let given = !inner.is_empty();
        for f in &self.shared {
            if let Some(v) = m.get(f) {
                inner.entry(f.clone()).or_insert_with(|| v.clone());
            }
        }
        if given || self.required {
            m.insert(self.key.clone(), with_consts(inner));
        }
        m
    }
}

/// A tool's lifted objects, in the order of its parameters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lifted {
    /// The objects.
    pub objects: Vec<Wrapper>,
}

impl Lifted {
    /// The arguments of a lifted call with each object's fields put back under its name.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::ToolSpec;
    /// use toolwright_local::wrapper::unwrap;
    /// let spec = ToolSpec::new("create_cycle", "Create a cycle", json!({"type": "object",
    ///     "required": ["project_id", "cycle_data"], "properties": {
    ///         "project_id": {"type": "string"},
    ///         "cycle_data": {"type": "object", "required": ["name", "project_id"], "properties": {
    ///             "name": {"type": "string"}, "project_id": {"type": "string", "readOnly": true},
    ///             "total_issues": {"type": "integer", "readOnly": true}}}}}));
    /// let (lifted, objects) = unwrap(&spec).unwrap();
    /// assert_eq!(lifted.parameters["required"], json!(["project_id", "name"]));
    /// assert!(lifted.parameters["properties"].get("total_issues").is_none());
    /// assert_eq!(objects.wrap(json!({"project_id": "p1", "name": "Sprint 14"})),
    ///     json!({"project_id": "p1", "cycle_data": {"name": "Sprint 14", "project_id": "p1"}}));
    /// ```
    pub fn wrap(&self, args: Value) -> Value {
        let Value::Object(mut m) = args else {
            return match self.objects.first() {
                Some(w) => w.wrap(args),
                None => args,
            };
        };
        for w in &self.objects {
            m = w.wrap_into(m);
        }
        Value::Object(m)
    }

    /// The fields of a wrapped call as the model was asked to write them: each object's fields
    /// moved up beside the other arguments (arguments not in that shape are returned as they
    /// are).
    pub fn flatten(&self, args: &Value) -> Value {
        let Some(m) = args.as_object() else {
            return args.clone();
        };
        let mut out = m.clone();
        for w in &self.objects {
            if w.sole {
                return fields(args, &w.key).clone();
            }
            if let Some(Value::Object(inner)) = out.remove(&w.key) {
                for (k, v) in inner {
                    if !w.shared.contains(&k) && !w.consts.contains_key(&k) {
                        out.entry(k).or_insert(v);
                    }
                }
            }
        }
        Value::Object(out)
    }

    /// The object a lifted parameter belongs to (`None` for a parameter of the tool's own).
    pub fn owner(&self, param: &str) -> Option<&str> {
        self.objects
            .iter()
            .find(|w| w.sole || w.fields.iter().any(|f| f == param))
            .map(|w| w.key.as_str())
    }
}

/// `spec` with the fields of its objects as its parameters, and the objects; `None` when the
/// tool has none.
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
/// let (lifted, objects) = unwrap(&spec).unwrap();
/// assert_eq!(objects.objects[0].key, "params");
/// assert_eq!(lifted.parameters["required"], json!(["projectId"]));
/// assert!(lifted.parameters["properties"]["branchName"].is_object());
/// ```
pub fn unwrap(spec: &ToolSpec) -> Option<(ToolSpec, Lifted)> {
    let params = spec.parameters.as_object()?;
    let props = params.get("properties")?.as_object()?;
    if let [(key, field)] = props.iter().collect::<Vec<_>>()[..] {
        return unwrap_sole(spec, params, key, field);
    }
    let required: Vec<&str> = required_of(params);
    let mut out_props = Map::new();
    let mut out_required: Vec<Value> = Vec::new();
    let mut objects = Vec::new();
    for (key, field) in props {
        let top_required = required.contains(&key.as_str());
        let lifted = object_fields(field, params)
            .and_then(|inner| lift_object(key, inner, top_required, props, &out_props));
        match lifted {
            Some((w, fields, req)) => {
                out_props.extend(fields);
                out_required.extend(req.into_iter().map(Value::String));
                objects.push(w);
            }
            None => {
                out_props.insert(key.clone(), field.clone());
                if top_required {
                    out_required.push(Value::String(key.clone()));
                }
            }
        }
    }
    if objects.is_empty() {
        return None;
    }
    let mut root = params.clone();
    root.insert("properties".into(), Value::Object(out_props));
    if out_required.is_empty() {
        root.remove("required");
    } else {
        root.insert("required".into(), Value::Array(out_required));
    }
    let mut out = spec.clone();
    out.parameters = Value::Object(root);
    Some((out, Lifted { objects }))
}

/// The object's fields as top-level parameters, the wrapper, and the required ones; `None` when
/// it cannot be lifted (a field another object has lifted already, or nothing left).
type LiftedObject = (Wrapper, Map<String, Value>, Vec<String>);

fn lift_object(
    key: &str,
    inner: &Map<String, Value>,
    top_required: bool,
    top: &Map<String, Value>,
    taken: &Map<String, Value>,
) -> Option<LiftedObject> {
    let fields = inner.get("properties")?.as_object()?;
    let inner_required = required_of(inner);
    let mut w = Wrapper {
        key: key.to_string(),
        consts: consts_of(fields),
        fields: Vec::new(),
        shared: Vec::new(),
        required: top_required,
        sole: false,
    };
    let mut lifted = Map::new();
    let mut req = Vec::new();
    for (f, schema) in fields {
        let needed = inner_required.contains(&f.as_str());
        if top.contains_key(f) && f != key {
            w.shared.push(f.clone());
        } else if taken.contains_key(f) || top.contains_key(f) {
            return None;
        } else if needed || !read_only(schema) {
            if needed && top_required {
                req.push(f.clone());
            }
            w.fields.push(f.clone());
            lifted.insert(f.clone(), schema.clone());
        }
    }
    (!w.fields.is_empty()).then_some((w, lifted, req))
}

/// The sole wrapper's fields as the tool's parameters.
fn unwrap_sole(
    spec: &ToolSpec,
    params: &Map<String, Value>,
    key: &str,
    field: &Value,
) -> Option<(ToolSpec, Lifted)> {
    let inner = object_fields(field, params)?;
    let fields = inner.get("properties")?.as_object()?;
    let inner_required = required_of(inner);
    let mut lifted: Map<String, Value> = inner.clone();
    lifted.insert("type".into(), Value::String("object".into()));
    let kept: Map<String, Value> = fields
        .iter()
        .filter(|(f, s)| inner_required.contains(&f.as_str()) || !read_only(s))
        .map(|(f, s)| (f.clone(), s.clone()))
        .collect();
    if kept.is_empty() {
        return None;
    }
    lifted.insert("properties".into(), Value::Object(kept));
    for defs in ["$defs", "definitions"] {
        if let Some(d) = params.get(defs)
            && !lifted.contains_key(defs)
        {
            lifted.insert(defs.into(), d.clone());
        }
    }
    let mut out = spec.clone();
    out.parameters = Value::Object(lifted);
    let w = Wrapper::sole(key, consts_of(fields));
    Some((out, Lifted { objects: vec![w] }))
}

/// The field's schema when it is an object of named fields (following one local `$ref`).
fn object_fields<'a>(
    field: &'a Value,
    root: &'a Map<String, Value>,
) -> Option<&'a Map<String, Value>> {
    let inner = resolve(field, root)?;
    let is_object = inner.get("type").is_none_or(|t| t == "object");
    let named = inner
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    (is_object && named).then_some(inner)
}

fn required_of(schema: &Map<String, Value>) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn read_only(schema: &Value) -> bool {
    schema.get("readOnly").and_then(Value::as_bool) == Some(true)
}

fn consts_of(fields: &Map<String, Value>) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|(k, f)| Some((k.clone(), f.get("const")?.clone())))
        .collect()
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
        let (lifted, objects) = unwrap(&s).unwrap();
        let [wrapper] = &objects.objects[..] else {
            panic!("{objects:?}")
        };
        assert_eq!(wrapper.key, "params");
        assert!(wrapper.sole && wrapper.consts.is_empty());
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
    fn only_objects_of_named_fields_are_lifted() {
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
    fn an_object_beside_other_parameters_is_lifted_and_wrapped_back() {
        // Plane's `create_cycle`: the object repeats `project_id`, and holds server-owned
        // counters.
        let s = spec(
            json!({"type": "object", "required": ["project_id", "cycle_data"],
            "properties": {
                "project_id": {"type": "string"},
                "cycle_data": {"type": "object", "required": ["name", "project_id"],
                    "properties": {
                        "name": {"type": "string"},
                        "start_date": {"type": "string", "format": "date"},
                        "project_id": {"type": "string", "readOnly": true},
                        "total_issues": {"type": "integer", "readOnly": true}}},
                "options": {"type": "object", "properties": {"notify": {"type": "boolean"}}}}}),
        );
        let (lifted, objects) = unwrap(&s).unwrap();
        let props = lifted.parameters["properties"].as_object().unwrap();
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(names, ["project_id", "name", "start_date", "notify"]);
        assert_eq!(lifted.parameters["required"], json!(["project_id", "name"]));
        assert_eq!(objects.owner("start_date"), Some("cycle_data"));
        assert_eq!(objects.owner("project_id"), None);
        // The optional object is left out when none of its fields is written; the required
        // one gets the shared field's value.
        let call = json!({"project_id": "p1", "name": "Sprint 14"});
        let wrapped = objects.wrap(call.clone());
        assert_eq!(
            wrapped,
            json!({"project_id": "p1", "cycle_data": {"name": "Sprint 14", "project_id": "p1"}})
        );
        assert_eq!(objects.flatten(&wrapped), call);
        let with_option = objects.wrap(json!({"project_id": "p1", "name": "S", "notify": true}));
        assert_eq!(with_option["options"], json!({"notify": true}));
    }

    #[test]
    fn an_object_whose_field_is_already_lifted_stays() {
        let s = spec(json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"name": {"type": "string"}}},
            "b": {"type": "object", "properties": {"name": {"type": "string"}}}}}));
        let (lifted, objects) = unwrap(&s).unwrap();
        assert_eq!(objects.objects.len(), 1);
        assert!(lifted.parameters["properties"]["b"].is_object());
        assert!(lifted.parameters["properties"]["name"].is_object());
        // Read-only fields only: nothing to lift.
        let owned = spec(json!({"type": "object", "properties": {
            "id": {"type": "string"},
            "meta": {"type": "object", "properties": {"created_at": {"type": "string", "readOnly": true}}}}}));
        assert!(unwrap(&owned).is_none());
    }

    #[test]
    fn the_fields_of_a_wrapped_call_are_read_back() {
        let wrapped = json!({"params": {"projectId": "p1"}});
        assert_eq!(fields(&wrapped, "params"), &json!({"projectId": "p1"}));
        let flat = json!({"projectId": "p1"});
        assert_eq!(fields(&flat, "params"), &flat);
    }
}
