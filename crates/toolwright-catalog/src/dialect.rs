//! Provider dialects: the same [`ToolSpec`] written the way each provider wants it, and a
//! portability report saying which construct a provider would reject and how the export lowered it.
//!
//! | dialect | shape |
//! |---|---|
//! | `jsonschema` | the parameter schema as a JSON Schema 2020-12 document (`$schema`, `title`, `description`) |
//! | `openai` | `{"type": "function", "function": {name, description, parameters}}` |
//! | `openai-strict` | the same with `"strict": true`: `additionalProperties: false` on every object, every property required, optionals nullable ([`strict_blockers`] says when a tool loses arguments this way; [`drop_strict_nulls`] undoes the nulls) |
//! | `anthropic` | `{name, description, input_schema}` |
//! | `gemini` | `{name, description, parameters}` in Gemini's OpenAPI subset: `$ref` inlined, no `additionalProperties`, `nullable` instead of type arrays |
//! | `mcp` | `{name, title, description, inputSchema, annotations}` |
//!
//! Lowering never changes what the runtime accepts: validation always runs against the spec's own
//! schema. A constraint a provider cannot express is dropped from the exported schema and, where
//! it matters to the model, written into the description instead.
//!
//! ```
//! use toolwright_catalog::dialect::{Dialect, export_dialect};
//! let spec = toolwright_core::ToolSpec::new("get_weather", "Weather for a city.",
//!     serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}},
//!                        "additionalProperties": false}));
//! let g = export_dialect(&spec, Dialect::parse("gemini").unwrap());
//! assert!(g["parameters"].get("additionalProperties").is_none());
//! ```

use crate::schema::{self, child};
use serde::Serialize;
use serde_json::{Map, Value, json};
pub use strict::{drop_strict_nulls, strict_blockers};
use toolwright_core::ToolSpec;

mod strict;

/// A provider's way of writing tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// JSON Schema 2020-12 document of the parameters.
    JsonSchema,
    /// OpenAI function tool.
    OpenAi,
    /// OpenAI function tool in strict mode (structured outputs).
    OpenAiStrict,
    /// Anthropic tool (`input_schema`).
    Anthropic,
    /// Gemini function declaration (OpenAPI subset).
    Gemini,
    /// MCP `tools/list` entry (`inputSchema` + annotations).
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 6] = [
        Dialect::JsonSchema,
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// Parses `jsonschema | openai | openai-strict | anthropic | gemini | mcp` (case-insensitive;
    /// `json-schema`, `openai_strict` and `claude` are accepted too).
    pub fn parse(s: &str) -> Option<Dialect> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "jsonschema" | "json-schema" | "json" => Some(Dialect::JsonSchema),
            "openai" => Some(Dialect::OpenAi),
            "openai-strict" | "strict" => Some(Dialect::OpenAiStrict),
            "anthropic" | "claude" => Some(Dialect::Anthropic),
            "gemini" | "google" => Some(Dialect::Gemini),
            "mcp" => Some(Dialect::Mcp),
            _ => None,
        }
    }

    /// Where the parameter schema sits in an export (a JSON Pointer; `""`: the whole document).
    pub fn schema_pointer(self) -> &'static str {
        match self {
            Dialect::JsonSchema => "",
            Dialect::OpenAi | Dialect::OpenAiStrict => "/function/parameters",
            Dialect::Anthropic => "/input_schema",
            Dialect::Gemini => "/parameters",
            Dialect::Mcp => "/inputSchema",
        }
    }

    /// The canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::JsonSchema => "jsonschema",
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One construct a provider would reject, and what the export did about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lowering {
    /// JSON Pointer into the tool's parameter schema (`""` for the root, `#name` for the tool name).
    pub pointer: String,
    /// The construct ("$ref", "additionalProperties", "type: [string, null]", "format: uint8"…).
    pub construct: String,
    /// What the export did ("inlined", "dropped", "made nullable"…).
    pub action: String,
}

impl Lowering {
    fn new(pointer: &str, construct: impl Into<String>, action: impl Into<String>) -> Lowering {
        Lowering {
            pointer: pointer.to_string(),
            construct: construct.into(),
            action: action.into(),
        }
    }
}

/// The portability of one tool to one provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Portability {
    /// The tool.
    pub tool: String,
    /// The provider's dialect.
    pub dialect: Dialect,
    /// What was lowered (empty: exported as is).
    pub lowerings: Vec<Lowering>,
}

/// `spec` in `dialect`.
pub fn export_dialect(spec: &ToolSpec, dialect: Dialect) -> Value {
    export_with_report(spec, dialect).0
}

/// `spec` in `dialect`, with the list of constructs the export lowered.
pub fn export_with_report(spec: &ToolSpec, dialect: Dialect) -> (Value, Vec<Lowering>) {
    let mut rep = Vec::new();
    let v = match dialect {
        Dialect::JsonSchema => json_schema(spec, &mut rep),
        Dialect::OpenAi => openai(spec, false, &mut rep),
        Dialect::OpenAiStrict => openai(spec, true, &mut rep),
        Dialect::Anthropic => anthropic(spec, &mut rep),
        Dialect::Gemini => gemini(spec, &mut rep),
        Dialect::Mcp => mcp(spec, &mut rep),
    };
    (v, rep)
}

