//! `toolwright ui`: a local web playground for tools and agents, served from the binary itself.
//!
//! The page lists the tools (searched through the same router as `toolwright route`), shows each
//! tool's schema, lint findings and provider-dialect exports, runs calls through the runtime
//! (so the envelope is the real one, confirmation gate included), runs the agent with a live
//! trace over server-sent events, and charts the runtime's metrics.
//!
//! This crate knows HTTP and the page; it does not choose tools, models or providers. The host
//! (the CLI) hands it a [`Toolbox`]: the runtime, the ranker built by
//! `toolwright_local::routing::build_router`, the agent settings and a provider factory.
//!
//! Safety (see [`security`]): loopback by default, a random token in the printed URL (an
//! `HttpOnly; SameSite=Strict` cookie after the first visit), `Host` and `Origin` checked, calls
//! only from same-origin JSON `POST`s, and destructive calls run only after the person clicks
//! "Approve" on the preview.
//!
//! Assets (HTML, CSS, JS; no framework, no CDN) are embedded with `include_str!` ([`assets`]).

mod api;
pub mod assets;
mod live;
pub mod security;

use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use toolwright_agent::routing::CatalogRanker;
use toolwright_agent::{AgentConfig, Provider};
use toolwright_catalog::lint::Finding;
use toolwright_runtime::Runtime;

/// Builds the agent's provider on first use (loading the embedded model can take seconds, and
/// the tool pages must not wait for it). `Err` is a message for the person (e.g. "run
/// `toolwright model fetch`"); a failure is not cached, so fixing it and retrying works.
pub type ProviderFactory = Arc<dyn Fn() -> Result<Arc<dyn Provider>, String> + Send + Sync>;

/// What the playground works on, built by the host.
pub struct Toolbox {
    /// The runtime every call (and the agent) goes through.
    pub runtime: Runtime,
    /// The router of the runtime's tools, shared by the search box and the agent.
    pub ranker: Arc<CatalogRanker>,
    /// Lint findings of the toolset (`toolwright lint`).
    pub findings: Vec<Finding>,
    /// Where the tools come from, for the page header ("demo toolset", a file name, MCP...).
    pub source: String,
    /// Calls are validated and recorded, not executed (`--functions` / `--catalog` tools).
    pub definition_only: bool,
    /// Settings of the agent runs.
    pub agent: AgentConfig,
    /// The agent's provider.
    pub provider: ProviderFactory,
}

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct UiOptions {
    /// Address to bind (port 0: any free port).
    pub addr: SocketAddr,
    /// The access token; `None` draws a random one.
    pub token: Option<String>,
}

/// A bound, not yet serving, playground.
pub struct UiServer {
    listener: tokio::net::TcpListener,
    app: Router,
    url: String,
}

impl std::fmt::Debug for UiServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiServer")
            .field("addr", &self.listener.local_addr().ok())
            .finish_non_exhaustive()
    }
}

impl UiServer {
    /// Binds `options.addr` and prepares the app over `toolbox`.
    ///
    /// # Errors
    /// The address cannot be bound (in use, not permitted).
    pub async fn bind(toolbox: Toolbox, options: UiOptions) -> std::io::Result<UiServer> {
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        let local = listener.local_addr()?;
        let token = options.token.unwrap_or_else(security::random_token);
        let guard = security::Guard::new(token.clone(), local);
        let url = format!("http://{}/?token={token}", host_for_url(local));
        let app = app(toolbox, guard);
        Ok(UiServer { listener, app, url })
    }

    /// The URL to open (it carries the token).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The bound address.
    ///
    /// # Errors
    /// The socket has no local address (not expected once bound).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` completes.
    ///
    /// # Errors
    /// The listener fails.
    pub async fn serve(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        axum::serve(self.listener, self.app)
            .with_graceful_shutdown(shutdown)
            .await
    }
}

/// `127.0.0.1:PORT`, `[::1]:PORT`: the host part of the printed URL.
fn host_for_url(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) => format!("{}:{}", a.ip(), a.port()),
        SocketAddr::V6(a) => format!("[{}]:{}", a.ip(), a.port()),
    }
}

/// The whole app: assets, API and the agent stream, behind the security guard.
pub fn app(toolbox: Toolbox, guard: security::Guard) -> Router {
    let state = Arc::new(api::State::new(toolbox));
    Router::new()
        .merge(assets::routes())
        .merge(api::routes())
        .merge(live::routes())
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard),
            security::check,
        ))
}
