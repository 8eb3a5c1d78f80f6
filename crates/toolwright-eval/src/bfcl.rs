//! Import of the Berkeley Function Calling Leaderboard data (the `bfcl-eval` package on PyPI,
//! Apache-2.0): question files `BFCL_v*_{category}.json` and their `possible_answer/` twins,
//! both JSON Lines despite the extension. The data is never shipped with toolwright; run
//! `scripts/fetch-bfcl.sh` to download and extract it, then point `toolwright eval --bfcl` at
//! the directory it prints.
//!
//! A question line: `{"id", "question": [[{"role", "content"}, …]], "function": [definitions]}`.
//! An answer line: `{"id", "ground_truth": [{"tool_name": {"param": [acceptable values]}}, …]}`.
//! `irrelevance` has no answers: the model must call no tool.

use crate::EvalError;
use crate::dataset::{ExpectedCall, Task};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The categories the importer supports (single-turn, AST-checked).
pub const CATEGORIES: [&str; 4] = ["simple_python", "multiple", "parallel", "irrelevance"];

/// Finds the question file of `category` under `dir` (searching a few levels down, skipping
/// BFCL's `unused_datasets`), and its answer file when there is one.
pub fn find_files(dir: &Path, category: &str) -> Option<(PathBuf, Option<PathBuf>)> {
    let question = find(dir, category, false, 0)?;
    let answer = question
        .parent()
        .map(|p| {
            p.join("possible_answer")
                .join(question.file_name().unwrap_or_default())
        })
        .filter(|p| p.is_file());
    Some((question, answer))
}

fn matches(file: &str, category: &str) -> bool {
    // BFCL_v3_simple.json, BFCL_v4_simple_python.json, …
    let Some(rest) = file.strip_prefix("BFCL_v") else {
        return false;
    };
    let Some((version, tail)) = rest.split_once('_') else {
        return false;
    };
    !version.is_empty()
        && version.chars().all(|c| c.is_ascii_digit())
        && tail.strip_suffix(".json") == Some(category)
}

fn find(dir: &Path, category: &str, in_answers: bool, depth: usize) -> Option<PathBuf> {
    if depth > 6 {
        return None;
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in &entries {
        if p.is_file()
            && !in_answers
            && p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| matches(n, category))
        {
            return Some(p.clone());
        }
    }
    for p in &entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if p.is_dir() && name != "unused_datasets" && !name.starts_with('.') {
            let answers = in_answers || name == "possible_answer";
            if let Some(found) = find(p, category, answers, depth + 1) {
                return Some(found);
            }
        }
    }
    None
}

fn read_lines(path: &Path) -> Result<Vec<Value>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| EvalError::from(e).at(format!("{}:{}", path.display(), i + 1)))
        })
        .collect()
}

/// The user's words of a BFCL question: the user messages of its first turn, joined.
fn query_of(question: &Value) -> Option<String> {
    let turn = question.get(0)?.as_array()?;
    let texts: Vec<&str> = turn
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .filter_map(|m| m.get("content").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn expected_of(ground_truth: &Value) -> Result<Vec<ExpectedCall>, EvalError> {
    let calls = ground_truth
        .as_array()
        .ok_or_else(|| EvalError::invalid("ground_truth is not a list"))?;
    calls
        .iter()
        .map(|c| {
            let obj = c.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
                EvalError::invalid("each ground_truth entry must be {tool: {param: [values]}}")
            })?;
            let (name, args) = obj
                .iter()
                .next()
                .ok_or_else(|| EvalError::invalid("empty ground_truth entry"))?;
            let arguments = args.as_object().cloned().ok_or_else(|| {
                EvalError::invalid(format!("arguments of `{name}` are not an object"))
            })?;
            Ok(ExpectedCall {
                name: name.clone(),
                arguments,
            })
        })
        .collect()
}

/// BFCL's function definitions with their schemas rewritten into JSON Schema
/// ([`normalize_schema`]), ready for `toolwright_core::defs::parse_definitions`, which reads the
/// generic forms only (OpenAI, bare, MCP, Anthropic). Definitions of other forms pass through.
pub fn normalize_functions(functions: &[Value]) -> Vec<Value> {
    functions
        .iter()
        .map(|f| {
            let mut f = f.clone();
            let target = match f.get_mut("function").filter(|x| x.is_object()) {
                Some(inner) => inner,
                None => &mut f,
            };
            if let Some(params) = target.get_mut("parameters") {
                *params = normalize_schema(params.take());
            }
            f
        })
        .collect()
}

