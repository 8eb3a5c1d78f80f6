//! Checks of a `#[tool]`'s typed arguments against the schema it advertises, for calls whose
//! arguments are deserialized straight from their JSON text ([`Tool::call_json`]): what the
//! validator would check on the parsed `Value`, checked on the typed values instead.
//!
//! A [`RawPlan`] is made from the tool's schema and the kinds of its parameters; it exists only
//! when every keyword the schema applies to the arguments is one it checks exactly (the
//! object's `properties`, `required` and `additionalProperties: false`; `type`; `minimum` and
//! `maximum` of numbers; `minLength` and `maxLength` of strings, counted in code points as JSON
//! Schema counts them; a string enumeration, as `enum` or a `oneOf` of distinct `const`s).
//! Anything else (a `pattern`, nested objects, arrays, nullable types, a `$ref` elsewhere) and
//! the tool does not take raw JSON: its calls are parsed and validated as before.
//!
//! What the plan accepts, the validator accepts: a call the plan passes would have validated,
//! without coercion, and deserialized into the same values. What the typed deserialization
//! rejects (a wrong type, `3.0` for an integer, a duplicate key, an unknown field) goes the
//! usual way, where the validator reports it.
//!
//! [`Tool::call_json`]: crate::Tool::call_json

use serde::de::{DeserializeOwned, Deserializer, Error as _, Visitor};
use serde_json::{Map, Number, Value};

/// What a `#[tool]` parameter is, as far as its typed check goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `String`.
    Str,
    /// `bool`.
    Bool,
    /// A Rust integer (`i8` … `i64`, `u8` … `u64`, `isize`, `usize`).
    Int,
    /// `f64`.
    Float,
    /// Another named type: taken only when its schema is an enumeration of strings (a
    /// unit-variant enum); its value is then deserialized from the string as the validated
    /// path would deserialize it.
    Other,
}

/// A parameter as the plan sees it: its name (the argument's key), kind, and whether a missing
/// value takes a default (`#[arg(default)]`).
#[derive(Debug, Clone, Copy)]
pub struct ParamDecl {
    /// The argument's key.
    pub name: &'static str,
    /// Its kind.
    pub kind: ParamKind,
    /// Missing, it takes a default (so the schema must not require it).
    pub has_default: bool,
}

/// A number bound (`minimum` or `maximum`) that integer and `f64` values compare to exactly.
#[derive(Debug, Clone, Copy)]
enum Bound {
    Int(i128),
    Float(f64),
}

/// Beyond this magnitude a bound is not taken (an `f64` holds every integer up to it, so
/// comparisons with rounded values stay exact).
const EXACT: f64 = 9_007_199_254_740_992.0;

impl Bound {
    fn of(n: &Number) -> Option<Bound> {
        if let Some(i) = n.as_i64() {
            return Some(Bound::Int(i128::from(i)));
        }
        if let Some(u) = n.as_u64() {
            return Some(Bound::Int(i128::from(u)));
        }
        let f = n.as_f64()?;
        (f.is_finite() && f.abs() <= EXACT).then_some(Bound::Float(f))
    }

    /// Whether `v` is at least (`above`) or at most (`!above`) the bound.
    fn admits_int(self, v: i128, above: bool) -> bool {
        match self {
            Bound::Int(b) if above => v >= b,
            Bound::Int(b) => v <= b,
            // |b| <= 2^53: its ceiling and floor are exact integers.
            #[allow(clippy::cast_possible_truncation)]
            Bound::Float(b) if above => v >= b.ceil() as i128,
            #[allow(clippy::cast_possible_truncation)]
            Bound::Float(b) => v <= b.floor() as i128,
        }
    }

    #[allow(clippy::cast_precision_loss)]
    fn admits_float(self, v: f64, above: bool) -> bool {
        // Integer bounds within 2^53 are exact as `f64`; rounding is monotonic, so a value
        // rounded to `v` compares to an exact bound as the value itself does.
        let b = match self {
            Bound::Int(b) if (b as f64).abs() <= EXACT => b as f64,
            Bound::Int(b) => return if above { b < 0 } else { b > 0 },
            Bound::Float(b) => b,
        };
        if above { v >= b } else { v <= b }
    }
}

/// The checks of one parameter.
#[derive(Debug, Clone, Default)]
struct Check {
    min: Option<Bound>,
    max: Option<Bound>,
    min_len: Option<u64>,
    max_len: Option<u64>,
    /// The strings an enumeration admits.
    allowed: Vec<String>,
}

