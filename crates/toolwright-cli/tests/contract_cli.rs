//! Issue 2's acceptance through the binary: tools list/show, call, check.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::io::Write;

fn tw(root: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("toolwright").unwrap();
    c.current_dir(root)
        .env("TOOLWRIGHT_ROOT", root)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    c
}

fn call(root: &std::path::Path, args: &[&str]) -> (i32, Value) {
    let out = tw(root).args(args).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn tools_list_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let out = tw(dir.path())
        .args(["tools", "list", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for n in [
        "convert_currency",
        "get_weather",
        "search_files",
        "read_file",
        "calculate",
        "query_users",
        "delete_file",
    ] {
        assert!(names.contains(&n), "{n}");
    }
    let cc = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "convert_currency")
        .unwrap();
    assert_eq!(cc["meta"]["display_label"], json!("Converting currency"));
    assert_eq!(cc["meta"]["side_effects"], json!("none"));

    let out = tw(dir.path())
        .args(["tools", "show", "convert_currency"])
        .output()
        .unwrap();
    let show: Value = serde_json::from_slice(&out.stdout).unwrap();
    let props = &show["parameters"]["properties"];
    assert_eq!(
        props["amount"]["description"],
        json!("Amount to convert, e.g. 100 or 12.5")
    );
    assert!(props["from_currency"]["description"].is_string());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\"USD\"") && text.contains("\"EUR\""),
        "currency enum shown"
    );

    let out = tw(dir.path()).args(["tools", "list"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("query_users"));
}

