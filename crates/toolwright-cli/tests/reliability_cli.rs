//! Issue 14's findings through the binary: special files, replays of deletions, bounded error
//! output, exit codes, and the HTTP server's bounds (sessions, connections, header and body
//! timeouts, early 413, shutdown).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolwright")
}

fn tw(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(dir)
        .env("TOOLWRIGHT_ROOT", dir)
        .env("TOOLWRIGHT_STATS_FILE", dir.join("metrics.json"))
        .env("TOOLWRIGHT_VIEWS_DB", dir.join("views.db"))
        .env_remove("TOOLWRIGHT_MCP_TOKEN")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    c
}

/// Runs with a hang guard; (exit code, stdout JSON or Null, stderr).
fn run(cmd: &mut Command, guard: Duration) -> (i32, Value, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + guard;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the command did not exit within {guard:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Item 1: `call read_file` on a FIFO answers at once and the process exits.
#[test]
fn a_fifo_is_refused_and_the_process_exits() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(dir.path().join("p"))
            .status()
            .unwrap()
            .success()
    );
    let t = Instant::now();
    let (code, out, _) = run(
        tw(dir.path()).args(["call", "read_file", "--args", r#"{"path":"p"}"#]),
        Duration::from_secs(20),
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(out["error"]["code"], "PERMISSION_DENIED", "{out}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

/// Item 7: an approved delete, then the file is re-created and the same delete approved again:
/// the second delete runs (the file is gone), it is not a replay of the first.
#[test]
fn an_approved_delete_is_not_replayed_after_the_file_is_recreated() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("idem.db").display());
    let file = dir.path().join("gone.txt");
    for round in 0..2 {
        std::fs::write(&file, "x").unwrap();
        let (code, out, _) = run(
            tw(dir.path()).args([
                "--store",
                &store,
                "call",
                "delete_file",
                "--args",
                r#"{"path":"gone.txt"}"#,
                "--approve",
            ]),
            Duration::from_secs(20),
        );
        assert_eq!(code, 0, "round {round}: {out}");
        assert_eq!(out["status"], "success", "round {round}: {out}");
        assert_eq!(out["meta"]["replayed"], false, "round {round}: {out}");
        assert!(
            !file.exists(),
            "round {round}: the file survived a reported delete"
        );
    }
}

/// Item 10: one bad call against a tool with a huge enum prints a bounded error.
#[test]
fn check_output_against_a_huge_enum_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..200_000).map(|i| format!("v{i}")).collect();
    let defs = json!([{"name": "pick_value", "description": "Pick a value. Use this when asked.",
                       "parameters": {"type": "object", "properties": {"v": {"type": "string", "enum": values}},
                                      "required": ["v"], "additionalProperties": false}}]);
    std::fs::write(dir.path().join("defs.json"), defs.to_string()).unwrap();
    std::fs::write(
        dir.path().join("calls.jsonl"),
        json!({"name": "pick_value", "arguments": {"v": "nope"}}).to_string() + "\n",
    )
    .unwrap();
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
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.len() < 16_000, "{} bytes", text.len());
    assert!(text.contains("199980 more"), "{text}");
}

/// Item 12: `serve --token ""` is a usage error.
#[test]
fn an_empty_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        tw(dir.path()).args(["serve", "--http", "127.0.0.1:0", "--token", ""]),
        Duration::from_secs(20),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("empty"), "{err}");
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// Item 12 and item 1: over stdio, malformed standard params answer -32602, and the server exits
/// at EOF.
#[test]
fn stdio_answers_invalid_params_and_exits_at_eof() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = tw(dir.path())
        .args(["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let input = format!(
        "{INIT}\n{}\n{}\n{}\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap(); // and dropped: EOF
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "serve --stdio did not exit at EOF"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let answers: Vec<Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    for id in [2, 3] {
        let a = answers.iter().find(|a| a["id"] == id).unwrap();
        assert_eq!(a["error"]["code"], -32602, "{a}");
    }
}

use common::HttpServer as Server;

fn serve_http(dir: &Path, extra: &[&str]) -> Server {
    serve_http_limited(dir, extra, None)
}

/// `serve --http`, with the open-file limit lowered to `nofile` when given (through `sh -c
/// 'ulimit -n N; exec …'`), so that too many connections would exhaust it.
fn serve_http_limited(dir: &Path, extra: &[&str], nofile: Option<u32>) -> Server {
    let mut cmd = match nofile {
        Some(n) => {
            let mut c = tw(dir);
            let mut sh = Command::new("sh");
            sh.current_dir(dir)
                .envs(c.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
                .args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\""), bin()]);
            c = sh;
            c
        }
        None => tw(dir),
    };
    common::spawn_http_server(cmd.args(["serve", "--http", "127.0.0.1:0"]).args(extra))
}

