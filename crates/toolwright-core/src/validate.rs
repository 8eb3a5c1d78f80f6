//! Validation of arguments against the exact schema a tool advertises, lenient coercion, and the
//! translation of violations into [`FieldError`]s a model can act on.

use crate::envelope::Coercion;
use crate::error::{FieldError, Problem, ToolError};
use crate::suggest::closest;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};

mod fast;

/// At most this many field errors are reported for one call; the rest are counted.
pub const MAX_FIELD_ERRORS: usize = 20;
/// How deep coercion follows the schema (guards against recursive `$ref`s).
const MAX_SCHEMA_DEPTH: usize = 32;

/// A compiled argument schema.
///
/// ```
/// use toolwright_core::ArgValidator;
/// let v = ArgValidator::new(&serde_json::json!({
///     "type": "object",
///     "properties": {"limit": {"type": "integer", "minimum": 1}},
///     "additionalProperties": false
/// })).unwrap();
/// let (args, coerced) = v.check(serde_json::json!({"limit": "5"}), true).unwrap();
/// assert_eq!(args["limit"], 5);
/// assert_eq!(coerced.len(), 1);
/// assert!(v.check(serde_json::json!({"limit": "5"}), false).is_err());
/// ```
///
/// The schema is compiled once when the validator is made, to reject a bad schema at
/// registration, and then dropped; it is compiled again on the first call and kept. A server
/// holding a thousand tools of which a few are called pays the memory of the few (about 4 KiB
/// per compiled schema here).
///
/// Valid arguments of the usual schemas (what schemars derives from a Rust type) are recognised
/// by a quick check planned from the schema, which never accepts what the compiled validator
/// rejects; anything it cannot decide, and every failure with its report, goes through the
/// compiled validator.
pub struct ArgValidator {
    schema: Value,
    compiled: std::sync::OnceLock<Result<jsonschema::Validator, SchemaError>>,
    /// The quick check (planned on first use; `None` when the schema's root is not modelled).
    quick: std::sync::OnceLock<Option<fast::Node>>,
}

/// A schema that does not compile as JSON Schema draft 2020-12.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The compiler's message.
    pub reason: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid JSON Schema: {}", self.reason)
    }
}

impl std::error::Error for SchemaError {}

fn compile(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .map_err(|e| SchemaError {
            reason: e.to_string(),
        })
}

impl std::fmt::Debug for ArgValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgValidator")
            .field("schema", &self.schema)
            .finish()
    }
}

