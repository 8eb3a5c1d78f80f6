//! [`McpServer`]: a [`Runtime`] exposed as an MCP server (rmcp `ServerHandler`), and
//! [`serve_stdio`].
//!
//! `list_tools` and `call_tool` are implemented by hand (no rmcp tool router): rmcp checks
//! arguments with serde only, and every call must go through `Runtime::invoke`, which validates
//! against the advertised schema and applies our policies.

#![allow(deprecated)] // rmcp marks logging as deprecated (SEP-2577); MCP clients still use it.

use crate::convert::{to_call_result, to_mcp_tool};
use crate::error::McpError;
use crate::notify::{CallScope, Outgoing, level_rank};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    SetLevelRequestParams, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData, Peer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use toolwright_core::{Outcome, Status, ToolCall, ToolEntry, ToolError};
use toolwright_runtime::{CallOptions, Runtime};

/// The newest protocol revision served: the last one with the `initialize` handshake, sessions
/// and server-to-client requests (progress, logging, elicitation and sampling need them).
const MAX_PROTOCOL: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// How the server presents itself and which policies it applies.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// Run tools that need confirmation without asking (trusted setups only).
    pub approve_all: bool,
    /// Ask the person through MCP elicitation before running a tool that needs confirmation,
    /// when the client supports elicitation (default on). Otherwise the preview is returned.
    pub elicit_confirmation: bool,
    /// When the client asked for progress and a tool reports none, send a progress
    /// notification this often while it runs (`None`: never).
    pub heartbeat: Option<Duration>,
    /// `instructions` sent at initialization.
    pub instructions: Option<String>,
    /// Most tools in one `tools/list` page; the rest follow through `nextCursor` (MCP
    /// pagination). `None` (the default): every tool in one answer.
    pub page_size: Option<usize>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            name: "toolwright".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            approve_all: false,
            elicit_confirmation: true,
            heartbeat: Some(Duration::from_secs(1)),
            instructions: None,
            page_size: None,
        }
    }
}

/// The converted `tools/list` entries, kept until the registry changes.
struct ToolCache {
    /// The registry entries the list was built from (pointer identity tells a change: a
    /// registration, a removal or a replacement all change this list).
    entries: Vec<Arc<ToolEntry>>,
    tools: Arc<Vec<Tool>>,
}

struct Shared {
    runtime: Runtime,
    options: ServerOptions,
    /// Connected clients, told when the tool list changes.
    peers: std::sync::Mutex<Vec<Peer<RoleServer>>>,
    /// The last `tools/list` conversion.
    tools: std::sync::Mutex<Option<ToolCache>>,
    /// `initialize`'s answer, built once: a stateless server asks for it on every request.
    info: ServerConfig,
}

/// Per-session state: the log level the client set, and the step used for retry budgets.
struct Session {
    id: String,
    min_log: AtomicU8,
    /// Advances after every call that did not fail, so consecutive failures of a tool share one
    /// retry budget and a success starts a new one (MCP has no notion of agent steps).
    step: AtomicU32,
    /// A stateless HTTP request: no session of its own, so its calls carry none (approvals and
    /// derived idempotency keys are then the same on every replica, and no retry budget
    /// applies).
    anonymous: bool,
    /// Cancelled when the client's input ends (set by [`serve_io`]): what waits for the client
    /// (an approval asked through elicitation) stops waiting then, instead of holding the
    /// session open until rmcp's drain deadline.
    input_closed: std::sync::OnceLock<tokio_util::sync::CancellationToken>,
}

static SESSIONS: AtomicU64 = AtomicU64::new(1);
static CALLS: AtomicU64 = AtomicU64::new(1);

impl Session {
    fn new() -> Arc<Session> {
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        Arc::new(Session {
            id: format!("mcp-{}-{n}", std::process::id()),
            min_log: AtomicU8::new(0),
            step: AtomicU32::new(0),
            anonymous: false,
            input_closed: std::sync::OnceLock::new(),
        })
    }

    fn anonymous() -> Arc<Session> {
        Arc::new(Session {
            id: String::new(),
            min_log: AtomicU8::new(0),
            step: AtomicU32::new(0),
            anonymous: true,
            input_closed: std::sync::OnceLock::new(),
        })
    }
}

