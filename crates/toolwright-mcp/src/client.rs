//! Importing the tools of MCP servers into a [`Registry`].
//!
//! Each remote tool becomes a [`Tool`] whose schema is the server's `inputSchema` (so our
//! runtime validates before anything is sent), whose side effects come from the server's
//! annotations, and whose every answer is an envelope. `notifications/tools/list_changed`
//! refreshes the imported tools in place.

use crate::convert::{outcome_from_result, spec_from_mcp_tool};
use crate::error::McpError;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::{ClientHandler, Peer, ServiceError, ServiceExt};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;
use toolwright_core::{
    ArgValidator, ErrorCode, Outcome, Registry, Status, Tool, ToolContext, ToolError, ToolFuture,
    ToolOutput, ToolSpec,
};

/// Where an MCP server is: a command line run as a child process (stdio), or a Streamable HTTP
/// endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpSource {
    /// A program and its arguments; the server speaks MCP on its stdin/stdout.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// An `http://` or `https://` URL of a Streamable HTTP endpoint.
    Http {
        /// The URL.
        url: String,
    },
    /// A byte stream given to [`connect_io`] (in-process servers, tests).
    Io {
        /// A name for messages.
        label: String,
    },
}

impl McpSource {
    /// Parses a `--mcp` value: an `http(s)://` URL, else a command line (split like a shell
    /// would, with quotes and backslashes, without expansion).
    ///
    /// ```
    /// use toolwright_mcp::McpSource;
    /// let s = McpSource::parse("node 'my server.mjs' --stdio").unwrap();
    /// assert_eq!(s, McpSource::Command { program: "node".into(),
    ///     args: vec!["my server.mjs".into(), "--stdio".into()] });
    /// assert!(matches!(McpSource::parse("http://127.0.0.1:3000/mcp"), Ok(McpSource::Http { .. })));
    /// assert!(McpSource::parse("  ").is_err());
    /// ```
    ///
    /// # Errors
    /// An empty command line or unbalanced quotes.
    pub fn parse(value: &str) -> Result<McpSource, McpError> {
        let v = value.trim();
        if v.starts_with("http://") || v.starts_with("https://") {
            return Ok(McpSource::Http { url: v.to_string() });
        }
        let mut words = split_command_line(v)?.into_iter();
        let program = words
            .next()
            .ok_or_else(|| McpError::BadSource("empty command line".to_string()))?;
        Ok(McpSource::Command {
            program,
            args: words.collect(),
        })
    }

    /// A short label for messages.
    pub fn label(&self) -> String {
        match self {
            McpSource::Command { program, args } => {
                let mut s = program.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            McpSource::Http { url } => url.clone(),
            McpSource::Io { label } => label.clone(),
        }
    }
}

/// Splits a command line into words: whitespace separates, `'…'` is literal, `"…"` allows `\"`
/// and `\\`, a backslash outside quotes escapes the next character. No variable or glob
/// expansion.
///
/// # Errors
/// An unterminated quote or a trailing backslash.
pub fn split_command_line(line: &str) -> Result<Vec<String>, McpError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => {
                            return Err(McpError::BadSource(format!("unterminated ' in `{line}`")));
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => {
                                return Err(McpError::BadSource(format!(
                                    "unterminated \" in `{line}`"
                                )));
                            }
                        },
                        Some(x) => cur.push(x),
                        None => {
                            return Err(McpError::BadSource(format!(
                                "unterminated \" in `{line}`"
                            )));
                        }
                    }
                }
            }
            '\\' => match chars.next() {
                Some(x) => {
                    in_word = true;
                    cur.push(x);
                }
                None => {
                    return Err(McpError::BadSource(format!(
                        "trailing backslash in `{line}`"
                    )));
                }
            },
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Called after an import was refreshed on `notifications/tools/list_changed`.
pub type ToolsChangedHook = Arc<dyn Fn() + Send + Sync>;