impl ArgValidator {
    /// Compiles `schema` as JSON Schema draft 2020-12.
    ///
    /// # Errors
    /// The schema itself is invalid.
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        drop(compile(schema)?);
        Ok(ArgValidator {
            schema: schema.clone(),
            compiled: std::sync::OnceLock::new(),
            quick: std::sync::OnceLock::new(),
        })
    }

    /// Whether the quick check knows `args` to be valid (then the compiled validator is not
    /// run).
    fn quickly_valid(&self, args: &Value) -> bool {
        self.quick
            .get_or_init(|| fast::plan(&self.schema))
            .as_ref()
            .is_some_and(|plan| plan.check(args) == fast::Verdict::Valid)
    }

    /// Whether valid arguments of this schema can be recognised without the compiled
    /// validator: the schema's root is one the quick check models (its parts may still be
    /// left to the compiled validator).
    pub fn has_quick_check(&self) -> bool {
        self.quick
            .get_or_init(|| fast::plan(&self.schema))
            .is_some()
    }

    /// The compiled schema (compiled on first use).
    fn compiled(&self) -> Result<&jsonschema::Validator, ToolError> {
        self.compiled
            .get_or_init(|| compile(&self.schema))
            .as_ref()
            .map_err(|e| ToolError::internal(format!("the tool's schema does not compile: {e}")))
    }

    /// The schema this validator checks.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Validates `args`, first applying lenient coercions when `lenient` is set.
    ///
    /// # Errors
    /// A `VALIDATION_ERROR` with every violation in `fields`.
    pub fn check(&self, args: Value, lenient: bool) -> Result<(Value, Vec<Coercion>), ToolError> {
        // Valid arguments (the common case) are checked once, not once more after coercion.
        if self.quickly_valid(&args) || self.compiled()?.is_valid(&args) {
            return Ok((args, Vec::new()));
        }
        let (args, coerced) = if lenient {
            let mut coerced = Vec::new();
            let args = self.coerce(args, &mut coerced);
            (args, coerced)
        } else {
            (args, Vec::new())
        };
        match self.validate(&args) {
            Ok(()) => Ok((args, coerced)),
            Err(e) => Err(e),
        }
    }

    /// Validates `args` without coercion.
    ///
    /// # Errors
    /// A `VALIDATION_ERROR` with every violation in `fields`.
    pub fn validate(&self, args: &Value) -> Result<(), ToolError> {
        if self.quickly_valid(args) {
            return Ok(());
        }
        let compiled = self.compiled()?;
        if compiled.is_valid(args) {
            return Ok(());
        }
        let mut fields = Vec::new();
        let mut total = 0usize;
        for err in compiled.iter_errors(args) {
            let path = err.instance_path().as_str().to_string();
            let received = err.instance().clone().into_owned();
            for fe in self.describe(&path, err.kind(), received) {
                total += 1;
                if fields.len() < MAX_FIELD_ERRORS {
                    fields.push(fe);
                }
            }
        }
        if fields.is_empty() {
            fields.push(FieldError::new(
                "",
                Problem::InvalidValue,
                "the arguments do not match the schema",
            ));
        }
        Err(validation_error(fields, total))
    }

    fn describe(&self, path: &str, kind: &ValidationErrorKind, received: Value) -> Vec<FieldError> {
        let node = schema_at(&self.schema, path);
        let fe = |problem: Problem, message: String, expected: Option<Value>| FieldError {
            path: path.to_string(),
            problem,
            message,
            received: Some(received.clone()),
            expected,
            hint: None,
        };
        let at = display_path(path);
        match kind {
            ValidationErrorKind::Required { property } => {
                vec![self.missing_required(path, node, property)]
            }
            ValidationErrorKind::Type { kind } => {
                let (message, expected) = wrong_type(path, &at, kind, &received);
                vec![fe(Problem::WrongType, message, expected)]
            }
            ValidationErrorKind::Enum { options } => {
                let allowed = options.as_ref().clone();
                let list = list_values(&allowed);
                let mut e = fe(
                    Problem::NotInEnum,
                    format!("{at} must be one of: {list}"),
                    Some(allowed.clone()),
                );
                e.hint = enum_hint(&received, &allowed);
                vec![e]
            }
            ValidationErrorKind::Constant { expected_value } => {
                let allowed = Value::Array(vec![expected_value.as_ref().clone()]);
                vec![fe(
                    Problem::NotInEnum,
                    format!("{at} must be {}", quote(&expected_value.to_string())),
                    Some(allowed),
                )]
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                unknown_fields(path, node, unexpected, &received)
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                // `Option<T>` is `anyOf [T, null]`: drop the null branch and report why T failed.
                if let Some(described) = self.describe_only_branch(context) {
                    return described;
                }
                vec![fe(
                    Problem::NoMatch,
                    format!("{at} does not match any allowed form"),
                    node.map(type_summary),
                )]
            }
            ValidationErrorKind::OneOfMultipleValid { .. } => vec![fe(
                Problem::NoMatch,
                format!("{at} does not match any allowed form"),
                node.map(type_summary),
            )],
            other => match limit_violation(other, &at, node) {
                Some((problem, message, expected)) => vec![fe(problem, message, expected)],
                None => vec![fe(
                    Problem::InvalidValue,
                    format!("{at} is not valid ({})", other.keyword()),
                    None,
                )],
            },
        }
    }

    /// The error for the required property `property` missing from the object at `path`, expecting
    /// what that property's schema (in `node`, the object's schema) accepts.
    fn missing_required(&self, path: &str, node: Option<&Value>, property: &Value) -> FieldError {
        let name = property.as_str().unwrap_or_default().to_string();
        let prop_schema = node
            .and_then(|n| n.get("properties"))
            .and_then(|p| p.get(&name))
            .map(|s| resolve(&self.schema, s));
        let expected = prop_schema.map(type_summary);
        FieldError {
            path: format!("{path}/{}", escape_pointer(&name)),
            problem: Problem::MissingRequired,
            message: format!("missing required argument `{name}`"),
            received: None,
            expected,
            hint: None,
        }
    }

    /// Why the one branch of a failed `anyOf`/`oneOf` that is not a bare `null` failed, as field
    /// errors; `None` when several branches remain or that branch yields no error.
    fn describe_only_branch(
        &self,
        context: &[Vec<jsonschema::ValidationError<'static>>],
    ) -> Option<Vec<FieldError>> {
        let branches: Vec<&Vec<jsonschema::ValidationError<'static>>> = context
            .iter()
            .filter(|errs| !is_null_branch(errs))
            .collect();
        if let [only] = branches.as_slice() {
            let described: Vec<FieldError> = only
                .iter()
                .flat_map(|e| {
                    let p = e.instance_path().as_str().to_string();
                    self.describe(&p, e.kind(), e.instance().clone().into_owned())
                })
                .collect();
            if !described.is_empty() {
                return Some(described);
            }
        }
        None
    }

    /// Applies unambiguous conversions where a value does not have the type its schema wants:
    /// `"5"` → `5`, `"true"` → `true`, a string holding JSON → the object or array, a number →
    /// a string, an enum value in the wrong case → the enum value, `null` arguments → `{}`.
    pub fn coerce(&self, args: Value, coerced: &mut Vec<Coercion>) -> Value {
        let args = match args {
            Value::Null => {
                coerced.push(Coercion {
                    path: String::new(),
                    from: Value::Null,
                    to: Value::Object(Map::new()),
                });
                Value::Object(Map::new())
            }
            Value::String(s) if s.trim().is_empty() => {
                coerced.push(Coercion {
                    path: String::new(),
                    from: Value::String(s),
                    to: Value::Object(Map::new()),
                });
                Value::Object(Map::new())
            }
            other => other,
        };
        coerce_value(&self.schema, &self.schema, args, String::new(), coerced, 0)
    }
}

