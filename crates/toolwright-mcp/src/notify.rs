//! Talking back to the MCP client from inside a tool: progress notifications, log messages and
//! client requests (sampling, elicitation).
//!
//! The MCP server registers each call it runs under the call id it gives the tool
//! ([`ToolContext::call_id`]); these functions find the call by that id, so they work wherever
//! the runtime runs the tool (its own task, a retry) and do nothing outside an MCP call.
//! Messages are delivered in order, before the call's result.
//!
//! ```
//! use toolwright_core::ToolContext;
//! // Outside an MCP call nothing is sent.
//! let ctx = ToolContext::new("c1", "long_task");
//! assert!(!toolwright_mcp::notify::progress(&ctx, 50.0, Some(100.0), None));
//! ```

use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use tokio::sync::{mpsc, oneshot};
use toolwright_core::{ToolContext, ToolError};

/// A message a running tool sends to its MCP client.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// `notifications/progress` (sent only when the client gave a progress token).
    Progress {
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// `notifications/message` (filtered by the level set with `logging/setLevel`).
    Log {
        level: String,
        logger: Option<String>,
        data: Value,
    },
    /// A server-to-client request (`{"method": …, "params": …}`) and where its result goes.
    Request {
        request: Value,
        reply: oneshot::Sender<Result<Value, String>>,
    },
}

type Hub = Mutex<HashMap<Arc<str>, mpsc::UnboundedSender<Outgoing>>>;

static HUB: LazyLock<Hub> = LazyLock::new(|| Mutex::new(HashMap::new()));

fn hub() -> std::sync::MutexGuard<'static, HashMap<Arc<str>, mpsc::UnboundedSender<Outgoing>>> {
    HUB.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers a call; messages for it arrive on the receiver until the scope is dropped.
pub(crate) struct CallScope {
    /// The hub's key (one copy of the id, shared with the hub).
    call_id: Arc<str>,
}

impl CallScope {
    pub(crate) fn open(call_id: &str) -> (CallScope, mpsc::UnboundedReceiver<Outgoing>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let call_id: Arc<str> = Arc::from(call_id);
        hub().insert(call_id.clone(), tx);
        (CallScope { call_id }, rx)
    }
}

impl Drop for CallScope {
    fn drop(&mut self) {
        hub().remove(&self.call_id);
    }
}

fn send(ctx: &ToolContext, msg: Outgoing) -> bool {
    let tx = hub().get(ctx.call_id.as_str()).cloned();
    tx.is_some_and(|tx| tx.send(msg).is_ok())
}

/// Whether `ctx` belongs to a call an MCP client made (so the functions below reach a client).
pub fn in_mcp_call(ctx: &ToolContext) -> bool {
    hub().contains_key(ctx.call_id.as_str())
}

/// Reports progress of the call (`progress` should grow with every report; `total` if known).
/// Sent as `notifications/progress` when the client asked for progress; returns whether the
/// call is an MCP call.
pub fn progress(
    ctx: &ToolContext,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> bool {
    send(
        ctx,
        Outgoing::Progress {
            progress,
            total,
            message: message.map(String::from),
        },
    )
}

/// Sends a log message (`notifications/message`) at `level` (`debug`, `info`, `notice`,
/// `warning`, `error`, `critical`, `alert`, `emergency`), subject to the client's
/// `logging/setLevel`. Returns whether the call is an MCP call.
pub fn log(ctx: &ToolContext, level: &str, data: Value) -> bool {
    send(
        ctx,
        Outgoing::Log {
            level: level.to_string(),
            logger: Some(ctx.tool.to_string()),
            data,
        },
    )
}

/// Sends a request to the MCP client on behalf of the call (e.g. `sampling/createMessage`,
/// `elicitation/create`) and waits for its result, as JSON.
///
/// # Errors
/// `DEPENDENCY_UNAVAILABLE` when the call is not an MCP call or the client does not answer;
/// the client's error otherwise.
pub async fn client_request(
    ctx: &ToolContext,
    method: &str,
    params: Value,
) -> Result<Value, ToolError> {
    let (reply, rx) = oneshot::channel();
    let request = serde_json::json!({"method": method, "params": params});
    if !send(ctx, Outgoing::Request { request, reply }) {
        return Err(ToolError::dependency_unavailable(
            format!("`{method}` needs an MCP client, and this call does not come from one."),
            "Use this tool through an MCP client that supports the request.",
        ));
    }
    match rx.await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(ToolError::dependency_unavailable(
            format!("The MCP client did not complete `{method}`: {e}"),
            "Tell the user the client could not answer.",
        )),
        Err(_) => Err(ToolError::dependency_unavailable(
            format!("The MCP client went away during `{method}`."),
            "Tell the user the client disconnected.",
        )),
    }
}

/// The numeric severity of an MCP log level (RFC 5424 order, debug lowest), if known.
pub(crate) fn level_rank(level: &str) -> Option<u8> {
    Some(match level {
        "debug" => 0,
        "info" => 1,
        "notice" => 2,
        "warning" => 3,
        "error" => 4,
        "critical" => 5,
        "alert" => 6,
        "emergency" => 7,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn messages_reach_the_open_scope_in_order() {
        let ctx = ToolContext::new("notify-test-1", "t");
        let (scope, mut rx) = CallScope::open(&ctx.call_id);
        assert!(in_mcp_call(&ctx));
        assert!(progress(&ctx, 0.0, Some(2.0), None));
        assert!(log(&ctx, "info", serde_json::json!("hello")));
        assert!(
            matches!(rx.recv().await, Some(Outgoing::Progress { progress: p, .. }) if p == 0.0)
        );
        assert!(matches!(rx.recv().await, Some(Outgoing::Log { .. })));
        drop(scope);
        assert!(!progress(&ctx, 1.0, None, None));
        let err = client_request(&ctx, "sampling/createMessage", serde_json::json!({})).await;
        assert!(err.is_err());
    }

    #[test]
    fn levels_are_ordered() {
        assert!(level_rank("debug") < level_rank("warning"));
        assert_eq!(level_rank("nope"), None);
    }
}
