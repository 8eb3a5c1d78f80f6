//! Reading the Berkeley Function Calling Leaderboard data (PyPI `bfcl-eval`, Apache-2.0):
//! question files (`BFCL_v4_<category>.json`, one JSON object per line with `question` and
//! `function`) and their answers (`possible_answer/BFCL_v4_<category>.json`). The data is not
//! committed: point `TOOLWRIGHT_BFCL_DIR` at the wheel's `bfcl_eval/data` directory.
#![allow(dead_code, clippy::indexing_slicing, clippy::unwrap_used)]

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use toolwright_core::ToolSpec;
use toolwright_eval::bfcl::normalize_functions;

/// BFCL definitions (a list or one object) as specs, their types rewritten into JSON Schema.
fn parse_definitions(defs: &Value) -> Result<Vec<ToolSpec>, String> {
    let list = match defs {
        Value::Array(a) => normalize_functions(a),
        one => normalize_functions(std::slice::from_ref(one)),
    };
    toolwright_core::defs::parse_definitions(&Value::Array(list)).map_err(|e| e.to_string())
}

/// The environment variable naming the BFCL data directory.
pub const ENV: &str = "TOOLWRIGHT_BFCL_DIR";

/// One routing case: a query, its candidate functions and the expected function names.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub query: String,
    pub functions: Vec<ToolSpec>,
    pub expected: Vec<String>,
}

/// The data directory, or `None` with a printed notice.
pub fn data_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os(ENV) {
        Some(d) if Path::new(&d).is_dir() => Some(PathBuf::from(d)),
        _ => {
            // Written to the stderr handle directly: the test harness captures `eprintln!`.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "NOTICE: {test} skipped: set {ENV} to the `bfcl_eval/data` directory of the bfcl-eval wheel \
                 (pip download --no-deps bfcl-eval; unzip it) to run it on the BFCL corpus"
            );
            None
        }
    }
}

/// The last user message of a BFCL `question` (a list of turns, each a list of messages).
fn query_of(q: &Value) -> Option<String> {
    let turns = q.as_array()?;
    turns
        .iter()
        .flat_map(|t| t.as_array().into_iter().flatten())
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .filter_map(|m| m.get("content").and_then(Value::as_str))
        .next_back()
        .map(str::to_string)
}

/// Expected function names from a `ground_truth` value (`[{"name": {...args}}]`).
fn names_of(gt: &Value) -> Vec<String> {
    gt.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|m| m.keys().cloned())
        .collect()
}

/// Parses question lines; answers come from the line's own `ground_truth` (the fixture) or from
/// `answers` (BFCL's possible_answer file). Lines without a query or answer are skipped.
pub fn parse_cases(questions: &str, answers: Option<&str>) -> Vec<Case> {
    let mut truth: HashMap<String, Vec<String>> = HashMap::new();
    for line in answers
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        if let Ok(v) = serde_json::from_str::<Value>(line)
            && let (Some(id), Some(gt)) =
                (v.get("id").and_then(Value::as_str), v.get("ground_truth"))
        {
            truth.insert(id.to_string(), names_of(gt));
        }
    }
    let mut out = Vec::new();
    for line in questions.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let Some(query) = v.get("question").and_then(query_of) else {
            continue;
        };
        let Some(functions) = v.get("function").and_then(|f| parse_definitions(f).ok()) else {
            continue;
        };
        let expected = v
            .get("ground_truth")
            .map(names_of)
            .or_else(|| truth.get(&id).cloned())
            .unwrap_or_default();
        if expected.is_empty() {
            continue;
        }
        out.push(Case {
            id,
            query,
            functions,
            expected,
        });
    }
    out
}

/// The cases of one category (`multiple`, `simple_python`, ...).
pub fn load_category(dir: &Path, category: &str) -> Vec<Case> {
    let q =
        std::fs::read_to_string(dir.join(format!("BFCL_v4_{category}.json"))).unwrap_or_default();
    let a = std::fs::read_to_string(
        dir.join("possible_answer")
            .join(format!("BFCL_v4_{category}.json")),
    )
    .ok();
    parse_cases(&q, a.as_deref())
}

/// Every distinct function (by name) in the question files and the multi-turn API docs.
pub fn all_functions(dir: &Path) -> Vec<ToolSpec> {
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in [dir.to_path_buf(), dir.join("multi_turn_func_doc")] {
        if let Ok(rd) = std::fs::read_dir(&sub) {
            let mut v: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            v.sort();
            files.extend(v);
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let defs = v.get("function").cloned().unwrap_or_else(|| {
                if v.get("name").is_some() {
                    v.clone()
                } else {
                    Value::Null
                }
            });
            if defs.is_null() {
                continue;
            }
            for spec in parse_definitions(&defs).unwrap_or_default() {
                if seen.insert(spec.name.clone()) {
                    out.push(spec);
                }
            }
        }
    }
    out
}

/// Hits at 1, 3 and 5 of `rank` (a function from a case to ranked names) over `cases`.
pub fn recall(cases: &[Case], mut rank: impl FnMut(&Case) -> Vec<String>) -> [f64; 3] {
    let mut hits = [0usize; 3];
    for c in cases {
        let ranked = rank(c);
        for (slot, k) in [1usize, 3, 5].iter().enumerate() {
            if ranked.iter().take(*k).any(|n| c.expected.contains(n)) {
                hits[slot] += 1;
            }
        }
    }
    let n = cases.len().max(1) as f64;
    hits.map(|h| h as f64 / n)
}
