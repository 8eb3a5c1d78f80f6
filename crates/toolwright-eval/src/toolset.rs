//! Datasets over one shared toolset: a folder with `tools.json` (any definition form
//! `parse_definitions` reads; an MCP `tools/list` result for the MCP dev set) and
//! `requests.jsonl`, one request a line:
//!
//! ```json
//! {"id": "fs-003", "server": "filesystem", "query": "open the picture /home/ana/cat.png",
//!  "expected": [{"name": "read_media_file", "arguments": {"path": ["/home/ana/cat.png"]}}]}
//! ```
//!
//! `expected` lists the calls that answer the request (all of them), or with `"any_of": true`
//! the alternatives (any one of them); empty means no tool fits. `server` (optional) groups
//! results. `crates/toolwright-eval/data/mcp` is such a folder (see its README for provenance).

use crate::EvalError;
use crate::dataset::{ExpectedCall, Task};
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;
use toolwright_core::ToolSpec;

/// One request of a shared-toolset dataset.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Request {
    /// Unique id.
    pub id: String,
    /// The group it belongs to (the MCP server it was written for; `none` when out of scope).
    #[serde(default = "default_server")]
    pub server: String,
    /// What the user asks.
    pub query: String,
    /// The expected calls (see the module docs).
    #[serde(default)]
    pub expected: Vec<ExpectedCall>,
    /// Whether `expected` lists alternatives rather than calls that are all needed.
    #[serde(default)]
    pub any_of: bool,
}

fn default_server() -> String {
    "default".to_string()
}

impl Request {
    /// Whether no tool fits the request.
    pub fn out_of_scope(&self) -> bool {
        self.expected.is_empty()
    }

    /// The names of the tools that would be right (any of them for `any_of`; the first call's
    /// tool otherwise).
    pub fn right_tools(&self) -> Vec<&str> {
        if self.any_of {
            self.expected.iter().map(|e| e.name.as_str()).collect()
        } else {
            self.expected
                .iter()
                .take(1)
                .map(|e| e.name.as_str())
                .collect()
        }
    }

    /// The request as eval [`Task`]s over `functions`: one task, or one per alternative for
    /// `any_of` (a call that matches any of them is right).
    pub fn tasks(&self, functions: &[Value]) -> Vec<Task> {
        let mk = |expected: Vec<ExpectedCall>| Task {
            id: self.id.clone(),
            category: self.server.clone(),
            query: self.query.clone(),
            functions: functions.to_vec(),
            expected,
        };
        if self.any_of {
            self.expected.iter().map(|e| mk(vec![e.clone()])).collect()
        } else {
            vec![mk(self.expected.clone())]
        }
    }
}

/// A shared toolset and its requests.
#[derive(Debug, Clone)]
pub struct ToolsetDataset {
    /// The dataset's name (its folder's name).
    pub name: String,
    /// The tool definitions as given.
    pub functions: Vec<Value>,
    /// The same as specs, in order.
    pub specs: Vec<ToolSpec>,
    /// The requests, in file order.
    pub requests: Vec<Request>,
}

impl ToolsetDataset {
    /// Reads `dir/tools.json` and `dir/requests.jsonl`, checking that every expected tool
    /// exists and ids are unique.
    ///
    /// # Errors
    /// A missing or malformed file, or a request naming an unknown tool.
    pub fn load(dir: &Path) -> Result<ToolsetDataset, EvalError> {
        let read = |name: &str| {
            std::fs::read_to_string(dir.join(name)).map_err(|source| EvalError::Read {
                path: dir.join(name),
                source,
            })
        };
        let tools: Value = serde_json::from_str(&read("tools.json")?)
            .map_err(|e| EvalError::from(e).at(dir.join("tools.json").display()))?;
        let functions = match tools {
            Value::Object(mut m) if m.contains_key("tools") => match m.remove("tools") {
                Some(Value::Array(a)) => a,
                _ => {
                    return Err(EvalError::invalid("`tools` must be an array").at("tools.json"));
                }
            },
            Value::Array(a) => a,
            _ => {
                return Err(
                    EvalError::invalid("expected an array or {\"tools\": [...]}").at("tools.json"),
                );
            }
        };
        let mut specs = toolwright_core::defs::parse_definitions(&Value::Array(functions.clone()))
            .map_err(|e| EvalError::from(e).at("tools.json"))?;
        server_categories(&dir.join("servers"), &mut specs)?;
        let requests = parse_requests(&read("requests.jsonl")?, &specs)?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "toolset".to_string());
        Ok(ToolsetDataset {
            name,
            functions,
            specs,
            requests,
        })
    }

    /// Whether `dir` looks like a shared-toolset dataset.
    pub fn is_dataset_dir(dir: &Path) -> bool {
        dir.join("tools.json").is_file() && dir.join("requests.jsonl").is_file()
    }
}

/// With a `servers/` folder of per-server `tools/list` results (`<server>.json`), each tool's
/// `meta.server` becomes its server's name, as importing that server with `--mcp` sets it
/// (`serverInfo.name`); a tool renamed `<server>__<name>` for a clash is matched too.
fn server_categories(servers: &Path, specs: &mut [ToolSpec]) -> Result<(), EvalError> {
    let Ok(entries) = std::fs::read_dir(servers) else {
        return Ok(());
    };
    let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    files.sort();
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
    {
        let Some(server) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
            path: path.clone(),
            source,
        })?;
        let list: Value = serde_json::from_str(&text)
            .map_err(|e| EvalError::from(e).at(path.display().to_string()))?;
        let names = list
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for name in names.filter_map(|t| t.get("name").and_then(Value::as_str)) {
            let renamed = format!("{server}__{name}");
            if let Some(spec) = specs
                .iter_mut()
                .find(|s| s.name == renamed || s.name == name)
            {
                spec.meta.server = Some(server.clone());
            }
        }
    }
    Ok(())
}

