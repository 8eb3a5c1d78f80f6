//! The confirmation gate: tools marked `destructive` or `requires_confirmation` never run on the
//! model's word.
//!
//! The first call answers `needs_confirmation` with the tool's preview and an approval id. The
//! host shows the preview to a person and approves through [`Approvals::approve`] (or
//! [`crate::Runtime::approve`]); the same call (same tool, same arguments, same session) then runs
//! once. A host may also approve ahead of time with `CallOptions::approved` (the CLI's
//! `--approve`). Nothing in the arguments can approve a call: an argument such as
//! `confirm: true` is only an argument, and it changes the approval id.

use crate::idempotency::{IdempotencyStore, MemoryStore, StoreError};
use crate::service::{BoxService, Layer, Request, Service};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use toolwright_core::{Outcome, ToolError, approval_id};

/// How long an approval request (and an approval not yet used) stays valid.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(15 * 60);

/// Why an approval was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalError {
    /// No call is waiting for this id (never asked, already used, or expired).
    Unknown(String),
    /// The store that holds approvals did not answer.
    Store(StoreError),
}

impl std::fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApprovalError::Unknown(id) => write!(
                f,
                "no call is waiting for approval `{id}` (unknown, already used or expired)"
            ),
            ApprovalError::Store(e) => write!(f, "the approval could not be recorded: {e}"),
        }
    }
}

impl std::error::Error for ApprovalError {}

impl From<StoreError> for ApprovalError {
    fn from(e: StoreError) -> Self {
        ApprovalError::Store(e)
    }
}

/// A call waiting for a person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingApproval {
    /// The id to approve.
    pub approval_id: String,
    /// The tool.
    pub tool: String,
    /// The session of the call.
    pub session_id: Option<String>,
    /// What would happen (the tool's preview).
    pub preview: serde_json::Value,
    /// Whether a person approved it already (it runs on the next identical call).
    pub approved: bool,
}

/// The approval book shared by the gate and the host, kept in the runtime's store: with a
/// SQLite or Redis store, every replica sees the same book.
#[derive(Debug, Clone)]
pub struct Approvals {
    store: Arc<dyn IdempotencyStore>,
    ttl: Duration,
}

impl Default for Approvals {
    fn default() -> Self {
        Approvals::new(Arc::new(MemoryStore::new()), DEFAULT_APPROVAL_TTL)
    }
}

impl Approvals {
    /// A book in `store` whose entries expire after `ttl`.
    pub fn new(store: Arc<dyn IdempotencyStore>, ttl: Duration) -> Self {
        Approvals { store, ttl }
    }

    /// Records a call waiting for approval (keeps an existing approval of the same id).
    ///
    /// # Errors
    /// The store did not answer.
    pub async fn request(&self, pending: PendingApproval) -> Result<(), StoreError> {
        self.store.approval_put(&pending, self.ttl).await
    }

    /// Approves the waiting call `id`; it runs on its next identical call.
    ///
    /// # Errors
    /// [`ApprovalError::Unknown`] when no call waits for `id`; [`ApprovalError::Store`] when the
    /// store did not answer.
    pub async fn approve(&self, id: &str) -> Result<PendingApproval, ApprovalError> {
        self.store
            .approval_grant(id, self.ttl)
            .await?
            .ok_or_else(|| ApprovalError::Unknown(id.to_string()))
    }

    /// Drops the waiting call `id`; returns whether there was one.
    ///
    /// # Errors
    /// The store did not answer.
    pub async fn deny(&self, id: &str) -> Result<bool, StoreError> {
        self.store.approval_remove(id).await
    }

    /// Calls waiting for approval.
    ///
    /// # Errors
    /// The store did not answer.
    pub async fn pending(&self) -> Result<Vec<PendingApproval>, StoreError> {
        self.store.approvals().await
    }

    /// Uses up an approval of `id` for `session`; true when there was one.
    ///
    /// # Errors
    /// The store did not answer.
    pub async fn take_approved(&self, id: &str, session: Option<&str>) -> Result<bool, StoreError> {
        self.store.approval_take(id, session).await
    }
}

/// The gate (see the module docs).
#[derive(Debug, Clone)]
pub struct ConfirmationLayer {
    approvals: Arc<Approvals>,
}

impl ConfirmationLayer {
    /// A gate that records requests in, and takes approvals from, `approvals`.
    pub fn new(approvals: Arc<Approvals>) -> Self {
        ConfirmationLayer { approvals }
    }
}

impl Layer for ConfirmationLayer {
    fn layer(&self, inner: BoxService) -> BoxService {
        Arc::new(Gate {
            inner,
            approvals: self.approvals.clone(),
        })
    }
}