/// How remote tools are imported.
#[derive(Clone)]
pub struct ClientOptions {
    /// Prepended to every remote tool name (`None`: names kept). `{server}` in it stands for the
    /// server's own name (its `serverInfo.name`, characters other than ASCII letters, digits, `_`
    /// and `-` written as `_`), so one prefix such as `{server}__` keeps apart two servers that
    /// both have a `create_project`.
    pub prefix: Option<String>,
    /// Deadline of one remote call (also the tools' `timeout_ms`).
    pub timeout: Duration,
    /// Deadline of the connection and handshake.
    pub connect_timeout: Duration,
    /// `Authorization: Bearer …` for HTTP servers.
    pub bearer: Option<String>,
    /// Called after the imported tools changed (e.g. to tell our own MCP clients in turn).
    pub on_tools_changed: Option<ToolsChangedHook>,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("bearer", &self.bearer.as_ref().map(|_| "<redacted>"))
            .field("on_tools_changed", &self.on_tools_changed.is_some())
            .finish()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            prefix: None,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(20),
            bearer: None,
            on_tools_changed: None,
        }
    }
}

/// What the client handler needs to refresh the imported tools.
struct Link {
    conn: OnceLock<Weak<Inner>>,
    registry: Mutex<Option<Weak<Registry>>>,
    imported: Mutex<Vec<String>>,
}

/// The rmcp client handler: reacts to `notifications/tools/list_changed`.
struct Handler {
    link: Arc<Link>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::new(ClientCapabilities::default(), client_implementation());
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let link = self.link.clone();
        // Refresh off the message loop: it sends a request and waits for the answer.
        tokio::spawn(async move {
            let Some(inner) = link.conn.get().and_then(Weak::upgrade) else {
                return;
            };
            let registry = link
                .registry
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .and_then(Weak::upgrade);
            if let Some(registry) = registry {
                let conn = McpConnection { inner };
                match conn.sync(&registry, true).await {
                    Ok(names) => {
                        tracing::info!(count = names.len(), "MCP tool list refreshed");
                        if let Some(hook) = &conn.inner.options.on_tools_changed {
                            hook();
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "MCP tool list refresh failed"),
                }
            }
        });
    }
}

fn client_implementation() -> rmcp::model::Implementation {
    serde_json::from_value(json!({"name": "toolwright", "version": env!("CARGO_PKG_VERSION")}))
        .unwrap_or_else(|_| rmcp::model::Implementation::from_build_env())
}

struct Inner {
    source: McpSource,
    options: ClientOptions,
    server_name: String,
    /// `serverInfo.name` as the server gave it: the imported tools' `server`, so a request
    /// naming the server ("in postgres", "on gitlab") finds its tools.
    info_name: Option<String>,
    peer: Peer<RoleClient>,
    link: Arc<Link>,
    // Dropping it closes the connection (and ends a child process).
    service: Mutex<Option<RunningService<RoleClient, Handler>>>,
    /// A stdio server's process group; kept after `service`, so a dropped connection closes
    /// the server's stdin before the group is signalled.
    group: Mutex<Option<crate::child::ChildGroup>>,
}

/// A service after its handshake, with the process group of a stdio server.
type Handshaken = (
    RunningService<RoleClient, Handler>,
    Option<crate::child::ChildGroup>,
);

/// A live connection to one MCP server. Imported tools keep it open; it closes when the
/// connection and every tool imported from it are dropped.
#[derive(Clone)]
pub struct McpConnection {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("source", &self.inner.source.label())
            .field("server", &self.inner.server_name)
            .finish_non_exhaustive()
    }
}

/// Connects to an MCP server and completes the handshake.
///
/// # Errors
/// The process cannot start, the server is unreachable, the handshake fails or times out, or
/// an HTTP URL is given to a build without the `http-client` feature.
pub async fn connect(
    source: &McpSource,
    options: &ClientOptions,
) -> Result<McpConnection, McpError> {
    let link = new_link();
    let handler = Handler { link: link.clone() };
    let handshake = async {
        match source {
            McpSource::Command { program, args } => {
                // Dropped with this future (a failed or timed-out handshake), the group ends.
                let (transport, group) = crate::child::spawn(program, args)
                    .map_err(|e| McpError::Spawn(format!("`{}`: {e}", source.label())))?;
                let service = handler
                    .serve(transport)
                    .await
                    .map_err(|e| McpError::Protocol(format!("`{}`: {e}", source.label())))?;
                Ok((service, Some(group)))
            }
            McpSource::Http { url } => connect_http(handler, url, options).await.map(|s| (s, None)),
            McpSource::Io { label } => Err(McpError::BadSource(format!(
                "`{label}`: a byte-stream source is connected with connect_io"
            ))),
        }
    };
    finish_connect(handshake, source, options, link).await
}