fn is_null_branch(errs: &[jsonschema::ValidationError<'static>]) -> bool {
    matches!(errs, [e] if matches!(e.kind(), ValidationErrorKind::Type { kind: TypeKind::Single(t) }
        if t.to_string() == "null"))
}

/// The message and the expected type (or list of types) for the value at `path` (displayed as
/// `at`) whose JSON type is not one of `kind`.
fn wrong_type(path: &str, at: &str, kind: &TypeKind, received: &Value) -> (String, Option<Value>) {
    let expected: Vec<Value> = match kind {
        TypeKind::Single(t) => vec![Value::String(t.to_string())],
        TypeKind::Multiple(set) => set.iter().map(|t| Value::String(t.to_string())).collect(),
    };
    let names: Vec<&str> = expected.iter().filter_map(Value::as_str).collect();
    let message = if path.is_empty() {
        format!("the arguments must be a JSON {}", names.join(" or "))
    } else {
        format!(
            "{at} must be {}, got {}",
            names.join(" or "),
            json_type_name(received)
        )
    };
    let expected = if expected.len() == 1 {
        expected.into_iter().next()
    } else {
        Some(Value::Array(expected))
    };
    (message, expected)
}

/// "did you mean …?" for a string `received` that is not one of the `allowed` enum values but is
/// close to one of its strings.
fn enum_hint(received: &Value, allowed: &Value) -> Option<String> {
    if let (Some(got), Some(opts)) = (received.as_str(), allowed.as_array()) {
        let names: Vec<&str> = opts.iter().filter_map(Value::as_str).collect();
        if let Some(best) = closest(got, names.iter().copied(), 1).first() {
            return Some(format!("did you mean `{best}`?"));
        }
    }
    None
}

/// One `UNKNOWN_FIELD` error per `unexpected` key of the object at `path`, each expecting the
/// properties its schema `node` declares and suggesting the closest of them.
fn unknown_fields(
    path: &str,
    node: Option<&Value>,
    unexpected: &[String],
    received: &Value,
) -> Vec<FieldError> {
    let known: Vec<String> = node
        .and_then(|n| n.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    unexpected
        .iter()
        .map(|name| {
            let hint = closest(name, known.iter().map(String::as_str), 1)
                .first()
                .map(|b| format!("did you mean `{b}`?"));
            FieldError {
                path: format!("{path}/{}", escape_pointer(name)),
                problem: Problem::UnknownField,
                message: format!("unknown argument `{name}`"),
                received: received.get(name).cloned(),
                expected: Some(Value::Array(
                    known.iter().cloned().map(Value::String).collect(),
                )),
                hint,
            }
        })
        .collect()
}

/// The problem, message and expected bound for a violated range, step, length, item-count,
/// uniqueness or format keyword (the value displayed as `at`, its schema `node`); `None` for
/// any other kind of violation.
fn limit_violation(
    kind: &ValidationErrorKind,
    at: &str,
    node: Option<&Value>,
) -> Option<(Problem, String, Option<Value>)> {
    Some(match kind {
        ValidationErrorKind::Minimum { limit } => (
            Problem::OutOfRange,
            format!("{at} must be at least {limit}"),
            Some(bounds(node)),
        ),
        ValidationErrorKind::Maximum { limit } => (
            Problem::OutOfRange,
            format!("{at} must be at most {limit}"),
            Some(bounds(node)),
        ),
        ValidationErrorKind::ExclusiveMinimum { limit } => (
            Problem::OutOfRange,
            format!("{at} must be greater than {limit}"),
            Some(bounds(node)),
        ),
        ValidationErrorKind::ExclusiveMaximum { limit } => (
            Problem::OutOfRange,
            format!("{at} must be less than {limit}"),
            Some(bounds(node)),
        ),
        ValidationErrorKind::MultipleOf { .. } => (
            Problem::OutOfRange,
            format!("{at} is not an allowed step"),
            node.and_then(|n| n.get("multipleOf")).cloned(),
        ),
        ValidationErrorKind::MaxLength { limit } => (
            Problem::TooLong,
            format!("{at} must be at most {limit} characters"),
            Some(serde_json::json!({"maxLength": limit})),
        ),
        ValidationErrorKind::MinLength { limit } => (
            Problem::TooShort,
            format!("{at} must be at least {limit} characters"),
            Some(serde_json::json!({"minLength": limit})),
        ),
        ValidationErrorKind::Pattern { pattern } => (
            Problem::Pattern,
            format!("{at} must match the pattern {}", quote(pattern)),
            Some(serde_json::json!({"pattern": pattern})),
        ),
        ValidationErrorKind::MaxItems { limit } => (
            Problem::TooManyItems,
            format!("{at} must have at most {limit} items"),
            Some(serde_json::json!({"maxItems": limit})),
        ),
        ValidationErrorKind::MinItems { limit } => (
            Problem::TooFewItems,
            format!("{at} must have at least {limit} items"),
            Some(serde_json::json!({"minItems": limit})),
        ),
        ValidationErrorKind::UniqueItems => (
            Problem::NotUnique,
            format!("{at} must not contain duplicates"),
            None,
        ),
        ValidationErrorKind::Format { format } => (
            Problem::InvalidFormat,
            format!("{at} must be a valid {format}"),
            Some(serde_json::json!({"format": format})),
        ),
        _ => return None,
    })
}

fn validation_error(fields: Vec<FieldError>, total: usize) -> ToolError {
    let mut hints = Vec::new();
    for f in &fields {
        let name = display_path(&f.path);
        let hint = match f.problem {
            Problem::NotInEnum => f
                .expected
                .as_ref()
                .map(|e| format!("Use one of: {} for {name}.", list_values(e))),
            Problem::UnknownField => Some(match &f.hint {
                Some(h) => format!("Remove {name} ({h})."),
                None => format!("Remove {name}; it is not a parameter of this tool."),
            }),
            Problem::MissingRequired => Some(match &f.expected {
                Some(Value::String(t)) => format!("Provide {name} ({t})."),
                _ => format!("Provide {name}."),
            }),
            Problem::WrongType if f.path.is_empty() => {
                Some("Pass the arguments as a JSON object of named parameters.".to_string())
            }
            _ => Some(match &f.hint {
                Some(h) => format!("Fix {name}: {}", h.trim_end_matches('.').to_string() + "."),
                None => format!("Fix {name}: {}.", f.message.trim_end_matches('.')),
            }),
        };
        if let Some(h) = hint
            && !hints.contains(&h)
        {
            hints.push(h);
        }
    }
    let shown = fields.len();
    let mut message = if total == 1 {
        format!(
            "Invalid arguments: {}.",
            fields.first().map(|f| f.message.as_str()).unwrap_or("")
        )
    } else {
        format!("Invalid arguments: {total} problems.")
    };
    if total > shown {
        message.push_str(&format!(" Showing the first {shown}."));
    }
    // The hints above counted what the caps leave out; now the fields themselves are capped.
    let fields: Vec<FieldError> = fields.into_iter().map(cap_field).collect();
    let suggestion = if hints.is_empty() {
        crate::error::ErrorCode::Validation
            .default_suggestion()
            .to_string()
    } else {
        hints.join(" ")
    };
    ToolError::validation(message, suggestion).with_fields(fields)
}

/// Builds a `VALIDATION_ERROR` from field errors (custom validators, serde failures).
pub fn validation_error_from_fields(fields: Vec<FieldError>) -> ToolError {
    let total = fields.len();
    let fields = fields.into_iter().take(MAX_FIELD_ERRORS).collect();
    validation_error(fields, total)
}

fn display_path(path: &str) -> String {
    if path.is_empty() {
        "the arguments".to_string()
    } else {
        format!("`{}`", path.trim_start_matches('/').replace('/', "."))
    }
}

fn escape_pointer(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn unescape_pointer(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Most allowed values an error lists (in `expected`, its message and its suggestion); the
/// rest are counted ("and 999980 more").
pub const MAX_EXPECTED_VALUES: usize = 20;

/// Longest text an error quotes from the schema or the arguments (a pattern, a received
/// string), in characters.
pub const MAX_QUOTED_CHARS: usize = 200;

/// `s` cut to [`MAX_QUOTED_CHARS`] characters, with how much was left out.
fn quote(s: &str) -> String {
    let n = s.chars().count();
    if n <= MAX_QUOTED_CHARS {
        return s.to_string();
    }
    let head: String = s.chars().take(MAX_QUOTED_CHARS).collect();
    format!("{head}… ({} more characters)", n - MAX_QUOTED_CHARS)
}

/// A value an error shows, with long strings cut and long arrays or objects shortened, so
/// that one error stays small whatever the schema or the arguments hold.
fn bounded(v: &Value, depth: usize) -> Value {
    match v {
        Value::String(s) if s.chars().count() > MAX_QUOTED_CHARS => Value::String(quote(s)),
        Value::Array(items) if depth < 4 => Value::Array(
            items
                .iter()
                .take(MAX_EXPECTED_VALUES)
                .map(|i| bounded(i, depth + 1))
                .collect(),
        ),
        Value::Object(map) if depth < 4 => Value::Object(
            map.iter()
                .take(MAX_EXPECTED_VALUES)
                .map(|(k, x)| (quote(k), bounded(x, depth + 1)))
                .collect(),
        ),
        Value::Array(_) | Value::Object(_) => Value::String(quote(&v.to_string())),
        other => other.clone(),
    }
}

fn list_values(v: &Value) -> String {
    match v.as_array() {
        Some(items) => {
            let mut text = items
                .iter()
                .take(MAX_EXPECTED_VALUES)
                .map(|i| match i {
                    Value::String(s) => quote(s),
                    other => quote(&other.to_string()),
                })
                .collect::<Vec<_>>()
                .join(", ");
            if items.len() > MAX_EXPECTED_VALUES {
                text.push_str(&format!(" and {} more", items.len() - MAX_EXPECTED_VALUES));
            }
            text
        }
        None => quote(&v.to_string()),
    }
}

/// Applies the output caps to one field error: `expected` lists at most
/// [`MAX_EXPECTED_VALUES`] values (the closest match first when there is one) and says in the
/// message how many were left out; quoted strings are cut.
fn cap_field(mut f: FieldError) -> FieldError {
    if let Some(Value::Array(items)) = &f.expected
        && items.len() > MAX_EXPECTED_VALUES
    {
        let left = items.len() - MAX_EXPECTED_VALUES;
        if !f.message.contains("more") {
            f.message = format!("{} ({left} more allowed values not listed)", f.message);
        }
    }
    f.expected = f.expected.as_ref().map(|e| bounded(e, 0));
    f.received = f.received.as_ref().map(|r| bounded(r, 0));
    f.message = quote_long(&f.message, 4 * MAX_QUOTED_CHARS);
    f.hint = f.hint.as_deref().map(|h| quote_long(h, MAX_QUOTED_CHARS));
    f
}

fn quote_long(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}…")
}

fn bounds(node: Option<&Value>) -> Value {
    let mut m = Map::new();
    if let Some(n) = node {
        for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if let Some(v) = n.get(k) {
                m.insert(k.to_string(), v.clone());
            }
        }
    }
    Value::Object(m)
}

/// A short description of what a schema accepts: its type, or its enum.
fn type_summary(s: &Value) -> Value {
    if let Some(e) = s.get("enum") {
        return e.clone();
    }
    if let Some(t) = s.get("type") {
        return t.clone();
    }
    for k in ["anyOf", "oneOf"] {
        if let Some(opts) = s.get(k).and_then(Value::as_array) {
            let types: Vec<Value> = opts
                .iter()
                .filter_map(|o| o.get("type").cloned())
                .filter(|t| t != "null")
                .collect();
            if !types.is_empty() {
                return Value::Array(types);
            }
        }
    }
    Value::String("value".into())
}

/// Follows local `$ref`s (`#/$defs/X`) from `s`.
pub fn resolve<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..8 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) if r.starts_with('#') => match root.pointer(r.get(1..).unwrap_or("")) {
                Some(target) => s = target,
                None => return s,
            },
            _ => return s,
        }
    }
    s
}

