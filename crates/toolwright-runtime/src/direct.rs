//! The direct path: the policy stack's own steps for a call that every policy above the retries
//! lets straight through (no confirmation to ask, no idempotency key, no rate limit, no
//! fallback).
//!
//! The first attempt is polled in place under its deadline, as [`crate::RetryLayer`] and
//! [`crate::TimeoutLayer`] around [`crate::ToolService`] would run it, but without their boxed
//! futures: the deadline's wait (with its timer) and the retry loop (with its backoff) become
//! futures of their own only when the tool has to be waited for or its failure is retried. A tool
//! that answers on its first poll, as most do, costs no timer, no box and no copy of a large
//! future. The steps and answers are the stack's (`tests/direct.rs` runs each scenario both
//! ways); a runtime whose tools run on their own tasks has no direct path.

use crate::retry::{self, RetryPolicy};
use crate::service::{self, BoxService, Request};
use crate::timeout::{self, Deadline, Due};
use crate::{confirm, fallback, idempotency, ratelimit};
use futures::future::BoxFuture;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use toolwright_core::{GuardedCall, Outcome, ToolContext, ToolEntry, ToolError};

/// What the runtime's direct path needs of its builder's settings.
pub(crate) struct Direct {
    /// The reliability policies run (the runtime builder's `policies`).
    pub(crate) policies: bool,
    pub(crate) default_timeout: Duration,
    pub(crate) retry: RetryPolicy,
    /// Deadline → tool: what a retry runs again.
    pub(crate) attempts: BoxService,
}

impl Direct {
    /// Whether every layer above the retries would pass `req` straight through.
    pub(crate) fn takes(&self, req: &Request) -> bool {
        !confirm::gated(req)
            && (!self.policies
                || (!idempotency::keyed(req)
                    && !ratelimit::limited(req)
                    && !fallback::has_fallback(req)))
    }

    /// [`Direct::takes`] for a call of `entry` (`approved` ahead of time or not) whose
    /// arguments carry no idempotency key: what a call run from its raw JSON is (a tool with an
    /// `idempotency_key` argument does not take raw JSON, `toolwright_core::raw_args`). The
    /// same facts as [`Direct::takes`] reads through the request.
    pub(crate) fn takes_unkeyed(&self, entry: &ToolEntry, approved: bool) -> bool {
        let facts = entry.facts();
        (!facts.needs_confirmation || approved)
            && (!self.policies || (!facts.idempotent && !facts.rate_limited && !facts.has_fallback))
    }

    /// [`Direct::reruns`] for a call of `entry` whose arguments carry no idempotency key (and
    /// whose request has none yet, as a request that went through no policy).
    pub(crate) fn reruns_unkeyed(&self, entry: &ToolEntry) -> bool {
        self.policies && self.retry.max_retries > 0 && entry.facts().safe_to_retry
    }

    /// The first attempt of a call of `entry` run from its arguments' JSON `text`
    /// ([`Tool::call_json`](toolwright_core::Tool::call_json)) with `ctx`, as [`Direct::call`]
    /// runs a validated one; `None` (nothing ran) when the tool did not take the text. The
    /// attempt keeps no arguments: the caller keeps the text for the retries.
    pub(crate) fn call_json(
        &self,
        entry: &Arc<ToolEntry>,
        ctx: ToolContext,
        text: &str,
        start: quanta::Instant,
    ) -> Option<DirectCall> {
        let signal = self.policies.then(|| ctx.cancel.clone());
        // A tool's own `call_json` that panics declines: the validated path then runs it.
        let fut = std::panic::catch_unwind(AssertUnwindSafe(|| entry.tool.call_json(text, ctx)))
            .ok()
            .flatten()?;
        let attempt = GuardedCall::started(entry.clone(), fut, None);
        let Some(signal) = signal else {
            return Some(DirectCall::first(attempt, None));
        };
        let deadline =
            Deadline::arm_lazily(entry, &signal, self.default_timeout, Due::After(start));
        if deadline.host_cancelled() {
            return Some(DirectCall {
                state: State::Slow(Box::pin(std::future::ready(timeout::cancelled_outcome()))),
                kept: None,
            });
        }
        Some(DirectCall::first(attempt.watch_lazily(), Some(deadline)))
    }

    /// Whether a call of `req` (one [`Direct::takes`]) may run again after a transient failure
    /// of its first attempt, as the retry policy decides.
    pub(crate) fn reruns(&self, req: &Request) -> bool {
        self.policies && self.retry.max_retries > 0 && retry::safe_to_rerun(req)
    }

