//! A toolwright MCP server and client joined by an in-process byte stream, shared by the tests.

#![allow(dead_code, clippy::unwrap_used)]

use std::sync::Arc;
use toolwright_core::Registry;
use toolwright_mcp::{
    ClientOptions, McpConnection, McpServer, ServerOptions, connect_io, serve_io,
};
use toolwright_runtime::Runtime;

/// A server over `registry` (default options) and a client connected to it with `options`.
pub async fn pair_with(
    registry: Arc<Registry>,
    options: ClientOptions,
) -> (McpServer, McpConnection) {
    serve_and_connect(registry, ServerOptions::default(), options).await
}

/// A server over `registry` with `server_options`, and a client connected to it with `options`.
pub async fn serve_and_connect(
    registry: Arc<Registry>,
    server_options: ServerOptions,
    options: ClientOptions,
) -> (McpServer, McpConnection) {
    let server = McpServer::new(Runtime::new(registry), server_options);
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    let s = server.clone();
    tokio::spawn(async move {
        let _ = serve_io(s, sr, sw).await;
    });
    let (cr, cw) = tokio::io::split(client_end);
    let conn = connect_io(cr, cw, "in-process", &options).await.unwrap();
    (server, conn)
}