/// Rewrites BFCL's type names into JSON Schema: `dict` → `object`, `float`/`double` →
/// `number`, `tuple`/`list`/`set` → `array`, `any` → no type, and Python's `str`/`int`/`bool`/
/// `None`; any other unknown type name is read as `string`, as BFCL's checker does.
pub fn normalize_schema(mut v: Value) -> Value {
    fix(&mut v, 0);
    v
}

fn fix(v: &mut Value, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Object(m) => {
            let mut drop_type = false;
            if let Some(Value::String(t)) = m.get_mut("type") {
                let mapped = match t.as_str() {
                    "dict" | "object" => Some("object"),
                    "float" | "double" | "number" => Some("number"),
                    "int" | "integer" | "long" => Some("integer"),
                    "str" | "string" | "String" => Some("string"),
                    "bool" | "boolean" => Some("boolean"),
                    "list" | "tuple" | "array" | "set" => Some("array"),
                    "null" | "None" => Some("null"),
                    "any" | "Any" => None,
                    _ => Some("string"),
                };
                match mapped {
                    Some(n) => *t = n.to_string(),
                    None => drop_type = true,
                }
            }
            if drop_type {
                m.remove("type");
            }
            for (k, x) in m.iter_mut() {
                // `properties` is a map of names to schemas; everything else nests schemas directly.
                if k == "properties" || k == "$defs" || k == "definitions" {
                    if let Value::Object(props) = x {
                        for p in props.values_mut() {
                            fix(p, depth + 1);
                        }
                    }
                } else if k != "enum" && k != "const" && k != "default" && k != "examples" {
                    fix(x, depth + 1);
                }
            }
        }
        Value::Array(a) => {
            for x in a {
                fix(x, depth + 1);
            }
        }
        _ => {}
    }
}

/// Loads one category from an extracted BFCL directory, in file order.
///
/// # Errors
/// Missing files, unreadable lines, or a question without an answer (except `irrelevance`).
pub fn load_category(dir: &Path, category: &str) -> Result<Vec<Task>, EvalError> {
    let (qpath, apath) = find_files(dir, category).ok_or_else(|| {
        EvalError::invalid(format!(
            "no BFCL question file for `{category}` under {} (run scripts/fetch-bfcl.sh)",
            dir.display()
        ))
    })?;
    let irrelevance = category.contains("irrelevance");
    let mut answers: HashMap<String, Value> = HashMap::new();
    match (&apath, irrelevance) {
        (Some(p), _) => {
            for line in read_lines(p)? {
                if let Some(id) = line.get("id").and_then(Value::as_str) {
                    answers.insert(
                        id.to_string(),
                        line.get("ground_truth").cloned().unwrap_or(Value::Null),
                    );
                }
            }
        }
        (None, true) => {}
        (None, false) => {
            return Err(EvalError::invalid(format!(
                "no possible_answer file next to {} for `{category}`",
                qpath.display()
            )));
        }
    }
    let mut tasks = Vec::new();
    for (i, line) in read_lines(&qpath)?.into_iter().enumerate() {
        let at = || format!("{}:{}", qpath.display(), i + 1);
        let id = line
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| EvalError::invalid("no id").at(at()))?
            .to_string();
        let query = line
            .get("question")
            .and_then(query_of)
            .ok_or_else(|| EvalError::invalid("no user message").at(at()))?;
        let functions = line
            .get("function")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| EvalError::invalid("no function list").at(at()))?;
        let expected = if irrelevance {
            Vec::new()
        } else {
            let gt = answers.get(&id).ok_or_else(|| {
                EvalError::invalid(format!("no possible answer for `{id}`")).at(at())
            })?;
            expected_of(gt).map_err(|e| e.at(at()))?
        };
        let task = Task {
            id,
            category: category.to_string(),
            query,
            functions,
            expected,
        };
        task.check().map_err(|e| e.at(at()))?;
        tasks.push(task);
    }
    Ok(tasks)
}

