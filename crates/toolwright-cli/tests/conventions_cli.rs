//! The CLI's conventions (issue 12, item 5): one `--format text|json` (with `--json` kept as a
//! hidden alias), one set of provider flags with their variables for `run`, `chat` and `eval`,
//! `completions <shell>`, `chat` over piped input, and `--toolset` on the commands that take
//! tools (the demo tools only when the user brings none).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

mod common;
use common::{completion, fixture};

/// The CLI with no provider variable of the machine and every home-like directory in `home`.
fn toolwright(home: &Path) -> Command {
    let mut c = common::toolwright();
    c.env_remove("TOOLWRIGHT_MODEL")
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("TOOLWRIGHT_HOME", home.join("tw"));
    c
}

fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn completions_for_bash_name_the_subcommands() {
    let home = tempfile::tempdir().unwrap();
    let script = stdout(
        &toolwright(home.path())
            .args(["completions", "bash"])
            .output()
            .unwrap(),
    );
    assert!(script.contains("_toolwright()"), "a bash function");
    for sub in [
        "tools",
        "call",
        "check",
        "lint",
        "catalog",
        "route",
        "serve",
        "run",
        "chat",
        "eval",
        "model",
        "stats",
        "ui",
        "completions",
    ] {
        assert!(
            script.contains(&format!("toolwright__subcmd__{sub}")),
            "`{sub}` missing"
        );
    }
    assert!(script.contains("--format") && script.contains("--toolset"));
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let s = stdout(
            &toolwright(home.path())
                .args(["completions", shell])
                .output()
                .unwrap(),
        );
        assert!(
            s.contains("toolwright") && s.contains("completions"),
            "{shell}"
        );
    }
    let out = toolwright(home.path())
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn help_of_every_agent_command_shows_the_provider_variables_but_no_secret() {
    let home = tempfile::tempdir().unwrap();
    for cmd in ["run", "chat", "eval"] {
        let help = stdout(
            &toolwright(home.path())
                .env("OPENAI_API_KEY", "sk-very-secret-1234")
                .args([cmd, "--help"])
                .output()
                .unwrap(),
        );
        for var in [
            "TOOLWRIGHT_PROVIDER",
            "TOOLWRIGHT_MODEL",
            "TOOLWRIGHT_BASE_URL",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
        ] {
            assert!(help.contains(&format!("[env: {var}")), "{cmd}: {var}");
        }
        assert!(!help.contains("sk-very-secret"), "{cmd} shows a key");
        assert!(!help.contains("--json"), "{cmd}: --json is a hidden alias");
        // `run` and `eval` print data; `chat` talks.
        assert_eq!(help.contains("--format"), cmd != "chat", "{cmd}: --format");
    }
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../toolwright-eval/data/sample.jsonl")
}

/// A naive answer and a guided call + answer for the sample's first `simple` task.
fn eval_fixture() -> (String, std::thread::JoinHandle<Vec<Value>>) {
    fixture(vec![
        completion(json!({"role": "assistant", "content": "[get_weather(city='Lisbon')]"})),
        completion(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Lisbon\", \"unit\": \"celsius\"}"}}]})),
        completion(json!({"role": "assistant", "content": "Done."})),
    ])
}

