//! Calling an MCP server's tools from Rust: connect, list, call, and import them into a
//! registry so they run under toolwright's validation and policies.
//!
//! `cargo run -p toolwright --features mcp --example mcp_client [SERVER COMMAND]`; without a
//! command it starts the `serve_stdio` example built next to it (build it first:
//! `cargo build -p toolwright --features mcp --example serve_stdio`).

use std::sync::Arc;
use toolwright::mcp::{ClientOptions, McpSource, connect};
use toolwright::prelude::*;
use toolwright::runtime::CallOptions;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let command = match std::env::args().nth(1) {
        Some(c) => c,
        None => {
            let exe = std::env::current_exe()?;
            let server = exe.with_file_name("serve_stdio");
            format!("'{}'", server.display())
        }
    };
    let conn = connect(&McpSource::parse(&command)?, &ClientOptions::default()).await?;
    println!("connected to {}", conn.server_name());
    for tool in conn.list_tools().await? {
        println!(
            "  tool {}",
            tool.get("name").unwrap_or(&serde_json::Value::Null)
        );
    }

    // Imported tools are validated before the call leaves, and answer with the envelope.
    let registry = Arc::new(Registry::new());
    conn.import(&registry).await?;
    let runtime = Runtime::new(registry);
    let bad = runtime
        .invoke(
            ToolCall::new("1", "add_note", serde_json::json!({"text": ""})),
            &CallOptions::default(),
        )
        .await;
    println!(
        "empty note: {:?} ({:?})",
        bad.status(),
        bad.error().map(|e| e.code)
    );
    let ok = runtime
        .invoke(
            ToolCall::new("2", "add_note", serde_json::json!({"text": "buy milk"})),
            &CallOptions {
                approved: true,
                ..CallOptions::default()
            },
        )
        .await;
    println!("add_note: {:?} {:?}", ok.status(), ok.data);
    let list = runtime
        .invoke(
            ToolCall::new("3", "list_notes", serde_json::json!({})),
            &CallOptions::default(),
        )
        .await;
    println!("list_notes: {:?} {:?}", list.status(), list.data);
    conn.close().await;
    if list.status() != Status::Success {
        return Err("list_notes failed".into());
    }
    Ok(())
}
