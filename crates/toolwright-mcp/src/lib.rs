//! MCP both ways for toolwright, over [rmcp](https://docs.rs/rmcp) (the official Rust SDK).
//!
//! - **Server** ([`McpServer`]): exposes a [`Runtime`](toolwright_runtime::Runtime) as an MCP
//!   server over stdio ([`serve_stdio`]) or Streamable HTTP (`serve_http`, feature
//!   `http-server`). `tools/list` passes every tool's JSON Schema through unchanged as
//!   `inputSchema` with annotations from our metadata; `tools/call` runs through
//!   `Runtime::invoke` (our validation and policies, never rmcp's) and answers with the envelope
//!   as `structuredContent` plus a text rendering, `isError` exactly when the status is `error`.
//!   Tools with an output schema list it as `outputSchema`, wrapped in the envelope's schema
//!   (`data` typed on success), which every answer conforms to.
//! - **Client** ([`McpSource`], [`connect`], [`McpConnection::import`]): imports the tools of MCP
//!   servers (a command line over stdio, or an `http(s)://…/mcp` URL with feature `http-client`)
//!   into a [`Registry`](toolwright_core::Registry) as ordinary tools whose results are envelopes.
//! - [`notify`]: progress, log messages and client requests (sampling, elicitation) from inside a
//!   tool that runs on behalf of an MCP client.
//! - [`conformance`]: the fixture tools of the official MCP conformance suite.
//!
//! rmcp renames types between majors, so no rmcp type appears in this crate's public API: the
//! conversions live in one private module (`convert`) and everything else speaks JSON and
//! toolwright types.

mod child;
mod client;
pub mod conformance;
mod convert;
mod error;
#[cfg(feature = "http-server")]
mod http;
#[cfg(feature = "http-server")]
mod http_conn;
pub mod notify;
#[cfg(feature = "http-server")]
mod ops;
mod server;
#[cfg(feature = "http-server")]
mod sessions;

pub use client::{
    ClientOptions, McpConnection, McpSource, ToolsChangedHook, connect, connect_io, import_all,
    split_command_line,
};
pub use convert::{RAW_CONTENT_KEY, envelope_text, raw_content, spec_from_mcp_tool, tool_json};
pub use error::McpError;
#[cfg(feature = "http-server")]
pub use http::{HttpOptions, HttpServer, bind_http};
#[cfg(feature = "http-server")]
pub use http_conn::ConnLimits;
#[cfg(feature = "http-server")]
pub use ops::MetricsRender;
pub use server::{McpServer, ServerOptions, serve_io, serve_stdio};
#[cfg(feature = "http-server")]
pub use sessions::SessionLimits;