/// Connects to an MCP server reachable over a byte stream (e.g. one end of
/// `tokio::io::duplex`, with [`crate::serve_io`] on the other).
///
/// # Errors
/// The handshake fails or times out.
pub async fn connect_io<R, W>(
    read: R,
    write: W,
    label: &str,
    options: &ClientOptions,
) -> Result<McpConnection, McpError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let link = new_link();
    let handler = Handler { link: link.clone() };
    let source = McpSource::Io {
        label: label.to_string(),
    };
    let handshake = async {
        handler
            .serve((read, write))
            .await
            .map(|s| (s, None))
            .map_err(|e| McpError::Protocol(format!("`{label}`: {e}")))
    };
    finish_connect(handshake, &source, options, link).await
}

fn new_link() -> Arc<Link> {
    Arc::new(Link {
        conn: OnceLock::new(),
        registry: Mutex::new(None),
        imported: Mutex::new(Vec::new()),
    })
}

async fn finish_connect(
    handshake: impl std::future::Future<Output = Result<Handshaken, McpError>>,
    source: &McpSource,
    options: &ClientOptions,
    link: Arc<Link>,
) -> Result<McpConnection, McpError> {
    let (service, group) = tokio::time::timeout(options.connect_timeout, handshake)
        .await
        .map_err(|_| {
            let t = options.connect_timeout;
            let within = if t.as_millis().is_multiple_of(1000) {
                format!("{} s", t.as_secs())
            } else {
                format!("{} ms", t.as_millis())
            };
            McpError::Transport(format!(
                "`{}` did not complete the MCP handshake within {within}",
                source.label()
            ))
        })??;
    let peer = service.peer().clone();
    let info_name = service
        .peer_info()
        .and_then(|i| i.server_info.as_ref().map(|s| s.name.clone()))
        .filter(|n| !n.trim().is_empty());
    let server_name = info_name.clone().unwrap_or_else(|| source.label());
    let inner = Arc::new(Inner {
        source: source.clone(),
        options: options.clone(),
        server_name,
        info_name,
        peer,
        link: link.clone(),
        service: Mutex::new(Some(service)),
        group: Mutex::new(group),
    });
    let _ = link.conn.set(Arc::downgrade(&inner));
    Ok(McpConnection { inner })
}

#[cfg(feature = "http-client")]
async fn connect_http(
    handler: Handler,
    url: &str,
    options: &ClientOptions,
) -> Result<RunningService<RoleClient, Handler>, McpError> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    // reqwest is built without a default TLS provider: install ring once (a no-op afterwards).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| McpError::Transport(format!("cannot build the HTTP client: {e}")))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    config.auth_header = options.bearer.clone();
    let transport = StreamableHttpClientTransport::with_client(client, config);
    handler
        .serve(transport)
        .await
        .map_err(|e| McpError::Protocol(format!("`{url}`: {e}")))
}

#[cfg(not(feature = "http-client"))]
async fn connect_http(
    _handler: Handler,
    url: &str,
    _options: &ClientOptions,
) -> Result<RunningService<RoleClient, Handler>, McpError> {
    Err(McpError::Unsupported(format!(
        "`{url}`: MCP over HTTP needs toolwright-mcp's `http-client` feature"
    )))
}

impl McpConnection {
    /// The server's name from its `initialize` answer.
    pub fn server_name(&self) -> &str {
        &self.inner.server_name
    }

    /// Where the server is.
    pub fn source(&self) -> &McpSource {
        &self.inner.source
    }

    /// The server's tools, as their `tools/list` JSON entries.
    ///
    /// # Errors
    /// The request failed.
    pub async fn list_tools(&self) -> Result<Vec<Value>, McpError> {
        let tools = self
            .inner
            .peer
            .list_all_tools()
            .await
            .map_err(|e| McpError::Protocol(e.to_string()))?;
        Ok(tools
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect())
    }

