//! Eval tasks and the JSONL dataset format.
//!
//! One task per line:
//! ```json
//! {"id": "t1", "category": "simple", "query": "Weather in Paris?",
//!  "functions": [{"name": "get_weather", "description": "...", "parameters": {...}}],
//!  "expected": [{"name": "get_weather", "arguments": {"city": ["Paris", "paris"], "unit": ["", "celsius"]}}]}
//! ```
//! `functions` accepts the definition forms of `toolwright_core::defs::parse_definitions` (OpenAI,
//! bare, MCP), with BFCL's type names (`dict`, `float`, …) rewritten first
//! ([`crate::bfcl::normalize_functions`]). Each expected argument lists its acceptable values; `""`
//! among them means the argument may be left out. An empty `expected` means no tool fits: the model should call none
//! (BFCL's irrelevance). `category` is optional (default `default`).

use crate::EvalError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::Path;
use toolwright_core::ToolSpec;

/// One expected call: a tool and, per argument, its acceptable values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectedCall {
    /// The tool that should be called.
    pub name: String,
    /// Argument name → acceptable values (`""` = may be omitted).
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// One eval task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Unique id.
    pub id: String,
    /// Category used to group results (BFCL: `simple_python`, `multiple`, …).
    #[serde(default = "default_category")]
    pub category: String,
    /// What the user asks.
    pub query: String,
    /// The tool definitions the model gets.
    pub functions: Vec<Value>,
    /// The calls that answer the query; empty when no tool fits.
    #[serde(default)]
    pub expected: Vec<ExpectedCall>,
}

fn default_category() -> String {
    "default".to_string()
}

impl Task {
    /// The task's tool definitions as specs (BFCL types normalized to JSON Schema).
    ///
    /// # Errors
    /// A definition without a name.
    pub fn specs(&self) -> Result<Vec<ToolSpec>, EvalError> {
        let functions = crate::bfcl::normalize_functions(&self.functions);
        toolwright_core::defs::parse_definitions(&Value::Array(functions))
            .map_err(|e| EvalError::from(e).at(format!("task {}", self.id)))
    }

    /// Whether no tool should be called.
    pub fn is_irrelevance(&self) -> bool {
        self.expected.is_empty()
    }

    /// Checks the task's shape: a non-empty id and query, at least one function, every expected
    /// argument a list of acceptable values.
    ///
    /// # Errors
    /// What is wrong.
    pub fn check(&self) -> Result<(), EvalError> {
        if self.id.trim().is_empty() {
            return Err(EvalError::invalid("a task has an empty `id`"));
        }
        let task = || format!("task {}", self.id);
        if self.query.trim().is_empty() {
            return Err(EvalError::invalid("empty `query`").at(task()));
        }
        if self.functions.is_empty() {
            return Err(EvalError::invalid("no `functions`").at(task()));
        }
        self.specs()?;
        for e in &self.expected {
            for (k, v) in &e.arguments {
                if !v.is_array() {
                    return Err(EvalError::invalid(format!(
                        "expected argument `{}.{k}` must be a list of acceptable values",
                        e.name
                    ))
                    .at(task()));
                }
            }
        }
        Ok(())
    }
}

/// Parses a JSONL dataset (blank lines and lines starting with `#` are skipped).
///
/// # Errors
/// The first bad line, with its number.
pub fn parse_jsonl(text: &str) -> Result<Vec<Task>, EvalError> {
    let mut tasks = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("line {}", i + 1);
        let task: Task = serde_json::from_str(line).map_err(|e| EvalError::from(e).at(at()))?;
        task.check().map_err(|e| e.at(at()))?;
        if !seen.insert(task.id.clone()) {
            return Err(EvalError::invalid(format!("duplicate task id `{}`", task.id)).at(at()));
        }
        tasks.push(task);
    }
    Ok(tasks)
}

/// Reads a JSONL dataset file.
///
/// # Errors
/// Unreadable file or a bad line.
pub fn load_jsonl(path: &Path) -> Result<Vec<Task>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_jsonl(&text).map_err(|e| e.at(path.display()))
}

/// Keeps the tasks of `categories` (all when empty), in order, at most `limit` per category.
pub fn select(tasks: Vec<Task>, categories: &[String], limit: Option<usize>) -> Vec<Task> {
    select_by(tasks, |t| t.category.as_str(), categories, limit)
}

/// Keeps the items whose group (`group(item)`) is among `categories` (all when empty), in order,
/// at most `limit` per group: [`select`] for any kind of item.
pub fn select_by<T>(
    items: Vec<T>,
    group: impl Fn(&T) -> &str,
    categories: &[String],
    limit: Option<usize>,
) -> Vec<T> {
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    items
        .into_iter()
        .filter(|t| categories.is_empty() || categories.iter().any(|c| c == group(t)))
        .filter(|t| {
            let n = counts.entry(group(t).to_string()).or_default();
            *n += 1;
            limit.is_none_or(|l| *n <= l)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_dataset_and_rejects_bad_lines() {
        let ok = r#"
# a comment
{"id":"a","query":"Weather in Paris?","functions":[{"name":"get_weather","parameters":{"type":"dict","properties":{"city":{"type":"string"}},"required":["city"]}}],"expected":[{"name":"get_weather","arguments":{"city":["Paris"]}}]}
{"id":"b","category":"irrelevance","query":"Tell me a joke","functions":[{"name":"get_weather","parameters":{"type":"object"}}]}
"#;
        let tasks = parse_jsonl(ok).unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].category, "default");
        assert!(tasks[1].is_irrelevance());
        assert_eq!(tasks[0].specs().unwrap()[0].parameters["type"], "object");

        let not_a_list = r#"{"id":"a","query":"q","functions":[{"name":"f"}],"expected":[{"name":"f","arguments":{"x":1}}]}"#;
        assert!(
            parse_jsonl(not_a_list)
                .unwrap_err()
                .to_string()
                .contains("list of acceptable values")
        );
        assert!(
            parse_jsonl("{nope")
                .unwrap_err()
                .to_string()
                .starts_with("line 1")
        );
        let dup = r#"{"id":"a","query":"q","functions":[{"name":"f"}]}
{"id":"a","query":"q","functions":[{"name":"f"}]}"#;
        assert!(
            parse_jsonl(dup)
                .unwrap_err()
                .to_string()
                .contains("duplicate")
        );
        assert!(parse_jsonl(r#"{"id":"a","query":"q","functions":[]}"#).is_err());
    }

    #[test]
    fn the_shipped_sample_parses() {
        let tasks = parse_jsonl(include_str!("../data/sample.jsonl")).unwrap();
        assert_eq!(tasks.len(), 4);
        assert_eq!(tasks.iter().filter(|t| t.is_irrelevance()).count(), 1);
    }

    #[test]
    fn selects_by_category_and_limit_in_order() {
        let mk = |id: &str, c: &str| Task {
            id: id.into(),
            category: c.into(),
            query: "q".into(),
            functions: vec![],
            expected: vec![],
        };
        let tasks = vec![mk("1", "a"), mk("2", "b"), mk("3", "a"), mk("4", "a")];
        let ids = |v: Vec<Task>| v.into_iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(ids(select(tasks.clone(), &[], Some(2))), ["1", "2", "3"]);
        assert_eq!(
            ids(select(tasks.clone(), &["a".into()], None)),
            ["1", "3", "4"]
        );
        assert_eq!(ids(select(tasks, &["b".into()], Some(5))), ["2"]);
    }
}
