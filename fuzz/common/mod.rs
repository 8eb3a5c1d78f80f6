//! Generators shared by the targets: JSON Schemas and JSON values built from the fuzzer's bytes
//! with an explicit depth bound (a derived `Arbitrary` on a recursive type could recurse as deep
//! as the input is long).

#![allow(dead_code)]

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value, json};

/// Deepest schema or value generated.
pub const MAX_DEPTH: usize = 5;

const KEYS: &[&str] = &[
    "city", "limit", "name", "from", "to", "amount", "path", "tags", "mode", "x", "a b", "Ä", "",
    "query", "prompt", "expression", "token", "customer", "apiGroup", "color", "commit_message",
    "language", "country", "regionCode", "ref", "from_branch", "base", "head", "exportTitle",
    "currency", "timeout_ms", "percent_off", "width", "height", "period", "labels", "sql", "code",
    "params",
];
const STRINGS: &[&str] = &[
    "",
    "5",
    "-3",
    "2.5",
    "1e3",
    "true",
    "FALSE",
    "null",
    "{\"a\":1}",
    "[1,2]",
    "EUR",
    "eur",
    "Admin",
    "admin ",
    "  7 ",
    "0x10",
    "NaN",
    "2026-01-01",
    "a@b.c",
    "é",
    "\u{0}",
    "\\",
];
const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "^[A-Z]{3}$",
    "\\d+",
    "^$",
    "^(a|b)*$",
    "[",
    "^\\p{L}+$",
];
const FORMATS: &[&str] = &[
    "date",
    "date-time",
    "email",
    "uri",
    "uuid",
    "ipv4",
    "regex",
    "bogus",
];
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "array", "object", "float",
];

/// A key: mostly from a small set (so values and required lists meet), sometimes anything.
pub fn key(u: &mut Unstructured) -> Result<String> {
    if u.ratio(7, 8)? {
        Ok((*u.choose(KEYS)?).to_string())
    } else {
        let s: String = u.arbitrary()?;
        Ok(s.chars().take(12).collect())
    }
}

/// A string: mostly one that a coercion rule cares about, sometimes anything.
pub fn string(u: &mut Unstructured) -> Result<String> {
    if u.ratio(3, 4)? {
        Ok((*u.choose(STRINGS)?).to_string())
    } else {
        let s: String = u.arbitrary()?;
        Ok(s.chars().take(40).collect())
    }
}

/// A JSON number: small integers, big ones, fractions, and the edges of i64/u64/f64.
pub fn number(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=5)? {
        0 => json!(u.int_in_range(-10i64..=10)?),
        1 => json!(u.arbitrary::<i64>()?),
        2 => json!(u.arbitrary::<u64>()?),
        3 => {
            let f: f64 = u.arbitrary()?;
            if f.is_finite() { json!(f) } else { json!(0.5) }
        }
        4 => json!(*u.choose(&[0.5, -0.0, 1e300, -1e-300, 2.5e-7, 9007199254740993.0])?),
        _ => json!(*u.choose(&[i64::MIN, i64::MAX, 0])?),
    })
}

/// Any JSON scalar.
pub fn scalar(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=3)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => number(u)?,
        _ => Value::String(string(u)?),
    })
}

/// Any JSON value, at most `depth` levels below this one.
pub fn value(u: &mut Unstructured, depth: usize) -> Result<Value> {
    if depth == 0 || u.ratio(2, 3)? {
        return scalar(u);
    }
    if u.arbitrary()? {
        let n = u.int_in_range(0..=4)?;
        (0..n)
            .map(|_| value(u, depth - 1))
            .collect::<Result<Vec<_>>>()
            .map(Value::Array)
    } else {
        let n = u.int_in_range(0..=4)?;
        let mut m = Map::new();
        for _ in 0..n {
            m.insert(key(u)?, value(u, depth - 1)?);
        }
        Ok(Value::Object(m))
    }
}

fn opt_num(u: &mut Unstructured, m: &mut Map<String, Value>, k: &str) -> Result<()> {
    if u.ratio(1, 4)? {
        m.insert(k.to_string(), number(u)?);
    }
    Ok(())
}

fn opt_count(u: &mut Unstructured, m: &mut Map<String, Value>, k: &str) -> Result<()> {
    if u.ratio(1, 4)? {
        m.insert(k.to_string(), json!(u.int_in_range(0u8..=6)?));
    }
    Ok(())
}