    /// Calls a remote tool by its remote name and returns the raw `tools/call` result (JSON).
    ///
    /// # Errors
    /// The request failed (transport or protocol error).
    pub async fn call_raw(&self, remote_name: &str, args: Value) -> Result<Value, McpError> {
        let mut params = CallToolRequestParams::new(remote_name.to_string());
        params.arguments = match args {
            Value::Object(m) => Some(m),
            _ => None,
        };
        let r = self
            .inner
            .peer
            .call_tool(params)
            .await
            .map_err(|e| McpError::Protocol(e.to_string()))?;
        serde_json::to_value(&r).map_err(|e| McpError::Protocol(e.to_string()))
    }

    /// Calls a remote tool by its remote name and returns the envelope (never fails: transport
    /// errors, timeouts and `isError` results are error envelopes).
    pub async fn call(
        &self,
        remote_name: &str,
        args: Value,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Outcome {
        call_remote(&self.inner, remote_name, args, cancel).await
    }

    /// Imports the server's tools into `registry` (names prefixed per the options) and keeps
    /// them in sync on `notifications/tools/list_changed`. Returns the registered names.
    ///
    /// Tools whose name or schema the registry rejects are skipped with a warning.
    ///
    /// # Errors
    /// Listing failed, or a name clashes with a tool already registered (use a prefix).
    pub async fn import(&self, registry: &Arc<Registry>) -> Result<Vec<String>, McpError> {
        *self
            .inner
            .link
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(Arc::downgrade(registry));
        self.sync(registry, false).await
    }

    /// Lists the remote tools and registers them; with `replace`, replaces the previous import
    /// (list changed) instead of failing on names already present.
    async fn sync(&self, registry: &Registry, replace: bool) -> Result<Vec<String>, McpError> {
        let defs = self.list_tools().await?;
        let opts = &self.inner.options;
        let timeout_ms = u64::try_from(opts.timeout.as_millis()).unwrap_or(u64::MAX);
        let prefix = expand_prefix(opts.prefix.as_deref(), &self.inner.server_name);
        let mut names = Vec::new();
        for def in &defs {
            let Some(remote) = def.get("name").and_then(Value::as_str) else {
                continue;
            };
            let name = format!("{prefix}{remote}");
            let mut spec = spec_from_mcp_tool(def, &name, timeout_ms);
            if let Some(server) = &self.inner.info_name {
                spec.meta.server = Some(server.clone());
            }
            let output = self.output_validator(&mut spec);
            let tool: Arc<dyn Tool> = Arc::new(RemoteTool {
                spec,
                remote: remote.to_string(),
                conn: self.inner.clone(),
                output,
            });
            let res = if replace {
                registry.upsert_arc(tool)
            } else {
                registry.register_arc(tool)
            };
            match res {
                Ok(()) => names.push(name),
                Err(toolwright_core::RegistryError::Duplicate(n)) => {
                    return Err(McpError::Protocol(format!(
                        "tool `{n}` of MCP server `{}` clashes with a tool already registered; \
                         import with a prefix: `--mcp-prefix '{{server}}__'` names every tool after \
                         its server, or give `--mcp-prefix` once per `--mcp`, in order",
                        self.inner.server_name
                    )));
                }
                Err(e) => {
                    tracing::warn!(server = %self.inner.server_name, error = %e, "MCP tool skipped")
                }
            }
        }
        let mut imported = self
            .inner
            .link
            .imported
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for old in imported.iter() {
            if !names.contains(old) {
                registry.remove(old);
            }
        }
        *imported = names.clone();
        Ok(names)
    }

    /// The validator of an imported tool's `outputSchema`; a schema that does not compile is
    /// dropped from `spec` with a warning (it is not advertised again either).
    fn output_validator(&self, spec: &mut ToolSpec) -> Option<Arc<ArgValidator>> {
        let schema = spec.output_schema.as_ref()?;
        match ArgValidator::new(schema) {
            Ok(v) => Some(Arc::new(v)),
            Err(e) => {
                tracing::warn!(server = %self.inner.server_name, tool = %spec.name, error = %e,
                    "outputSchema of an MCP tool ignored");
                spec.output_schema = None;
                None
            }
        }
    }

    /// Closes the connection. A child process is asked to exit (its stdin closed), then sent
    /// `SIGTERM`, then killed, each after a wait of up to 3 s; on Unix the signals reach its
    /// whole process group, so a server started through a launcher (`npx`, `uvx`, `sh -c`)
    /// ends too.
    pub async fn close(&self) {
        let service = self
            .inner
            .service
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(s) = service {
            let _ = s.cancel().await;
        }
        // After the graceful shutdown, whatever of the group survived it (when it was cut
        // short, or when the leader exited and left the server behind) is sent `SIGTERM`.
        let group = self
            .inner
            .group
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        drop(group);
    }
}

/// Connects to every source and imports its tools into `registry`; returns the connections.
///
/// # Errors
/// The first source that fails (connection, listing or a name clash).
pub async fn import_all(
    sources: &[String],
    registry: &Arc<Registry>,
    options: &ClientOptions,
) -> Result<Vec<McpConnection>, McpError> {
    let mut conns = Vec::new();
    for s in sources {
        let source = McpSource::parse(s)?;
        let conn = connect(&source, options).await?;
        conn.import(registry).await?;
        conns.push(conn);
    }
    Ok(conns)
}

/// The prefix of a server's tool names: `prefix` with `{server}` replaced by the server's name,
/// written with ASCII letters, digits, `_` and `-` only (tool names must stay valid).
fn expand_prefix(prefix: Option<&str>, server: &str) -> String {
    let Some(prefix) = prefix else {
        return String::new();
    };
    if !prefix.contains("{server}") {
        return prefix.to_string();
    }
    let slug: String = server
        .chars()
        .map(|c| match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .collect();
    prefix.replace("{server}", &slug)
}

/// A tool of a remote MCP server.
struct RemoteTool {
    spec: ToolSpec,
    remote: String,
    conn: Arc<Inner>,
    /// Checks a successful result against the tool's `outputSchema`, as the MCP specification
    /// asks of clients.
    output: Option<Arc<ArgValidator>>,
}

impl Tool for RemoteTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: Value, ctx: ToolContext) -> ToolFuture {
        let conn = self.conn.clone();
        let remote = self.remote.clone();
        let output = self.output.clone();
        Box::pin(async move {
            let out = call_remote(&conn, &remote, args, ctx.cancel.token()).await;
            Ok(ToolOutput::Outcome(match output {
                Some(v) => check_output(out, &v, &conn.server_name, &remote),
                None => out,
            }))
        })
    }

