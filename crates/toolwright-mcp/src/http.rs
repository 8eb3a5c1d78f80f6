//! The Streamable HTTP server (feature `http-server`): rmcp's `StreamableHttpService`, called
//! straight from our accept loop for the MCP path (the operator endpoints are an axum router),
//! with bearer-token auth, Host/Origin allow-lists against DNS rebinding, and bounds on
//! everything a client can hold: a request body limit (an over-long declared `Content-Length`
//! answers 413 before any byte of the body is read), a body read timeout, a header read timeout
//! and a connection cap with load shedding (`http_conn.rs`), and MCP sessions with an idle TTL
//! and a cap (`sessions.rs`). Shutdown drains open requests for a bounded time.
//!
//! The checks run in this order, cheapest first: bearer token (401, and the connection is
//! closed), declared length (413), session cap for a new session (503) or unknown session on
//! DELETE (404); then the body streams to rmcp, which stops reading past the size limit (413),
//! and is cut at its deadline (408).

use crate::error::McpError;
use crate::http_conn::{ConnLimits, ConnState, RespBody};
use crate::server::McpServer;
use crate::sessions::{BoundedSessions, SessionLimits};
use axum::Router;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Default request body limit (bytes).
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How the HTTP endpoint is exposed.
#[derive(Clone)]
pub struct HttpOptions {
    /// Address to bind (loopback unless you know better: a non-loopback address needs a token).
    pub addr: SocketAddr,
    /// Path of the MCP endpoint (default `/mcp`).
    pub path: String,
    /// When set, every request needs `Authorization: Bearer <token>` (401 otherwise).
    pub token: Option<String>,
    /// Host names (or `host:port`) accepted in the `Host` header; the loopback names by
    /// default. Anything else is refused with 403 (DNS-rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// Origins accepted in an `Origin` header (requests without one pass); loopback origins by
    /// default.
    pub allowed_origins: Vec<String>,
    /// Largest accepted request body (413 above).
    pub max_body_bytes: usize,
    /// Stateless mode: no MCP sessions (no `Mcp-Session-Id`); every POST is answered on its own,
    /// so server-to-client requests (elicitation, sampling) and per-session state (log level,
    /// retry budgets across calls) are not available. Default off (sessions, as the spec's
    /// stateful profile and the conformance suite expect).
    pub stateless: bool,
    /// With [`stateless`](Self::stateless): answer a request whose handler sends nothing before
    /// its result with one `application/json` body instead of an SSE stream (the server falls
    /// back to SSE when a tool sends progress or log notifications first). Ignored without
    /// `stateless`.
    pub json_response: bool,
    /// MCP sessions: idle TTL and cap (stateful mode only).
    pub sessions: SessionLimits,
    /// Connections: cap, header read timeout, shutdown drain.
    pub connections: ConnLimits,
    /// A request body must arrive whole within this time (408 otherwise; default 30 s).
    pub body_timeout: Duration,
    /// Enables the approval endpoints (`/approvals…`) for requests that carry this bearer token;
    /// it must differ from [`token`](Self::token), which the model's client holds.
    pub admin_token: Option<String>,
    /// Renders `/metrics` (e.g. a Prometheus exporter's handle); by default the runtime's own
    /// counters in the Prometheus text format.
    pub metrics: Option<crate::ops::MetricsRender>,
    /// After the shutdown signal, how long the server keeps serving while `/readyz` answers 503,
    /// so a load balancer stops sending new clients first (default 0).
    pub drain_grace: Duration,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("addr", &self.addr)
            .field("path", &self.path)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("stateless", &self.stateless)
            .field("json_response", &self.json_response)
            .field("sessions", &self.sessions)
            .field("connections", &self.connections)
            .field("body_timeout", &self.body_timeout)
            .field(
                "admin_token",
                &self.admin_token.as_ref().map(|_| "<redacted>"),
            )
            .field("metrics", &self.metrics.as_ref().map(|_| "<renderer>"))
            .field("drain_grace", &self.drain_grace)
            .finish()
    }
}

impl HttpOptions {
    /// Options for `addr` with the defaults above.
    pub fn new(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            path: "/mcp".to_string(),
            token: None,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
                "https://localhost:*".into(),
                "https://127.0.0.1:*".into(),
            ],
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            stateless: false,
            json_response: false,
            sessions: SessionLimits::default(),
            connections: ConnLimits::default(),
            body_timeout: Duration::from_secs(30),
            admin_token: None,
            metrics: None,
            drain_grace: Duration::ZERO,
        }
    }
}