/// `spec` in `dialect` with every local `$ref` of its schema replaced by what it points to and
/// `$defs` removed ([`schema::inline_refs`]), for clients that do not follow references. A
/// recursive reference cannot be inlined: it is cut to an open object and listed in the problems,
/// as is a reference that does not resolve.
pub fn export_inlined(spec: &ToolSpec, dialect: Dialect) -> (Value, Vec<schema::RefProblem>) {
    let mut v = export_dialect(spec, dialect);
    let mut problems = Vec::new();
    if let Some(schema) = v.pointer_mut(dialect.schema_pointer()) {
        *schema = schema::inline_refs(schema, &mut problems);
    }
    (v, problems)
}

/// The portability of every spec to every provider dialect.
pub fn portability(specs: &[ToolSpec]) -> Vec<Portability> {
    specs
        .iter()
        .flat_map(|s| {
            Dialect::ALL.iter().map(|&d| Portability {
                tool: s.name.clone(),
                dialect: d,
                lowerings: export_with_report(s, d).1,
            })
        })
        .collect()
}

const SCHEMA_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The parameters as an object schema without `$schema`; non-object roots are wrapped.
fn root_object(spec: &ToolSpec, rep: &mut Vec<Lowering>) -> Value {
    let mut p = spec.parameters.clone();
    if let Value::Object(m) = &mut p {
        if m.remove("$schema").is_some() {
            rep.push(Lowering::new("", "$schema", "dropped"));
        }
        if !m.contains_key("type") && (m.contains_key("properties") || m.is_empty()) {
            m.insert("type".into(), json!("object"));
        }
        if m.get("type").and_then(Value::as_str) == Some("object") {
            return p;
        }
    }
    rep.push(Lowering::new(
        "",
        "non-object parameter schema",
        "wrapped as the single property `value` of an object",
    ));
    json!({"type": "object", "properties": {"value": p}, "required": ["value"]})
}

/// Providers other than Gemini and MCP accept `^[a-zA-Z0-9_-]{1,64}$` only.
fn portable_name(name: &str, rep: &mut Vec<Lowering>) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.len() > 64 {
        out.truncate(64);
    }
    if out.is_empty() {
        out.push('_');
    }
    if out != name {
        rep.push(Lowering::new(
            "#name",
            format!("name `{name}`"),
            format!("renamed to `{out}` (only letters, digits, `_` and `-`, at most 64); map it back when the call returns"),
        ));
    }
    out
}

fn json_schema(spec: &ToolSpec, rep: &mut Vec<Lowering>) -> Value {
    let p = root_object(spec, rep);
    let mut out = Map::new();
    out.insert("$schema".into(), json!(SCHEMA_2020_12));
    out.insert("title".into(), json!(spec.name));
    out.insert("description".into(), json!(spec.description));
    if let Value::Object(m) = p {
        for (k, v) in m {
            if k != "title" && k != "description" {
                out.insert(k, v);
            }
        }
    }
    Value::Object(out)
}

fn openai(spec: &ToolSpec, strict: bool, rep: &mut Vec<Lowering>) -> Value {
    let name = portable_name(&spec.name, rep);
    let mut params = root_object(spec, rep);
    if strict {
        strict_schema(&mut params, "", 0, rep);
        if let Some(Value::Object(defs)) = params.get_mut("$defs") {
            for (k, d) in defs.iter_mut() {
                strict_schema(d, &child("/$defs", k), 1, rep);
            }
        }
        if let Some(Value::Object(defs)) = params.get_mut("definitions") {
            for (k, d) in defs.iter_mut() {
                strict_schema(d, &child("/definitions", k), 1, rep);
            }
        }
        json!({"type": "function", "function": {
            "name": name, "description": spec.description, "strict": true, "parameters": params}})
    } else {
        json!({"type": "function", "function": {
            "name": name, "description": spec.description, "parameters": params}})
    }
}

fn anthropic(spec: &ToolSpec, rep: &mut Vec<Lowering>) -> Value {
    let name = portable_name(&spec.name, rep);
    json!({"name": name, "description": spec.description, "input_schema": root_object(spec, rep)})
}

fn mcp(spec: &ToolSpec, rep: &mut Vec<Lowering>) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(spec.name));
    if let Some(t) = &spec.meta.display_label {
        out.insert("title".into(), json!(t));
    }
    out.insert("description".into(), json!(spec.description));
    out.insert("inputSchema".into(), root_object(spec, rep));
    let se = spec.meta.side_effects;
    let mut ann = Map::new();
    if let Some(t) = &spec.meta.display_label {
        ann.insert("title".into(), json!(t));
    }
    ann.insert("readOnlyHint".into(), json!(se.is_read_only()));
    ann.insert(
        "destructiveHint".into(),
        json!(se == toolwright_core::SideEffects::Destructive),
    );
    ann.insert(
        "idempotentHint".into(),
        json!(se.is_read_only() || spec.meta.idempotent),
    );
    out.insert("annotations".into(), Value::Object(ann));
    Value::Object(out)
}

fn append_description(m: &mut Map<String, Value>, text: &str) {
    let d = m
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim();
    let joined = if d.is_empty() {
        text.to_string()
    } else if d.ends_with('.') || d.ends_with('!') || d.ends_with('?') {
        format!("{d} {text}")
    } else {
        format!("{d}. {text}")
    };
    m.insert("description".into(), Value::String(joined));
}

fn is_object_schema(m: &Map<String, Value>) -> bool {
    let t = m.get("type");
    t.and_then(Value::as_str) == Some("object")
        || t.and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some("object")))
        || (t.is_none() && m.contains_key("properties"))
}