    fn preview(&self, args: &Value) -> Value {
        json!({
            "action": format!("call `{}` on MCP server `{}`", self.remote, self.conn.server_name),
            "arguments": args,
        })
    }
}

async fn call_remote(
    conn: &Inner,
    remote: &str,
    args: Value,
    cancel: &tokio_util::sync::CancellationToken,
) -> Outcome {
    let arguments = match args {
        Value::Object(m) => Some(m),
        Value::Null => None,
        other => {
            return Outcome::from_error(ToolError::validation(
                format!("MCP tool arguments must be a JSON object, not {other}."),
                "Pass the arguments as one JSON object.",
            ));
        }
    };
    let mut params = CallToolRequestParams::new(remote.to_string());
    params.arguments = arguments;
    let timeout = conn.options.timeout;
    // Dropping the request future (deadline, cancellation) sends notifications/cancelled.
    let result = tokio::select! {
        r = tokio::time::timeout(timeout, conn.peer.call_tool(params)) => r,
        () = cancel.cancelled() => {
            return Outcome::from_error(ToolError::cancelled("The call was cancelled."));
        }
    };
    match result {
        Err(_) => Outcome::from_error(ToolError::timeout(format!(
            "MCP server `{}` did not answer `{remote}` within {} ms.",
            conn.server_name,
            timeout.as_millis()
        ))),
        Ok(Ok(r)) => match serde_json::to_value(&r) {
            Ok(v) => outcome_from_result(&v),
            Err(e) => {
                Outcome::from_error(ToolError::internal(format!("unreadable MCP result: {e}")))
            }
        },
        Ok(Err(e)) => Outcome::from_error(service_error(&conn.server_name, remote, &e)),
    }
}