/// The (resolved) subschema that describes the value at instance pointer `path`.
fn schema_at<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut node = resolve(root, root);
    if path.is_empty() {
        return Some(node);
    }
    for seg in path.trim_start_matches('/').split('/') {
        let seg = unescape_pointer(seg);
        let next = node
            .get("properties")
            .and_then(|p| p.get(&seg))
            .or_else(|| {
                seg.parse::<usize>()
                    .ok()
                    .and_then(|_| node.get("items"))
                    .filter(|i| i.is_object())
            })
            .or_else(|| {
                // Look through anyOf/oneOf/allOf for a branch that knows the segment.
                ["anyOf", "oneOf", "allOf"].iter().find_map(|k| {
                    node.get(*k)?.as_array()?.iter().find_map(|b| {
                        let b = resolve(root, b);
                        b.get("properties")
                            .and_then(|p| p.get(&seg))
                            .or_else(|| b.get("items"))
                    })
                })
            })?;
        node = resolve(root, next);
    }
    Some(node)
}

/// Most subschemas `schema_types` visits for one value.
const MAX_TYPE_NODES: usize = 256;

/// The types `s` allows, through `$ref`s and `anyOf`/`oneOf` options. Each subschema is visited
/// once: an option may refer back to its own schema (`{"anyOf": [{"$ref": "#/$defs/a"}]}` inside
/// `a`), which would otherwise recurse without end.
fn schema_types(root: &Value, s: &Value) -> Vec<String> {
    let mut seen = Vec::new();
    schema_types_within(root, s, &mut seen)
}