fn constraint_text(key: &str, v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match key {
        "minLength" => format!("At least {s} characters."),
        "maxLength" => format!("At most {s} characters."),
        "minProperties" => format!("At least {s} entries."),
        "maxProperties" => format!("At most {s} entries."),
        "uniqueItems" => "Items must be unique.".to_string(),
        "default" => format!("Default: {s}."),
        "format" => format!("Format: {s}."),
        "minimum" => format!("Minimum {s}."),
        "maximum" => format!("Maximum {s}."),
        "exclusiveMinimum" => format!("Greater than {s}."),
        "exclusiveMaximum" => format!("Less than {s}."),
        "multipleOf" => format!("A multiple of {s}."),
        "minItems" => format!("At least {s} items."),
        "maxItems" => format!("At most {s} items."),
        "pattern" => format!("Must match the pattern {s}."),
        _ => String::new(),
    }
}

/// Keywords OpenAI strict mode rejects, whose meaning we move into the description.
const STRICT_UNSUPPORTED_TEXT: &[&str] = &[
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "default",
];
/// Keywords OpenAI strict mode rejects that cannot be said in a sentence; dropped.
const STRICT_UNSUPPORTED_DROP: &[&str] = &[
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "examples",
    "$comment",
];
/// String formats OpenAI strict mode accepts.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Makes `v` acceptable to OpenAI strict mode, in place.
fn strict_schema(v: &mut Value, ptr: &str, depth: usize, rep: &mut Vec<Lowering>) {
    if depth > schema::MAX_DEPTH {
        rep.push(Lowering::new(
            ptr,
            format!("schema nested deeper than {}", schema::MAX_DEPTH),
            strict::TOO_DEEP,
        ));
        return;
    }
    let Value::Object(m) = v else {
        if let Value::Bool(b) = v {
            rep.push(Lowering::new(
                ptr,
                format!("boolean schema `{b}`"),
                strict::BOOLEAN_SCHEMA,
            ));
            *v = json!({});
        }
        return;
    };
    if let Some(one) = m.remove("oneOf") {
        rep.push(Lowering::new(ptr, "oneOf", "written as anyOf"));
        m.insert("anyOf".into(), one);
    }
    if let Some(Value::Array(all)) = m.remove("allOf") {
        rep.push(Lowering::new(ptr, "allOf", "merged into one schema"));
        merge_all_of(m, all);
    }
    strict_drop_unsupported(m, ptr, rep);
    let typed = [
        "type",
        "anyOf",
        "$ref",
        "enum",
        "const",
        "properties",
        "items",
    ]
    .iter()
    .any(|k| m.contains_key(*k));
    if !typed && depth > 0 {
        // Strict mode rejects a schema without a type; "any JSON value" becomes any scalar.
        m.insert(
            "anyOf".into(),
            json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}]),
        );
        rep.push(Lowering::new(ptr, "schema without a type", strict::UNTYPED));
    }
    if is_object_schema(m) {
        strict_close_object(m, ptr, depth, rep);
    }
    if let Some(items) = m.get_mut("items") {
        strict_schema(items, &child(ptr, "items"), depth + 1, rep);
    }
    if let Some(Value::Array(prefix)) = m.get_mut("prefixItems") {
        for (i, x) in prefix.iter_mut().enumerate() {
            strict_schema(
                x,
                &child(&child(ptr, "prefixItems"), &i.to_string()),
                depth + 1,
                rep,
            );
        }
    }
    if let Some(Value::Array(any)) = m.get_mut("anyOf") {
        for (i, x) in any.iter_mut().enumerate() {
            strict_schema(
                x,
                &child(&child(ptr, "anyOf"), &i.to_string()),
                depth + 1,
                rep,
            );
        }
    }
}

/// Drops the keywords strict mode does not support (the runtime still enforces them), saying the
/// meaningful ones in the description, and a `format` it does not know.
fn strict_drop_unsupported(m: &mut Map<String, Value>, ptr: &str, rep: &mut Vec<Lowering>) {
    for key in STRICT_UNSUPPORTED_TEXT {
        if let Some(x) = m.remove(*key) {
            rep.push(Lowering::new(
                ptr,
                *key,
                "dropped; said in the description (the runtime still enforces it)",
            ));
            let t = constraint_text(key, &x);
            append_description(m, &t);
        }
    }
    for key in STRICT_UNSUPPORTED_DROP {
        if m.remove(*key).is_some() {
            rep.push(Lowering::new(
                ptr,
                *key,
                "dropped (the runtime still enforces it)",
            ));
        }
    }
    if let Some(f) = m.get("format").and_then(Value::as_str).map(str::to_string)
        && !STRICT_FORMATS.contains(&f.as_str())
    {
        m.remove("format");
        let numeric = schema::main_type(&Value::Object(m.clone()))
            .is_some_and(|t| t == "integer" || t == "number");
        if numeric {
            rep.push(Lowering::new(ptr, format!("format: {f}"), "dropped"));
        } else {
            rep.push(Lowering::new(
                ptr,
                format!("format: {f}"),
                "dropped; said in the description",
            ));
            append_description(m, &constraint_text("format", &json!(f)));
        }
    }
}

