//! Your own tools served as an MCP server over stdio, with typed state.
//!
//! `cargo run -p toolwright --features mcp --example serve_stdio` (then speak MCP on stdin), or
//! point an MCP client at that command — `examples/mcp_client.rs` does.

use std::sync::{Arc, Mutex};
use toolwright::mcp::{McpServer, ServerOptions, serve_stdio};
use toolwright::prelude::*;

/// The notes kept by this server (the state every tool receives).
#[derive(Default)]
struct Notes {
    list: Mutex<Vec<String>>,
}

/// Add a note to the list.
///
/// Use this when the user asks to remember something.
///
/// # Arguments
/// * `text` - The note, one sentence
#[tool(side_effects = "write")]
fn add_note(#[arg(min_length = 1)] text: String, notes: State<Notes>) -> Result<usize, ToolError> {
    let mut list = notes
        .list
        .lock()
        .map_err(|_| ToolError::internal("notes lock poisoned"))?;
    list.push(text);
    Ok(list.len())
}

/// List the notes, oldest first.
///
/// Use this when the user asks what was noted.
#[tool(side_effects = "none")]
fn list_notes(notes: State<Notes>) -> Result<Vec<String>, ToolError> {
    Ok(notes
        .list
        .lock()
        .map_err(|_| ToolError::internal("notes lock poisoned"))?
        .clone())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::new().with_state(Notes::default());
    registry.register(AddNoteTool)?;
    registry.register(ListNotesTool)?;
    let runtime = Runtime::new(Arc::new(registry));
    serve_stdio(McpServer::new(runtime, ServerOptions::default())).await?;
    Ok(())
}