/// An MCP server over a [`Runtime`]. Cheap to clone; clones share the session (use
/// [`McpServer::new_session`] for a new client).
///
/// ```
/// use std::sync::Arc;
/// use toolwright_mcp::{McpServer, ServerOptions};
/// let rt = toolwright_runtime::Runtime::new(Arc::new(toolwright_core::Registry::new()));
/// let server = McpServer::new(rt, ServerOptions::default());
/// assert_eq!(server.runtime().registry().len(), 0);
/// ```
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
    session: Arc<Session>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("options", &self.shared.options)
            .field("session", &self.session.id)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server over `runtime`.
    pub fn new(runtime: Runtime, options: ServerOptions) -> Self {
        McpServer {
            shared: Arc::new(Shared {
                runtime,
                info: server_info(&options),
                options,
                peers: std::sync::Mutex::new(Vec::new()),
                tools: std::sync::Mutex::new(None),
            }),
            session: Session::new(),
        }
    }

    /// The same server for a new client session (own log level, budgets and approvals).
    pub fn new_session(&self) -> Self {
        McpServer {
            shared: self.shared.clone(),
            session: Session::new(),
        }
    }

    /// The same server for one stateless request: its calls belong to no session, so what they
    /// share through the store (approvals, derived idempotency keys) matches across replicas.
    pub fn stateless_request(&self) -> Self {
        McpServer {
            shared: self.shared.clone(),
            session: Session::anonymous(),
        }
    }

    /// The runtime calls go through.
    pub fn runtime(&self) -> &Runtime {
        &self.shared.runtime
    }

    /// The options.
    pub fn options(&self) -> &ServerOptions {
        &self.shared.options
    }

    /// Sends `notifications/tools/list_changed` to every connected client (call it after
    /// changing the registry). Returns how many clients were told.
    pub async fn notify_tool_list_changed(&self) -> usize {
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self.shared.peers.lock().unwrap_or_else(|e| e.into_inner());
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        let mut told = 0;
        for p in peers {
            if p.notify_tool_list_changed().await.is_ok() {
                told += 1;
            }
        }
        told
    }

    /// The `tools/list` entries (JSON), in registration order.
    pub fn tool_list(&self) -> Vec<Value> {
        self.runtime()
            .registry()
            .specs()
            .iter()
            .map(crate::convert::tool_json)
            .collect()
    }

    /// The MCP tool list in registration order, converted once and reused until the registry
    /// changes (checked on every call: comparing the entries is far cheaper than converting
    /// every schema again).
    fn mcp_tools(&self) -> Arc<Vec<Tool>> {
        let entries = self.runtime().registry().entries();
        let mut cache = self.shared.tools.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cache.as_ref()
            && c.entries.len() == entries.len()
            && c.entries
                .iter()
                .zip(&entries)
                .all(|(a, b)| Arc::ptr_eq(a, b))
        {
            return c.tools.clone();
        }
        let tools: Arc<Vec<Tool>> = Arc::new(
            entries
                .iter()
                .filter_map(|e| to_mcp_tool(e.spec()))
                .collect(),
        );
        *cache = Some(ToolCache {
            entries,
            tools: tools.clone(),
        });
        tools
    }

    /// One `tools/list` page: the tools from `cursor` on (at most `page_size`), and the cursor
    /// of the next page when there is one.
    ///
    /// # Errors
    /// A cursor this server did not hand out (JSON-RPC invalid params).
    fn tool_page(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let tools = self.mcp_tools();
        let start = match cursor {
            None => 0,
            Some(c) => parse_cursor(c)
                .filter(|&n| n <= tools.len())
                .ok_or_else(|| ErrorData::invalid_params(format!("unknown cursor `{c}`"), None))?,
        };
        let page = self.shared.options.page_size.unwrap_or(usize::MAX).max(1);
        let end = start.saturating_add(page).min(tools.len());
        let items = tools
            .get(start..end)
            .map(<[Tool]>::to_vec)
            .unwrap_or_default();
        let mut result = ListToolsResult::with_all_items(items);
        if end < tools.len() {
            result.next_cursor = Some(format!("{CURSOR_PREFIX}{end}"));
        }
        Ok(result)
    }

    fn call_options(&self, approved: bool, context: &RequestContext<RoleServer>) -> CallOptions {
        CallOptions {
            approved,
            session_id: (!self.session.anonymous).then(|| self.session.id.clone()),
            step: self.session.step.load(Ordering::Relaxed),
            strict: false,
            // The request's own token, not a child of it: the runtime never cancels a host's
            // token (its deadline cancels a child it makes), so only the client's cancellation
            // reaches it.
            cancel: Some(context.ct.clone()),
            caller: caller_of(context),
        }
    }

    /// Runs one call through the runtime while forwarding the tool's notifications; cancelled
    /// with `ct`.
    ///
    /// The call is polled first and the tool's messages are taken as they come, in the same
    /// task: a call that sends none (most calls) costs no second future, and no timer unless
    /// the client asked for progress.
    async fn run_call(
        &self,
        name: &str,
        args: Value,
        approved: bool,
        context: &RequestContext<RoleServer>,
    ) -> Outcome {
        let n = CALLS.fetch_add(1, Ordering::Relaxed);
        let call = ToolCall::new(format!("mcp-{n}"), name, args);
        let (scope, rx) = CallScope::open(&call.id);
        let opts = self.call_options(approved, context);
        let runtime = self.runtime();
        let ct = &context.ct;
        let work = async move {
            let out = tokio::select! {
                // The call first: one that finishes on its first poll never waits on the token.
                biased;
                out = runtime.invoke(call, &opts) => out,
                () = ct.cancelled() => Outcome::from_error(ToolError::cancelled("The client cancelled the call.")),
            };
            // Closing the scope ends the forwarding once the tool's last messages are sent.
            drop(scope);
            out
        };
        let token = context
            .meta
            .get_progress_token()
            .and_then(|t| serde_json::to_value(t).ok());
        let fwd = Forwarder {
            peer: &context.peer,
            token,
            min_log: &self.session.min_log,
        };
        let out = fwd.run(work, rx, self.shared.options.heartbeat).await;
        if out.status() != Status::Error {
            self.session.step.fetch_add(1, Ordering::Relaxed);
        }
        out
    }

    /// Whether a `needs_confirmation` answer can be put to the person through elicitation.
    fn can_elicit(&self, context: &RequestContext<RoleServer>) -> bool {
        self.shared.options.elicit_confirmation
            && context
                .peer
                .peer_info()
                .is_some_and(|info| info.capabilities.elicitation.is_some())
    }

    /// For a `needs_confirmation` answer: asks the person through elicitation when the client
    /// can, and runs the call approved when they accept.
    async fn confirm_by_elicitation(
        &self,
        name: &str,
        args: Value,
        first: Outcome,
        context: &RequestContext<RoleServer>,
    ) -> Outcome {
        if !self.can_elicit(context) {
            return first;
        }
        let preview = first.data.clone().unwrap_or(Value::Null);
        let request = json!({
            "method": "elicitation/create",
            "params": {
                "message": format!(
                    "`{name}` needs your approval before it runs. What it would do: {}",
                    serde_json::to_string(&preview).unwrap_or_default()
                ),
                "requestedSchema": {
                    "type": "object",
                    "properties": {"approve": {"type": "boolean", "title": "Approve",
                        "description": "Run this action now"}},
                    "required": ["approve"]
                }
            }
        });
        let asked = send_client_request(&context.peer, request);
        let answer = match self.session.input_closed.get() {
            Some(closed) => tokio::select! {
                answer = asked => answer,
                () = closed.cancelled() => Err("the client closed its input".to_string()),
            },
            None => asked.await,
        };
        match answer {
            Ok(answer) => {
                let accepted = answer.get("action").and_then(Value::as_str) == Some("accept")
                    && answer.pointer("/content/approve").and_then(Value::as_bool) == Some(true);
                if accepted {
                    self.run_call(name, args, true, context).await
                } else {
                    let mut out = Outcome::from_error(ToolError::permission_denied(
                        format!("The user did not approve `{name}`; nothing was done."),
                        "Do not call it again unless the user asks for it.",
                    ));
                    out.meta = first.meta;
                    out.meta.approval_id = None;
                    out
                }
            }
            Err(e) => {
                tracing::debug!(error = %e, "elicitation failed; answering with the preview");
                first
            }
        }
    }
}