/// A bound HTTP MCP server, ready to [`run`](HttpServer::run).
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    ct: CancellationToken,
    local: SocketAddr,
    path: String,
    connections: ConnLimits,
    sessions: Option<Arc<BoundedSessions>>,
    runtime: toolwright_runtime::Runtime,
    draining: Arc<AtomicBool>,
    closing: Arc<AtomicBool>,
    drain_grace: Duration,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("local", &self.local)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local, self.path)
    }

    /// Serves until `shutdown` completes, then shuts down gracefully: `/readyz` turns 503 at
    /// once and the server keeps serving for [`HttpOptions::drain_grace`]; then new MCP requests
    /// get 503, the calls in flight get [`ConnLimits::drain`] to finish, and the sessions and
    /// connections close. A call cut by the deadline is dropped, never reported done (its
    /// idempotency key is released or left to its lease).
    ///
    /// # Errors
    /// None at present (accept errors are logged and retried); kept for API stability.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        let stop = CancellationToken::new();
        let sweeper = self.sessions.clone().map(|sessions| {
            let stop = stop.clone();
            tokio::spawn(async move {
                let every = sessions.sweep_every();
                loop {
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(every) => {}
                    }
                    sessions.sweep().await;
                }
            })
        });
        let ct = self.ct.clone();
        let signal = stop.clone();
        let (runtime, draining, closing) = (self.runtime, self.draining, self.closing);
        let (grace, drain) = (self.drain_grace, self.connections.drain);
        tokio::spawn(async move {
            shutdown.await;
            draining.store(true, Ordering::Release);
            tracing::info!(
                grace_s = grace.as_secs_f64(),
                "draining: /readyz answers 503"
            );
            tokio::time::sleep(grace).await;
            closing.store(true, Ordering::Release);
            let deadline = tokio::time::Instant::now() + drain;
            while runtime.calls_in_flight() > 0 && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let cut = runtime.calls_in_flight();
            if cut > 0 {
                tracing::warn!(
                    calls = cut,
                    "calls still running at the drain deadline are cut"
                );
            }
            // Ends the SSE streams and sessions so the connections can close.
            ct.cancel();
            signal.cancel();
        });
        crate::http_conn::serve(self.listener, self.app, self.connections, stop.clone()).await;
        stop.cancel();
        if let Some(s) = sweeper {
            let _ = s.await;
        }
        Ok(())
    }
}

