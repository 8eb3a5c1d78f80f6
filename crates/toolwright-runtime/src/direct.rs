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
use crate::timeout::{self, Deadline};
use crate::{confirm, fallback, idempotency, ratelimit};
use futures::future::BoxFuture;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use toolwright_core::{GuardedCall, Outcome, ToolError};

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

    /// The call of `req` (one [`Direct::takes`]), which started at `start`.
    pub(crate) fn call(&self, req: Request, start: std::time::Instant) -> DirectCall {
        if !self.policies {
            // Only the tool, with panics caught.
            return DirectCall::first(service::run_inline(req), None, None, self);
        }
        // As the retry policy does: the first attempt shares the request's token, and the
        // request is kept only when the call may run again.
        let rerun = self.retry.max_retries > 0 && retry::safe_to_rerun(&req);
        let (mut first, kept) = if rerun {
            (req.share(), Some(req))
        } else {
            (req, None)
        };
        // As the deadline policy does, counting from the call's start (no second clock read);
        // a kept request holds the token the deadline cancels (no copy of it for the deadline).
        let start = tokio::time::Instant::from_std(start);
        // The attempt makes its blocking watch only when a sync body starts (most start none);
        // the deadline is given it before it waits.
        let deadline = Deadline::arm_from(
            &mut first,
            self.default_timeout,
            start,
            kept.is_some(),
            true,
        );
        if deadline.host_cancelled() {
            return DirectCall {
                state: State::Slow(Box::pin(std::future::ready(timeout::cancelled_outcome()))),
            };
        }
        let attempt = service::run_inline(first).watch_lazily();
        DirectCall::first(attempt, Some(deadline), kept, self)
    }
}

/// The future of a call on the direct path.
pub(crate) struct DirectCall {
    state: State,
}

// The first attempt is kept inline: boxing it would cost the allocation per call this path
// exists to avoid; the future is made once and moved once into the caller's.
#[allow(clippy::large_enum_variant)]
enum State {
    /// The first attempt, polled in place.
    First(First),
    /// Waiting past the first poll, or retrying.
    Slow(BoxFuture<'static, Outcome>),
    Done,
}

/// The first attempt and what its deadline and retries need.
struct First {
    attempt: GuardedCall,
    /// None when the policies are off (no deadline, no retries).
    deadline: Option<Deadline>,
    /// The request, when the call may run again.
    kept: Option<Request>,
    retry: RetryPolicy,
    attempts: BoxService,
}

impl DirectCall {
    fn first(
        attempt: GuardedCall,
        deadline: Option<Deadline>,
        kept: Option<Request>,
        direct: &Direct,
    ) -> Self {
        DirectCall {
            state: State::First(First {
                attempt,
                deadline,
                kept,
                retry: direct.retry,
                attempts: direct.attempts.clone(),
            }),
        }
    }
}

impl First {
    /// What follows the first attempt's answer `out`: the answer, or the retries.
    fn answered(self, out: Outcome) -> Result<Outcome, BoxFuture<'static, Outcome>> {
        match self.kept {
            Some(req) if retry::again(&req, &out) => Err(Box::pin(retry::retry_loop(
                self.attempts,
                self.retry,
                req,
                out,
            ))),
            _ => Ok(out),
        }
    }

    /// The rest of a first attempt that did not answer on its first poll: its deadline's wait,
    /// then the retries.
    fn waiting(self) -> BoxFuture<'static, Outcome> {
        Box::pin(async move {
            let mut this = self;
            let out = match this.deadline.take() {
                Some(mut deadline) => {
                    if let Some(kept) = &this.kept {
                        deadline.use_token(&kept.cancel);
                    }
                    deadline.use_watch(this.attempt.watch());
                    deadline.wait(Pin::new(&mut this.attempt)).await
                }
                None => (&mut this.attempt).await,
            };
            match this.answered(out) {
                Ok(out) => out,
                Err(retries) => retries.await,
            }
        })
    }
}

impl Future for DirectCall {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                State::Slow(fut) => {
                    let out = std::task::ready!(fut.as_mut().poll(cx));
                    this.state = State::Done;
                    return Poll::Ready(out);
                }
                State::Done => {
                    return Poll::Ready(Outcome::from_error(ToolError::internal(
                        "a finished call was polled again",
                    )));
                }
                State::First(first) => match Pin::new(&mut first.attempt).poll(cx) {
                    Poll::Ready(out) => {
                        // Most calls end here: the first attempt is dropped where it is (an
                        // attempt is a few hundred bytes: it is not moved out to be dropped).
                        if !first
                            .kept
                            .as_ref()
                            .is_some_and(|req| retry::again(req, &out))
                        {
                            this.state = State::Done;
                            return Poll::Ready(out);
                        }
                        let State::First(first) = std::mem::replace(&mut this.state, State::Done)
                        else {
                            continue;
                        };
                        match first.answered(out) {
                            Ok(out) => return Poll::Ready(out),
                            Err(retries) => this.state = State::Slow(retries),
                        }
                    }
                    // Polled again at once by the wait: its timer and wakers are set then.
                    Poll::Pending => {
                        let State::First(first) = std::mem::replace(&mut this.state, State::Done)
                        else {
                            continue;
                        };
                        this.state = State::Slow(first.waiting());
                    }
                },
            }
        }
    }
}
