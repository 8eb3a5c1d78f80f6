//! The scorer: BFCL's AST rules on JSON calls. Pure: a task's definitions, its expected calls and
//! the calls a model made in, a [`Score`] out.
//!
//! The rules (after BFCL's `ast_checker`):
//! - no expected call (irrelevance): right iff the model called nothing;
//! - otherwise the number of calls must match; one expected call is compared directly, several
//!   are matched in any order (each expected call takes the first unmatched call that passes);
//! - a call passes when its name is the expected tool, every required parameter is present,
//!   every parameter it sets exists in the schema *and* in the expected arguments, each value has
//!   the declared type and is one of the acceptable values, and every expected argument that does
//!   not list `""` is present (`""` means the argument may be omitted);
//! - strings compare case-insensitively after removing spaces and `,./-_*^` (and `'` reads as
//!   `"`), also inside lists and objects; numbers compare by value (`5` equals `5.0`); an integer
//!   where a float is declared is accepted (BFCL's int → float conversion).
//!
//! One deliberate difference: JSON has one number type, so an integral float (`5.0`) passes the
//! type check of an `integer` parameter (BFCL, which parses Python, would see a float).

use crate::dataset::ExpectedCall;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolwright_core::ToolSpec;

/// A call a model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// Tool name.
    pub name: String,
    /// Arguments (any JSON; an object when well-formed).
    pub arguments: Value,
}

impl Call {
    /// A call.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Call {
            name: name.into(),
            arguments,
        }
    }
}

/// Why a task was scored wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// No tool fits, and the model called one anyway.
    CalledIrrelevant,
    /// A call was expected and the model made none.
    NoCall,
    /// The model made a different number of calls.
    WrongCount,
    /// The model called another tool.
    WrongTool,
    /// The arguments are not a JSON object.
    ArgumentsNotObject,
    /// A required parameter is missing.
    MissingRequired,
    /// A parameter that is not in the schema or not expected.
    UnexpectedParam,
    /// A value of the wrong type.
    WrongType,
    /// A value that is not one of the acceptable values.
    WrongValue,
    /// An expected optional argument was left out although it may not be.
    MissingOptional,
}

impl ErrorKind {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::CalledIrrelevant => "called_irrelevant",
            ErrorKind::NoCall => "no_call",
            ErrorKind::WrongCount => "wrong_count",
            ErrorKind::WrongTool => "wrong_tool",
            ErrorKind::ArgumentsNotObject => "arguments_not_object",
            ErrorKind::MissingRequired => "missing_required",
            ErrorKind::UnexpectedParam => "unexpected_param",
            ErrorKind::WrongType => "wrong_type",
            ErrorKind::WrongValue => "wrong_value",
            ErrorKind::MissingOptional => "missing_optional",
        }
    }
}

/// The verdict on one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Everything right.
    pub correct: bool,
    /// The model called exactly the expected tools (as a multiset), or nothing when nothing fits.
    pub right_tools: bool,
    /// The tools were right and so were all arguments (equals `correct` for tasks with calls).
    pub right_arguments: bool,
    /// Why not, when not correct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorKind>,
    /// A sentence saying what differed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Score {
    fn right() -> Self {
        Score {
            correct: true,
            right_tools: true,
            right_arguments: true,
            error: None,
            detail: String::new(),
        }
    }

    fn wrong(right_tools: bool, kind: ErrorKind, detail: String) -> Self {
        Score {
            correct: false,
            right_tools,
            right_arguments: false,
            error: Some(kind),
            detail,
        }
    }
}

type Mismatch = (ErrorKind, String);