/// The typed checks of a `#[tool]`'s parameters, planned from the schema it advertises (see the
/// module docs). Made by `#[tool]`; index `i` is the `i`-th parameter given to
/// [`RawPlan::new`].
///
/// ```
/// use toolwright_core::raw_args::{ParamDecl, ParamKind, RawPlan};
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"city": {"type": "string", "maxLength": 3},
///                    "days": {"type": "integer", "minimum": 1}},
///     "required": ["city", "days"],
///     "additionalProperties": false
/// });
/// let params = [
///     ParamDecl { name: "city", kind: ParamKind::Str, has_default: false },
///     ParamDecl { name: "days", kind: ParamKind::Int, has_default: false },
/// ];
/// let plan = RawPlan::new(&schema, &params).unwrap();
/// assert!(plan.check_str(0, "Rom") && !plan.check_str(0, "Roma"));
/// assert!(plan.check_str(0, "Köl")); // code points, not bytes
/// assert!(plan.check_int(1, 1) && !plan.check_int(1, 0));
/// // A pattern is not checked on typed values: no plan.
/// let patterned = serde_json::json!({"type": "object", "additionalProperties": false,
///     "properties": {"city": {"type": "string", "pattern": "^[A-Z]"}, "days": {"type": "integer"}}});
/// assert!(RawPlan::new(&patterned, &params).is_none());
/// ```
#[derive(Debug, Clone)]
pub struct RawPlan {
    checks: Vec<Check>,
}

/// Keywords that only annotate (they constrain nothing).
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

fn annotation(key: &str) -> bool {
    ANNOTATIONS.contains(&key)
}

impl RawPlan {
    /// The plan for `schema` (a tool's parameters) and its parameters `params`, or `None` when
    /// some keyword the schema applies is not one the typed checks model exactly.
    pub fn new(schema: &Value, params: &[ParamDecl]) -> Option<RawPlan> {
        let root = schema.as_object()?;
        let properties = root.get("properties")?.as_object()?;
        for (k, v) in root {
            let known = match k.as_str() {
                "type" => v.as_str() == Some("object"),
                "additionalProperties" => *v == Value::Bool(false),
                "properties" | "$defs" => true,
                "required" => required_ok(v, params),
                other => annotation(other),
            };
            if !known {
                return None;
            }
        }
        if root.get("type").and_then(Value::as_str) != Some("object")
            || root.get("additionalProperties") != Some(&Value::Bool(false))
            || properties.len() != params.len()
        {
            return None;
        }
        // An argument named `idempotency_key` keys the call (the runtime reads it from the
        // parsed arguments): such a tool is not called from raw JSON.
        if properties.contains_key("idempotency_key") {
            return None;
        }
        let checks = params
            .iter()
            .map(|p| check_of(schema, properties.get(p.name)?.as_object()?, p.kind))
            .collect::<Option<Vec<_>>>()?;
        Some(RawPlan { checks })
    }

    /// Whether string parameter `i` admits `s` (its length in code points within bounds).
    pub fn check_str(&self, i: usize, s: &str) -> bool {
        let Some(c) = self.checks.get(i) else {
            return false;
        };
        if c.min_len.is_none() && c.max_len.is_none() {
            return true;
        }
        let n = s.chars().count() as u64;
        c.min_len.is_none_or(|m| n >= m) && c.max_len.is_none_or(|m| n <= m)
    }

    /// Whether integer parameter `i` admits `v`.
    pub fn check_int(&self, i: usize, v: i128) -> bool {
        self.checks.get(i).is_some_and(|c| {
            c.min.is_none_or(|b| b.admits_int(v, true))
                && c.max.is_none_or(|b| b.admits_int(v, false))
        })
    }

    /// Whether `f64` parameter `i` admits `v`.
    pub fn check_float(&self, i: usize, v: f64) -> bool {
        self.checks.get(i).is_some_and(|c| {
            c.min.is_none_or(|b| b.admits_float(v, true))
                && c.max.is_none_or(|b| b.admits_float(v, false))
        })
    }

    /// The strings enumeration parameter `i` admits (empty for other kinds).
    pub fn allowed(&self, i: usize) -> &[String] {
        self.checks.get(i).map_or(&[], |c| c.allowed.as_slice())
    }
}

/// `required` lists only parameters, none of which takes a default.
fn required_ok(v: &Value, params: &[ParamDecl]) -> bool {
    v.as_array().is_some_and(|names| {
        names.iter().all(|n| {
            n.as_str()
                .is_some_and(|n| params.iter().any(|p| p.name == n && !p.has_default))
        })
    })
}