/// Loads several categories (all of [`CATEGORIES`] when `categories` is empty), in the order given.
///
/// # Errors
/// As [`load_category`]; an unknown category is an error too.
pub fn load(dir: &Path, categories: &[String]) -> Result<Vec<Task>, EvalError> {
    let wanted: Vec<String> = if categories.is_empty() {
        CATEGORIES.iter().map(|c| c.to_string()).collect()
    } else {
        categories.to_vec()
    };
    let mut all = Vec::new();
    for c in &wanted {
        if !CATEGORIES.contains(&c.as_str()) {
            return Err(EvalError::invalid(format!(
                "unknown BFCL category `{c}`; supported: {}",
                CATEGORIES.join(", ")
            )));
        }
        all.extend(load_category(dir, c)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfcl_types_become_json_schema() {
        let defs = vec![
            serde_json::json!({"name": "b", "description": "d", "parameters": {"type": "dict",
                "properties": {"x": {"type": "float"}, "t": {"type": "tuple", "items": {"type": "int"}},
                               "a": {"type": "any", "enum": ["dict"]}}}}),
            serde_json::json!({"type": "function", "function": {"name": "o",
                "parameters": {"type": "dict", "properties": {}}}}),
        ];
        let specs =
            toolwright_core::defs::parse_definitions(&Value::Array(normalize_functions(&defs)))
                .unwrap();
        let p = &specs[0].parameters;
        assert_eq!(p["type"], "object");
        assert_eq!(p["properties"]["x"]["type"], "number");
        assert_eq!(p["properties"]["t"]["type"], "array");
        assert_eq!(p["properties"]["t"]["items"]["type"], "integer");
        assert!(p["properties"]["a"].get("type").is_none());
        assert_eq!(
            p["properties"]["a"]["enum"][0], "dict",
            "enum values are data, not types"
        );
        assert_eq!(specs[1].parameters["type"], "object");
    }

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn imports_questions_with_their_answers() {
        let d = tempfile::tempdir().unwrap();
        let data = "bfcl_eval/data";
        write(
            d.path(),
            &format!("{data}/BFCL_v4_simple_python.json"),
            r#"{"id": "simple_python_0", "question": [[{"role": "user", "content": "Area of a triangle, base 10, height 5."}]], "function": [{"name": "calculate_triangle_area", "description": "Area.", "parameters": {"type": "dict", "properties": {"base": {"type": "integer"}, "height": {"type": "integer"}, "unit": {"type": "string"}}, "required": ["base", "height"]}}]}
"#,
        );
        write(
            d.path(),
            &format!("{data}/possible_answer/BFCL_v4_simple_python.json"),
            r#"{"id": "simple_python_0", "ground_truth": [{"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}}]}
"#,
        );
        write(
            d.path(),
            &format!("{data}/BFCL_v4_irrelevance.json"),
            r#"{"id": "irrelevance_0", "question": [[{"role": "user", "content": "Tell me a joke."}]], "function": [{"name": "f", "description": "x", "parameters": {"type": "dict", "properties": {}}}]}
"#,
        );
        // A decoy in unused_datasets must not be picked up.
        write(
            d.path(),
            &format!("{data}/unused_datasets/question/BFCL_v4_parallel.json"),
            "garbage",
        );

        let tasks = load(d.path(), &["simple_python".into(), "irrelevance".into()]).unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].id, "simple_python_0");
        assert_eq!(tasks[0].query, "Area of a triangle, base 10, height 5.");
        assert_eq!(tasks[0].expected[0].name, "calculate_triangle_area");
        assert_eq!(
            tasks[0].expected[0].arguments["unit"],
            serde_json::json!(["units", ""])
        );
        assert!(tasks[1].is_irrelevance());
        assert_eq!(tasks[1].category, "irrelevance");
        assert!(
            load(d.path(), &["parallel".into()])
                .unwrap_err()
                .to_string()
                .contains("no BFCL question file")
        );
        assert!(
            load(d.path(), &["live_simple".into()])
                .unwrap_err()
                .to_string()
                .contains("unknown")
        );
    }

    #[test]
    fn file_names_match_exactly() {
        assert!(matches("BFCL_v4_multiple.json", "multiple"));
        assert!(matches("BFCL_v3_multiple.json", "multiple"));
        assert!(!matches("BFCL_v4_parallel_multiple.json", "multiple"));
        assert!(!matches("BFCL_v4_live_multiple.json", "multiple"));
        assert!(!matches("BFCL_vx_multiple.json", "multiple"));
    }
}
