//! The HTTP/1 connections of the MCP endpoint: our own accept loop over hyper, so that every
//! connection has a header read timeout (which also closes idle keep-alive connections) and
//! the number of connections has a cap with load shedding.
//!
//! Shedding: when a connection arrives at the cap, the oldest connection with no request in
//! flight is closed to make room, preferring ones that never sent an authenticated request;
//! only when every connection is busy is the new one refused (a bare 503). So idle or
//! half-open connections (a slowloris, thousands of idle sockets) cannot lock out a client
//! whose requests are being answered, and an authenticated client gets in by displacing them.

use crate::http::App;
use axum::body::{Body, Bytes};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Limits on connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// Most connections open at once (default 1024).
    pub max: usize,
    /// A request's head must arrive within this time, counted from the start of the
    /// connection or the end of the previous response, so it also closes idle keep-alive
    /// connections (default 10 s).
    pub header_timeout: Duration,
    /// At shutdown, open requests get this long to finish (default 5 s).
    pub drain: Duration,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            max: 1024,
            header_timeout: Duration::from_secs(10),
            drain: Duration::from_secs(5),
        }
    }
}

/// What the request layers know about the connection a request came on (a request extension).
#[derive(Debug)]
pub(crate) struct ConnState {
    since: Instant,
    /// Requests whose response has not been fully sent.
    active: AtomicUsize,
    /// The connection carried a request that passed the bearer check.
    authenticated: AtomicBool,
    shed: CancellationToken,
}

impl ConnState {
    /// Marks the connection as one of an authenticated client (shed last).
    pub(crate) fn mark_authenticated(&self) {
        self.authenticated.store(true, Ordering::Relaxed);
    }
}

#[derive(Default)]
struct Conns {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<ConnState>>>,
}

impl Conns {
    /// Registers a new connection, shedding an idle one at the cap; `None` when every
    /// connection is busy.
    fn admit(&self, max: usize) -> Option<(u64, Arc<ConnState>)> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= max {
            let victim = open
                .iter()
                .filter(|(_, c)| c.active.load(Ordering::Relaxed) == 0)
                .min_by_key(|(_, c)| (c.authenticated.load(Ordering::Relaxed), c.since))
                .map(|(id, _)| *id);
            let victim = victim.and_then(|id| open.remove(&id))?;
            victim.shed.cancel();
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(ConnState {
            since: Instant::now(),
            active: AtomicUsize::new(0),
            authenticated: AtomicBool::new(false),
            shed: CancellationToken::new(),
        });
        open.insert(id, state.clone());
        Some((id, state))
    }

    fn remove(&self, id: u64) {
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }
}

/// Counts a request as active until its response body is dropped (sent or abandoned).
struct Active(Arc<ConnState>);

impl Active {
    fn new(conn: Arc<ConnState>) -> Self {
        conn.active.fetch_add(1, Ordering::Relaxed);
        Active(conn)
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A response body: rmcp's (the MCP endpoint) or axum's (refusals, the operator endpoints).
pub(crate) enum RespBody {
    /// rmcp's answer, as it comes (a JSON body or an SSE stream).
    Mcp(http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>),
    /// Anything else.
    Axum(Body),
}

impl http_body::Body for RespBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        match self.get_mut() {
            RespBody::Mcp(b) => Pin::new(b)
                .poll_frame(cx)
                .map(|f| f.map(|f| f.map_err(|never| match never {}))),
            RespBody::Axum(b) => Pin::new(b).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            RespBody::Mcp(b) => b.is_end_stream(),
            RespBody::Axum(b) => b.is_end_stream(),
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            RespBody::Mcp(b) => b.size_hint(),
            RespBody::Axum(b) => b.size_hint(),
        }
    }
}

/// A response body that keeps its request counted as active while it streams (SSE).
struct TrackedBody {
    inner: RespBody,
    _active: Active,
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Accepts and serves connections until `shutdown` is cancelled, then gives open requests
/// `limits.drain` to finish.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    limits: ConnLimits,
    shutdown: CancellationToken,
) {
    let conns = Arc::new(Conns::default());
    let tasks = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            a = listener.accept() => a,
        };
        let (tcp, _) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Responses are SSE events written in several small pieces: without TCP_NODELAY,
        // Nagle's algorithm and the client's delayed ACK add ~40 ms to every request.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        let Some((id, state)) = conns.admit(limits.max) else {
            tasks.spawn(refuse(tcp));
            continue;
        };
        let conns = conns.clone();
        let app = app.clone();
        let shutdown = shutdown.clone();
        tasks.spawn(async move {
            serve_one(tcp, app, state, limits, shutdown).await;
            conns.remove(id);
        });
    }
    tasks.close();
    if tokio::time::timeout(limits.drain, tasks.wait())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the shutdown drain; closing them");
    }
}

/// Answers a connection over the cap with a bare 503 and closes it.
async fn refuse(mut tcp: tokio::net::TcpStream) {
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        tcp.write_all(
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
        ),
    )
    .await;
}

async fn serve_one(
    tcp: tokio::net::TcpStream,
    app: Arc<App>,
    state: Arc<ConnState>,
    limits: ConnLimits,
    shutdown: CancellationToken,
) {
    let conn = state.clone();
    let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let active = Active::new(conn.clone());
        let app = app.clone();
        async move {
            let resp = app.serve(req, &active.0).await;
            Ok::<_, std::convert::Infallible>(resp.map(|inner| TrackedBody {
                inner,
                _active: active,
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let served = builder.serve_connection(TokioIo::new(tcp), svc);
    tokio::pin!(served);
    tokio::select! {
        r = served.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            return;
        }
        () = state.shed.cancelled() => {}
        () = shutdown.cancelled() => {}
    }
    // Shed or shutting down: finish the request in flight, if any, then close.
    served.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(limits.drain, served).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_oldest_idle_unauthenticated_connection_goes() {
        let conns = Conns::default();
        let (_, a) = conns.admit(3).unwrap();
        let (_, b) = conns.admit(3).unwrap();
        let (_, c) = conns.admit(3).unwrap();
        a.mark_authenticated();
        let _busy = Active::new(b.clone());
        // a is authenticated, b is busy: c goes.
        let (_, _d) = conns.admit(3).unwrap();
        assert!(c.shed.is_cancelled());
        assert!(!a.shed.is_cancelled() && !b.shed.is_cancelled());
        // d (new, unauthenticated, idle) goes before a.
        let (_, e) = conns.admit(3).unwrap();
        assert!(_d.shed.is_cancelled());
        assert!(!a.shed.is_cancelled());
        // All busy: refused.
        let _busy_a = Active::new(a.clone());
        let _busy_e = Active::new(e.clone());
        assert!(conns.admit(3).is_none());
    }
}