/// Scores the `calls` a model made against the `expected` calls, with the tool definitions
/// `functions` (their declared types drive the type checks).
pub fn score(functions: &[ToolSpec], expected: &[ExpectedCall], calls: &[Call]) -> Score {
    if expected.is_empty() {
        return if calls.is_empty() {
            Score::right()
        } else {
            let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
            Score::wrong(
                false,
                ErrorKind::CalledIrrelevant,
                format!(
                    "no tool fits this query, but the model called {}",
                    names.join(", ")
                ),
            )
        };
    }
    if calls.is_empty() {
        return Score::wrong(
            false,
            ErrorKind::NoCall,
            format!(
                "expected a call to {}, the model made none",
                names_of(expected)
            ),
        );
    }
    let right_tools = same_names(expected, calls);
    if calls.len() != expected.len() {
        return Score::wrong(
            right_tools,
            ErrorKind::WrongCount,
            format!(
                "expected {} call(s), the model made {}",
                expected.len(),
                calls.len()
            ),
        );
    }
    let mut used = vec![false; calls.len()];
    for exp in expected {
        let spec = functions.iter().find(|s| s.name == exp.name);
        let mut first_miss: Option<Mismatch> = None;
        let mut found = false;
        for (j, call) in calls.iter().enumerate() {
            if used.get(j).copied().unwrap_or(true) {
                continue;
            }
            match check_call(spec, exp, call) {
                Ok(()) => {
                    if let Some(u) = used.get_mut(j) {
                        *u = true;
                    }
                    found = true;
                    break;
                }
                Err(m) => {
                    // Prefer the mismatch of a call to the right tool: it says more.
                    let better = match &first_miss {
                        None => true,
                        Some((k, _)) => *k == ErrorKind::WrongTool && m.0 != ErrorKind::WrongTool,
                    };
                    if better {
                        first_miss = Some(m);
                    }
                }
            }
        }
        if !found {
            let (kind, detail) =
                first_miss.unwrap_or((ErrorKind::WrongCount, "no call left to match".to_string()));
            return Score::wrong(right_tools, kind, detail);
        }
    }
    Score::right()
}

fn names_of(expected: &[ExpectedCall]) -> String {
    expected
        .iter()
        .map(|e| e.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn same_names(expected: &[ExpectedCall], calls: &[Call]) -> bool {
    let mut a: Vec<&str> = expected.iter().map(|e| e.name.as_str()).collect();
    let mut b: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

fn check_call(spec: Option<&ToolSpec>, exp: &ExpectedCall, call: &Call) -> Result<(), Mismatch> {
    if call.name != exp.name {
        return Err((
            ErrorKind::WrongTool,
            format!(
                "expected a call to {}, the model called {}",
                exp.name, call.name
            ),
        ));
    }
    let Some(args) = call.arguments.as_object() else {
        return Err((
            ErrorKind::ArgumentsNotObject,
            format!("the arguments of {} are not a JSON object", call.name),
        ));
    };
    let empty = Map::new();
    let schema = spec.map(|s| &s.parameters);
    let props = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for r in &required {
        if !args.contains_key(*r) {
            return Err((
                ErrorKind::MissingRequired,
                format!("{}: missing required parameter `{r}`", call.name),
            ));
        }
    }
    for (param, value) in args {
        let acceptable = match (props.get(param), exp.arguments.get(param)) {
            (Some(_), Some(Value::Array(a))) => a,
            _ => {
                return Err((
                    ErrorKind::UnexpectedParam,
                    format!("{}: unexpected parameter `{param}`", call.name),
                ));
            }
        };
        let declared = props.get(param).unwrap_or(&Value::Null);
        check_value(&call.name, param, value, declared, acceptable)?;
    }
    for (param, acceptable) in &exp.arguments {
        let may_omit = acceptable
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some("")));
        if !args.contains_key(param) && !may_omit {
            return Err((
                ErrorKind::MissingOptional,
                format!(
                    "{}: parameter `{param}` was left out, but the expected answer sets it",
                    call.name
                ),
            ));
        }
    }
    Ok(())
}

/// The JSON Schema type a parameter declares (first of a list), if any.
fn declared_type(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value
                    .as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.is_finite())
        }
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check_value(
    tool: &str,
    param: &str,
    value: &Value,
    declared: &Value,
    acceptable: &[Value],
) -> Result<(), Mismatch> {
    let ty = declared_type(declared);
    let shown = shorten(value);
    let wrong_value = || {
        (
            ErrorKind::WrongValue,
            format!(
                "{tool}: `{param}` = {shown} is not one of {}",
                shorten(&Value::Array(acceptable.to_vec()))
            ),
        )
    };
    // BFCL's "variable" case: when the acceptable values have another type than the declared
    // one (a variable name given as a string), a value of the acceptable values' type is fine.
    let answer_type = acceptable
        .iter()
        .find(|a| a.as_str() != Some(""))
        .map(json_type);
    let type_ok = ty.is_none_or(|t| has_type(value, t));
    let is_variable = !type_ok && answer_type.is_some_and(|at| json_type(value) == at);
    if !type_ok && !is_variable {
        return Err((
            ErrorKind::WrongType,
            format!(
                "{tool}: `{param}` must be {}, got {} {shown}",
                ty.unwrap_or("any"),
                json_type(value)
            ),
        ));
    }
    if !is_variable
        && ty == Some("array")
        && let Some(items_ty) = declared.get("items").and_then(declared_type)
        && let Some(bad) = value
            .as_array()
            .and_then(|a| a.iter().find(|v| !has_type(v, items_ty)))
    {
        return Err((
            ErrorKind::WrongType,
            format!(
                "{tool}: items of `{param}` must be {items_ty}, got {} {}",
                json_type(bad),
                shorten(bad)
            ),
        ));
    }
    let ok = if !is_variable && ty == Some("object") {
        acceptable
            .iter()
            .filter(|a| a.as_str() != Some(""))
            .any(|a| dict_matches(value, a))
    } else if !is_variable
        && ty == Some("array")
        && declared
            .get("items")
            .and_then(declared_type)
            .is_some_and(|t| t == "object")
    {
        acceptable.iter().any(|a| list_of_dicts_matches(value, a))
    } else {
        acceptable.iter().any(|a| loose_eq(value, a))
    };
    if ok { Ok(()) } else { Err(wrong_value()) }
}