/// The check of one property's schema `prop` for a parameter of `kind`.
fn check_of(root: &Value, prop: &Map<String, Value>, kind: ParamKind) -> Option<Check> {
    if kind == ParamKind::Other {
        return enum_check(root, prop);
    }
    let ty = match kind {
        ParamKind::Str => "string",
        ParamKind::Bool => "boolean",
        ParamKind::Int => "integer",
        _ => "number",
    };
    let numeric = matches!(kind, ParamKind::Int | ParamKind::Float);
    let mut c = Check::default();
    for (k, v) in prop {
        match k.as_str() {
            "type" if v.as_str() == Some(ty) => {}
            // An annotation in draft 2020-12 unless format assertion is turned on (it is not).
            "format" => {}
            "minimum" if numeric => c.min = Some(Bound::of(v.as_number()?)?),
            "maximum" if numeric => c.max = Some(Bound::of(v.as_number()?)?),
            "minLength" if kind == ParamKind::Str => c.min_len = Some(v.as_u64()?),
            "maxLength" if kind == ParamKind::Str => c.max_len = Some(v.as_u64()?),
            other if annotation(other) => {}
            _ => return None,
        }
    }
    prop.contains_key("type").then_some(c)
}

/// An enumeration of strings: `{"type": "string", "enum": [...]}`, `{"enum": [...]}` or a
/// `oneOf` of distinct string `const`s, inline or behind one `$ref` to `$defs`.
fn enum_check(root: &Value, prop: &Map<String, Value>) -> Option<Check> {
    let target = match prop.get("$ref") {
        Some(r) => {
            if prop.keys().any(|k| k != "$ref" && !annotation(k)) {
                return None;
            }
            let path = r.as_str()?.strip_prefix("#/$defs/")?;
            root.get("$defs")?.get(path)?.as_object()?
        }
        None => prop,
    };
    let mut allowed = Vec::new();
    let mut has_set = false;
    for (k, v) in target {
        match k.as_str() {
            "type" if v.as_str() == Some("string") => {}
            "enum" if !has_set => {
                has_set = true;
                for s in v.as_array()? {
                    allowed.push(s.as_str()?.to_string());
                }
            }
            "oneOf" if !has_set => {
                has_set = true;
                for branch in v.as_array()? {
                    allowed.push(const_branch(branch.as_object()?)?);
                }
                let mut sorted = allowed.clone();
                sorted.sort();
                sorted.dedup();
                if sorted.len() != allowed.len() {
                    return None;
                }
            }
            other if annotation(other) => {}
            _ => return None,
        }
    }
    (has_set && !allowed.is_empty()).then_some(Check {
        allowed,
        ..Check::default()
    })
}

/// The string of a `oneOf` branch `{"const": "s", "type": "string"?, annotations}`.
fn const_branch(b: &Map<String, Value>) -> Option<String> {
    let mut s = None;
    for (k, v) in b {
        match k.as_str() {
            "const" => s = Some(v.as_str()?.to_string()),
            "type" if v.as_str() == Some("string") => {}
            other if annotation(other) => {}
            _ => return None,
        }
    }
    s
}

/// Whether `text` is a JSON object as far as its first byte goes (serde's derived structs also
/// take arrays, which the schema's `type: object` rejects).
pub fn is_object_text(text: &str) -> bool {
    text.trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
}