/// The server's capabilities, identity and instructions, as `initialize` answers them.
fn server_info(options: &ServerOptions) -> ServerConfig {
    let caps = ServerCapabilities::builder()
        .enable_tools()
        .enable_tool_list_changed()
        .enable_logging()
        .build();
    let mut info = ServerConfig::new(caps).with_protocol_version(MAX_PROTOCOL);
    if let Ok(imp) = serde_json::from_value(json!({
        "name": options.name,
        "version": options.version,
    })) {
        info = info.with_server_info(imp);
    }
    if let Some(i) = &options.instructions {
        info = info.with_instructions(i.clone());
    }
    info
}

/// Sends a server-to-client request given as `{"method", "params"}` JSON; the result as JSON.
async fn send_client_request(peer: &Peer<RoleServer>, request: Value) -> Result<Value, String> {
    let req: rmcp::model::ServerRequest =
        serde_json::from_value(request).map_err(|e| format!("invalid request: {e}"))?;
    let result = peer.send_request(req).await.map_err(|e| e.to_string())?;
    serde_json::to_value(result).map_err(|e| e.to_string())
}

/// Delivers a call's messages to the client, and the heartbeat while a client that asked for
/// progress hears nothing from the tool.
struct Forwarder<'a> {
    peer: &'a Peer<RoleServer>,
    token: Option<Value>,
    min_log: &'a AtomicU8,
}