#[test]
fn acceptance_calls() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("x"), "keep me").unwrap();

    let (code, v) = call(
        root,
        &["call", "query_users", "--args", r#"{"role":"wizard"}"#],
    );
    assert_eq!(code, 1);
    assert_eq!(v["status"], json!("error"));
    assert_eq!(v["error"]["code"], json!("VALIDATION_ERROR"));
    assert_eq!(v["error"]["fields"][0]["path"], json!("/role"));
    assert_eq!(
        v["error"]["fields"][0]["expected"],
        json!(["admin", "developer", "manager"])
    );

    let (_, v) = call(
        root,
        &[
            "call",
            "query_users",
            "--args",
            r#"{"role":"admin","limti":5}"#,
        ],
    );
    assert!(v["error"]["suggestion"].as_str().unwrap().contains("limit"));

    let (code, v) = call(root, &["call", "qurey_users", "--args", "{}"]);
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], json!("UNKNOWN_TOOL"));
    assert!(
        v["error"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("query_users")
    );

    let (_, v) = call(
        root,
        &[
            "call",
            "read_file",
            "--args",
            r#"{"path":"../../etc/passwd"}"#,
        ],
    );
    assert_eq!(v["error"]["code"], json!("PERMISSION_DENIED"));

    let (code, v) = call(
        root,
        &["call", "calculate", "--args", r#"{"expression":"2*(3+4)"}"#],
    );
    assert_eq!(code, 0);
    assert_eq!(v["data"], json!(14));

    let (_, v) = call(root, &["call", "delete_file", "--args", r#"{"path":"x"}"#]);
    assert_eq!(v["status"], json!("needs_confirmation"));
    assert!(root.join("x").exists());

    let (code, v) = call(root, &["call", "calculate", "--args", "{not json"]);
    assert_eq!(code, 1);
    assert_eq!(v["error"]["code"], json!("VALIDATION_ERROR"));
}

/// A generated corpus: 120 functions with enums, bounds, nested objects; 1,200 calls of known classes.
#[test]
fn check_classifies_generated_calls() {
    let dir = tempfile::tempdir().unwrap();
    let mut defs = Vec::new();
    for i in 0..120 {
        let f = json!({
            "name": format!("fn_{i}"),
            "description": format!("Function number {i}."),
            "parameters": {
                "type": "object",
                "properties": {
                    "mode": {"type": "string", "enum": ["fast", "slow"]},
                    "count": {"type": "integer", "minimum": 1, "maximum": 10},
                    "label": {"type": "string", "maxLength": 8},
                    "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}, "required": ["deep"]}
                },
                "required": ["mode", "count"]
            }
        });
        // Mix the three accepted forms.
        defs.push(match i % 3 {
            0 => json!({"type": "function", "function": f}),
            1 => f,
            _ => json!({"name": f["name"], "description": f["description"], "inputSchema": f["parameters"]}),
        });
    }
    std::fs::write(
        dir.path().join("defs.json"),
        serde_json::to_string(&defs).unwrap(),
    )
    .unwrap();

    let mut lines = Vec::new();
    let mut expected = Vec::new(); // (valid, code, problem)
    for j in 0..1200usize {
        let name = format!("fn_{}", j % 120);
        let (line, exp): (String, (bool, &str, &str)) = match j % 12 {
            0 => (json!({"name": name, "arguments": {"mode": "fast", "count": 3}}).to_string(), (true, "", "")),
            1 => (json!({"name": name, "arguments": {"mode": "fast", "count": "3"}}).to_string(), (false, "VALIDATION_ERROR", "wrong_type")),
            2 => (json!({"name": name, "arguments": {"mode": "fast"}}).to_string(), (false, "VALIDATION_ERROR", "missing_required")),
            3 => (json!({"name": name, "arguments": {"mode": "medium", "count": 2}}).to_string(), (false, "VALIDATION_ERROR", "not_in_enum")),
            4 => (json!({"name": format!("nope_{j}"), "arguments": {}}).to_string(), (false, "UNKNOWN_TOOL", "")),
            5 => (json!({"name": name, "arguments": [1, 2]}).to_string(), (false, "VALIDATION_ERROR", "wrong_type")),
            6 => (format!("{{\"name\": \"{name}\", \"arguments\": {{\"mode\": "), (false, "VALIDATION_ERROR", "wrong_type")),
            7 => (json!({"name": name, "arguments": {"mode": "slow", "count": 11}}).to_string(), (false, "VALIDATION_ERROR", "out_of_range")),
            8 => (json!({"name": name, "arguments": {"mode": "slow", "count": 1, "colour": "red"}}).to_string(), (false, "VALIDATION_ERROR", "unknown_field")),
            9 => (json!({"name": name, "arguments": {"mode": "slow", "count": 1, "label": "much too long"}}).to_string(), (false, "VALIDATION_ERROR", "too_long")),
            10 => (json!({"type": "function", "function": {"name": name, "arguments": "{\"mode\":\"slow\",\"count\":2,\"opts\":{\"deep\":true}}"}}).to_string(), (true, "", "")),
            _ => (json!({"name": name, "arguments": {"mode": "slow", "count": 2, "opts": {}}}).to_string(), (false, "VALIDATION_ERROR", "missing_required")),
        };
        lines.push(line);
        expected.push(exp);
    }
    let mut f = std::fs::File::create(dir.path().join("calls.jsonl")).unwrap();
    for l in &lines {
        writeln!(f, "{l}").unwrap();
    }
    drop(f);

    let out = tw(dir.path())
        .args([
            "check",
            "--functions",
            "defs.json",
            "--calls",
            "calls.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "some calls are invalid");
    let results: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), 1200);
    for (r, (valid, code, problem)) in results.iter().zip(&expected) {
        let i = r["index"].as_u64().unwrap() as usize;
        assert_eq!(r["valid"], json!(valid), "line {i}: {} → {r}", lines[i]);
        if !valid {
            assert_eq!(r["error"]["code"], json!(code), "line {i}: {r}");
            if !problem.is_empty() {
                assert_eq!(
                    r["error"]["fields"][0]["problem"],
                    json!(problem),
                    "line {i}: {r}"
                );
            }
        }
    }

    // Lenient mode applies coercions and reports them.
    let out = tw(dir.path())
        .args([
            "check",
            "--functions",
            "defs.json",
            "--calls",
            "calls.jsonl",
            "--lenient",
        ])
        .output()
        .unwrap();
    let second: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["valid"], json!(true));
    assert_eq!(second["coerced"][0]["path"], json!("/count"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = tw(dir.path())
        .args(["check", "--functions", "missing.json", "--calls", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = tw(dir.path()).args(["frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
