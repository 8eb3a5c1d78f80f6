//! A call's cancellation signal: what a tool watches to stop early.
//!
//! A [`CancelSignal`] is made for every call, cloned for its deadline and dropped when the call
//! ends; most calls are never cancelled and never wait for it. So it is one reference-counted
//! flag (a clone or a drop is one atomic operation, where a tokio-util
//! [`CancellationToken`] locks its tree's mutex), and the token behind [`CancelSignal::cancelled`]
//! and [`CancelSignal::child_token`] is made only when a tool asks for one.
//!
//! Invariants: cancelling a signal never cancels its parent (the host's token); a signal whose
//! parent is cancelled is cancelled; a token obtained from a signal is cancelled exactly when the
//! signal is, whichever comes first (the flag and the token are each checked after the other is
//! set, with sequentially consistent fences between).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering, fence};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// Cancelled at a call's deadline or when its host cancels it. Cheap to clone: clones share
/// one state.
///
/// ```
/// use toolwright_core::CancelSignal;
/// let host = tokio_util::sync::CancellationToken::new();
/// let signal = CancelSignal::child_of(host.clone());
/// let copy = signal.clone();
/// assert!(!copy.is_cancelled());
/// host.cancel();
/// assert!(copy.is_cancelled() && copy.parent_cancelled());
///
/// let own = CancelSignal::new();
/// let token = own.child_token();
/// own.cancel();
/// assert!(token.is_cancelled());
/// ```
///
/// An inert signal ([`CancelSignal::inert`]) is one nothing can cancel, made and cloned without
/// an allocation or an atomic operation: what the runtime gives a tool that never looks at its
/// context ([`Tool::uses_context`](crate::Tool::uses_context)) when no host token is there.
#[derive(Clone)]
pub struct CancelSignal(Option<Arc<Signal>>);

impl Default for CancelSignal {
    /// [`CancelSignal::new`].
    fn default() -> Self {
        CancelSignal(Some(Arc::default()))
    }
}

/// The token of inert signals: never cancelled (nothing holds an inert signal that may cancel
/// it: see [`CancelSignal::inert`]).
fn never() -> &'static CancellationToken {
    static NEVER: OnceLock<CancellationToken> = OnceLock::new();
    NEVER.get_or_init(CancellationToken::new)
}

#[derive(Default)]
struct Signal {
    cancelled: AtomicBool,
    parent: Option<CancellationToken>,
    token: OnceLock<CancellationToken>,
}

impl fmt::Debug for CancelSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelSignal")
            .field("cancelled", &self.is_cancelled())
            .field("has_parent", &self.parent().is_some())
            .field("inert", &self.is_inert())
            .finish()
    }
}

impl From<CancellationToken> for CancelSignal {
    /// A signal cancelled with `token` (see [`CancelSignal::child_of`]).
    fn from(token: CancellationToken) -> Self {
        CancelSignal::child_of(token)
    }
}

impl CancelSignal {
    /// A signal of its own, cancelled only by [`CancelSignal::cancel`].
    pub fn new() -> Self {
        CancelSignal::default()
    }

    /// A signal cancelled when `parent` is (a host's token) or by [`CancelSignal::cancel`],
    /// which leaves `parent` alone.
    pub fn child_of(parent: CancellationToken) -> Self {
        CancelSignal(Some(Arc::new(Signal {
            parent: Some(parent),
            ..Signal::default()
        })))
    }

    /// A signal that nothing cancels: [`CancelSignal::cancel`] does nothing, it has no parent,
    /// and its [`token`](CancelSignal::token) is one never-cancelled token shared by every inert
    /// signal (cancelling that token is a bug). Made and cloned without an allocation or an
    /// atomic operation, for a call whose tool never looks at its context: the runtime stops
    /// such a call at its deadline by dropping the tool's future, with no one to tell.
    pub fn inert() -> Self {
        CancelSignal(None)
    }

    /// Whether this is an [inert](CancelSignal::inert) signal.
    pub fn is_inert(&self) -> bool {
        self.0.is_none()
    }