/// A message on its way to the client.
type Sending<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>>;

impl Forwarder<'_> {
    /// Runs `work` to its end while delivering the messages from `rx` in order (one at a time:
    /// the next waits until the previous one is sent, and the call keeps running meanwhile),
    /// then the messages still queued once the work is done, before its outcome.
    ///
    /// The work is polled first: a call that sends nothing costs no allocation and no timer
    /// (the heartbeat's timer exists only when the client asked for progress).
    async fn run(
        &self,
        work: impl std::future::Future<Output = Outcome>,
        mut rx: mpsc::UnboundedReceiver<Outgoing>,
        heartbeat: Option<Duration>,
    ) -> Outcome {
        let start = Instant::now();
        let mut ticker = match (&self.token, heartbeat) {
            (Some(_), Some(period)) => Some(tokio::time::interval_at(
                tokio::time::Instant::now() + period,
                period,
            )),
            _ => None,
        };
        let mut tool_reported = false;
        let mut last_beat = 0.0_f64;
        let mut open = true;
        let mut sending: Option<Sending<'_>> = None;
        let mut work = std::pin::pin!(work);
        let out = loop {
            tokio::select! {
                biased;
                out = &mut work => break out,
                () = async { if let Some(s) = sending.as_mut() { s.await } }, if sending.is_some() => {
                    sending = None;
                }
                m = rx.recv(), if open && sending.is_none() => match m {
                    Some(m) => {
                        tool_reported |= matches!(m, Outgoing::Progress { .. });
                        sending = Some(Box::pin(self.deliver(m)));
                    }
                    None => open = false,
                },
                () = tick(&mut ticker), if ticker.is_some() && !tool_reported && sending.is_none() => {
                    let secs = start.elapsed().as_secs_f64().floor();
                    if secs > last_beat {
                        last_beat = secs;
                        let message = Some(format!("running for {secs:.0} s"));
                        sending = Some(Box::pin(send_progress(self.peer, self.token.as_ref(), secs, None, message)));
                    }
                }
            }
        };
        if let Some(s) = sending {
            s.await;
        }
        // The channel ends once the scope is closed and no tool still holds a sender.
        while let Some(m) = rx.recv().await {
            self.deliver(m).await;
        }
        out
    }

    /// Sends one message of the tool to the client.
    async fn deliver(&self, msg: Outgoing) {
        let peer = self.peer;
        match msg {
            Outgoing::Progress {
                progress,
                total,
                message,
            } => send_progress(peer, self.token.as_ref(), progress, total, message).await,
            Outgoing::Log {
                level,
                logger,
                data,
            } => {
                let rank = level_rank(&level).unwrap_or(1);
                if rank < self.min_log.load(Ordering::Relaxed) {
                    return;
                }
                let level = if level_rank(&level).is_some() {
                    level
                } else {
                    "info".to_string()
                };
                let param = json!({"level": level, "logger": logger, "data": data});
                match serde_json::from_value(param) {
                    Ok(p) => {
                        if let Err(e) = peer.notify_logging_message(p).await {
                            tracing::debug!(error = %e, "log notification not sent");
                        }
                    }
                    Err(e) => tracing::debug!(error = %e, "invalid log notification"),
                }
            }
            Outgoing::Request { request, reply } => {
                let result = send_client_request(peer, request).await;
                let _ = reply.send(result);
            }
        }
    }
}

/// The next tick of the heartbeat's timer; never without one.
async fn tick(ticker: &mut Option<tokio::time::Interval>) {
    match ticker {
        Some(t) => {
            t.tick().await;
        }
        None => std::future::pending().await,
    }
}