/// `out` when it is not a success or its `data` follows the tool's `outputSchema`; otherwise an
/// `INTERNAL` error that names the first violations: the server broke its own contract, and a
/// result of the wrong shape must not reach the model as a success.
fn check_output(out: Outcome, schema: &ArgValidator, server: &str, tool: &str) -> Outcome {
    if out.status() != Status::Success || out.meta.fallback_from.is_some() {
        return out;
    }
    let data = out.data.as_ref().unwrap_or(&Value::Null);
    match schema.validate(data) {
        Ok(()) => out,
        Err(e) => {
            let what: Vec<String> = e
                .fields
                .iter()
                .take(3)
                .map(|f| {
                    format!(
                        "{} {}",
                        if f.path.is_empty() { "/" } else { &f.path },
                        f.message
                    )
                })
                .collect();
            let mut err = ToolError::new(
                ErrorCode::Internal,
                format!(
                    "MCP server `{server}` answered `{tool}` with a result that does not match \
                     the tool's outputSchema: {}.",
                    what.join("; ")
                ),
            );
            err.detail = Some(format!("{} violation(s) in all", e.fields.len()));
            Outcome::from_error(err)
        }
    }
}

/// The envelope error for a failed MCP request.
fn service_error(server: &str, tool: &str, e: &ServiceError) -> ToolError {
    match e {
        ServiceError::McpError(data) => {
            let code = data.code.0;
            // -32602 invalid params / -32601 method not found: the call itself was wrong.
            if code == -32602 || code == -32601 {
                ToolError::new(
                    ErrorCode::Validation,
                    format!("MCP server `{server}` rejected `{tool}`: {}", data.message),
                )
                .with_suggestion("Fix the arguments (or the tool name) and call again.")
            } else {
                ToolError::new(
                    ErrorCode::DependencyUnavailable,
                    format!("MCP server `{server}` failed on `{tool}`: {}", data.message),
                )
            }
        }
        other => ToolError::dependency_unavailable(
            format!("MCP server `{server}` is unavailable: {other}"),
            "Do not retry blindly; tell the user the MCP server is unavailable.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_names_each_server_where_it_says_server() {
        assert_eq!(expand_prefix(None, "neon"), "");
        assert_eq!(expand_prefix(Some("x_"), "neon"), "x_");
        assert_eq!(
            expand_prefix(Some("{server}__"), "mcp-server-neon"),
            "mcp-server-neon__"
        );
        // A name that tool names cannot carry is written with `_`.
        assert_eq!(
            expand_prefix(Some("{server}."), "Sentry MCP/1.0"),
            "Sentry_MCP_1_0."
        );
    }

    #[test]
    fn a_success_that_breaks_the_output_schema_becomes_an_internal_error() {
        let schema = ArgValidator::new(&json!({"type": "object",
            "properties": {"sum": {"type": "number"}}, "required": ["sum"]}))
        .unwrap();
        let good = Outcome::success(json!({"sum": 3}));
        assert_eq!(
            check_output(good, &schema, "s", "add").status(),
            Status::Success
        );

        let bad = check_output(
            Outcome::success(json!({"sum": "three"})),
            &schema,
            "s",
            "add",
        );
        assert_eq!(bad.status(), Status::Error);
        let err = bad.error().unwrap();
        assert_eq!(err.code, ErrorCode::Internal);
        assert!(
            err.message.contains("outputSchema") && err.message.contains("/sum"),
            "{}",
            err.message
        );
        // No structured content at all (the text fallback) does not pass either.
        let text = check_output(Outcome::success(json!({"text": "3"})), &schema, "s", "add");
        assert_eq!(text.status(), Status::Error);

        // Errors are passed on as they are: only a success claims the schema.
        let failed = Outcome::from_error(ToolError::timeout("slow"));
        assert_eq!(
            check_output(failed, &schema, "s", "add")
                .error()
                .unwrap()
                .code,
            ErrorCode::Timeout
        );
    }

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_command_line(r#"a "b c" 'd e' f\ g"#).unwrap(),
            vec!["a", "b c", "d e", "f g"]
        );
        assert_eq!(split_command_line(r#""x\"y""#).unwrap(), vec!["x\"y"]);
        assert_eq!(split_command_line("''").unwrap(), vec![""]);
        assert!(split_command_line("'open").is_err());
        assert!(split_command_line("x\\").is_err());
        assert!(McpSource::parse("").is_err());
    }
}