/// BFCL's `dict_checker`: every key the model set is in the option and has an acceptable value;
/// every key of the option the model left out lists `""`.
fn dict_matches(value: &Value, option: &Value) -> bool {
    let (Some(got), Some(want)) = (value.as_object(), option.as_object()) else {
        return loose_eq(value, option);
    };
    for (k, v) in got {
        let Some(accept) = want.get(k) else {
            return false;
        };
        let ok = match accept.as_array() {
            Some(list) => list.iter().any(|a| loose_eq(v, a)),
            None => loose_eq(v, accept),
        };
        if !ok {
            return false;
        }
    }
    want.iter().all(|(k, accept)| {
        got.contains_key(k)
            || accept
                .as_array()
                .is_some_and(|l| l.iter().any(|a| a.as_str() == Some("")))
    })
}

fn list_of_dicts_matches(value: &Value, option: &Value) -> bool {
    match (value.as_array(), option.as_array()) {
        (Some(got), Some(want)) => {
            got.len() == want.len() && got.iter().zip(want).all(|(g, w)| dict_matches(g, w))
        }
        _ => false,
    }
}

/// BFCL's string standardization: drop spaces and `,./-_*^`, lowercase, `'` → `"`.
pub fn standardize(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .flat_map(char::to_lowercase)
        .map(|c| if c == '\'' { '"' } else { c })
        .collect()
}

/// Equality with BFCL's leniency: strings standardized, numbers by value, recursively.
pub fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => standardize(x) == standardize(y),
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => p == q,
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| loose_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| loose_eq(v, w)))
        }
        _ => a == b,
    }
}

