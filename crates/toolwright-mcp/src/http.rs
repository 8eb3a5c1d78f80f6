//! The Streamable HTTP server (feature `http-server`): rmcp's `StreamableHttpService` mounted in
//! axum, with bearer-token auth, Host/Origin allow-lists against DNS rebinding, a request body
//! limit and graceful shutdown.

use crate::error::McpError;
use crate::server::McpServer;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
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
        }
    }
}

/// A bound HTTP MCP server, ready to [`run`](HttpServer::run).
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    router: Router,
    ct: CancellationToken,
    local: SocketAddr,
    path: String,
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

    /// Serves until `shutdown` completes, then closes the sessions and waits for open requests.
    ///
    /// # Errors
    /// The listener failed.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        use axum::serve::ListenerExt;
        let ct = self.ct.clone();
        // Responses are SSE events written in several small pieces: without TCP_NODELAY, Nagle's
        // algorithm and the client's delayed ACK add ~40 ms to every request.
        let listener = self.listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "cannot set TCP_NODELAY");
            }
        });
        axum::serve(listener, self.router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                // Ends the SSE streams and sessions so the graceful shutdown can complete.
                ct.cancel();
            })
            .await?;
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
    let ct = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts)
        .with_allowed_origins(options.allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_cancellation_token(ct.clone())
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless && options.json_response);
    let service = StreamableHttpService::new(
        move || Ok(server.new_session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Arc<Option<String>> = Arc::new(options.token.clone());
    let router = Router::new()
        .route_service(&options.path, service)
        .layer(axum::middleware::from_fn_with_state(token, require_bearer));
    let listener = tokio::net::TcpListener::bind(options.addr).await?;
    let local = listener.local_addr()?;
    Ok(HttpServer {
        listener,
        router,
        ct,
        local,
        path: options.path,
    })
}

/// Answers 401 unless the request carries the configured bearer token.
async fn require_bearer(
    State(token): State<Arc<Option<String>>>,
    req: Request,
    next: Next,
) -> Response {
    let Some(expected) = token.as_ref() else {
        return next.run(req).await;
    };
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        });
    if given.is_some_and(|g| constant_time_eq(g.as_bytes(), expected.as_bytes())) {
        return next.run(req).await;
    }
    let mut resp = (
        StatusCode::UNAUTHORIZED,
        "Unauthorized: a valid bearer token is required",
    )
        .into_response();
    resp.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp
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

    #[test]
    fn debug_redacts_the_token() {
        let mut o = HttpOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)));
        o.token = Some("s3cret".into());
        assert!(!format!("{o:?}").contains("s3cret"));
    }
}