/// Parses `requests.jsonl` against `specs` (see [`ToolsetDataset::load`]).
///
/// # Errors
/// The first bad line, with its number.
pub fn parse_requests(text: &str, specs: &[ToolSpec]) -> Result<Vec<Request>, EvalError> {
    let names: std::collections::HashSet<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: EvalError| e.at(format!("requests.jsonl line {}", i + 1));
        let r: Request = serde_json::from_str(line).map_err(|e| at(e.into()))?;
        if r.query.trim().is_empty() {
            return Err(at(EvalError::invalid("empty query")));
        }
        if !seen.insert(r.id.clone()) {
            return Err(at(EvalError::invalid(format!("duplicate id `{}`", r.id))));
        }
        if let Some(e) = r.expected.iter().find(|e| !names.contains(e.name.as_str())) {
            return Err(at(EvalError::invalid(format!("unknown tool `{}`", e.name))));
        }
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn mcp_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/mcp")
    }

    #[test]
    fn the_mcp_dev_set_loads_and_is_as_documented() {
        let ds = ToolsetDataset::load(&mcp_dir()).unwrap();
        assert!(ds.specs.len() >= 150, "{} tools", ds.specs.len());
        assert!(ds.requests.len() >= 250);
        let oos = ds.requests.iter().filter(|r| r.out_of_scope()).count();
        assert!(oos >= 25, "{oos} out of scope");
        let servers: std::collections::HashSet<&str> =
            ds.requests.iter().map(|r| r.server.as_str()).collect();
        assert!(servers.len() >= 9, "{servers:?}");
        // Every tool carries its server's name, renamed clashes included.
        let category = |name: &str| {
            let spec = ds.specs.iter().find(|s| s.name == name).unwrap();
            spec.meta.server.clone()
        };
        assert_eq!(category("query").as_deref(), Some("postgres"));
        assert_eq!(category("gitlab__push_files").as_deref(), Some("gitlab"));
        assert_eq!(category("github__push_files").as_deref(), Some("github"));
        assert!(ds.specs.iter().all(|s| s.meta.server.is_some()));
    }

    /// Loads a held-out set, checks its counts, that every tool carries its server, that every
    /// tool is expected by some request and that every expected argument is a parameter of its
    /// tool.
    fn check_held_out(set: &str, tools: usize, requests: usize, out_of_scope: usize) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(set);
        let ds = ToolsetDataset::load(&dir).unwrap();
        assert_eq!(ds.specs.len(), tools);
        assert_eq!(ds.requests.len(), requests);
        let oos = ds.requests.iter().filter(|r| r.out_of_scope()).count();
        assert_eq!(oos, out_of_scope);
        assert!(ds.specs.iter().all(|s| s.meta.server.is_some()));
        let expected: std::collections::HashSet<&str> = ds
            .requests
            .iter()
            .flat_map(|r| r.expected.iter().map(|e| e.name.as_str()))
            .collect();
        for spec in &ds.specs {
            assert!(expected.contains(spec.name.as_str()), "{}", spec.name);
        }
        for r in &ds.requests {
            for e in &r.expected {
                let spec = ds.specs.iter().find(|s| s.name == e.name).unwrap();
                for arg in e.arguments.keys() {
                    assert!(
                        spec.parameters["properties"].get(arg).is_some(),
                        "{}: `{arg}` is not a parameter of {}",
                        r.id,
                        e.name
                    );
                }
            }
        }
    }

    #[test]
    fn the_held_out_mcp_test_sets_load_and_are_as_documented() {
        check_held_out("mcp-test", 138, 224, 36);
        check_held_out("mcp-test2", 125, 219, 34);
        check_held_out("mcp-test3", 131, 260, 35);
        check_held_out("mcp-test4", 133, 268, 35);
        check_held_out("mcp-test5", 115, 245, 35);
    }

    #[test]
    fn any_of_requests_become_one_task_per_alternative() {
        let specs = vec![
            ToolSpec::new("a", "A.", serde_json::json!({"type": "object"})),
            ToolSpec::new("b", "B.", serde_json::json!({"type": "object"})),
        ];
        let text = r#"{"id":"1","query":"q","expected":[{"name":"a"},{"name":"b"}],"any_of":true}
{"id":"2","server":"none","query":"pizza","expected":[]}"#;
        let reqs = parse_requests(text, &specs).unwrap();
        assert_eq!(reqs[0].right_tools(), ["a", "b"]);
        assert_eq!(reqs[0].tasks(&[]).len(), 2);
        assert!(reqs[1].out_of_scope());
        assert!(
            parse_requests(
                r#"{"id":"1","query":"q","expected":[{"name":"zz"}]}"#,
                &specs
            )
            .unwrap_err()
            .to_string()
            .contains("unknown tool `zz`")
        );
        assert!(parse_requests("{\"id\":\"1\",\"query\":\" \"}", &specs).is_err());
    }
}
