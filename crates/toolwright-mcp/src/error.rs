//! [`McpError`]: why an MCP server or connection could not be set up.

use std::fmt;

/// Why an MCP server could not start or an MCP connection could not be made. Failures of single
/// calls are envelopes, never this type.
#[derive(Debug)]
pub enum McpError {
    /// The `--mcp` value is neither a command line nor an http(s) URL.
    BadSource(String),
    /// The server process could not be started.
    Spawn(String),
    /// The transport failed (connection refused, process exited, HTTP error).
    Transport(String),
    /// The MCP handshake or a protocol request failed.
    Protocol(String),
    /// A feature this build does not have (e.g. `http-client`).
    Unsupported(String),
    /// Binding or serving the HTTP listener failed.
    Io(std::io::Error),
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::BadSource(s) => write!(f, "invalid MCP server: {s}"),
            McpError::Spawn(s) => write!(f, "cannot start the MCP server: {s}"),
            McpError::Transport(s) => write!(f, "MCP transport error: {s}"),
            McpError::Protocol(s) => write!(f, "MCP protocol error: {s}"),
            McpError::Unsupported(s) => write!(f, "not supported by this build: {s}"),
            McpError::Io(e) => write!(f, "I/O error: {e}"),
        }
    }
}

impl std::error::Error for McpError {}

impl From<std::io::Error> for McpError {
    fn from(e: std::io::Error) -> Self {
        McpError::Io(e)
    }
}