/// Binds `options.addr` and prepares `server` on `options.path`. Each MCP session gets its own
/// [`McpServer::new_session`].
///
/// # Errors
/// A non-loopback address without a token, or the address cannot be bound.
pub async fn bind_http(server: McpServer, options: HttpOptions) -> Result<HttpServer, McpError> {
    let ip = options.addr.ip();
    let mut allowed_hosts = options.allowed_hosts.clone();
    if !ip.is_loopback() {
        if options.token.is_none() {
            return Err(McpError::BadSource(format!(
                "{ip} is not a loopback address: serving beyond this machine needs --token"
            )));
        }
        if !ip.is_unspecified() {
            allowed_hosts.push(ip.to_string());
        }
    }
    if options
        .admin_token
        .as_deref()
        .is_some_and(|a| options.token.as_deref() == Some(a))
    {
        return Err(McpError::BadSource(
            "the admin token must differ from the MCP token: the client that asks for a call \
             must not be able to approve it"
                .into(),
        ));
    }
    let runtime = server.runtime().clone();
    let ct = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts)
        .with_allowed_origins(options.allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_cancellation_token(ct.clone())
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless && options.json_response);
    let (mcp, sessions) = if options.stateless {
        let service = StreamableHttpService::new(
            move || Ok(server.stateless_request()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        (Mcp::Stateless(service), None)
    } else {
        let sessions = Arc::new(BoundedSessions::new(options.sessions));
        let service =
            StreamableHttpService::new(move || Ok(server.new_session()), sessions.clone(), config);
        (Mcp::Sessions(service), Some(sessions))
    };
    let closing = Arc::new(AtomicBool::new(false));
    let guard = Guard {
        token: options.token.clone(),
        max_body: options.max_body_bytes,
        body_timeout: options.body_timeout,
        sessions: sessions.clone(),
        closing: closing.clone(),
    };
    let draining = Arc::new(AtomicBool::new(false));
    let ops = Arc::new(crate::ops::Ops {
        runtime: runtime.clone(),
        token: options.token.clone(),
        admin_token: options.admin_token.clone(),
        metrics: options.metrics.clone(),
        draining: draining.clone(),
    });
    // The operator endpoints have their own checks: the guard is for the MCP path only.
    let app = Arc::new(App {
        path: options.path.clone(),
        guard,
        mcp,
        ops: crate::ops::router(ops),
    });
    let listener = tokio::net::TcpListener::bind(options.addr).await?;
    let local = listener.local_addr()?;
    Ok(HttpServer {
        listener,
        app,
        ct,
        local,
        path: options.path,
        connections: options.connections,
        sessions,
        runtime,
        draining,
        closing,
        drain_grace: options.drain_grace,
    })
}

/// The MCP endpoint's rmcp service, in the server's mode.
enum Mcp {
    Stateless(StreamableHttpService<McpServer, NeverSessionManager>),
    Sessions(StreamableHttpService<McpServer, BoundedSessions>),
}

/// Everything the HTTP endpoint answers: the MCP path (the guard, then rmcp's service, called
/// directly: no router, middleware or per-request copy of rmcp's service and its settings on
/// the way) and the operator endpoints (an axum router).
pub(crate) struct App {
    path: String,
    guard: Guard,
    mcp: Mcp,
    ops: Router,
}

impl App {
    /// Answers one request that came on `conn`.
    pub(crate) async fn serve(
        &self,
        req: hyper::Request<Incoming>,
        conn: &ConnState,
    ) -> hyper::Response<RespBody> {
        if req.uri().path() != self.path {
            return match tower::ServiceExt::oneshot(self.ops.clone(), req).await {
                Ok(resp) => resp.map(RespBody::Axum),
                Err(never) => match never {},
            };
        }
        if let Some(refused) = self.guard.check(&req, conn) {
            return refused.map(RespBody::Axum);
        }
        // The body streams on to rmcp, which enforces the size limit as it reads (413); here
        // it is only cut at the body deadline (408). No copy, and no timer unless the body has
        // to be waited for.
        let timed_out = Arc::new(AtomicBool::new(false));
        let (parts, body) = req.into_parts();
        let body = DeadlineBody {
            inner: body,
            deadline: tokio::time::Instant::now() + self.guard.body_timeout,
            sleep: None,
            timed_out: timed_out.clone(),
        };
        let req = hyper::Request::from_parts(parts, body);
        let mut resp = match &self.mcp {
            Mcp::Stateless(service) => service.handle(req).await,
            Mcp::Sessions(service) => service.handle(req).await,
        };
        if timed_out.load(Ordering::Acquire) {
            return (
                StatusCode::REQUEST_TIMEOUT,
                [(header::CONNECTION, "close")],
                format!(
                    "Request Timeout: the body did not arrive within {} s",
                    self.guard.body_timeout.as_secs()
                ),
            )
                .into_response()
                .map(RespBody::Axum);
        }
        if resp.status() == StatusCode::PAYLOAD_TOO_LARGE {
            // The rest of the body was not read: the connection cannot carry another request.
            resp.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        resp.map(RespBody::Mcp)
    }
}

/// What every MCP request is checked against before rmcp sees it.
struct Guard {
    token: Option<String>,
    max_body: usize,
    body_timeout: Duration,
    sessions: Option<Arc<BoundedSessions>>,
    /// Shutting down past the grace period: new requests get 503.
    closing: Arc<AtomicBool>,
}

impl Guard {
    /// The checks before the body is read (see the module docs for the order): the answer
    /// when the request is refused.
    fn check<B>(&self, req: &hyper::Request<B>, conn: &ConnState) -> Option<Response> {
        if self.closing.load(Ordering::Acquire) {
            return Some(
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::CONNECTION, "close"), (header::RETRY_AFTER, "1")],
                    "Service Unavailable: this replica is shutting down; retry (another replica \
                     answers)",
                )
                    .into_response(),
            );
        }
        if let Some(expected) = &self.token {
            if !bearer_matches(req, expected) {
                return Some(unauthorized());
            }
            conn.mark_authenticated();
        }
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body as u64) {
            return Some(too_large(self.max_body));
        }
        let sessions = self.sessions.as_ref()?;
        let session = req
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok());
        match (req.method(), session) {
            (&Method::POST, None) if sessions.len() >= sessions.limits().max => {
                Some(too_many_sessions(sessions.limits()))
            }
            (&Method::DELETE, Some(id)) if !sessions.contains(id) => Some(
                (
                    StatusCode::NOT_FOUND,
                    [(header::CONNECTION, "close")],
                    "Not Found: no MCP session has this Mcp-Session-Id",
                )
                    .into_response(),
            ),
            _ => None,
        }
    }
}