fn shorten(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        let cut: String = s.chars().take(117).collect();
        format!("{cut}...")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn specs(defs: Value) -> Vec<ToolSpec> {
        let defs = crate::bfcl::normalize_functions(defs.as_array().unwrap());
        toolwright_core::defs::parse_definitions(&Value::Array(defs)).unwrap()
    }

    fn triangle() -> (Vec<ToolSpec>, Vec<ExpectedCall>) {
        let functions = specs(json!([{
            "name": "calculate_triangle_area",
            "description": "Area of a triangle.",
            "parameters": {"type": "dict", "properties": {
                "base": {"type": "integer"}, "height": {"type": "integer"},
                "unit": {"type": "string"}, "precision": {"type": "float"}},
                "required": ["base", "height"]}
        }, {
            "name": "calculate_circle_area",
            "description": "Area of a circle.",
            "parameters": {"type": "dict", "properties": {"radius": {"type": "float"}},
                           "required": ["radius"]}
        }]));
        let expected = vec![ExpectedCall {
            name: "calculate_triangle_area".into(),
            arguments: json!({"base": [10], "height": [5], "unit": ["units", ""],
                              "precision": [0.5, ""]})
            .as_object()
            .unwrap()
            .clone(),
        }];
        (functions, expected)
    }

    fn run(args: Value) -> Score {
        let (f, e) = triangle();
        score(&f, &e, &[Call::new("calculate_triangle_area", args)])
    }

    #[test]
    fn right_call() {
        let s = run(json!({"base": 10, "height": 5, "unit": "units"}));
        assert!(s.correct && s.right_tools && s.right_arguments, "{s:?}");
        assert_eq!(s.error, None);
    }

    #[test]
    fn wrong_tool() {
        let (f, e) = triangle();
        let s = score(
            &f,
            &e,
            &[Call::new("calculate_circle_area", json!({"radius": 3}))],
        );
        assert!(!s.correct && !s.right_tools);
        assert_eq!(s.error, Some(ErrorKind::WrongTool));
    }

    #[test]
    fn wrong_argument_value_and_type() {
        let s = run(json!({"base": 11, "height": 5}));
        assert!(!s.correct && s.right_tools && !s.right_arguments);
        assert_eq!(s.error, Some(ErrorKind::WrongValue));
        let s = run(json!({"base": "10", "height": 5}));
        assert_eq!(s.error, Some(ErrorKind::WrongType));
        let s = run(json!({"base": 10.5, "height": 5}));
        assert_eq!(s.error, Some(ErrorKind::WrongType));
    }

    #[test]
    fn extra_argument() {
        let s = run(json!({"base": 10, "height": 5, "color": "red"}));
        assert_eq!(s.error, Some(ErrorKind::UnexpectedParam));
        assert!(s.right_tools);
    }

    #[test]
    fn missing_required_argument() {
        let s = run(json!({"base": 10}));
        assert_eq!(s.error, Some(ErrorKind::MissingRequired));
    }

    #[test]
    fn missing_optional_argument_is_fine_when_the_answer_allows_it() {
        // `unit` and `precision` list "" → may be omitted.
        assert!(run(json!({"base": 10, "height": 5})).correct);
        // An optional parameter whose acceptable values do not include "" must be given.
        let (f, mut e) = triangle();
        e[0].arguments.insert("unit".into(), json!(["units"]));
        let s = score(
            &f,
            &e,
            &[Call::new(
                "calculate_triangle_area",
                json!({"base": 10, "height": 5}),
            )],
        );
        assert_eq!(s.error, Some(ErrorKind::MissingOptional));
    }

    #[test]
    fn numbers_compare_by_value_and_ints_pass_as_floats() {
        assert!(run(json!({"base": 10.0, "height": 5, "precision": 0.5})).correct);
        // integer given where a float is declared (BFCL converts int → float)
        let (f, mut e) = triangle();
        e[0].arguments.insert("precision".into(), json!([1.0]));
        let s = score(
            &f,
            &e,
            &[Call::new(
                "calculate_triangle_area",
                json!({"base": 10, "height": 5, "precision": 1}),
            )],
        );
        assert!(s.correct, "{s:?}");
    }

    #[test]
    fn strings_are_case_and_punctuation_insensitive() {
        assert!(run(json!({"base": 10, "height": 5, "unit": "UNITS"})).correct);
        assert!(run(json!({"base": 10, "height": 5, "unit": " un-its."})).correct);
        assert!(!run(json!({"base": 10, "height": 5, "unit": "meters"})).correct);
        assert_eq!(standardize("April 1, 2024"), standardize("april 1 2024"));
        assert_eq!(standardize("it's"), "it\"s");
    }

    #[test]
    fn irrelevance_correctly_refused_or_wrongly_called() {
        let (f, _) = triangle();
        let refused = score(&f, &[], &[]);
        assert!(refused.correct && refused.right_tools);
        let called = score(
            &f,
            &[],
            &[Call::new("calculate_circle_area", json!({"radius": 1}))],
        );
        assert!(!called.correct);
        assert_eq!(called.error, Some(ErrorKind::CalledIrrelevant));
    }

    #[test]
    fn no_call_and_wrong_count() {
        let (f, e) = triangle();
        assert_eq!(score(&f, &e, &[]).error, Some(ErrorKind::NoCall));
        let c = Call::new("calculate_triangle_area", json!({"base": 10, "height": 5}));
        let s = score(&f, &e, &[c.clone(), c]);
        assert_eq!(s.error, Some(ErrorKind::WrongCount));
        assert!(!s.right_tools);
    }

    #[test]
    fn arguments_must_be_an_object() {
        assert_eq!(
            run(json!("base=10")).error,
            Some(ErrorKind::ArgumentsNotObject)
        );
    }

    #[test]
    fn parallel_calls_match_in_any_order() {
        let f = specs(
            json!([{"name": "spotify.play", "parameters": {"type": "dict",
            "properties": {"artist": {"type": "string"}, "duration": {"type": "integer"}},
            "required": ["artist", "duration"]}}]),
        );
        let e: Vec<ExpectedCall> = serde_json::from_value(json!([
            {"name": "spotify.play", "arguments": {"artist": ["Taylor Swift"], "duration": [20]}},
            {"name": "spotify.play", "arguments": {"artist": ["Maroon 5"], "duration": [15]}}
        ]))
        .unwrap();
        let a = Call::new(
            "spotify.play",
            json!({"artist": "maroon 5", "duration": 15}),
        );
        let b = Call::new(
            "spotify.play",
            json!({"artist": "Taylor Swift", "duration": 20}),
        );
        assert!(score(&f, &e, &[a.clone(), b.clone()]).correct);
        let wrong = Call::new(
            "spotify.play",
            json!({"artist": "Taylor Swift", "duration": 25}),
        );
        let s = score(&f, &e, &[a, wrong]);
        assert!(!s.correct && s.right_tools);
        assert_eq!(s.error, Some(ErrorKind::WrongValue));
    }

    #[test]
    fn lists_and_dicts_follow_bfcl() {
        let f = specs(
            json!([{"name": "f", "parameters": {"type": "dict", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "dict", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
            "rows": {"type": "array", "items": {"type": "dict"}}}, "required": []}}]),
        );
        let e: Vec<ExpectedCall> = serde_json::from_value(json!([{"name": "f", "arguments": {
            "tags": [["Red", "Blue"], ["red"]],
            "opts": [{"a": [1], "b": ["x", ""]}],
            "rows": [[{"k": [1]}, {"k": [2, 3]}], ""]}}]))
        .unwrap();
        let ok = Call::new(
            "f",
            json!({"tags": ["red", "BLUE"], "opts": {"a": 1}, "rows": [{"k": 1}, {"k": 3}]}),
        );
        assert!(score(&f, &e, &[ok]).correct);
        let order = Call::new("f", json!({"tags": ["blue", "red"], "opts": {"a": 1}}));
        assert_eq!(score(&f, &e, &[order]).error, Some(ErrorKind::WrongValue));
        let bad_item = Call::new("f", json!({"tags": ["red", 3], "opts": {"a": 1}}));
        assert_eq!(score(&f, &e, &[bad_item]).error, Some(ErrorKind::WrongType));
        let extra_key = Call::new("f", json!({"tags": ["red"], "opts": {"a": 1, "c": 2}}));
        assert_eq!(
            score(&f, &e, &[extra_key]).error,
            Some(ErrorKind::WrongValue)
        );
        let missing_key = Call::new("f", json!({"tags": ["red"], "opts": {"b": "x"}}));
        assert_eq!(
            score(&f, &e, &[missing_key]).error,
            Some(ErrorKind::WrongValue)
        );
    }

    #[test]
    fn a_variable_given_as_a_string_is_accepted() {
        // BFCL writes some expected values as variable names (a string for a non-string type).
        let f = specs(json!([{"name": "g", "parameters": {"type": "dict",
            "properties": {"n": {"type": "integer"}}, "required": ["n"]}}]));
        let e: Vec<ExpectedCall> =
            serde_json::from_value(json!([{"name": "g", "arguments": {"n": ["count"]}}])).unwrap();
        assert!(score(&f, &e, &[Call::new("g", json!({"n": "count"}))]).correct);
        assert_eq!(
            score(&f, &e, &[Call::new("g", json!({"n": "other"}))]).error,
            Some(ErrorKind::WrongValue)
        );
    }
}