/// Sends a raw request and reads the whole answer (status, headers lowercased, body).
fn request(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, raw)
}

/// Item 3: sessions have a cap (503 with a JSON-RPC error that says so) and an idle TTL (the
/// slots come back); DELETE of an unknown session is 404.
#[test]
fn sessions_are_capped_and_evicted_when_idle() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_http(
        dir.path(),
        &["--max-sessions", "3", "--session-idle-secs", "1"],
    );
    for _ in 0..3 {
        assert_eq!(request(&server.addr, "POST", &[], INIT).0, 200);
    }
    let (status, raw) = request(&server.addr, "POST", &[], INIT);
    assert_eq!(status, 503, "{raw}");
    assert!(raw.contains("Too many MCP sessions"), "{raw}");
    assert!(raw.contains("-32000"), "{raw}");
    // Idle for more than the TTL: the sweep closes them and new clients get in.
    std::thread::sleep(Duration::from_millis(2500));
    for _ in 0..3 {
        assert_eq!(request(&server.addr, "POST", &[], INIT).0, 200);
    }
    let (status, _) = request(
        &server.addr,
        "DELETE",
        &[("Mcp-Session-Id", "no-such-session")],
        "",
    );
    assert_eq!(status, 404);
}

/// Item 4: a declared body over the limit answers 413 before any of it is sent; a body that
/// never finishes answers 408 at the body timeout; headers that never finish close the
/// connection at the header timeout.
#[test]
fn early_413_and_read_timeouts() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_http(
        dir.path(),
        &["--header-timeout-secs", "1", "--body-timeout-secs", "1"],
    );
    let read_status = |s: &mut TcpStream| {
        let mut buf = [0u8; 256];
        let n = s.read(&mut buf).unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    };
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let t = Instant::now();
    s.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: 1000000000\r\n\r\nx",
            server.addr
        )
        .as_bytes(),
    )
    .unwrap();
    let head = read_status(&mut s);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());

    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{",
            server.addr
        )
        .as_bytes(),
    )
    .unwrap();
    let t = Instant::now();
    let head = read_status(&mut s);
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());

    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\n").unwrap();
    let t = Instant::now();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap_or(0);
    assert!(
        n == 0 || String::from_utf8_lossy(&buf[..n]).contains("408"),
        "the half-sent headers were answered: {}",
        String::from_utf8_lossy(&buf[..n])
    );
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

/// Item 4: with `--token` and 256 open files, 300 idle connections (more than the file limit,
/// and than the cap of 50) cannot lock out an authenticated client: idle ones are shed to make
/// room, and its requests are answered (without the cap the server ran out of descriptors and
/// legitimate requests hung). SIGTERM then stops the server promptly although connections are
/// open.
#[test]
fn idle_connections_do_not_lock_out_an_authenticated_client() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = serve_http_limited(
        dir.path(),
        &["--token", "s3cret", "--max-connections", "50"],
        Some(256),
    );
    let idle: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect(&server.addr).ok())
        .collect();
    assert!(idle.len() >= 250, "only {} connections", idle.len());
    let auth = [("Authorization", "Bearer s3cret")];
    for _ in 0..5 {
        let t = Instant::now();
        let (status, raw) = request(&server.addr, "POST", &auth, INIT);
        assert_eq!(status, 200, "{raw}");
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    }
    // Without the token: 401, and the connection is closed after it.
    let (status, raw) = request(&server.addr, "POST", &[], INIT);
    assert_eq!(status, 401, "{raw}");
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let t = Instant::now();
    loop {
        if let Some(st) = server.child.try_wait().unwrap() {
            assert_eq!(st.code(), Some(0));
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "SIGTERM did not stop the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(idle);
}