    /// A new, uncancelled signal with the same parent: the next attempt's (inert for an inert
    /// signal).
    #[must_use]
    pub fn fresh(&self) -> Self {
        match &self.0 {
            None => CancelSignal::inert(),
            Some(s) => match &s.parent {
                Some(p) => CancelSignal::child_of(p.clone()),
                None => CancelSignal::new(),
            },
        }
    }

    /// Cancels this signal (and every clone and token obtained from it), not its parent. An
    /// inert signal stays as it is.
    pub fn cancel(&self) {
        let Some(s) = &self.0 else { return };
        s.cancelled.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if let Some(t) = s.token.get() {
            t.cancel();
        }
    }

    /// Whether the signal or its parent was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|s| s.cancelled.load(Ordering::SeqCst))
            || self.parent_cancelled()
    }

    /// Whether the parent (the host's token) was cancelled.
    pub fn parent_cancelled(&self) -> bool {
        self.parent().is_some_and(CancellationToken::is_cancelled)
    }

    /// The parent the signal was made with, if any.
    pub fn parent(&self) -> Option<&CancellationToken> {
        self.0.as_ref()?.parent.as_ref()
    }

    /// A tokio-util token cancelled with this signal (made on the first request).
    pub fn token(&self) -> &CancellationToken {
        let Some(s) = &self.0 else {
            return never();
        };
        let token = s.token.get_or_init(|| match &s.parent {
            Some(p) => p.child_token(),
            None => CancellationToken::new(),
        });
        fence(Ordering::SeqCst);
        if s.cancelled.load(Ordering::SeqCst) {
            token.cancel();
        }
        token
    }

    /// Completes when the signal is cancelled.
    pub fn cancelled(&self) -> WaitForCancellationFutureOwned {
        self.token().clone().cancelled_owned()
    }

    /// A token cancelled when this signal is (and cancellable on its own).
    pub fn child_token(&self) -> CancellationToken {
        self.token().child_token()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelling_a_child_leaves_the_parent_alone() {
        let host = CancellationToken::new();
        let s = CancelSignal::child_of(host.clone());
        let t = s.token().clone();
        s.cancel();
        assert!(s.is_cancelled() && t.is_cancelled());
        assert!(!host.is_cancelled() && !s.parent_cancelled());
        let next = s.fresh();
        assert!(!next.is_cancelled());
        host.cancel();
        assert!(next.is_cancelled() && next.token().is_cancelled());
    }

    #[test]
    fn an_inert_signal_is_never_cancelled_and_stays_inert() {
        let s = CancelSignal::inert();
        let c = s.clone();
        c.cancel();
        assert!(s.is_inert() && c.is_inert() && s.fresh().is_inert());
        assert!(!s.is_cancelled() && !s.parent_cancelled() && s.parent().is_none());
        assert!(!s.token().is_cancelled() && !s.child_token().is_cancelled());
        assert!(!CancelSignal::new().is_inert() && !CancelSignal::default().is_inert());
    }

    #[test]
    fn a_token_asked_for_after_the_cancel_is_cancelled() {
        let s = CancelSignal::new();
        s.clone().cancel();
        assert!(s.token().is_cancelled());
        assert!(s.child_token().is_cancelled());
    }

    #[tokio::test]
    async fn cancelled_completes_on_cancel_from_another_task() {
        let s = CancelSignal::new();
        let c = s.clone();
        let h = tokio::spawn(async move { c.cancelled().await });
        tokio::task::yield_now().await;
        s.cancel();
        tokio::time::timeout(std::time::Duration::from_secs(5), h)
            .await
            .expect("cancelled() did not complete")
            .expect("task");
    }

    #[test]
    fn a_race_between_cancel_and_token_never_loses_the_cancel() {
        for _ in 0..200 {
            let s = CancelSignal::new();
            let c = s.clone();
            let h = std::thread::spawn(move || c.cancel());
            let t = s.token().clone();
            h.join().expect("thread");
            assert!(t.is_cancelled());
        }
    }
}