async fn send_progress(
    peer: &Peer<RoleServer>,
    token: Option<&Value>,
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
) {
    let Some(token) = token else { return };
    let mut param = json!({"progressToken": token, "progress": progress});
    if let (Some(t), Value::Object(m)) = (total, &mut param) {
        m.insert("total".into(), json!(t));
    }
    if let (Some(msg), Value::Object(m)) = (message, &mut param) {
        m.insert("message".into(), json!(msg));
    }
    match serde_json::from_value(param) {
        Ok(p) => {
            if let Err(e) = peer.notify_progress(p).await {
                tracing::debug!(error = %e, "progress notification not sent");
            }
        }
        Err(e) => tracing::debug!(error = %e, "invalid progress notification"),
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        self.shared.info.clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&MAX_PROTOCOL))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        self.tool_page(cursor)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.map_or_else(|| json!({}), Value::Object);
        // Borrowed: the call's own copy is the only one made.
        let name: &str = &request.name;
        let approve = self.shared.options.approve_all;
        // The arguments move into the call; a copy is kept only when an approval could be
        // asked for and the call then run again.
        let again = (!approve && self.can_elicit(&context)).then(|| args.clone());
        // Boxed: rmcp moves the handler's future (sized for its largest state) into a task of
        // its own; the call's state machine (the runtime's included) stays put on the heap.
        let mut out = Box::pin(self.run_call(name, args, approve, &context)).await;
        if out.status() == Status::NeedsConfirmation
            && let Some(args) = again
        {
            out = Box::pin(self.confirm_by_elicitation(name, args, out, &context)).await;
        }
        Ok(CallToolResponse::Complete(to_call_result(out)))
    }

    /// rmcp hands a standard method whose params do not parse (`tools/call` without a `name`,
    /// `"arguments": "x"`) to this fallback; JSON-RPC calls that invalid params (-32602), not
    /// an unknown method (-32601).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match standard_params_problem(&request.method) {
            Some(expected) => Err(ErrorData::invalid_params(
                format!(
                    "invalid params for `{}`: expected {expected}",
                    request.method.chars().take(64).collect::<String>()
                ),
                None,
            )),
            None => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method not found: `{}`",
                    request.method.chars().take(64).collect::<String>()
                ),
                None,
            )),
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self.shared.peers.lock().unwrap_or_else(|e| e.into_inner());
        peers.retain(|p| !p.is_transport_closed());
        peers.push(context.peer);
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = serde_json::to_value(request.level).unwrap_or(Value::Null);
        let rank = level.as_str().and_then(level_rank).unwrap_or(0);
        self.session.min_log.store(rank, Ordering::Relaxed);
        Ok(())
    }
}

/// For the standard methods this server serves: what their params must look like.
fn standard_params_problem(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" => {
            Some("{\"name\": string, \"arguments\"?: object} (`arguments` must be a JSON object)")
        }
        "tools/list" => Some("{\"cursor\"?: string}"),
        "initialize" => Some("{\"protocolVersion\", \"capabilities\", \"clientInfo\"}"),
        "logging/setLevel" => Some("{\"level\": a log level such as \"info\"}"),
        "ping" => Some("no params or an object"),
        _ => None,
    }
}

/// Cursors are `o<offset>`: opaque to clients, checked on the way back.
const CURSOR_PREFIX: &str = "o";

fn parse_cursor(cursor: &str) -> Option<usize> {
    cursor.strip_prefix(CURSOR_PREFIX)?.parse().ok()
}

/// Serves `server` over stdin/stdout until the client closes the connection or SIGINT.
///
/// # Errors
/// The MCP handshake failed.
pub async fn serve_stdio(server: McpServer) -> Result<(), McpError> {
    let (read, write) = rmcp::transport::stdio();
    serve_io(server, read, write).await
}

/// Serves `server` over a byte stream (newline-delimited JSON-RPC) until it closes or SIGINT.
/// When the input ends, an approval still waiting on the client (elicitation) is given up at
/// once (the call is answered with its preview, and not run), so the session ends promptly.
///
/// # Errors
/// The MCP handshake failed.
pub async fn serve_io<R, W>(server: McpServer, read: R, write: W) -> Result<(), McpError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let closed = tokio_util::sync::CancellationToken::new();
    let _ = server.session.input_closed.set(closed.clone());
    let _closed_on_return = closed.clone().drop_guard();
    let read = InputEnd {
        inner: read,
        closed,
    };
    let running = server
        .serve((read, write))
        .await
        .map_err(|e| McpError::Protocol(e.to_string()))?;
    let ct = running.cancellation_token();
    tokio::select! {
        r = running.waiting() => {
            r.map_err(|e| McpError::Transport(e.to_string()))?;
        }
        _ = tokio::signal::ctrl_c() => {
            ct.cancel();
        }
    }
    Ok(())
}

