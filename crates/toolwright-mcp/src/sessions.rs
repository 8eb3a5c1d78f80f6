//! MCP sessions over HTTP with an idle TTL and a cap: rmcp's in-memory session manager, with
//! each session's last use recorded so idle ones can be closed, and a count the HTTP layer
//! checks before it lets a client open one more.
//!
//! Invariants: a session not used for `idle` is closed by the next sweep (every `idle / 4`, at
//! most a minute apart) and its memory released; at most `max` sessions are open, and the
//! client that would open one more gets a clear 503 (see `http.rs`), never a silent eviction
//! of someone else's session.

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Limits on MCP sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Most sessions open at once; the next `initialize` answers 503 (default 1000).
    pub max: usize,
    /// A session with no request for this long is closed (default 10 minutes).
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            max: 1000,
            idle: Duration::from_secs(600),
        }
    }
}

/// rmcp's [`LocalSessionManager`] with last-use times (see the module docs).
#[derive(Debug)]
pub(crate) struct BoundedSessions {
    inner: LocalSessionManager,
    last_used: Mutex<HashMap<SessionId, Instant>>,
    limits: SessionLimits,
}

impl BoundedSessions {
    pub(crate) fn new(limits: SessionLimits) -> Self {
        let mut inner = LocalSessionManager::default();
        // rmcp's own idle timer stops the session's worker; our sweep removes the entry.
        inner.session_config.keep_alive = Some(limits.idle);
        BoundedSessions {
            inner,
            last_used: Mutex::new(HashMap::new()),
            limits,
        }
    }

    pub(crate) fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// Sessions open now.
    pub(crate) fn len(&self) -> usize {
        self.map().len()
    }

    /// Whether `id` names an open session.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.map().contains_key(id)
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Instant>> {
        self.last_used.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn touch(&self, id: &SessionId) {
        if let Some(t) = self.map().get_mut(id) {
            *t = Instant::now();
        }
    }

    /// Closes the sessions idle for longer than the TTL; how many.
    pub(crate) async fn sweep(&self) -> usize {
        let idle = self.limits.idle;
        let expired: Vec<SessionId> = self
            .map()
            .iter()
            .filter(|(_, t)| t.elapsed() >= idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            self.map().remove(id);
            if let Err(e) = self.inner.close_session(id).await {
                tracing::debug!(session = %id, error = %e, "closing an idle session");
            }
        }
        if !expired.is_empty() {
            tracing::info!(closed = expired.len(), "closed idle MCP sessions");
        }
        expired.len()
    }

    /// How often [`sweep`](Self::sweep) should run.
    pub(crate) fn sweep_every(&self) -> Duration {
        (self.limits.idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(60))
    }
}

impl SessionManager for BoundedSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        self.map().insert(id.clone(), Instant::now());
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.touch(id);
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.map().remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