/// A request body cut at a deadline: past it, the next read fails and `timed_out` is set. The
/// timer is armed only when a read has to wait (a body already received costs no timer).
struct DeadlineBody {
    inner: Incoming,
    deadline: tokio::time::Instant,
    sleep: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
    timed_out: Arc<AtomicBool>,
}

impl http_body::Body for DeadlineBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        use std::task::Poll;
        let this = &mut *self;
        if let Poll::Ready(frame) = std::pin::Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(axum::Error::new)));
        }
        let deadline = this.deadline;
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if sleep.as_mut().poll(cx).is_ready() {
            this.timed_out.store(true, Ordering::Release);
            return Poll::Ready(Some(Err(axum::Error::new("the request body timed out"))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

pub(crate) fn bearer_matches<B>(req: &hyper::Request<B>, expected: &str) -> bool {
    req.headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .is_some_and(|g| constant_time_eq(g.as_bytes(), expected.as_bytes()))
}

/// 401, and the connection closes: a client without the token cannot keep it open.
pub(crate) fn unauthorized() -> Response {
    let mut resp = (
        StatusCode::UNAUTHORIZED,
        "Unauthorized: a valid bearer token is required",
    )
        .into_response();
    resp.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    resp
}

/// 413, and the connection closes (the unread body would otherwise follow).
fn too_large(max: usize) -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        [(header::CONNECTION, "close")],
        format!("Payload Too Large: the limit is {max} bytes"),
    )
        .into_response()
}

/// 503 with a JSON-RPC error, when a new session would pass the cap.
fn too_many_sessions(limits: SessionLimits) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32000,
            "message": format!(
                "Too many MCP sessions: {} are open, the server's limit. Close a session you no \
                 longer use (DELETE with its Mcp-Session-Id) or retry later; idle sessions close \
                 after {} s.",
                limits.max,
                limits.idle.as_secs()
            ),
        }
    });
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::RETRY_AFTER, "5"),
            // The body was not read: the connection cannot carry another request.
            (header::CONNECTION, "close"),
        ],
        body.to_string(),
    )
        .into_response()
}

/// Compares without an early exit on the first differing byte.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_exactly() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }

    /// Sends `head` then `body` on a fresh connection; the status line of the answer.
    async fn status_of(addr: SocketAddr, head: &str, body: &[u8]) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let _ = s.write_all(head.as_bytes()).await;
        let _ = s.write_all(body).await;
        let mut buf = vec![0u8; 256];
        let n = tokio::time::timeout(Duration::from_secs(20), s.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("no answer"))
            .unwrap_or(0);
        String::from_utf8_lossy(buf.get(..n).unwrap_or_default())
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// The body streams to rmcp: a chunked body (no declared length) over the limit still gets
    /// 413, a declared one 413 before the body is sent, and a body that stops arriving 408.
    #[tokio::test]
    async fn streamed_bodies_are_bounded_in_size_and_time() {
        let rt = toolwright_runtime::Runtime::new(Arc::new(toolwright_core::Registry::new()));
        let server = McpServer::new(rt, crate::ServerOptions::default());
        let mut o = HttpOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)));
        o.max_body_bytes = 1024;
        o.body_timeout = Duration::from_millis(500);
        let http = bind_http(server, o).await.unwrap_or_else(|e| panic!("{e}"));
        let addr = http.local_addr();
        let stop = CancellationToken::new();
        let done = stop.clone();
        let task = tokio::spawn(http.run(async move { done.cancelled().await }));
        let post = |extra: &str| {
            format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\n{extra}\r\n"
            )
        };
        let big = format!("800\r\n{}\r\n0\r\n\r\n", "x".repeat(0x800));
        let chunked = status_of(
            addr,
            &post("Transfer-Encoding: chunked\r\n"),
            big.as_bytes(),
        )
        .await;
        assert!(chunked.contains("413"), "{chunked}");
        let declared = status_of(addr, &post("Content-Length: 5000\r\n"), b"").await;
        assert!(declared.contains("413"), "{declared}");
        let slow = status_of(addr, &post("Content-Length: 100\r\n"), b"{").await;
        assert!(slow.contains("408"), "{slow}");
        stop.cancel();
        let _ = task.await;
    }

    #[test]
    fn debug_redacts_the_token() {
        let mut o = HttpOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)));
        o.token = Some("s3cret".into());
        assert!(!format!("{o:?}").contains("s3cret"));
    }
}
