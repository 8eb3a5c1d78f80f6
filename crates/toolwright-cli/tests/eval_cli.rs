//! `toolwright eval` end to end: over a loopback OpenAI-compatible fixture (naive reads BFCL's
//! Python call format from plain text; guided gets native tool calls), usage errors, and, when
//! the embedded model has been fetched, a deterministic rerun with the real model.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;

/// Serves `bodies` (Chat Completions JSON) to successive POSTs on 127.0.0.1; returns the base
/// URL and a handle giving the request bodies received.
fn fixture(bodies: Vec<Value>) -> (String, std::thread::JoinHandle<Vec<Value>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for body in bodies {
            let Ok((mut stream, _)) = listener.accept() else {
                return seen;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut buf = vec![0u8; len];
            let _ = reader.read_exact(&mut buf);
            seen.push(serde_json::from_slice(&buf).unwrap_or(Value::Null));
            let text = body.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
        }
        seen
    });
    (format!("http://{addr}/v1"), handle)
}

fn completion(message: Value) -> Value {
    json!({"choices": [{"index": 0, "message": message}], "usage": {"prompt_tokens": 10, "completion_tokens": 3}})
}

fn toolwright() -> Command {
    let mut c = Command::cargo_bin("toolwright").unwrap();
    for k in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"] {
        c.env_remove(k);
    }
    c
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../toolwright-eval/data/sample.jsonl")
}

#[test]
fn naive_and_guided_over_an_openai_compatible_fixture() {
    let (url, seen) = fixture(vec![
        // naive: plain text in BFCL's Python format, a wrong city
        completion(json!({"role": "assistant", "content": "[get_weather(city='Lisbn')]"})),
        // guided: a native tool call, then the answer
        completion(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Lisbon\", \"unit\": \"celsius\"}"}}]})),
        completion(json!({"role": "assistant", "content": "Done."})),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let out = toolwright()
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
        .args(["--model", "m", "--base-url", &url, "--json", "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["mode"], "naive");
    assert_eq!(results[0]["score"]["correct"], false);
    assert_eq!(results[0]["score"]["error"], "wrong_value");
    assert_eq!(results[0]["calls"][0]["arguments"]["city"], "Lisbn");
    assert_eq!(results[1]["mode"], "guided");
    assert_eq!(results[1]["score"]["correct"], true);
    assert_eq!(report["reduction"], 1.0);
    // naive asked with BFCL's system prompt and no native tools
    let requests = seen.join().unwrap();
    let first = &requests[0];
    assert!(first.get("tools").is_none_or(Value::is_null), "{first}");
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are an expert in composing functions."));
    assert!(system.contains("\"name\": \"get_weather\""));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("Failing cases (1)"));
}

#[test]
fn usage_errors_exit_2() {
    let out = toolwright()
        .args(["eval", "--dataset"])
        .arg(sample())
        .args([
            "--category",
            "no_such_category",
            "--provider",
            "openai",
            "--model",
            "m",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no task matches"));
    let out = toolwright().args(["eval"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// With the embedded model (after `toolwright model fetch`): both modes run on the sample and a
/// rerun gives the same report, apart from timings.
#[test]
fn the_embedded_model_reruns_deterministically() {
    let Some(model) = toolwright_agent_model() else {
        eprintln!("skipped: no embedded model (run `toolwright model fetch`)");
        return;
    };
    let run = || {
        let out = toolwright()
            .args(["eval", "--dataset"])
            .arg(sample())
            .args(["--category", "simple,irrelevance", "--json", "--model"])
            .arg(&model)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
        strip_times(&mut v);
        v
    };
    let (a, b) = (run(), run());
    assert_eq!(a["results"].as_array().unwrap().len(), 4);
    assert_eq!(a, b);
}

fn strip_times(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !k.ends_with("_ms") && k != "wall_s");
            m.values_mut().for_each(strip_times);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_times),
        // transcripts that carry durations
        Value::String(s) if s.contains("_ms\"") => s.clear(),
        _ => {}
    }
}

fn toolwright_agent_model() -> Option<PathBuf> {
    toolwright_agent::model::find_model().filter(|p| p.is_file())
}