fn schema_types_within(root: &Value, s: &Value, seen: &mut Vec<*const Value>) -> Vec<String> {
    let s = resolve(root, s);
    if seen.len() >= MAX_TYPE_NODES || seen.contains(&std::ptr::from_ref(s)) {
        return Vec::new();
    }
    seen.push(std::ptr::from_ref(s));
    let mut out = Vec::new();
    match s.get("type") {
        Some(Value::String(t)) => out.push(t.clone()),
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).map(String::from)),
        _ => {}
    }
    for k in ["anyOf", "oneOf"] {
        if let Some(opts) = s.get(k).and_then(Value::as_array) {
            for o in opts {
                out.extend(schema_types_within(root, o, seen));
            }
        }
    }
    if out.is_empty()
        && let Some(e) = s.get("enum").and_then(Value::as_array)
    {
        for v in e {
            out.push(json_type_name(v).to_string());
        }
    }
    out
}

fn matches_type(v: &Value, types: &[String]) -> bool {
    types.iter().any(|t| match t.as_str() {
        "integer" => v.as_i64().is_some() || v.as_u64().is_some(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => false,
    })
}

fn coerce_value(
    root: &Value,
    schema: &Value,
    value: Value,
    path: String,
    coerced: &mut Vec<Coercion>,
    depth: usize,
) -> Value {
    if depth > MAX_SCHEMA_DEPTH {
        return value;
    }
    let schema = resolve(root, schema);
    let types = schema_types(root, schema);
    let mut value = value;
    if !types.is_empty() && !matches_type(&value, &types) {
        let fits_enum =
            |v: &Value| enum_options(root, schema).is_none_or(|opts| opts.iter().any(|o| o == v));
        if let Some(new) = convert(&value, &types).filter(|n| !n.is_string() || fits_enum(n)) {
            coerced.push(Coercion {
                path: path.clone(),
                from: value,
                to: new.clone(),
            });
            value = new;
        }
    }
    // Enum values in the wrong case, when exactly one matches. Case only: `"admin "` is not
    // `"admin"` (whitespace may be meaningful, and the documented coercion is the case).
    if let (Some(s), Some(options)) = (value.as_str(), enum_options(root, schema))
        && !options.iter().any(|o| o.as_str() == Some(s))
    {
        let hits: Vec<&Value> = options
            .iter()
            .filter(|o| o.as_str().is_some_and(|o| o.eq_ignore_ascii_case(s)))
            .collect();
        if let [only] = hits.as_slice() {
            let new = (*only).clone();
            coerced.push(Coercion {
                path: path.clone(),
                from: value.clone(),
                to: new.clone(),
            });
            value = new;
        }
    }
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let out = map
                .into_iter()
                .map(|(k, v)| {
                    let v = match props.and_then(|p| p.get(&k)) {
                        Some(sub) => coerce_value(
                            root,
                            sub,
                            v,
                            format!("{path}/{}", escape_pointer(&k)),
                            coerced,
                            depth + 1,
                        ),
                        None => v,
                    };
                    (k, v)
                })
                .collect();
            Value::Object(out)
        }
        Value::Array(items) => match schema.get("items").filter(|i| i.is_object()) {
            Some(item_schema) => Value::Array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        coerce_value(
                            root,
                            item_schema,
                            v,
                            format!("{path}/{i}"),
                            coerced,
                            depth + 1,
                        )
                    })
                    .collect(),
            ),
            None => Value::Array(items),
        },
        other => other,
    }
}