/// Closes the object schema `m` (`additionalProperties: false`), lowers its properties in turn
/// and makes each one required, an optional one also nullable.
fn strict_close_object(
    m: &mut Map<String, Value>,
    ptr: &str,
    depth: usize,
    rep: &mut Vec<Lowering>,
) {
    let no_props = m
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    match m.get("additionalProperties") {
        Some(Value::Bool(false)) => {}
        Some(Value::Object(_)) | Some(Value::Bool(true)) if no_props => rep.push(Lowering::new(
            ptr,
            "additionalProperties",
            strict::FREE_FORM,
        )),
        _ => rep.push(Lowering::new(
            ptr,
            "additionalProperties",
            "set to false (strict mode requires closed objects)",
        )),
    }
    m.insert("additionalProperties".into(), json!(false));
    if !m.contains_key("properties") {
        m.insert("properties".into(), json!({}));
    }
    let required = schema::required(&Value::Object(m.clone()));
    let mut names = Vec::new();
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for (k, p) in props.iter_mut() {
            let pp = child(&child(ptr, "properties"), k);
            strict_schema(p, &pp, depth + 1, rep);
            if !required.contains(k) {
                make_nullable(p);
                rep.push(Lowering::new(
                    &pp,
                    "optional property",
                    "made required and nullable (the model sends null to leave it out)",
                ));
            }
            names.push(Value::String(k.clone()));
        }
    }
    m.insert("required".into(), Value::Array(names));
}

/// Lets `v` also be `null`.
fn make_nullable(v: &mut Value) {
    let Value::Object(m) = v else { return };
    match m.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            m.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(a)) => {
            if !a.iter().any(|x| x.as_str() == Some("null")) {
                a.push(json!("null"));
            }
        }
        Some(_) => {}
        None => {
            if !m.contains_key("$ref")
                && let Some(Value::Array(a)) = m.get_mut("anyOf")
            {
                let null = json!({"type": "null"});
                if !a.contains(&null) {
                    a.push(null);
                }
                return;
            }
            // `$ref`, `enum` without a type: offer null as another branch.
            let description = m.remove("description");
            let inner = Value::Object(std::mem::take(m));
            m.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            if let Some(d) = description {
                m.insert("description".into(), d);
            }
            return;
        }
    }
    if let Some(Value::Array(e)) = m.get_mut("enum")
        && !e.contains(&Value::Null)
    {
        e.push(Value::Null);
    }
}

/// Merges the subschemas of an `allOf` into `m` (properties and required united, other keys:
/// first one wins).
fn merge_all_of(m: &mut Map<String, Value>, all: Vec<Value>) {
    for sub in all {
        let Value::Object(s) = sub else { continue };
        for (k, x) in s {
            match (k.as_str(), m.get_mut(&k)) {
                ("properties", Some(Value::Object(props))) => {
                    if let Value::Object(more) = x {
                        for (pk, pv) in more {
                            props.entry(pk).or_insert(pv);
                        }
                    }
                }
                ("required", Some(Value::Array(req))) => {
                    if let Value::Array(more) = x {
                        for r in more {
                            if !req.contains(&r) {
                                req.push(r);
                            }
                        }
                    }
                }
                (_, Some(_)) => {}
                (_, None) => {
                    m.insert(k, x);
                }
            }
        }
    }
}

fn gemini(spec: &ToolSpec, rep: &mut Vec<Lowering>) -> Value {
    let root = root_object(spec, rep);
    let mut problems = Vec::new();
    let has_refs = root.to_string().contains("\"$ref\"");
    let inlined = if has_refs || root.get("$defs").is_some() || root.get("definitions").is_some() {
        let out = schema::inline_refs(&root, &mut problems);
        if has_refs {
            rep.push(Lowering::new(
                "",
                "$ref/$defs",
                "inlined (Gemini has no references)",
            ));
        } else {
            rep.push(Lowering::new("", "$defs", "dropped (unused)"));
        }
        for p in problems {
            let action = if p.recursive {
                "recursive reference cut: the nested value is a plain object"
            } else {
                "reference does not resolve: dropped"
            };
            rep.push(Lowering::new(
                &p.pointer,
                format!("$ref {}", p.reference),
                action,
            ));
        }
        out
    } else {
        root
    };
    let params = gemini_schema(&inlined, "", 0, rep);
    let mut out = Map::new();
    out.insert("name".into(), json!(gemini_name(&spec.name, rep)));
    out.insert("description".into(), json!(spec.description));
    let empty = params
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if empty {
        rep.push(Lowering::new(
            "",
            "object without properties",
            "parameters left out (Gemini rejects an empty object)",
        ));
    } else {
        out.insert("parameters".into(), params);
    }
    Value::Object(out)
}

/// Gemini names: start with a letter or `_`; letters, digits, `_`, `.`, `:`, `-`; at most 64.
fn gemini_name(name: &str, rep: &mut Vec<Lowering>) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out.truncate(64);
    if out != name {
        rep.push(Lowering::new(
            "#name",
            format!("name `{name}`"),
            format!("renamed to `{out}`; map it back when the call returns"),
        ));
    }
    out
}

/// Keywords of Gemini's schema subset.
const GEMINI_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

fn gemini_format_ok(t: Option<&str>, f: &str) -> bool {
    matches!(
        (t, f),
        (Some("string"), "date-time" | "enum")
            | (Some("integer"), "int32" | "int64")
            | (Some("number"), "float" | "double")
    )
}

