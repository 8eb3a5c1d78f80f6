//! MCP JSON-RPC frames through the server's handler, in process: each input is a session over an
//! in-memory byte stream (`serve_io` on a `tokio::io::duplex`), no socket. The first byte chooses
//! whether a valid `initialize` handshake goes first (so most inputs reach `tools/list`,
//! `tools/call`, `logging/setLevel`...); the rest is written as the client's bytes, then the
//! client closes its end.
//!
//! Checks: no panic; the session ends within 10 s of the client closing (no hang on EOF); every
//! line the server writes is a JSON-RPC 2.0 object; every response answers an id the client
//! sent (or is a null-id error), at most once; a destructive tool the client did not approve
//! never runs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolwright_core::{FnTool, Registry, SideEffects, ToolOutput, ToolSpec};
use toolwright_mcp::{McpServer, ServerOptions, serve_io};
use toolwright_runtime::Runtime;

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

static WIPED: AtomicBool = AtomicBool::new(false);

fn registry() -> Arc<Registry> {
    static REG: OnceLock<Arc<Registry>> = OnceLock::new();
    REG.get_or_init(|| {
        let reg = Registry::new()
            .with_state(toolwright_demo::finance::FinanceState::default())
            .with_state(toolwright_demo::weather::WeatherState::default());
        reg.register(toolwright_demo::calc::CalculateTool).unwrap();
        reg.register(toolwright_demo::finance::ConvertCurrencyTool)
            .unwrap();
        reg.register(toolwright_demo::weather::GetWeatherTool)
            .unwrap();
        reg.register(FnTool::new(
            ToolSpec::new(
                "echo",
                "Echo the text back. Use this to test.",
                json!({"type": "object", "properties": {"text": {"type": "string", "maxLength": 10},
                       "n": {"type": "integer"}}, "required": ["text"]}),
            )
            .side_effects(SideEffects::None),
            |args, _| async move { Ok(ToolOutput::Data(json!({"echo": args["text"]}))) },
        ))
        .unwrap();
        reg.register(FnTool::new(
            ToolSpec::new(
                "wipe",
                "Wipe everything. Use this when asked to wipe.",
                json!({"type": "object", "properties": {}}),
            )
            .side_effects(SideEffects::Destructive),
            |_, _| async move {
                WIPED.store(true, Ordering::SeqCst);
                Ok(ToolOutput::Data(json!({"wiped": true})))
            },
        ))
        .unwrap();
        Arc::new(reg)
    })
    .clone()
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

/// A request id as a client matches it: numbers by value (`-0` is `0`), strings as they are.
fn id_key(id: &Value) -> String {
    match id.as_f64() {
        Some(n) => format!("n{}", n + 0.0),
        None => id.to_string(),
    }
}

/// The ids of the requests in the client's bytes (any line that is an object with a method and
/// an id, or such objects inside a batch array).
fn request_ids(client: &[u8]) -> Vec<String> {
    let mut ids = Vec::new();
    for line in client.split(|b| *b == b'\n') {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let items = match v {
            Value::Array(a) => a,
            other => vec![other],
        };
        for item in items {
            if let (Some(id), true) = (item.get("id"), item.get("method").is_some()) {
                ids.push(id_key(id));
            }
        }
    }
    ids
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, frames)) = data.split_first() else {
        return;
    };
    let mut client = Vec::new();
    if flags & 1 == 0 {
        client.extend_from_slice(HANDSHAKE.as_bytes());
    }
    client.extend_from_slice(frames);
    if !client.ends_with(b"\n") {
        client.push(b'\n');
    }
    let options = ServerOptions {
        heartbeat: None,
        ..ServerOptions::default()
    };
    let server = McpServer::new(Runtime::new(registry()), options);
    WIPED.store(false, Ordering::SeqCst);

    let out = runtime().block_on(async {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (sr, sw) = tokio::io::split(server_end);
        let session = tokio::spawn(async move {
            let _ = serve_io(server, sr, sw).await;
        });
        let (mut cr, mut cw) = tokio::io::split(client_end);
        let reader = tokio::spawn(async move {
            let mut out = Vec::new();
            let _ = cr.read_to_end(&mut out).await;
            out
        });
        let _ = cw.write_all(&client).await;
        let _ = cw.shutdown().await;
        drop(cw);
        let ended = tokio::time::timeout(Duration::from_secs(10), session).await;
        assert!(
            ended.is_ok(),
            "the session did not end after the client closed"
        );
        tokio::time::timeout(Duration::from_secs(10), reader)
            .await
            .expect("the server's output did not end")
            .unwrap_or_default()
    });

    assert!(
        !WIPED.load(Ordering::SeqCst),
        "a destructive tool ran without approval"
    );
    let sent = request_ids(&client);
    let mut answered = HashSet::new();
    for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "server wrote a non-JSON line ({e}): {}",
                String::from_utf8_lossy(line)
            )
        });
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        let is_response = v.get("result").is_some() || v.get("error").is_some();
        if is_response && v.get("method").is_none() {
            let id = v.get("id").cloned().unwrap_or(Value::Null);
            if id.is_null() {
                assert!(v.get("error").is_some(), "a null-id result: {v}");
                continue;
            }
            let key = id_key(&id);
            assert!(sent.contains(&key), "a response to an id never sent: {v}");
            let dup = sent.iter().filter(|s| **s == key).count() > 1;
            assert!(answered.insert(key) || dup, "answered twice: {v}");
        }
    }
});