fn enum_options<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a Vec<Value>> {
    let s = resolve(root, schema);
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return Some(e);
    }
    // Option<Enum> comes out as anyOf [{$ref}, {type: null}].
    for k in ["anyOf", "oneOf"] {
        if let Some(opts) = s.get(k).and_then(Value::as_array) {
            for o in opts {
                if let Some(e) = resolve(root, o).get("enum").and_then(Value::as_array) {
                    return Some(e);
                }
            }
        }
    }
    None
}

fn convert(value: &Value, types: &[String]) -> Option<Value> {
    let has = |t: &str| types.iter().any(|x| x == t);
    match value {
        Value::String(s) => {
            let t = s.trim();
            if has("integer") {
                if let Ok(i) = t.parse::<i64>() {
                    return Some(Value::from(i));
                }
                if let Ok(f) = t.parse::<f64>()
                    && f.fract() == 0.0
                    && f.is_finite()
                    && f.abs() < 9.0e15
                {
                    #[allow(clippy::cast_possible_truncation)]
                    return Some(Value::from(f as i64));
                }
            }
            if has("number")
                && let Ok(f) = t.parse::<f64>()
                && f.is_finite()
            {
                return serde_json::Number::from_f64(f).map(Value::Number);
            }
            if has("boolean") {
                match t.to_ascii_lowercase().as_str() {
                    "true" => return Some(Value::Bool(true)),
                    "false" => return Some(Value::Bool(false)),
                    _ => {}
                }
            }
            if (has("object") || has("array"))
                && let Ok(parsed) = serde_json::from_str::<Value>(t)
                && ((parsed.is_object() && has("object")) || (parsed.is_array() && has("array")))
            {
                return Some(parsed);
            }
            None
        }
        Value::Number(n) => {
            if has("integer")
                && let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9.0e15
            {
                #[allow(clippy::cast_possible_truncation)]
                return Some(Value::from(f as i64));
            }
            if has("string") {
                return Some(Value::String(n.to_string()));
            }
            None
        }
        Value::Bool(b) if has("string") => Some(Value::String(b.to_string())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn users() -> ArgValidator {
        let schema = json!({
            "type": "object",
            "properties": {
                "role": {"type": "string", "enum": ["admin", "developer", "manager"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "name": {"type": "string", "maxLength": 5}
            },
            "required": ["role"],
            "additionalProperties": false
        });
        ArgValidator::new(&schema).unwrap_or_else(|e| unreachable!("{e}"))
    }

    fn err(v: &ArgValidator, args: Value) -> ToolError {
        match v.check(args, false) {
            Err(e) => e,
            Ok(_) => unreachable!("expected an error"),
        }
    }

    #[test]
    fn a_bad_schema_is_rejected_when_made_and_a_good_one_compiles_on_first_use() {
        let bad = json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}});
        assert!(ArgValidator::new(&bad).is_err());
        assert!(ArgValidator::new(&json!({"type": "nope"})).is_err());
        let v =
            ArgValidator::new(&json!({"type": "object", "properties": {"a": {"type": "integer"}}}))
                .unwrap();
        assert!(
            v.compiled.get().is_none(),
            "not compiled before the first call"
        );
        // Valid arguments of a schema the quick check models do not need the compiled
        // validator; the first call that fails compiles it for the report.
        assert!(v.validate(&json!({"a": 1})).is_ok());
        assert!(v.compiled.get().is_none());
        assert!(v.validate(&json!({"a": "x"})).is_err());
        assert!(v.compiled.get().is_some());
    }

    #[test]
    fn enum_violation_lists_allowed_values() {
        let e = err(&users(), json!({"role": "wizard"}));
        let f = &e.fields[0];
        assert_eq!(f.path, "/role");
        assert_eq!(f.problem, Problem::NotInEnum);
        assert_eq!(f.received, Some(json!("wizard")));
        assert_eq!(f.expected, Some(json!(["admin", "developer", "manager"])));
        assert!(
            e.suggestion
                .contains("Use one of: admin, developer, manager"),
            "{}",
            e.suggestion
        );
    }

    #[test]
    fn reports_every_violation() {
        let e = err(&users(), json!({"limit": 0, "name": "toolong", "limti": 3}));
        let problems: Vec<Problem> = e.fields.iter().map(|f| f.problem).collect();
        assert!(problems.contains(&Problem::MissingRequired));
        assert!(problems.contains(&Problem::OutOfRange));
        assert!(problems.contains(&Problem::TooLong));
        assert!(problems.contains(&Problem::UnknownField));
        let unknown = e.fields.iter().find(|f| f.problem == Problem::UnknownField);
        assert_eq!(unknown.map(|f| f.path.as_str()), Some("/limti"));
        assert!(
            e.suggestion.contains("did you mean `limit`"),
            "{}",
            e.suggestion
        );
    }

    #[test]
    fn non_object_arguments_are_a_wrong_type_at_the_root() {
        let e = err(&users(), json!([1, 2]));
        assert_eq!(e.fields[0].path, "");
        assert_eq!(e.fields[0].problem, Problem::WrongType);
    }

    #[test]
    fn lenient_coercions_are_recorded() {
        let (args, coerced) = users()
            .check(json!({"role": "Admin", "limit": "5"}), true)
            .unwrap_or_else(|e| unreachable!("{e:?}"));
        assert_eq!(args, json!({"role": "admin", "limit": 5}));
        assert_eq!(coerced.len(), 2);
    }

    #[test]
    fn valid_arguments_pass_unchanged_in_both_modes() {
        let args = json!({"role": "admin", "limit": 5});
        for lenient in [false, true] {
            let (out, coerced) = users()
                .check(args.clone(), lenient)
                .unwrap_or_else(|e| unreachable!("{e:?}"));
            assert_eq!(out, args);
            assert!(coerced.is_empty());
        }
        // Coercible but strict: still an error.
        assert!(
            users()
                .check(json!({"role": "admin", "limit": "5"}), false)
                .is_err()
        );
    }

    #[test]
    fn ambiguous_values_are_not_coerced() {
        assert!(
            users()
                .check(json!({"role": "admin", "limit": "five"}), true)
                .is_err()
        );
        assert!(
            users()
                .check(json!({"role": "admin", "limit": "5.5"}), true)
                .is_err()
        );
    }

    #[test]
    fn json_string_holding_an_object_is_parsed() {
        let v = ArgValidator::new(&json!({
            "type": "object",
            "properties": {"filter": {"type": "object"}},
            "additionalProperties": false
        }))
        .unwrap_or_else(|e| unreachable!("{e}"));
        let (args, _) = v
            .check(json!({"filter": "{\"a\": 1}"}), true)
            .unwrap_or_else(|e| unreachable!("{e:?}"));
        assert_eq!(args, json!({"filter": {"a": 1}}));
    }

    #[test]
    fn field_errors_are_capped() {
        let mut m = Map::new();
        for i in 0..500 {
            m.insert(format!("x{i}"), json!(i));
        }
        let e = err(&users(), Value::Object(m));
        assert_eq!(e.fields.len(), MAX_FIELD_ERRORS);
        assert!(e.message.contains("Showing the first"));
    }

    #[test]
    fn enum_coercion_is_case_only() {
        // Issue 14, item 12: `"admin "` was trimmed and coerced.
        let v = users();
        for role in ["admin ", " Admin", "ADMIN\n"] {
            let got = v.check(json!({"role": role}), true);
            assert!(
                got.as_ref()
                    .is_err_and(|e| e.code == crate::ErrorCode::Validation),
                "{role:?} → {got:?}"
            );
        }
        let (out, coerced) = v
            .check(json!({"role": "ADMIN"}), true)
            .unwrap_or_else(|e| unreachable!("{e:?}"));
        assert_eq!(out["role"], "admin");
        assert_eq!(coerced.len(), 1);
    }

    #[test]
    fn errors_quoting_a_huge_schema_stay_small() {
        // Issue 14, item 10: one bad call against a 1,000,000-value enum printed 36.5 MB.
        let options: Vec<String> = (0..200_000).map(|i| format!("value_{i:07}")).collect();
        let schema = json!({"type": "object", "properties": {
            "v": {"type": "string", "enum": options},
            "p": {"type": "string", "pattern": format!("^({})$", "a|".repeat(2000) + "b")}},
            "additionalProperties": false});
        let v = ArgValidator::new(&schema).unwrap_or_else(|e| unreachable!("{e}"));
        let e = err(
            &v,
            json!({"v": "nope", "p": "zzz", "extra": "x".repeat(100_000)}),
        );
        let text = serde_json::to_string(&e).unwrap_or_default();
        assert!(text.len() < 16_000, "{} bytes", text.len());
        let f = e
            .fields
            .iter()
            .find(|f| f.path == "/v")
            .unwrap_or_else(|| unreachable!());
        assert_eq!(
            f.expected.as_ref().and_then(Value::as_array).map(Vec::len),
            Some(MAX_EXPECTED_VALUES)
        );
        assert!(f.message.contains("199980 more"), "{}", f.message);
        assert!(e.suggestion.contains("and 199980 more"), "{}", e.suggestion);
    }
}