#[test]
fn eval_reads_the_same_environment_as_run() {
    let home = tempfile::tempdir().unwrap();
    // `--provider openai`, the endpoint and key from the variables `run` reads, no --model.
    let (url, seen) = eval_fixture();
    let out = toolwright(home.path())
        .env("TOOLWRIGHT_BASE_URL", &url)
        .env("OPENAI_API_KEY", "sk-test")
        .args(["eval", "--dataset"])
        .arg(sample())
        .args([
            "--category",
            "simple",
            "--limit",
            "1",
            "--provider",
            "openai",
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["results"].as_array().unwrap().len(), 2);
    let requests = seen.join().unwrap();
    assert_eq!(
        requests.len(),
        3,
        "both modes asked the endpoint of the variable"
    );
    assert!(requests[0]["model"].is_string());

    // No --provider: a base URL in the environment selects it, as for `run`; `--json` is
    // still accepted.
    let (url, seen) = fixture(vec![completion(
        json!({"role": "assistant", "content": "[get_weather(city='Lisbon')]"}),
    )]);
    let out = toolwright(home.path())
        .env("TOOLWRIGHT_BASE_URL", &url)
        .env("TOOLWRIGHT_MODEL", "from-the-variable")
        .args(["eval", "--dataset"])
        .arg(sample())
        .args([
            "--category",
            "simple",
            "--limit",
            "1",
            "--mode",
            "naive",
            "--json",
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["results"].as_array().unwrap().len(), 1);
    let requests = seen.join().unwrap();
    assert_eq!(requests[0]["model"], "from-the-variable");

    // The OpenAI API itself without a key: a usage error that names the variable.
    let out = toolwright(home.path())
        .args(["eval", "--dataset"])
        .arg(sample())
        .args([
            "--category",
            "simple",
            "--limit",
            "1",
            "--provider",
            "openai",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
}

#[test]
fn run_format_json_and_the_json_alias_print_the_same_trace() {
    let home = tempfile::tempdir().unwrap();
    let answer = || {
        fixture(vec![completion(
            json!({"role": "assistant", "content": "Hello."}),
        )])
        .0
    };
    let mut traces = Vec::new();
    for flags in [["--format", "json"], ["--json", "--max-steps=8"]] {
        let out = toolwright(home.path())
            .args(["--root"])
            .arg(home.path())
            .args(["run", "Say hello", "--base-url", &answer()])
            .args(flags)
            .output()
            .unwrap();
        let trace: Value = serde_json::from_str(&stdout(&out)).unwrap();
        traces.push(trace);
    }
    for t in &traces {
        assert_eq!(t["answer"], "Hello.");
        assert_eq!(t["stop"]["reason"], "answered");
    }
    let out = toolwright(home.path())
        .args(["run", "Say hello", "--format", "yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn chat_reads_piped_requests_and_keeps_no_history_for_them() {
    let home = tempfile::tempdir().unwrap();
    let (url, seen) = fixture(vec![
        completion(json!({"role": "assistant", "content": "First answer."})),
        completion(json!({"role": "assistant", "content": "Second answer."})),
    ]);
    let out = toolwright(home.path())
        .args(["--root"])
        .arg(home.path())
        .args(["chat", "--base-url", &url])
        .write_stdin("hello\n\n/reset\nand again\n/exit\nnever sent\n")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert_eq!(text, "First answer.\nSecond answer.\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(conversation cleared)"), "{stderr}");
    let requests = seen.join().unwrap();
    assert_eq!(requests.len(), 2);
    let second = requests[1]["messages"].as_array().unwrap();
    assert!(
        second.iter().all(|m| m["content"] != "hello"),
        "/reset forgot the first request"
    );
    // Piped input has no line editor, so no history file anywhere under the home.
    let mut files = Vec::new();
    let mut stack = vec![home.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                files.push(e.path());
            }
        }
    }
    assert!(
        files.iter().all(|f| !f.ends_with("chat_history")),
        "{files:?}"
    );
    // End of input quits too.
    let out = toolwright(home.path())
        .args(["chat", "--base-url", &url, "--no-history"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn format_text_and_json_on_the_commands_that_print_data() {
    let home = tempfile::tempdir().unwrap();
    let tw = || {
        let mut c = toolwright(home.path());
        c.args(["--root"]).arg(home.path());
        c
    };
    // tools list: text (also spelled `table`, as before) and json.
    let text = stdout(
        &tw()
            .args(["tools", "list", "--format", "text"])
            .output()
            .unwrap(),
    );
    let table = stdout(
        &tw()
            .args(["tools", "list", "--format", "table"])
            .output()
            .unwrap(),
    );
    assert_eq!(text, table);
    assert!(text.contains("convert_currency"));
    let list: Value = serde_json::from_str(&stdout(
        &tw()
            .args(["tools", "list", "--format", "json"])
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert!(list.to_string().contains("convert_currency"));

    // tools show: the definition (json) by default, text for people.
    let def: Value = serde_json::from_str(&stdout(
        &tw()
            .args(["tools", "show", "convert_currency"])
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert_eq!(def["name"], "convert_currency");
    let text = stdout(
        &tw()
            .args(["tools", "show", "convert_currency", "--format", "text"])
            .output()
            .unwrap(),
    );
    assert!(
        text.starts_with("convert_currency — Converting currency\n"),
        "{text}"
    );
    assert!(text.contains("  amount (number, required): "), "{text}");
    assert!(
        text.contains("side effects: none; confirmation: no"),
        "{text}"
    );

    // call: json by default (the envelope), text for people.
    let args = r#"{"amount": 100, "from_currency": "USD", "to_currency": "EUR"}"#;
    let env: Value = serde_json::from_str(&stdout(
        &tw()
            .args(["call", "convert_currency", "--args", args])
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert_eq!(env["status"], "success");
    let text = stdout(
        &tw()
            .args([
                "call",
                "convert_currency",
                "--args",
                args,
                "--format",
                "text",
            ])
            .output()
            .unwrap(),
    );
    assert!(text.starts_with("success convert_currency"), "{text}");
    assert!(text.contains("\"converted\""), "{text}");
    let out = tw()
        .args([
            "call",
            "get_weather",
            "--args",
            r#"{"city": "Pariss"}"#,
            "--format",
            "text",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("error NOT_FOUND") && text.contains("suggestion: "),
        "{text}"
    );

    // check: JSON lines by default, one line per call in text.
    let defs = home.path().join("defs.json");
    std::fs::write(
        &defs,
        json!([{"name": "add", "description": "Add two numbers for the user.",
                "parameters": {"type": "object", "properties": {"a": {"type": "number"}},
                               "required": ["a"]}}])
        .to_string(),
    )
    .unwrap();
    let calls = home.path().join("calls.jsonl");
    std::fs::write(
        &calls,
        "{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n{\"name\": \"add\", \"arguments\": {}}\n",
    )
    .unwrap();
    let check = |format: &str| {
        let out = tw()
            .args(["check", "--functions"])
            .arg(&defs)
            .arg("--calls")
            .arg(&calls)
            .args(["--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "one call is invalid");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let lines: Vec<Value> = check("json")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["valid"], false);
    let text = check("text");
    let text: Vec<&str> = text.lines().collect();
    assert_eq!(text[0], "line 1: valid");
    assert!(
        text[1].starts_with("line 2: invalid: VALIDATION_ERROR"),
        "{text:?}"
    );

    // stats: `table` is still `text`.
    for f in ["text", "table", "json"] {
        let out = tw().args(["stats", "--format", f]).output().unwrap();
        assert!(out.status.success(), "stats --format {f}");
    }
}

/// A definitions file whose tool has a demo tool's name: loading the demo tools next to it
/// would be a name clash.
fn clashing_defs(dir: &Path) -> PathBuf {
    let defs = dir.join("defs.json");
    std::fs::write(
        &defs,
        json!([{"type": "function", "function": {"name": "read_file",
            "description": "Read a file of the user's project.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                           "required": ["path"]}}}])
        .to_string(),
    )
    .unwrap();
    defs
}

#[test]
fn run_with_functions_does_not_load_the_demo_tools() {
    let home = tempfile::tempdir().unwrap();
    let defs = clashing_defs(home.path());
    let (url, _) = fixture(vec![
        completion(
            json!({"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
            "function": {"name": "read_file", "arguments": "{\"path\":\"notes.md\"}"}}]}),
        ),
        completion(json!({"role": "assistant", "content": "Checked."})),
    ]);
    let out = toolwright(home.path())
        .args([
            "run",
            "Read notes.md",
            "--base-url",
            &url,
            "--format",
            "json",
            "--functions",
        ])
        .arg(&defs)
        .output()
        .unwrap();
    let trace: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(trace["tools_offered"], json!(["read_file"]));
    // The definition-only tool answered (validated, not executed), not the demo's file reader.
    assert_eq!(trace["calls"][0]["envelope"]["data"]["validated"], true);

    // Asking for the demo toolset as well brings the clash back, as a usage error.
    let out = toolwright(home.path())
        .args([
            "--toolset",
            "demo",
            "run",
            "Read notes.md",
            "--base-url",
            &url,
            "--functions",
        ])
        .arg(&defs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("read_file"));
}

#[test]
fn toolset_is_on_every_command_that_takes_tools() {
    let home = tempfile::tempdir().unwrap();
    let names = |toolset: &str| {
        let out = toolwright(home.path())
            .args(["--toolset", toolset, "tools", "list", "--format", "json"])
            .output()
            .unwrap();
        serde_json::from_str::<Value>(&stdout(&out))
            .unwrap()
            .to_string()
    };
    assert!(names("demo").contains("convert_currency"));
    assert!(!names("none").contains("convert_currency"));
    // Every command that takes tools accepts the flag (it is global); `none` leaves the
    // demo's tool unknown to `call`.
    let out = toolwright(home.path())
        .args([
            "--toolset",
            "none",
            "call",
            "calculate",
            "--args",
            r#"{"expression": "1+1"}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["error"]["code"], "UNKNOWN_TOOL");
    for cmd in [
        ["tools", "--help"],
        ["call", "--help"],
        ["route", "--help"],
        ["lint", "--help"],
        ["serve", "--help"],
        ["run", "--help"],
        ["chat", "--help"],
        ["ui", "--help"],
    ] {
        let help = stdout(&toolwright(home.path()).args(cmd).output().unwrap());
        assert!(help.contains("--toolset"), "{cmd:?}");
    }
}