    /// The first attempt of `req` (one [`Direct::takes`]), which started at `start`. When
    /// `rerun` (the call [`Direct::reruns`]) the attempt keeps the arguments
    /// ([`DirectCall::take_args`]): the caller, which holds the rest of what the request was
    /// made of, makes it again when the first attempt failed transiently ([`Direct::retries`]).
    /// A tool that borrows its arguments runs from a reference then, so keeping them costs
    /// nothing.
    #[inline(always)]
    pub(crate) fn call(&self, mut req: Request, start: quanta::Instant, rerun: bool) -> DirectCall {
        if !self.policies {
            // Only the tool, with panics caught.
            return DirectCall::first(service::run_inline(req), None);
        }
        // As the deadline policy does, counting from the call's start: the timer's clock is read
        // only when the tool has to be waited for.
        // The attempt makes its blocking watch only when a sync body starts (most start none),
        // and holds the tool's entry: the deadline is given both before it waits.
        let deadline = Deadline::arm_from(&mut req, self.default_timeout, Due::After(start), true);
        if deadline.host_cancelled() {
            return DirectCall {
                state: State::Slow(Box::pin(std::future::ready(timeout::cancelled_outcome()))),
                kept: None,
            };
        }
        let attempt = service::run_inline(req).watch_lazily().keep_args(rerun);
        DirectCall::first(attempt, Some(deadline))
    }

    /// Whether the first attempt's answer `out` asks for the retries of a call that
    /// [`Direct::reruns`].
    pub(crate) fn wants_retries(out: &Outcome) -> bool {
        retry::transient_first(out)
    }

    /// The retries of a call whose first attempt on the direct path failed transiently with
    /// `first`: `req` is the call's request made anew.
    pub(crate) fn retries(&self, req: Request, first: Outcome) -> BoxFuture<'static, Outcome> {
        if !retry::again(&req, &first) {
            return Box::pin(std::future::ready(first));
        }
        Box::pin(retry::retry_loop(
            self.attempts.clone(),
            self.retry,
            req,
            first,
        ))
    }
}

/// The future of a call's first attempt on the direct path (the caller runs the retries, if
/// any: [`Direct::retries`]).
pub(crate) struct DirectCall {
    state: State,
    /// The arguments the first attempt kept for the retries, once it started.
    kept: Option<std::sync::Arc<serde_json::Value>>,
}

// The first attempt is kept inline: boxing it would cost the allocation per call this path
// exists to avoid; the future is made once and moved once into the caller's.
#[allow(clippy::large_enum_variant)]
enum State {
    /// The first attempt, polled in place.
    First(First),
    /// Waiting past the first poll.
    Slow(BoxFuture<'static, Outcome>),
    Done,
}

/// The first attempt and what its deadline needs.
struct First {
    attempt: GuardedCall,
    /// None when the policies are off (no deadline, no retries).
    deadline: Option<Deadline>,
}

impl DirectCall {
    fn first(attempt: GuardedCall, deadline: Option<Deadline>) -> Self {
        DirectCall {
            state: State::First(First { attempt, deadline }),
            kept: None,
        }
    }

    /// The arguments the first attempt kept ([`Direct::call`] with `rerun`), once it started.
    pub(crate) fn take_args(&mut self) -> Option<std::sync::Arc<serde_json::Value>> {
        self.kept.take()
    }
}

impl First {
    /// The rest of a first attempt that did not answer on its first poll: its deadline's wait.
    fn waiting(self) -> BoxFuture<'static, Outcome> {
        Box::pin(async move {
            let mut this = self;
            match this.deadline.take() {
                Some(mut deadline) => {
                    deadline.use_entry(this.attempt.entry());
                    deadline.use_watch(this.attempt.watch());
                    deadline.wait(Pin::new(&mut this.attempt)).await
                }
                None => (&mut this.attempt).await,
            }
        })
    }
}

// The envelope comes boxed: it is a few hundred bytes, and the caller passes it on through the
// runtime's own steps (finish, budgets, metrics) before it is handed out.
impl Future for DirectCall {
    type Output = Box<Outcome>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Box<Outcome>> {
        let this = self.get_mut();
        match &mut this.state {
            State::Slow(fut) => {
                let out = std::task::ready!(fut.as_mut().poll(cx));
                this.state = State::Done;
                Poll::Ready(Box::new(out))
            }
            State::Done => Poll::Ready(Box::new(Outcome::from_error(ToolError::internal(
                "a finished call was polled again",
            )))),
            State::First(first) => match first.attempt.poll_boxed(cx) {
                Poll::Ready(out) => {
                    this.kept = first.attempt.take_args();
                    // Most calls end here: the first attempt is dropped where it is (an attempt
                    // is a few hundred bytes: it is not moved out to be dropped).
                    this.state = State::Done;
                    Poll::Ready(out)
                }
                // Polled again at once by the wait: its timer and wakers are set then.
                Poll::Pending => {
                    this.kept = first.attempt.take_args();
                    let State::First(first) = std::mem::replace(&mut this.state, State::Done)
                    else {
                        return Poll::Pending;
                    };
                    let mut slow = first.waiting();
                    let polled = slow.as_mut().poll(cx);
                    if let Poll::Ready(out) = polled {
                        return Poll::Ready(Box::new(out));
                    }
                    this.state = State::Slow(slow);
                    Poll::Pending
                }
            },
        }
    }
}
