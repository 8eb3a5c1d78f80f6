//! A toolwright MCP server and a toolwright MCP client talking over an in-process byte stream:
//! listing, envelopes through import, cancellation reaching the tool, and
//! `notifications/tools/list_changed` refreshing an import.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toolwright_core::{FnTool, Registry, SideEffects, Status, ToolCall, ToolOutput, ToolSpec};
use toolwright_mcp::{ClientOptions, McpConnection, McpServer, ServerOptions, serve_io};
use toolwright_runtime::{CallOptions, Runtime};

mod common;
use common::pair_with;

fn echo(name: &str) -> FnTool {
    FnTool::new(
        ToolSpec::new(
            name,
            "Echo the text back. Use this to test.",
            json!({"type": "object", "properties": {"text": {"type": "string", "maxLength": 10}},
                   "required": ["text"], "additionalProperties": false}),
        )
        .side_effects(SideEffects::None),
        |args, _| async move { Ok(ToolOutput::Data(json!({"echo": args["text"]}))) },
    )
}

async fn pair(registry: Arc<Registry>) -> (McpServer, McpConnection) {
    pair_with(registry, ClientOptions::default()).await
}

#[tokio::test]
async fn tools_list_passes_schemas_and_import_returns_envelopes() {
    let reg = Arc::new(Registry::new());
    reg.register(echo("echo")).unwrap();
    let (_server, conn) = pair(reg.clone()).await;

    let tools = conn.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(
        tools[0]["inputSchema"],
        reg.get("echo").unwrap().spec().parameters
    );
    assert_eq!(tools[0]["annotations"]["readOnlyHint"], true);

    // Raw result: envelope as structuredContent, isError false.
    let raw = conn.call_raw("echo", json!({"text": "hi"})).await.unwrap();
    assert_eq!(raw["isError"], false);
    assert_eq!(raw["structuredContent"]["data"]["echo"], "hi");
    // Our validation runs on the server: maxLength 10 is enforced (rmcp alone would not).
    let bad = conn
        .call_raw("echo", json!({"text": "far too long text"}))
        .await
        .unwrap();
    assert_eq!(bad["isError"], true);
    assert_eq!(
        bad["structuredContent"]["error"]["code"],
        "VALIDATION_ERROR"
    );
    assert_eq!(
        bad["structuredContent"]["error"]["fields"][0]["path"],
        "/text"
    );

    // Imported with a prefix, the remote tool is an ordinary tool of a local runtime.
    let local = Arc::new(Registry::new());
    let names = conn.import(&local).await.unwrap();
    assert_eq!(names, vec!["echo".to_string()]);
    // The server's `serverInfo.name` is kept on the tool, which routing reads.
    assert_eq!(
        local.get("echo").unwrap().spec().meta.server.as_deref(),
        Some(ServerOptions::default().name.as_str())
    );
    let rt = Runtime::new(local);
    let out = rt
        .invoke(
            ToolCall::new("c1", "echo", json!({"text": "yo"})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert_eq!(out.data.unwrap()["echo"], "yo");
    // Validation also happens locally, before anything is sent.
    let out = rt
        .invoke(
            ToolCall::new("c2", "echo", json!({"text": 5, "x": 1})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.status(), Status::Error);
}

#[tokio::test]
async fn unknown_tool_is_an_error_envelope_not_a_protocol_error() {
    let reg = Arc::new(Registry::new());
    reg.register(echo("echo")).unwrap();
    let (_server, conn) = pair(reg).await;
    let raw = conn.call_raw("ehco", json!({})).await.unwrap();
    assert_eq!(raw["isError"], true);
    assert_eq!(raw["structuredContent"]["error"]["code"], "UNKNOWN_TOOL");
    assert!(
        raw["structuredContent"]["error"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("echo")
    );
}

#[tokio::test]
async fn client_cancellation_cancels_the_tool() {
    let reg = Arc::new(Registry::new());
    let stopped = Arc::new(AtomicBool::new(false));
    struct SetOnDrop(Arc<AtomicBool>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let flag = stopped.clone();
    reg.register(FnTool::new(
        ToolSpec::new(
            "slow",
            "Wait a long time. Use this to test.",
            json!({"type": "object", "properties": {}}),
        )
        .side_effects(SideEffects::None),
        move |_, ctx| {
            let guard = SetOnDrop(flag.clone());
            async move {
                let _guard = guard;
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs(30)) => {}
                    () = ctx.cancelled() => {}
                }
                Ok(ToolOutput::Data(Value::Null))
            }
        },
    ))
    .unwrap();
    let (_server, conn) = pair(reg).await;
    let cancel = tokio_util::sync::CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c.cancel();
    });
    let started = std::time::Instant::now();
    let out = conn.call("slow", json!({}), &cancel).await;
    assert_eq!(
        out.error_code(),
        Some(toolwright_core::ErrorCode::Cancelled)
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // notifications/cancelled reached the server, which dropped (and so stopped) the tool.
    for _ in 0..50 {
        if stopped.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the tool kept running after the client cancelled");
}

#[tokio::test]
async fn list_changed_refreshes_the_import() {
    let reg = Arc::new(Registry::new());
    reg.register(echo("first")).unwrap();
    let hooked = Arc::new(AtomicBool::new(false));
    let h = hooked.clone();
    let options = ClientOptions {
        on_tools_changed: Some(Arc::new(move || h.store(true, Ordering::SeqCst))),
        ..ClientOptions::default()
    };
    let (server, conn) = pair_with(reg.clone(), options).await;
    let local = Arc::new(Registry::new());
    conn.import(&local).await.unwrap();
    assert_eq!(local.names(), vec!["first"]);

    reg.register(echo("second")).unwrap();
    reg.remove("first");
    assert_eq!(server.notify_tool_list_changed().await, 1);
    for _ in 0..100 {
        if local.names() == vec!["second".to_string()] && hooked.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("import not refreshed: {:?}", local.names());
}

#[tokio::test]
async fn prefix_keeps_remote_names_apart() {
    let reg = Arc::new(Registry::new());
    reg.register(echo("echo")).unwrap();
    let options = ClientOptions {
        prefix: Some("remote_".into()),
        ..ClientOptions::default()
    };
    let (_server, conn) = pair_with(reg, options).await;
    let local = Arc::new(Registry::new());
    local.register(echo("echo")).unwrap();
    assert_eq!(
        conn.import(&local).await.unwrap(),
        vec!["remote_echo".to_string()]
    );
    let out = Runtime::new(local)
        .invoke(
            ToolCall::new("c", "remote_echo", json!({"text": "a"})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.data.unwrap()["echo"], "a");
    assert_eq!(out.meta.tool, "remote_echo");
}

/// A client that answers the server's elicitation (approve or not) — rmcp directly.
struct Approver {
    approve: bool,
}

impl rmcp::ClientHandler for Approver {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({"protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "approver", "version": "1"}}))
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::service::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let asked = serde_json::to_value(&request).unwrap();
        assert!(
            asked["message"].as_str().unwrap().contains("wipe"),
            "{asked}"
        );
        Ok(serde_json::from_value(
            json!({"action": "accept", "content": {"approve": self.approve}}),
        )
        .unwrap())
    }
}

/// A server with one destructive tool, `wipe`, and the flag it sets when it runs.
fn wipe_server() -> (McpServer, Arc<AtomicBool>) {
    let reg = Arc::new(Registry::new());
    let ran = Arc::new(AtomicBool::new(false));
    let flag = ran.clone();
    reg.register(FnTool::new(
        ToolSpec::new(
            "wipe",
            "Wipe the disk. Use this when asked to wipe.",
            json!({"type": "object", "properties": {}}),
        )
        .side_effects(SideEffects::Destructive),
        move |_, _| {
            let flag = flag.clone();
            async move {
                flag.store(true, Ordering::SeqCst);
                Ok(ToolOutput::Data(json!({"wiped": true})))
            }
        },
    ))
    .unwrap();
    (
        McpServer::new(Runtime::new(reg), ServerOptions::default()),
        ran,
    )
}

#[tokio::test]
async fn confirmation_asks_through_elicitation_when_the_client_can() {
    use rmcp::ServiceExt;
    for approve in [true, false] {
        let (server, ran) = wipe_server();
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (sr, sw) = tokio::io::split(server_end);
        tokio::spawn(async move {
            let _ = serve_io(server, sr, sw).await;
        });
        let client = Approver { approve }
            .serve(tokio::io::split(client_end))
            .await
            .unwrap();
        let r = client
            .peer()
            .call_tool(rmcp::model::CallToolRequestParams::new("wipe"))
            .await
            .unwrap();
        let r = serde_json::to_value(&r).unwrap();
        if approve {
            assert_eq!(r["structuredContent"]["status"], "success", "{r}");
            assert!(ran.load(Ordering::SeqCst));
        } else {
            assert_eq!(
                r["structuredContent"]["error"]["code"], "PERMISSION_DENIED",
                "{r}"
            );
            assert!(!ran.load(Ordering::SeqCst));
        }
    }
}

/// A client that counts progress notifications (rmcp puts a progress token on every request).
struct ProgressCounter {
    seen: Arc<std::sync::Mutex<Vec<Value>>>,
}

impl rmcp::ClientHandler for ProgressCounter {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::service::RoleClient>,
    ) {
        self.seen
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
    }
}

#[tokio::test]
async fn progress_reaches_the_client_from_the_tool_or_as_a_heartbeat() {
    use rmcp::ServiceExt;
    let reg = Arc::new(Registry::new());
    reg.register(FnTool::new(
        ToolSpec::new(
            "steps",
            "Report progress. Use this to test.",
            json!({"type": "object", "properties": {}}),
        )
        .side_effects(SideEffects::None),
        |_, ctx| async move {
            for i in 0..3 {
                toolwright_mcp::notify::progress(&ctx, f64::from(i), Some(2.0), Some("step"));
            }
            Ok(ToolOutput::Data(json!("done")))
        },
    ))
    .unwrap();
    reg.register(FnTool::new(
        ToolSpec::new(
            "quiet",
            "Take a while. Use this to test.",
            json!({"type": "object", "properties": {}}),
        )
        .side_effects(SideEffects::None),
        |_, _| async move {
            tokio::time::sleep(Duration::from_millis(2300)).await;
            Ok(ToolOutput::Data(json!("done")))
        },
    ))
    .unwrap();
    let server = McpServer::new(Runtime::new(reg), ServerOptions::default());
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(async move {
        let _ = serve_io(server, sr, sw).await;
    });
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let client = ProgressCounter { seen: seen.clone() }
        .serve(tokio::io::split(client_end))
        .await
        .unwrap();
    client
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("steps"))
        .await
        .unwrap();
    // Delivered in order, before the result.
    let got: Vec<f64> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(got, vec![0.0, 1.0, 2.0]);
    assert_eq!(seen.lock().unwrap()[0]["total"], 2.0);

    seen.lock().unwrap().clear();
    client
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("quiet"))
        .await
        .unwrap();
    let beats = seen.lock().unwrap().clone();
    assert!(beats.len() >= 2, "heartbeats: {beats:?}");
    assert!(beats[0]["message"].as_str().unwrap().contains("running"));
}

/// The listed tools as JSON, the way `tools/list` answered them.
async fn listed(conn: &McpConnection) -> Vec<Value> {
    conn.list_tools().await.unwrap()
}

#[tokio::test]
async fn cached_tool_list_follows_registrations_removals_and_replacements() {
    let reg = Arc::new(Registry::new());
    reg.register(echo("alpha")).unwrap();
    let (server, conn) = pair(reg.clone()).await;
    assert_eq!(listed(&conn).await, server.tool_list());
    // Served from the cache: the same answer again.
    assert_eq!(listed(&conn).await, server.tool_list());

    reg.register(echo("beta")).unwrap();
    let after_add = listed(&conn).await;
    assert_eq!(after_add.len(), 2);
    assert_eq!(after_add, server.tool_list());

    assert!(reg.remove("alpha"));
    let after_remove = listed(&conn).await;
    assert_eq!(after_remove.len(), 1);
    assert_eq!(after_remove[0]["name"], "beta");
    assert_eq!(after_remove, server.tool_list());

    // A replacement under the same name (as a re-import does) is seen too.
    let replaced = FnTool::new(
        ToolSpec::new("beta", "A new description.", json!({"type": "object"})),
        |_, _| async move { Ok(ToolOutput::Data(json!({}))) },
    );
    reg.upsert_arc(Arc::new(replaced)).unwrap();
    let after_upsert = listed(&conn).await;
    assert_eq!(after_upsert[0]["description"], "A new description.");
    assert_eq!(after_upsert, server.tool_list());
}

#[tokio::test]
async fn paginated_tool_list_gives_every_tool_exactly_once() {
    let reg = Arc::new(Registry::new());
    for i in 0..10 {
        reg.register(echo(&format!("tool_{i:02}"))).unwrap();
    }
    let options = ServerOptions {
        page_size: Some(3),
        ..ServerOptions::default()
    };
    let (server, conn) =
        common::serve_and_connect(reg.clone(), options, ClientOptions::default()).await;
    // The client follows nextCursor (4 pages of at most 3).
    let tools = listed(&conn).await;
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let want: Vec<String> = (0..10).map(|i| format!("tool_{i:02}")).collect();
    assert_eq!(names, want);
    assert_eq!(tools, server.tool_list());
}

/// A client that can answer elicitation asks for an approval, then closes its end without
/// answering: the session ends at once (the approval is given up, the tool does not run),
/// not after rmcp's drain deadline (5 s) that a pending answer would otherwise hold it to.
#[tokio::test]
async fn closing_the_input_gives_up_a_pending_approval() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (server, ran) = wipe_server();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    let session = tokio::spawn(async move { serve_io(server, sr, sw).await });
    let (mut cr, mut cw) = tokio::io::split(client_end);
    let frames = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wipe"}}),
    ];
    for f in frames {
        cw.write_all(format!("{f}\n").as_bytes()).await.unwrap();
    }
    // Wait for the server's elicitation request, then close without answering.
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("elicitation/create") {
        let n = tokio::time::timeout(Duration::from_secs(10), cr.read(&mut buf))
            .await
            .expect("the server never asked for the approval")
            .unwrap();
        assert!(n > 0, "the server closed before asking");
        seen.extend_from_slice(&buf[..n]);
    }
    cw.shutdown().await.unwrap();
    drop(cw);
    let ended = tokio::time::timeout(Duration::from_secs(3), session).await;
    assert!(
        ended.is_ok(),
        "the session was still open 3 s after the client closed its input"
    );
    assert!(!ran.load(Ordering::SeqCst), "the tool ran without approval");
}
