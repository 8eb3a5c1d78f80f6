//! Bounded blocking work: where sync `#[tool]` bodies run.
//!
//! A sync tool body cannot be cancelled: when its deadline passes, the runtime answers `TIMEOUT`
//! but the thread keeps running until the body returns (a read that never returns, a lock that
//! is never released). Unbounded, such threads pile up until every other blocking tool starves.
//! So blocking work goes through [`run_blocking`], which holds two permits for as long as the
//! body really runs, not just until the caller stops waiting:
//!
//! - one of the tool's own ([`BlockingLimits::per_tool`], default 16), so a tool that hangs can
//!   tie up at most that many threads and other tools keep theirs;
//! - one of the process's ([`BlockingLimits::total`], default 128), a ceiling on threads.
//!
//! A call that finds no free permit waits for one inside its own deadline, so its answer is a
//! `TIMEOUT` at the deadline, never a hang.
//!
//! The runtime learns through [`BlockingWatch`] whether a call that timed out left a body
//! running: such a call is not retried automatically (its effect may still happen).

use crate::ToolError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Limits on threads running sync tool bodies. Set once per process with [`set_limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockingLimits {
    /// Bodies of one tool running at once.
    pub per_tool: usize,
    /// Bodies of all tools running at once.
    pub total: usize,
}

impl Default for BlockingLimits {
    fn default() -> Self {
        BlockingLimits {
            per_tool: 16,
            total: 128,
        }
    }
}

struct Pool {
    limits: BlockingLimits,
    total: Arc<Semaphore>,
    per_tool: Mutex<HashMap<String, Arc<Semaphore>>>,
}

static POOL: OnceLock<Pool> = OnceLock::new();

fn pool_with(limits: BlockingLimits) -> Pool {
    let limits = BlockingLimits {
        per_tool: limits.per_tool.max(1),
        total: limits.total.max(1),
    };
    Pool {
        limits,
        total: Arc::new(Semaphore::new(limits.total)),
        per_tool: Mutex::new(HashMap::new()),
    }
}

fn pool() -> &'static Pool {
    POOL.get_or_init(|| pool_with(BlockingLimits::default()))
}

/// Sets the process's limits. Only the first call before any blocking work counts; returns
/// whether these limits are now in force.
pub fn set_limits(limits: BlockingLimits) -> bool {
    POOL.set(pool_with(limits)).is_ok()
}

/// The limits in force.
pub fn limits() -> BlockingLimits {
    pool().limits
}

/// Bodies of `tool` running now (including ones whose caller gave up waiting).
pub fn running(tool: &str) -> usize {
    let p = pool();
    let sem = p
        .per_tool
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(tool)
        .cloned();
    sem.map_or(0, |s| p.limits.per_tool - s.available_permits())
}

/// Bodies of all tools running now.
pub fn running_total() -> usize {
    let p = pool();
    p.limits.total - p.total.available_permits()
}

fn tool_semaphore(tool: &str) -> Arc<Semaphore> {
    let p = pool();
    let mut map = p.per_tool.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(tool.to_string())
        .or_insert_with(|| Arc::new(Semaphore::new(p.limits.per_tool)))
        .clone()
}

thread_local! {
    /// The watch of the attempt being polled on this thread: moved in for each poll of the
    /// attempt's future and moved back out after it (no reference count changes per poll).
    static CURRENT: std::cell::Cell<Option<BlockingWatch>> = const { std::cell::Cell::new(None) };
    /// Whether the attempt being polled wants a watch made when a blocking body starts and
    /// none is in scope yet ([`BlockingWatch::enter_lazily`]).
    static LAZY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Puts the watch back where it came from, and the one it replaced back in scope, when a poll
/// ends (also when it unwinds).
struct Restore<'a> {
    slot: &'a mut Option<BlockingWatch>,
    prev: Option<BlockingWatch>,
    prev_lazy: bool,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let prev = self.prev.take();
        *self.slot = CURRENT.with(|c| c.replace(prev));
        LAZY.with(|l| l.set(self.prev_lazy));
    }
}

/// Counts the blocking bodies a call started that are still running. The runtime's deadline
/// installs one around each attempt ([`BlockingWatch::scope`]); [`run_blocking`] reports into
/// the one in scope.
#[derive(Debug, Clone, Default)]
pub struct BlockingWatch(Arc<AtomicUsize>);

impl BlockingWatch {
    /// A watch that saw nothing yet.
    pub fn new() -> Self {
        BlockingWatch::default()
    }

    /// Bodies started under this watch that have not returned.
    pub fn running(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Runs `fut` with this watch in scope during each of its polls.
    pub async fn scope<F: std::future::Future>(self, fut: F) -> F::Output {
        let mut fut = std::pin::pin!(fut);
        let mut watch = Some(self);
        std::future::poll_fn(move |cx| {
            BlockingWatch::enter_in(&mut watch, || fut.as_mut().poll(cx))
        })
        .await
    }

    /// Runs the sync `f` with this watch in scope (what [`BlockingWatch::scope`] does around
    /// each poll of its future).
    pub fn enter<R>(self, f: impl FnOnce() -> R) -> R {
        BlockingWatch::enter_in(&mut Some(self), f)
    }

    /// Runs the sync `f` with the watch in `slot` (if any) in scope: the watch is moved into
    /// scope for the run of `f` and back into `slot` after it, so a future that keeps its
    /// watch pays no reference count per poll. Scopes nest: the watch in scope before is in
    /// scope again after.
    pub fn enter_in<R>(slot: &mut Option<BlockingWatch>, f: impl FnOnce() -> R) -> R {
        BlockingWatch::enter_with(slot, false, f)
    }

    /// [`BlockingWatch::enter_in`] for a slot that may stay empty: a watch is made (and left in
    /// `slot` after `f`) only when a blocking body starts during `f`, so an attempt that runs
    /// none costs no allocation.
    pub fn enter_lazily<R>(slot: &mut Option<BlockingWatch>, f: impl FnOnce() -> R) -> R {
        BlockingWatch::enter_with(slot, true, f)
    }

    fn enter_with<R>(slot: &mut Option<BlockingWatch>, lazy: bool, f: impl FnOnce() -> R) -> R {
        let prev = CURRENT.with(|c| c.replace(slot.take()));
        let prev_lazy = LAZY.with(|l| l.replace(lazy));
        let _restore = Restore {
            slot,
            prev,
            prev_lazy,
        };
        f()
    }

    /// The watch in scope, if any.
    pub fn current() -> Option<BlockingWatch> {
        CURRENT.with(|c| {
            let w = match c.take() {
                None if LAZY.with(std::cell::Cell::get) => Some(BlockingWatch::new()),
                w => w,
            };
            let copy = w.clone();
            c.set(w);
            copy
        })
    }
}

/// Decrements a watch and releases the permits when the body returns (or panics).
struct Running {
    watch: Option<BlockingWatch>,
    _tool: OwnedSemaphorePermit,
    _total: OwnedSemaphorePermit,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(w) = &self.watch {
            w.0.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Runs the sync body `f` of `tool` on tokio's blocking pool within the limits (see the module
/// docs). A panic in `f` becomes `INTERNAL`.
///
/// # Errors
/// `INTERNAL` when `f` panicked, `CANCELLED` when the runtime shut down under it.
pub async fn run_blocking<F, R>(tool: &str, f: F) -> Result<R, ToolError>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let closed = || ToolError::cancelled("The blocking pool is shut down.");
    let tool_permit = tool_semaphore(tool)
        .acquire_owned()
        .await
        .map_err(|_| closed())?;
    let total_permit = pool()
        .total
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| closed())?;
    let watch = BlockingWatch::current();
    if let Some(w) = &watch {
        w.0.fetch_add(1, Ordering::SeqCst);
    }
    let running = Running {
        watch,
        _tool: tool_permit,
        _total: total_permit,
    };
    let handle = tokio::task::spawn_blocking(move || {
        let _running = running;
        f()
    });
    handle.await.map_err(crate::__private::join_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_hung_tool_holds_only_its_own_permits() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = Arc::new(Mutex::new(rx));
        let per_tool = limits().per_tool;
        let mut waiting = Vec::new();
        for _ in 0..per_tool + 3 {
            let rx = rx.clone();
            waiting.push(tokio::spawn(tokio::time::timeout(
                Duration::from_millis(100),
                run_blocking("hangs_in_test", move || {
                    let _ = rx.lock().map(|r| r.recv());
                }),
            )));
        }
        for w in waiting {
            assert!(w.await.unwrap().is_err(), "a hung body answered");
        }
        // One body holds the receiver's lock; the others wait on it: all hold permits.
        assert_eq!(running("hangs_in_test"), per_tool);
        let other = run_blocking("other_tool_in_test", || 1 + 1).await.unwrap();
        assert_eq!(other, 2);
        drop(tx); // every hung body returns
        for _ in 0..200 {
            if running("hangs_in_test") == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(running("hangs_in_test"), 0);
    }

    #[tokio::test]
    async fn the_watch_sees_a_body_outlive_its_caller() {
        let watch = BlockingWatch::new();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let w = watch.clone();
        let res = tokio::time::timeout(
            Duration::from_millis(50),
            w.scope(run_blocking("watched_in_test", move || {
                let _ = rx.recv();
            })),
        )
        .await;
        assert!(res.is_err());
        assert_eq!(watch.running(), 1);
        drop(tx);
        for _ in 0..200 {
            if watch.running() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(watch.running(), 0);
    }

    #[test]
    fn a_lazy_scope_makes_its_watch_only_when_asked() {
        let mut slot = None;
        BlockingWatch::enter_lazily(&mut slot, || {});
        assert!(slot.is_none(), "nothing started: no watch");
        BlockingWatch::enter_lazily(&mut slot, || {
            let made = BlockingWatch::current().unwrap();
            // The same one for the rest of the scope.
            assert!(Arc::ptr_eq(&made.0, &BlockingWatch::current().unwrap().0));
            // A scope inside (another call's attempt) does not make one.
            BlockingWatch::enter_in(&mut None, || assert!(BlockingWatch::current().is_none()));
            assert!(Arc::ptr_eq(&made.0, &BlockingWatch::current().unwrap().0));
        });
        let made = slot.clone().unwrap();
        // Kept by the slot and put back in scope by the next poll.
        BlockingWatch::enter_lazily(&mut slot, || {
            assert!(Arc::ptr_eq(&made.0, &BlockingWatch::current().unwrap().0));
        });
        assert!(
            BlockingWatch::current().is_none(),
            "no watch outside a scope"
        );
    }

    #[test]
    fn scopes_nest_and_give_the_watch_back() {
        let outer = BlockingWatch::new();
        let inner = BlockingWatch::new();
        assert!(BlockingWatch::current().is_none());
        let mut slot = Some(outer.clone());
        BlockingWatch::enter_in(&mut slot, || {
            let seen = BlockingWatch::current().unwrap();
            assert!(Arc::ptr_eq(&seen.0, &outer.0));
            inner.clone().enter(|| {
                let seen = BlockingWatch::current().unwrap();
                assert!(Arc::ptr_eq(&seen.0, &inner.0));
            });
            let seen = BlockingWatch::current().unwrap();
            assert!(Arc::ptr_eq(&seen.0, &outer.0));
        });
        assert!(
            Arc::ptr_eq(&slot.unwrap().0, &outer.0),
            "the watch came back"
        );
        assert!(BlockingWatch::current().is_none());
        // Also when the scope unwinds.
        let mut slot = Some(outer.clone());
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            BlockingWatch::enter_in(&mut slot, || panic!("in scope"))
        }));
        assert!(unwound.is_err());
        assert!(slot.is_some());
        assert!(BlockingWatch::current().is_none());
    }

    #[tokio::test]
    async fn a_panic_is_internal() {
        let err = run_blocking("panics_in_test", || -> u32 { panic!("boom") })
            .await
            .unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::Internal);
        assert_eq!(running("panics_in_test"), 0);
    }
}