struct Gate {
    inner: BoxService,
    approvals: Arc<Approvals>,
}

/// Whether the gate stops `req` (its tool needs confirmation and the call was not approved);
/// any other request goes straight through.
pub(crate) fn gated(req: &Request) -> bool {
    req.entry.facts().needs_confirmation && !req.approved
}

impl Service for Gate {
    fn call(&self, mut req: Request) -> BoxFuture<'static, Outcome> {
        if !gated(&req) {
            return self.inner.call(req);
        }
        let (inner, approvals) = (self.inner.clone(), self.approvals.clone());
        Box::pin(async move {
            let spec = req.entry.spec();
            let id = approval_id(&spec.name, &req.args);
            match approvals
                .take_approved(&id, req.session_id.as_deref())
                .await
            {
                Ok(true) => {
                    req.approved = true;
                    return inner.call(req).await;
                }
                Ok(false) => {}
                Err(e) => return store_down(&e),
            }
            let preview = req.entry.tool.preview(&req.args);
            let pending = PendingApproval {
                approval_id: id.clone(),
                tool: spec.name.clone(),
                session_id: req.session_id.clone(),
                preview: preview.clone(),
                approved: false,
            };
            if let Err(e) = approvals.request(pending).await {
                return store_down(&e);
            }
            let mut out = Outcome::needs_confirmation(preview, id.clone());
            out.message = format!(
                "{} needs a person's approval before it runs (approval id {id}); nothing was done yet.",
                spec.name
            )
            .into();
            out
        })
    }
}

/// The envelope of a gated call whose approval book could not be read: nothing ran.
fn store_down(e: &StoreError) -> Outcome {
    Outcome::from_error(
        ToolError::new(
            toolwright_core::ErrorCode::DependencyUnavailable,
            format!("The approval store is unreachable ({e}); the call was not run."),
        )
        .with_suggestion("Try again shortly; nothing was done."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::service_fn;
    use serde_json::json;
    use std::sync::atomic::{AtomicU32, Ordering};
    use toolwright_core::{FnTool, SideEffects, Status, ToolCall, ToolEntry, ToolOutput, ToolSpec};

    fn setup() -> (BoxService, Arc<Approvals>, Arc<AtomicU32>, Arc<ToolEntry>) {
        let runs = Arc::new(AtomicU32::new(0));
        let r = runs.clone();
        let inner = service_fn(move |_req| {
            r.fetch_add(1, Ordering::SeqCst);
            async { Outcome::success(json!("deleted")) }
        });
        let approvals = Arc::new(Approvals::default());
        let svc = ConfirmationLayer::new(approvals.clone()).layer(inner);
        let spec = ToolSpec::new(
            "delete_file",
            "Delete a file. Use this when the user asks to delete a file.",
            json!({"type": "object"}),
        )
        .side_effects(SideEffects::Destructive);
        let tool = FnTool::new(spec, |_, _| async { Ok(ToolOutput::Data(json!(null))) });
        let entry = Arc::new(ToolEntry::new(Arc::new(tool)).unwrap());
        (svc, approvals, runs, entry)
    }

    fn req(entry: &Arc<ToolEntry>, args: serde_json::Value) -> Request {
        Request::new(
            ToolCall::new("c", "delete_file", args.clone()),
            entry.clone(),
            args,
        )
    }

    #[tokio::test]
    async fn confirm_argument_does_not_approve() {
        let (svc, _a, runs, entry) = setup();
        let out = svc
            .call(req(&entry, json!({"path": "a", "confirm": true})))
            .await;
        assert_eq!(out.status(), Status::NeedsConfirmation);
        assert!(out.meta.approval_id.is_some());
        assert_eq!(runs.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn host_approval_runs_the_same_call_once() {
        let (svc, approvals, runs, entry) = setup();
        let args = json!({"path": "a"});
        let out = svc.call(req(&entry, args.clone())).await;
        let id = out.meta.approval_id.clone().unwrap();
        assert!(approvals.approve("approve-nope").await.is_err());
        approvals.approve(&id).await.unwrap();
        // Other arguments are not covered by the approval.
        let other = svc.call(req(&entry, json!({"path": "b"}))).await;
        assert_eq!(other.status(), Status::NeedsConfirmation);
        let out = svc.call(req(&entry, args.clone())).await;
        assert_eq!(out.status(), Status::Success);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // Used up: the next identical call asks again.
        let again = svc.call(req(&entry, args)).await;
        assert_eq!(again.status(), Status::NeedsConfirmation);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn preapproved_calls_run() {
        let (svc, _a, runs, entry) = setup();
        let mut r = req(&entry, json!({"path": "a"}));
        r.approved = true;
        assert_eq!(svc.call(r).await.status(), Status::Success);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }
}