/// Deserializes a parameter whose schema is a string enumeration: a JSON string among
/// `allowed`, then the type from it as the validated path does (from a `Value` string). Any
/// other value is an error (the call then takes the validated path).
///
/// # Errors
/// Not a string, not among `allowed`, or not a value of `T`.
pub fn enum_from_str<'de, T, D>(d: D, allowed: &[String]) -> Result<T, D::Error>
where
    T: DeserializeOwned,
    D: Deserializer<'de>,
{
    struct Member<'a>(&'a [String]);
    impl Visitor<'_> for Member<'_> {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("one of the enumeration's strings")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<String, E> {
            if self.0.iter().any(|a| a == s) {
                Ok(s.to_string())
            } else {
                Err(E::custom("not in the enumeration"))
            }
        }
    }
    let s = d.deserialize_str(Member(allowed))?;
    let v = Value::String(s);
    T::deserialize(&v).map_err(D::Error::custom)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::ArgValidator;
    use proptest::prelude::*;
    use serde_json::json;

    fn one(kind: ParamKind, prop: Value) -> (Value, Option<RawPlan>) {
        let schema = json!({"type": "object", "properties": {"x": prop}, "required": ["x"],
                            "additionalProperties": false});
        let decl = [ParamDecl {
            name: "x",
            kind,
            has_default: false,
        }];
        let plan = RawPlan::new(&schema, &decl);
        (schema, plan)
    }

    fn valid(schema: &Value, x: Value) -> bool {
        ArgValidator::new(schema)
            .unwrap()
            .validate(&json!({ "x": x }))
            .is_ok()
    }

    fn bound() -> impl Strategy<Value = Value> {
        prop_oneof![
            (-1000i64..1000).prop_map(|i| json!(i)),
            (-1000.0f64..1000.0).prop_map(|f| json!(f)),
            (-5i64..5).prop_map(|i| json!(i as f64 + 0.5)),
        ]
    }

    proptest! {
        #[test]
        fn integer_checks_agree_with_the_validator(
            min in bound(), max in bound(), v in -1100i64..1100,
        ) {
            let (schema, plan) =
                one(ParamKind::Int, json!({"type": "integer", "minimum": min, "maximum": max}));
            let plan = plan.unwrap();
            prop_assert_eq!(plan.check_int(0, i128::from(v)), valid(&schema, json!(v)));
        }

        #[test]
        fn float_checks_agree_with_the_validator(
            min in bound(), max in bound(), v in -1100.0f64..1100.0, whole in -1100i64..1100,
        ) {
            let (schema, plan) =
                one(ParamKind::Float, json!({"type": "number", "minimum": min, "maximum": max}));
            let plan = plan.unwrap();
            prop_assert_eq!(plan.check_float(0, v), valid(&schema, json!(v)));
            // An integer written for an `f64` parameter: serde makes it a float.
            #[allow(clippy::cast_precision_loss)]
            let as_float = whole as f64;
            prop_assert_eq!(plan.check_float(0, as_float), valid(&schema, json!(whole)));
        }

        #[test]
        fn length_checks_count_code_points_as_the_validator(
            min in 0u64..6, max in 0u64..6, s in "[aé€😀]{0,8}",
        ) {
            let (schema, plan) =
                one(ParamKind::Str, json!({"type": "string", "minLength": min, "maxLength": max}));
            prop_assert_eq!(plan.unwrap().check_str(0, &s), valid(&schema, json!(s)));
        }
    }

    #[test]
    fn keywords_it_does_not_model_give_no_plan() {
        for prop in [
            json!({"type": "string", "pattern": "^a"}),
            json!({"type": "integer", "exclusiveMinimum": 0}),
            json!({"type": "integer", "multipleOf": 2}),
            json!({"type": ["string", "null"]}),
            json!({"type": "number", "maximum": 1e300}),
            json!({"type": "integer", "minimum": 0, "const": 1}),
        ] {
            let kind = match prop["type"].as_str() {
                Some("integer") => ParamKind::Int,
                Some("number") => ParamKind::Float,
                _ => ParamKind::Str,
            };
            assert!(one(kind, prop.clone()).1.is_none(), "{prop}");
        }
        // A type that does not match the parameter's.
        assert!(one(ParamKind::Int, json!({"type": "number"})).1.is_none());
        // A required parameter that takes a default, an extra property, open objects.
        let schema = json!({"type": "object", "properties": {"x": {"type": "boolean"}},
                            "required": ["x"], "additionalProperties": false});
        let with_default = [ParamDecl {
            name: "x",
            kind: ParamKind::Bool,
            has_default: true,
        }];
        assert!(RawPlan::new(&schema, &with_default).is_none());
        let open = json!({"type": "object", "properties": {"x": {"type": "boolean"}}});
        assert!(RawPlan::new(&open, &with_default).is_none());
        let none: [ParamDecl; 0] = [];
        assert!(RawPlan::new(&schema, &none).is_none());
        // An idempotency key.
        let keyed = json!({"type": "object", "additionalProperties": false,
                           "properties": {"idempotency_key": {"type": "string"}}});
        let decl = [ParamDecl {
            name: "idempotency_key",
            kind: ParamKind::Str,
            has_default: false,
        }];
        assert!(RawPlan::new(&keyed, &decl).is_none());
    }

    #[test]
    fn enumerations_inline_and_behind_a_ref() {
        let (_, plan) = one(
            ParamKind::Other,
            json!({"type": "string", "enum": ["a", "b"]}),
        );
        assert_eq!(plan.unwrap().allowed(0), ["a", "b"]);
        let schema = json!({
            "type": "object", "additionalProperties": false, "required": ["x"],
            "properties": {"x": {"$ref": "#/$defs/M", "description": "m"}},
            "$defs": {"M": {"oneOf": [{"type": "string", "const": "f", "description": "F"},
                                      {"const": "s"}]}}
        });
        let decl = [ParamDecl {
            name: "x",
            kind: ParamKind::Other,
            has_default: false,
        }];
        assert_eq!(RawPlan::new(&schema, &decl).unwrap().allowed(0), ["f", "s"]);
        // Duplicate consts (oneOf then matches neither), non-strings, objects: no plan.
        for prop in [
            json!({"oneOf": [{"const": "a"}, {"const": "a"}]}),
            json!({"enum": ["a", 1]}),
            json!({"type": "object", "properties": {}}),
        ] {
            assert!(one(ParamKind::Other, prop.clone()).1.is_none(), "{prop}");
        }
    }
}