/// `v` in Gemini's OpenAPI subset.
fn gemini_schema(v: &Value, ptr: &str, depth: usize, rep: &mut Vec<Lowering>) -> Value {
    if depth > schema::MAX_DEPTH {
        rep.push(Lowering::new(ptr, "nesting too deep", "cut"));
        return json!({"type": "object"});
    }
    let mut m = match v {
        Value::Object(m) => m.clone(),
        Value::Bool(b) => {
            rep.push(Lowering::new(
                ptr,
                format!("boolean schema `{b}`"),
                "replaced by an untyped schema",
            ));
            return json!({});
        }
        _ => return json!({}),
    };
    gemini_lower_types(&mut m, ptr, rep);
    if let Some(one) = m.remove("oneOf") {
        rep.push(Lowering::new(ptr, "oneOf", "written as anyOf"));
        m.insert("anyOf".into(), one);
    }
    if let Some(Value::Array(all)) = m.remove("allOf") {
        rep.push(Lowering::new(ptr, "allOf", "merged into one schema"));
        merge_all_of(&mut m, all);
    }
    // anyOf [X, {type: null}] → X + nullable.
    if gemini_drop_null_branch(&mut m, ptr, rep) {
        return gemini_schema(&Value::Object(m), ptr, depth + 1, rep);
    }
    gemini_lower_value_keywords(&mut m, ptr, rep);
    let ty = m.get("type").and_then(Value::as_str).map(str::to_string);
    gemini_lower_format(&mut m, ty.as_deref(), ptr, rep);
    // Enums are string-only in Gemini.
    gemini_lower_enum(&mut m, ty.as_deref(), ptr, rep);
    if m.get("prefixItems").is_some() {
        if let Some(Value::Array(prefix)) = m.remove("prefixItems")
            && !m.contains_key("items")
            && let Some(first) = prefix.into_iter().next()
        {
            m.insert("items".into(), first);
        }
        rep.push(Lowering::new(
            ptr,
            "prefixItems (tuple)",
            "items of the first position's type",
        ));
    }
    let mut out = gemini_keep_subset(m, ptr, depth, rep);
    // Gemini needs a type on every schema.
    gemini_default_type(&mut out, ptr, rep);
    // `required` may only name declared properties.
    gemini_prune_required(&mut out, ptr, rep);
    Value::Object(out)
}

/// Writes a `type` array as one type plus `nullable` (or an `anyOf` for a real union), and
/// `type: null` as `nullable`.
fn gemini_lower_types(m: &mut Map<String, Value>, ptr: &str, rep: &mut Vec<Lowering>) {
    // Type arrays → one type + nullable (or anyOf for real unions).
    if let Some(Value::Array(ts)) = m.get("type").cloned() {
        let non_null: Vec<Value> = ts
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        let nullable = non_null.len() < ts.len();
        match non_null.as_slice() {
            [one] => {
                m.insert("type".into(), one.clone());
            }
            [] => {
                m.remove("type");
            }
            many => {
                m.remove("type");
                let branches: Vec<Value> = many.iter().map(|t| json!({"type": t})).collect();
                m.insert("anyOf".into(), Value::Array(branches));
            }
        }
        if nullable {
            m.insert("nullable".into(), json!(true));
        }
        rep.push(Lowering::new(
            ptr,
            format!("type: {}", Value::Array(ts)),
            if nullable {
                "single type + nullable: true"
            } else {
                "written as anyOf"
            },
        ));
    }
    if m.get("type").and_then(Value::as_str) == Some("null") {
        m.remove("type");
        m.insert("nullable".into(), json!(true));
        rep.push(Lowering::new(ptr, "type: null", "nullable: true"));
    }
}

/// Drops the `{type: null}` branches of an `anyOf`, marking the schema `nullable`. `true` when
/// a single branch is left: it has been merged into the schema, which must then be lowered again.
fn gemini_drop_null_branch(m: &mut Map<String, Value>, ptr: &str, rep: &mut Vec<Lowering>) -> bool {
    if let Some(Value::Array(any)) = m.get("anyOf").cloned() {
        let is_null = |x: &Value| x.get("type").and_then(Value::as_str) == Some("null");
        let rest: Vec<Value> = any.iter().filter(|x| !is_null(x)).cloned().collect();
        if rest.len() < any.len() {
            m.insert("nullable".into(), json!(true));
            if let [only] = rest.as_slice() {
                m.remove("anyOf");
                if let Value::Object(o) = only {
                    for (k, x) in o {
                        m.entry(k.clone()).or_insert_with(|| x.clone());
                    }
                }
                rep.push(Lowering::new(
                    ptr,
                    "anyOf with null",
                    "the other branch + nullable: true",
                ));
                return true;
            }
            m.insert("anyOf".into(), Value::Array(rest));
            rep.push(Lowering::new(
                ptr,
                "anyOf with null",
                "null branch dropped, nullable: true",
            ));
        }
    }
    false
}

/// Writes `const` as a one-value enum, exclusive bounds as inclusive ones (said in the
/// description), and `examples` as its first `example`.
fn gemini_lower_value_keywords(m: &mut Map<String, Value>, ptr: &str, rep: &mut Vec<Lowering>) {
    if let Some(c) = m.remove("const") {
        rep.push(Lowering::new(ptr, "const", "written as a one-value enum"));
        m.insert("enum".into(), Value::Array(vec![c]));
    }
    if let Some(x) = m.remove("exclusiveMinimum") {
        if x.is_number() && !m.contains_key("minimum") {
            m.insert("minimum".into(), x.clone());
        }
        append_description(m, &constraint_text("exclusiveMinimum", &x));
        rep.push(Lowering::new(
            ptr,
            "exclusiveMinimum",
            "written as minimum (inclusive) and said in the description",
        ));
    }
    if let Some(x) = m.remove("exclusiveMaximum") {
        if x.is_number() && !m.contains_key("maximum") {
            m.insert("maximum".into(), x.clone());
        }
        append_description(m, &constraint_text("exclusiveMaximum", &x));
        rep.push(Lowering::new(
            ptr,
            "exclusiveMaximum",
            "written as maximum (inclusive) and said in the description",
        ));
    }
    if let Some(Value::Array(ex)) = m.remove("examples") {
        if let Some(first) = ex.into_iter().next() {
            m.entry("example").or_insert(first);
        }
        rep.push(Lowering::new(ptr, "examples", "first one kept as example"));
    }
}

