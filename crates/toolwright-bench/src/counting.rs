//! A global allocator that counts, for the examples that measure heap use (`allocs`, `regmem`):
//! install it with `#[global_allocator] static A: Counting = Counting;` and read [`stats`].
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

/// The system allocator, counting allocations, bytes asked for, live bytes and their peak.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counting;

/// What [`Counting`] has seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Allocations and reallocations.
    pub allocs: u64,
    /// Bytes asked for by them.
    pub bytes: u64,
    /// Bytes allocated and not freed.
    pub live: i64,
    /// The most `live` has been since the last [`reset_peak`].
    pub peak: i64,
}

/// The counters now.
pub fn stats() -> Stats {
    Stats {
        allocs: ALLOCS.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
        live: LIVE.load(Ordering::Relaxed),
        peak: PEAK.load(Ordering::Relaxed),
    }
}

/// Starts the peak over from the live bytes now.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

fn grew(by: usize) {
    let by = i64::try_from(by).unwrap_or(i64::MAX);
    let now = LIVE.fetch_add(by, Ordering::Relaxed).saturating_add(by);
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrank(by: usize) {
    LIVE.fetch_sub(i64::try_from(by).unwrap_or(i64::MAX), Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counters are atomics
// and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(l.size() as u64, Ordering::Relaxed);
        grew(l.size());
        // SAFETY: the caller's contract for `alloc` is passed on as it is.
        unsafe { System.alloc(l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        shrank(l.size());
        // SAFETY: `p` was allocated by `System` with layout `l` (every allocation goes there).
        unsafe { System.dealloc(p, l) }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(n as u64, Ordering::Relaxed);
        shrank(l.size());
        grew(n);
        // SAFETY: as `dealloc`, and the caller's contract for `realloc` is passed on.
        unsafe { System.realloc(p, l, n) }
    }
}
