//! `toolwright serve --http` as operators run it: `/metrics` (Prometheus histograms through the
//! `metrics` facade), `/healthz`, `/readyz` (false while Redis is down and while draining),
//! approvals granted over the admin endpoints, a catalog's `rate_limit`, and SIGTERM: readiness
//! goes first, then exit 0.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
#[path = "../../toolwright-runtime/tests/common/redis.rs"]
mod redis;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolwright")
}

use common::HttpServer as Server;

fn start(args: &[&str], root: &std::path::Path) -> Server {
    common::spawn_http_server(
        Command::new(bin())
            .args([
                "serve",
                "--http",
                "127.0.0.1:0",
                "--stateless",
                "--json-response",
            ])
            .args(["--root", root.to_str().unwrap()])
            .args(args),
    )
}

/// One HTTP/1.1 request (connection closed after it): status and body.
fn http(addr: &str, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         {auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, body.to_string())
}

/// `tools/call` over MCP; the envelope.
fn call(addr: &str, token: &str, name: &str, args: Value) -> Value {
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": args}});
    let (status, body) = http(addr, "POST", "/mcp", Some(token), &req.to_string());
    assert_eq!(status, 200, "{body}");
    let msg: Value = serde_json::from_str(&body).unwrap();
    msg["result"]["structuredContent"].clone()
}

/// A catalog of the demo tools with `calculate` limited to 3 calls a minute.
fn policies(dir: &std::path::Path) -> std::path::PathBuf {
    let reg = toolwright_demo::registry(toolwright_demo::DemoConfig::default()).unwrap();
    let mut specs = reg.specs();
    let calc = specs.iter_mut().find(|s| s.name == "calculate").unwrap();
    calc.meta.rate_limit = Some(toolwright_core::RateLimit {
        calls: 3,
        period_ms: 60_000,
        burst: None,
        per_caller: false,
    });
    let catalog = toolwright_catalog::Catalog::from_specs(&specs, "ops-test");
    let path = dir.join("policies.yaml");
    std::fs::write(
        &path,
        toolwright_catalog::catalog::to_yaml(&catalog).unwrap(),
    )
    .unwrap();
    path
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !ok() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn metrics_readiness_approvals_rate_limits_and_a_graceful_stop() {
    let Some(mut redis) = redis::RedisServer::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let catalog = policies(dir.path());
    let url = redis.url();
    let mut server = start(
        &[
            "--store",
            &url,
            "--token",
            "client-secret",
            "--admin-token",
            "admin-secret",
            "--catalog",
            catalog.to_str().unwrap(),
            "--drain-grace-secs",
            "2",
        ],
        dir.path(),
    );
    let addr = server.addr.clone();
    let tok = "client-secret";

    // Calls, then the histograms by tool and status.
    for _ in 0..3 {
        let out = call(&addr, tok, "calculate", json!({"expression": "6*7"}));
        assert_eq!(out["status"], "success", "{out}");
    }
    // The catalog's limit (3 a minute) holds.
    let limited = call(&addr, tok, "calculate", json!({"expression": "1+1"}));
    assert_eq!(limited["error"]["code"], "RATE_LIMITED", "{limited}");
    assert!(limited["error"]["retry_after_ms"].as_u64().unwrap() > 0);
    assert_eq!(http(&addr, "GET", "/metrics", None, "").0, 401);
    let (status, metrics) = http(&addr, "GET", "/metrics", Some(tok), "");
    assert_eq!(status, 200);
    for needle in [
        "toolwright_tool_call_duration_seconds_bucket{tool=\"calculate\",status=\"success\"",
        "toolwright_tool_call_duration_seconds_count{tool=\"calculate\",status=\"success\"} 3",
        "toolwright_rate_limited_total{tool=\"calculate\"} 1",
        "toolwright_store_duration_seconds_bucket{backend=\"redis\",op=\"rate_acquire\"",
    ] {
        assert!(metrics.contains(needle), "no `{needle}` in:\n{metrics}");
    }

    // An approval asked through MCP, granted only with the admin token.
    let args = json!({"path": "gone.txt"});
    std::fs::write(dir.path().join("gone.txt"), "x").unwrap();
    let asked = call(&addr, tok, "delete_file", args.clone());
    assert_eq!(asked["status"], "needs_confirmation", "{asked}");
    let id = asked["meta"]["approval_id"].as_str().unwrap().to_string();
    let approve = format!("/approvals/{id}/approve");
    assert_eq!(http(&addr, "POST", &approve, Some(tok), "").0, 401);
    let (status, list) = http(&addr, "GET", "/approvals", Some("admin-secret"), "");
    assert_eq!(status, 200);
    assert!(list.contains(&id), "{list}");
    assert_eq!(
        http(&addr, "POST", &approve, Some("admin-secret"), "").0,
        200
    );
    let ran = call(&addr, tok, "delete_file", args);
    assert_eq!(ran["status"], "success", "{ran}");
    assert!(!dir.path().join("gone.txt").exists());

    // Readiness follows the store.
    assert_eq!(http(&addr, "GET", "/healthz", None, "").0, 200);
    assert_eq!(http(&addr, "GET", "/readyz", None, "").0, 200);
    redis.stop();
    let (status, body) = http(&addr, "GET", "/readyz", None, "");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("store"), "{body}");
    let down = call(&addr, tok, "calculate", json!({"expression": "2+2"}));
    assert_eq!(down["error"]["code"], "DEPENDENCY_UNAVAILABLE", "{down}");
    redis.restart();
    wait_for("/readyz after Redis came back", || {
        http(&addr, "GET", "/readyz", None, "").0 == 200
    });

    // SIGTERM: not ready at once, still alive during the grace period, then exit 0.
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    wait_for("/readyz to turn 503 on SIGTERM", || {
        http(&addr, "GET", "/readyz", None, "").0 == 503
    });
    assert_eq!(http(&addr, "GET", "/healthz", None, "").0, 200);
    let until = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < until, "serve did not exit after SIGTERM");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(0));
}