/// A session's input that cancels `closed` when it ends (end of file or a read error).
struct InputEnd<R> {
    inner: R,
    closed: tokio_util::sync::CancellationToken,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for InputEnd<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let asked = buf.remaining() > 0;
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &polled {
            std::task::Poll::Ready(Ok(())) => asked && buf.filled().len() == before,
            std::task::Poll::Ready(Err(_)) => true,
            std::task::Poll::Pending => false,
        };
        if ended {
            self.closed.cancel();
        }
        polled
    }
}

/// The caller of an HTTP request: a digest of its bearer token (never the token itself), so
/// per-caller rate limits count each client on every replica alike. `None` over stdio or
/// without a token.
fn caller_of(context: &RequestContext<RoleServer>) -> Option<String> {
    #[cfg(feature = "http-server")]
    {
        use sha2::Digest;
        let parts = context.extensions.get::<axum::http::request::Parts>()?;
        let auth = parts.headers.get(axum::http::header::AUTHORIZATION)?;
        let token = auth.to_str().ok()?.split_once(' ')?.1.trim();
        let digest = sha2::Sha256::digest(token.as_bytes());
        Some(format!("token-{}", hex::encode(digest.get(..8)?)))
    }
    #[cfg(not(feature = "http-server"))]
    {
        let _ = context;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_core::{FnTool, Registry, ToolOutput, ToolSpec};

    fn server_with(n: usize, page_size: Option<usize>) -> McpServer {
        let reg = Arc::new(Registry::new());
        for i in 0..n {
            let spec = ToolSpec::new(format!("t{i}"), "d", json!({"type": "object"}));
            reg.register(FnTool::new(spec, |_, _| async move {
                Ok(ToolOutput::Data(json!({})))
            }))
            .unwrap();
        }
        let options = ServerOptions {
            page_size,
            ..ServerOptions::default()
        };
        McpServer::new(Runtime::new(reg), options)
    }

    #[test]
    fn pages_cover_the_list_once_and_end_without_a_cursor() {
        for (n, size) in [(0, 3), (1, 3), (9, 3), (10, 3), (10, 1), (5, 100)] {
            let server = server_with(n, Some(size));
            let mut seen = Vec::new();
            let mut cursor: Option<String> = None;
            let mut pages = 0;
            loop {
                let page = server.tool_page(cursor.as_deref()).unwrap();
                assert!(page.tools.len() <= size);
                seen.extend(page.tools.iter().map(|t| t.name.to_string()));
                pages += 1;
                match page.next_cursor {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            let want: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
            assert_eq!(seen, want, "n={n} size={size}");
            assert_eq!(pages, n.div_ceil(size).max(1), "n={n} size={size}");
        }
    }

    #[test]
    fn without_a_page_size_everything_comes_at_once() {
        let page = server_with(50, None).tool_page(None).unwrap();
        assert_eq!(page.tools.len(), 50);
        assert!(page.next_cursor.is_none());
    }

    #[test]
    fn foreign_cursors_are_invalid_params() {
        let server = server_with(4, Some(2));
        for bad in ["", "x", "o", "o-1", "o99", "2"] {
            let err = server.tool_page(Some(bad)).unwrap_err();
            assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{bad}");
        }
    }

    #[test]
    fn the_cache_is_reused_until_the_registry_changes() {
        let server = server_with(3, None);
        let a = server.mcp_tools();
        let b = server.mcp_tools();
        assert!(Arc::ptr_eq(&a, &b));
        let spec = ToolSpec::new("late", "d", json!({"type": "object"}));
        server
            .runtime()
            .registry()
            .register(FnTool::new(spec, |_, _| async move {
                Ok(ToolOutput::Data(json!({})))
            }))
            .unwrap();
        let c = server.mcp_tools();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.len(), 4);
        let fresh: Vec<Value> = c.iter().map(|t| serde_json::to_value(t).unwrap()).collect();
        assert_eq!(fresh, server.tool_list());
    }
}
