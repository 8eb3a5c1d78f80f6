//! `--tool-choice` and `--no-strict` through `toolwright run`, against a loopback
//! OpenAI-compatible fixture: what the server received.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use assert_cmd::Command;
use common::completion;
use serde_json::{Value, json};

fn toolwright(root: &std::path::Path) -> Command {
    let mut c = common::toolwright();
    c.env_remove("TOOLWRIGHT_MODEL")
        .args(["--root", root.to_str().unwrap()]);
    c
}

fn strict_flags(body: &Value) -> Vec<bool> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["strict"] == true)
        .collect()
}

#[test]
fn a_named_tool_choice_goes_out_on_the_first_turn_only() {
    let (url, seen) = common::fixture(vec![
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
            "type": "function", "function": {"name": "calculate",
            "arguments": "{\"expression\":\"17*23\"}"}}]}),
        ),
        completion(json!({"role": "assistant", "content": "391."})),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(dir.path())
        .args([
            "run",
            "What is 17*23?",
            "--base-url",
            &url,
            "--tool-choice",
            "calculate",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "391.");
    let bodies = seen.join().unwrap();
    assert_eq!(
        bodies[0]["tool_choice"],
        json!({"type": "function", "function": {"name": "calculate"}})
    );
    assert!(bodies[1].get("tool_choice").is_none(), "{}", bodies[1]);
    // Strict for all tools of the turn, or for none.
    let flags = strict_flags(&bodies[0]);
    assert!(
        flags.iter().all(|f| *f) || flags.iter().all(|f| !*f),
        "{flags:?}"
    );
}

#[test]
fn no_strict_sends_plain_schemas_and_required_is_sent() {
    let (url, seen) = common::fixture(vec![completion(
        json!({"role": "assistant", "content": "Nothing to do."}),
    )]);
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(dir.path())
        .args([
            "run",
            "hello",
            "--base-url",
            &url,
            "--no-strict",
            "--tool-choice",
            "required",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bodies = seen.join().unwrap();
    assert_eq!(bodies[0]["tool_choice"], "required");
    assert!(strict_flags(&bodies[0]).iter().all(|f| !*f));
}

#[test]
fn tool_choice_with_another_provider_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(dir.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .args([
            "run",
            "hello",
            "--provider",
            "anthropic",
            "--tool-choice",
            "none",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--tool-choice applies to the OpenAI"), "{err}");
}