/// Drops a `format` Gemini does not know for the schema's type `ty`, saying it in the
/// description unless it is a numeric width.
fn gemini_lower_format(
    m: &mut Map<String, Value>,
    ty: Option<&str>,
    ptr: &str,
    rep: &mut Vec<Lowering>,
) {
    if let Some(f) = m.get("format").and_then(Value::as_str).map(str::to_string)
        && !gemini_format_ok(ty, &f)
    {
        m.remove("format");
        if matches!(ty, Some("integer" | "number")) {
            // Numeric formats (uint8, int16…) are machine widths; their range is in minimum/maximum.
            rep.push(Lowering::new(ptr, format!("format: {f}"), "dropped"));
        } else {
            append_description(m, &constraint_text("format", &json!(f)));
            rep.push(Lowering::new(
                ptr,
                format!("format: {f}"),
                "dropped; said in the description",
            ));
        }
    }
}

/// Keeps an enum of strings (typed `string`, its `null` as `nullable`); any other enum is dropped
/// and its values listed in the description.
fn gemini_lower_enum(
    m: &mut Map<String, Value>,
    ty: Option<&str>,
    ptr: &str,
    rep: &mut Vec<Lowering>,
) {
    if let Some(Value::Array(values)) = m.get("enum").cloned() {
        let has_null = values.contains(&Value::Null);
        let non_null: Vec<Value> = values.into_iter().filter(|x| !x.is_null()).collect();
        if has_null {
            m.insert("nullable".into(), json!(true));
        }
        if non_null.iter().all(Value::is_string) && ty.is_none_or(|t| t == "string") {
            m.insert("type".into(), json!("string"));
            m.insert("enum".into(), Value::Array(non_null));
        } else {
            m.remove("enum");
            let list: Vec<String> = non_null.iter().map(Value::to_string).collect();
            append_description(m, &format!("One of: {}.", list.join(", ")));
            rep.push(Lowering::new(
                ptr,
                "non-string enum",
                "dropped; the values are listed in the description",
            ));
        }
    }
}

/// The keywords of `m` in Gemini's subset, with its subschemas (properties, items, anyOf
/// branches) lowered in turn; every other keyword is dropped and reported, vendor extensions
/// silently.
fn gemini_keep_subset(
    m: Map<String, Value>,
    ptr: &str,
    depth: usize,
    rep: &mut Vec<Lowering>,
) -> Map<String, Value> {
    let free_keys = matches!(
        m.get("additionalProperties"),
        Some(Value::Object(_)) | Some(Value::Bool(true))
    );
    let has_props = m
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    let mut out = Map::new();
    for (k, x) in m {
        if GEMINI_KEYS.contains(&k.as_str()) || k == "nullable" {
            let value = match k.as_str() {
                "properties" => match x {
                    Value::Object(props) => Value::Object(
                        props
                            .iter()
                            .map(|(pk, pv)| {
                                let pp = child(&child(ptr, "properties"), pk);
                                (pk.clone(), gemini_schema(pv, &pp, depth + 1, rep))
                            })
                            .collect(),
                    ),
                    other => other,
                },
                "items" => gemini_schema(&x, &child(ptr, "items"), depth + 1, rep),
                "anyOf" => match x {
                    Value::Array(a) => Value::Array(
                        a.iter()
                            .enumerate()
                            .map(|(i, s)| {
                                gemini_schema(
                                    s,
                                    &child(&child(ptr, "anyOf"), &i.to_string()),
                                    depth + 1,
                                    rep,
                                )
                            })
                            .collect(),
                    ),
                    other => other,
                },
                _ => x,
            };
            out.insert(k, value);
        } else if k == "additionalProperties" {
            let action = if free_keys && !has_props {
                "dropped: a free-form object, whose keys Gemini cannot describe"
            } else {
                "dropped"
            };
            rep.push(Lowering::new(ptr, "additionalProperties", action));
        } else if k.starts_with("x-") {
            // Vendor extensions are ours to drop silently.
        } else {
            rep.push(Lowering::new(
                ptr,
                k.clone(),
                "dropped (not in Gemini's schema subset)",
            ));
        }
    }
    out
}

/// Gives a schema with neither `type` nor `anyOf` the type its keywords imply (`string` when
/// nothing does).
fn gemini_default_type(out: &mut Map<String, Value>, ptr: &str, rep: &mut Vec<Lowering>) {
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        let (t, why) = if out.contains_key("properties") {
            ("object", "it has properties")
        } else if out.contains_key("items") {
            ("array", "it has items")
        } else {
            ("string", "any value, sent as text")
        };
        out.insert("type".into(), json!(t));
        rep.push(Lowering::new(
            ptr,
            "schema without a type",
            format!("type: {t} ({why})"),
        ));
    }
}