/// A JSON Schema (draft 2020-12 vocabulary, mostly well-formed, sometimes not), `defs` being the
/// number of `$defs` entries a `$ref` may point at.
pub fn schema(u: &mut Unstructured, depth: usize, defs: usize) -> Result<Value> {
    let last = if depth == 0 { 6 } else { 14 };
    let mut m = Map::new();
    match u.int_in_range(0..=last)? {
        0 => {
            m.insert("type".into(), json!("string"));
            opt_count(u, &mut m, "minLength")?;
            opt_count(u, &mut m, "maxLength")?;
            if u.ratio(1, 5)? {
                m.insert("pattern".into(), json!(*u.choose(PATTERNS)?));
            }
            if u.ratio(1, 5)? {
                m.insert("format".into(), json!(*u.choose(FORMATS)?));
            }
        }
        1 | 2 => {
            m.insert(
                "type".into(),
                json!(if u.arbitrary()? { "integer" } else { "number" }),
            );
            opt_num(u, &mut m, "minimum")?;
            opt_num(u, &mut m, "maximum")?;
            opt_num(u, &mut m, "exclusiveMinimum")?;
            if u.ratio(1, 6)? {
                m.insert("multipleOf".into(), number(u)?);
            }
        }
        3 => {
            m.insert("type".into(), json!(*u.choose(&["boolean", "null"])?));
        }
        4 => {
            let n = u.int_in_range(0..=5)?;
            let vals = (0..n).map(|_| scalar(u)).collect::<Result<Vec<_>>>()?;
            m.insert("enum".into(), Value::Array(vals));
            if u.arbitrary()? {
                m.insert("type".into(), json!("string"));
            }
        }
        5 => {
            m.insert("const".into(), scalar(u)?);
        }
        6 if defs > 0 => {
            let i = u.int_in_range(0..=defs)?;
            // One past the end: a dangling reference.
            m.insert("$ref".into(), json!(format!("#/$defs/d{i}")));
        }
        6 => return Ok(json!(u.arbitrary::<bool>()?)),
        7 | 8 => return object_schema(u, depth, defs),
        9 => {
            m.insert("type".into(), json!("array"));
            if u.ratio(3, 4)? {
                m.insert("items".into(), schema(u, depth - 1, defs)?);
            }
            opt_count(u, &mut m, "minItems")?;
            opt_count(u, &mut m, "maxItems")?;
            if u.ratio(1, 5)? {
                m.insert("uniqueItems".into(), json!(true));
            }
        }
        10 | 11 => {
            let kw = *u.choose(&["anyOf", "oneOf", "allOf"])?;
            let n = u.int_in_range(0..=3)?;
            let subs = (0..n)
                .map(|_| schema(u, depth - 1, defs))
                .collect::<Result<Vec<_>>>()?;
            m.insert(kw.into(), Value::Array(subs));
        }
        12 => {
            let n = u.int_in_range(1..=3)?;
            let ts = (0..n)
                .map(|_| u.choose(TYPES).map(|t| json!(*t)))
                .collect::<Result<Vec<_>>>()?;
            m.insert("type".into(), Value::Array(ts));
        }
        13 => {
            let mut inner = schema(u, depth - 1, defs)?;
            if let Some(obj) = inner.as_object_mut() {
                obj.insert("default".into(), value(u, 1)?);
                obj.insert("description".into(), json!(string(u)?));
            }
            return Ok(inner);
        }
        _ => return value(u, depth),
    }
    Ok(Value::Object(m))
}

/// An object schema with properties, some required, and maybe `additionalProperties`.
pub fn object_schema(u: &mut Unstructured, depth: usize, defs: usize) -> Result<Value> {
    let mut props = Map::new();
    let n = u.int_in_range(0..=5)?;
    for _ in 0..n {
        let k = key(u)?;
        let s = schema(u, depth.saturating_sub(1), defs)?;
        props.insert(k, s);
    }
    let mut required = Vec::new();
    for k in props.keys() {
        if u.ratio(1, 2)? {
            required.push(json!(k));
        }
    }
    if u.ratio(1, 8)? {
        required.push(json!(key(u)?));
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        m.insert("required".into(), Value::Array(required));
    }
    match u.int_in_range(0..=3)? {
        0 => {
            m.insert("additionalProperties".into(), json!(false));
        }
        1 if depth > 0 => {
            m.insert("additionalProperties".into(), schema(u, depth - 1, defs)?);
        }
        _ => {}
    }
    Ok(Value::Object(m))
}

/// A tool's parameter schema: an object schema at the root, with `$defs` its `$ref`s may use.
pub fn root_schema(u: &mut Unstructured) -> Result<Value> {
    let ndefs = u.int_in_range(0..=2)?;
    let mut defs = Map::new();
    for i in 0..ndefs {
        defs.insert(format!("d{i}"), schema(u, 2, ndefs)?);
    }
    let mut root = if u.ratio(15, 16)? {
        object_schema(u, MAX_DEPTH, ndefs)?
    } else {
        schema(u, MAX_DEPTH, ndefs)?
    };
    if let (Some(obj), false) = (root.as_object_mut(), defs.is_empty()) {
        obj.insert("$defs".into(), Value::Object(defs));
    }
    Ok(root)
}

/// Arguments for `schema`: usually shaped by it (the keys it names, values near the types it
/// wants, strings a coercion would convert), sometimes anything.
pub fn args_for(u: &mut Unstructured, schema: &Value, depth: usize) -> Result<Value> {
    if depth == 0 || u.ratio(1, 10)? {
        return value(u, 2);
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.is_empty()
        && u.ratio(2, 3)?
    {
        let v = u.choose(e)?.clone();
        return Ok(match v {
            Value::String(s) if u.arbitrary()? => Value::String(s.to_uppercase()),
            other => other,
        });
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let mut m = Map::new();
        for (k, s) in props {
            if u.ratio(4, 5)? {
                m.insert(k.clone(), args_for(u, s, depth - 1)?);
            }
        }
        if u.ratio(1, 8)? {
            m.insert(key(u)?, value(u, 1)?);
        }
        return Ok(if u.ratio(1, 12)? {
            Value::String(Value::Object(m).to_string())
        } else {
            Value::Object(m)
        });
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or("");
    Ok(match ty {
        "array" => {
            let item = schema.get("items").cloned().unwrap_or(Value::Bool(true));
            let n = u.int_in_range(0..=4)?;
            Value::Array(
                (0..n)
                    .map(|_| args_for(u, &item, depth - 1))
                    .collect::<Result<_>>()?,
            )
        }
        "integer" | "number" => {
            let n = number(u)?;
            if u.ratio(1, 3)? {
                Value::String(n.to_string())
            } else {
                n
            }
        }
        "boolean" => match u.int_in_range(0..=2)? {
            0 => Value::Bool(u.arbitrary()?),
            1 => json!(*u.choose(&["true", "false", "True", "yes"])?),
            _ => json!(1),
        },
        _ => value(u, 1)?,
    })
}