/// Drops from `required` the names that are not declared properties, and `required` itself
/// when none is left.
fn gemini_prune_required(out: &mut Map<String, Value>, ptr: &str, rep: &mut Vec<Lowering>) {
    if let Some(Value::Array(req)) = out.get("required").cloned() {
        let declared = out.get("properties").and_then(Value::as_object);
        let kept: Vec<Value> = req
            .iter()
            .filter(|r| {
                r.as_str()
                    .is_some_and(|n| declared.is_some_and(|d| d.contains_key(n)))
            })
            .cloned()
            .collect();
        if kept.len() < req.len() {
            rep.push(Lowering::new(
                ptr,
                "required names an undeclared property",
                "dropped from required",
            ));
        }
        if kept.is_empty() {
            out.remove("required");
        } else {
            out.insert("required".into(), Value::Array(kept));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_core::SideEffects;

    fn money_spec() -> ToolSpec {
        // The shape schemars gives a `#[tool]` with a nested struct and an optional enum.
        ToolSpec::new(
            "convert_currency",
            "Convert an amount between currencies at a dated rate. Use this when the user asks for an exchange.",
            json!({
                "type": "object",
                "properties": {
                    "amount": {"type": "number", "exclusiveMinimum": 0, "description": "How much to convert."},
                    "from": {"$ref": "#/$defs/Currency", "description": "Source currency."},
                    "to": {"$ref": "#/$defs/Currency", "description": "Target currency."},
                    "round": {"type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 8,
                              "description": "Decimals to keep."}
                },
                "required": ["amount", "from", "to"],
                "additionalProperties": false,
                "$defs": {"Currency": {"type": "string", "enum": ["USD", "EUR", "JPY"]}}
            }),
        )
    }

    #[test]
    fn parses_dialect_names() {
        for d in Dialect::ALL {
            assert_eq!(Dialect::parse(d.as_str()), Some(d));
        }
        assert_eq!(Dialect::parse("OpenAI_Strict"), Some(Dialect::OpenAiStrict));
        assert_eq!(Dialect::parse("cobol"), None);
    }

    #[test]
    fn gemini_has_no_refs_defs_or_additional_properties() {
        let (g, rep) = export_with_report(&money_spec(), Dialect::Gemini);
        let text = g.to_string();
        for banned in [
            "$ref",
            "$defs",
            "additionalProperties",
            "exclusiveMinimum",
            "uint8",
            "$schema",
        ] {
            assert!(!text.contains(banned), "{banned} in {text}");
        }
        assert_eq!(
            g["parameters"]["properties"]["from"]["enum"],
            json!(["USD", "EUR", "JPY"])
        );
        assert_eq!(
            g["parameters"]["properties"]["from"]["description"],
            "Source currency."
        );
        assert_eq!(g["parameters"]["properties"]["round"]["type"], "integer");
        assert_eq!(g["parameters"]["properties"]["round"]["nullable"], true);
        assert!(rep.iter().any(|l| l.construct == "$ref/$defs"));
        assert!(
            rep.iter()
                .any(|l| l.construct == "format: uint8" && l.pointer == "/properties/round")
        );
        insta::assert_json_snapshot!("gemini_convert_currency", g);
    }

    #[test]
    fn openai_strict_closes_objects_and_nulls_optionals() {
        let (o, rep) = export_with_report(&money_spec(), Dialect::OpenAiStrict);
        let p = &o["function"]["parameters"];
        assert_eq!(o["function"]["strict"], true);
        assert_eq!(p["additionalProperties"], false);
        assert_eq!(p["required"], json!(["amount", "from", "to", "round"]));
        assert_eq!(p["properties"]["round"]["type"], json!(["integer", "null"]));
        assert!(p["properties"]["round"].get("format").is_none());
        assert!(
            rep.iter()
                .any(|l| l.pointer == "/properties/round" && l.construct == "optional property")
        );
        insta::assert_json_snapshot!("openai_strict_convert_currency", o);
    }

    #[test]
    fn strict_nullable_ref_and_enum() {
        let spec = ToolSpec::new(
            "set_mode",
            "d",
            json!({"type": "object", "properties": {
                "mode": {"$ref": "#/$defs/Mode", "description": "Mode."},
                "level": {"type": "string", "enum": ["a", "b"]},
                "nested": {"type": "object", "properties": {"x": {"type": "string", "maxLength": 3}}}
            }, "$defs": {"Mode": {"type": "string", "enum": ["on", "off"]}}}),
        );
        let o = export_dialect(&spec, Dialect::OpenAiStrict);
        let p = &o["function"]["parameters"]["properties"];
        assert_eq!(p["mode"]["anyOf"][1]["type"], "null");
        assert_eq!(p["mode"]["description"], "Mode.");
        assert_eq!(p["level"]["enum"], json!(["a", "b", null]));
        assert_eq!(p["nested"]["additionalProperties"], false);
        assert_eq!(p["nested"]["required"], json!(["x"]));
        assert!(
            p["nested"]["properties"]["x"]["description"]
                .as_str()
                .unwrap()
                .contains("At most 3")
        );
    }

    #[test]
    fn plain_dialects_keep_the_schema() {
        let spec = money_spec();
        let o = export_dialect(&spec, Dialect::OpenAi);
        assert_eq!(o["function"]["parameters"], spec.parameters);
        let a = export_dialect(&spec, Dialect::Anthropic);
        assert_eq!(a["input_schema"], spec.parameters);
        let j = export_dialect(&spec, Dialect::JsonSchema);
        assert_eq!(j["$schema"], SCHEMA_2020_12);
        assert_eq!(j["title"], "convert_currency");
        assert_eq!(j["$defs"], spec.parameters["$defs"]);
    }

    #[test]
    fn mcp_annotations_follow_metadata() {
        let mut spec = money_spec().side_effects(SideEffects::Read);
        spec.meta.display_label = Some("Converting currency".into());
        let m = export_dialect(&spec, Dialect::Mcp);
        assert_eq!(m["title"], "Converting currency");
        assert_eq!(m["annotations"]["readOnlyHint"], true);
        assert_eq!(m["annotations"]["destructiveHint"], false);
        assert_eq!(m["annotations"]["idempotentHint"], true);
        assert_eq!(m["inputSchema"]["type"], "object");
        let d = export_dialect(
            &money_spec().side_effects(SideEffects::Destructive),
            Dialect::Mcp,
        );
        assert_eq!(d["annotations"]["destructiveHint"], true);
        assert_eq!(d["annotations"]["idempotentHint"], false);
        insta::assert_json_snapshot!("mcp_convert_currency", m);
    }

    #[test]
    fn dotted_names_are_renamed_where_rejected() {
        let spec = ToolSpec::new(
            "math.factorial",
            "d",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        );
        let (o, rep) = export_with_report(&spec, Dialect::OpenAi);
        assert_eq!(o["function"]["name"], "math_factorial");
        assert!(rep.iter().any(|l| l.pointer == "#name"));
        assert_eq!(
            export_dialect(&spec, Dialect::Gemini)["name"],
            "math.factorial"
        );
        assert_eq!(
            export_dialect(&spec, Dialect::Mcp)["name"],
            "math.factorial"
        );
    }

    #[test]
    fn gemini_lowers_odd_constructs() {
        let spec = ToolSpec::new(
            "odd",
            "d",
            json!({"type": "object", "properties": {
                "a": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "b": {"type": "integer", "enum": [1, 2, 3]},
                "c": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]},
                "d": {"const": "x"},
                "e": {"type": "object", "additionalProperties": {"type": "string"}},
                "f": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]},
                "g": {"type": "string", "x-internal": true, "uniqueItems": true}
            }, "required": ["a", "zzz"]}),
        );
        let (g, rep) = export_with_report(&spec, Dialect::Gemini);
        let p = &g["parameters"]["properties"];
        assert_eq!(p["a"]["anyOf"].as_array().unwrap().len(), 2);
        assert!(p["b"].get("enum").is_none());
        assert!(
            p["b"]["description"]
                .as_str()
                .unwrap()
                .contains("One of: 1, 2, 3")
        );
        assert_eq!(p["c"]["items"]["type"], "number");
        assert_eq!(p["d"]["enum"], json!(["x"]));
        assert!(p["e"].get("additionalProperties").is_none());
        assert_eq!(p["f"]["type"], "string");
        assert_eq!(p["f"]["nullable"], true);
        assert!(p["f"].get("format").is_none());
        assert!(p["g"].get("x-internal").is_none() && p["g"].get("uniqueItems").is_none());
        assert_eq!(g["parameters"]["required"], json!(["a"]));
        assert!(rep.iter().any(|l| l.construct == "uniqueItems"));
        assert!(!rep.iter().any(|l| l.construct == "x-internal"));
    }

    #[test]
    fn empty_parameters_and_odd_roots() {
        let spec = ToolSpec::new("ping", "d", json!({"type": "object", "properties": {}}));
        let g = export_dialect(&spec, Dialect::Gemini);
        assert!(g.get("parameters").is_none());
        let weird = ToolSpec::new("w", "d", json!({"type": "string"}));
        let (a, rep) = export_with_report(&weird, Dialect::Anthropic);
        assert_eq!(a["input_schema"]["properties"]["value"]["type"], "string");
        assert!(!rep.is_empty());
        let null = ToolSpec::new("n", "d", Value::Null);
        for d in Dialect::ALL {
            let _ = export_dialect(&null, d);
        }
    }

    #[test]
    fn inlined_exports_have_no_refs_in_any_dialect() {
        let spec = ToolSpec::new(
            "ship",
            "Ship. Use this when asked to send.",
            json!({"type": "object", "properties": {"to": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"]}}}),
        );
        for d in Dialect::ALL {
            let (v, problems) = export_inlined(&spec, d);
            assert!(problems.is_empty(), "{d}");
            let text = v.to_string();
            assert!(
                !text.contains("$ref") && !text.contains("$defs"),
                "{d}: {text}"
            );
            let schema = v.pointer(d.schema_pointer()).unwrap();
            // Strict mode makes the optional `to` nullable: the object is the first branch.
            let city = if d == Dialect::OpenAiStrict {
                "/properties/to/anyOf/0/properties/city/type"
            } else {
                "/properties/to/properties/city/type"
            };
            assert_eq!(
                schema.pointer(city),
                Some(&json!("string")),
                "{d}: {schema}"
            );
        }
        let recursive = ToolSpec::new(
            "walk",
            "Walk. Use this when asked to walk.",
            json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
                "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}),
        );
        let (_, problems) = export_inlined(&recursive, Dialect::Mcp);
        assert!(problems.iter().any(|p| p.recursive), "{problems:?}");
    }

    #[test]
    fn portability_covers_every_dialect() {
        let report = portability(&[money_spec()]);
        assert_eq!(report.len(), Dialect::ALL.len());
        let openai = report
            .iter()
            .find(|p| p.dialect == Dialect::OpenAi)
            .unwrap();
        assert!(openai.lowerings.is_empty());
        let gemini = report
            .iter()
            .find(|p| p.dialect == Dialect::Gemini)
            .unwrap();
        assert!(!gemini.lowerings.is_empty());
    }
}
