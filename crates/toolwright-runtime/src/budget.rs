//! Retry budgets per (session, step, tool).
//!
//! Every failed call of a tool within one agent step uses one attempt of the tool's budget
//! (`max_retries`, default 3); successful calls use none, so a batch that asks the same tool
//! several things is not penalised. `meta.attempt` and `meta.attempts_left` tell the model where
//! it stands. When a failure uses the last attempt the envelope turns `retryable: false` and tells
//! the model to stop and tell the user; a further call of that tool in that step is not run. A
//! new step starts new budgets.

use std::collections::HashMap;
use std::sync::Mutex;
use toolwright_core::{ErrorCode, Outcome, Status, ToolError};

/// What the model is told when a budget is used up.
pub const STOP_INSTRUCTION: &str = "You have used every attempt allowed for this tool in this \
    step. Stop calling it and tell the user what went wrong.";

#[derive(Debug, Clone)]
struct State {
    step: u32,
    failures: u32,
    last: Option<(ErrorCode, String)>,
}

/// The attempt a call was given by [`Budgets::begin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    /// 1-based attempt number.
    pub number: u32,
    /// The budget.
    pub max: u32,
}

/// Budgets of every (session, tool), for the step each was last used in.
#[derive(Debug, Default)]
pub struct Budgets {
    /// session → tool → state; only failures create entries, so a successful call neither
    /// allocates nor writes.
    map: Mutex<Tracked>,
}

#[derive(Debug, Default)]
struct Tracked {
    sessions: HashMap<String, HashMap<String, State>>,
    entries: usize,
}

/// Upper bound on tracked (session, tool) pairs before old ones are dropped.
const MAX_TRACKED: usize = 65_536;

impl Budgets {
    /// Empty budgets.
    pub fn new() -> Self {
        Budgets::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tracked> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a call: its attempt, or the envelope refusing it when the budget is used up.
    ///
    /// # Errors
    /// The budget of `tool` in this step is used up; the envelope repeats the last error's code
    /// with `retryable: false`.
    pub fn begin(
        &self,
        session: &str,
        step: u32,
        tool: &str,
        max: u32,
    ) -> Result<Attempt, Box<Outcome>> {
        let map = self.lock();
        let fresh = State {
            step,
            failures: 0,
            last: None,
        };
        let st = match map.sessions.get(session).and_then(|m| m.get(tool)) {
            Some(st) if st.step == step => st,
            _ => &fresh,
        };
        if max > 0 && st.failures >= max {
            let (code, last) = st
                .last
                .clone()
                .unwrap_or((ErrorCode::Validation, String::new()));
            let mut e = ToolError::new(
                code,
                format!(
                    "{tool} was not run: its {max} attempts in this step have failed (last error: \
                     {code}: {last})"
                ),
            )
            .with_suggestion(format!(
                "Stop calling {tool} in this step and tell the user what went wrong."
            ))
            .with_retryable(false);
            e.retry_after_ms = None;
            let mut out = Outcome::from_error(e).with_instruction(STOP_INSTRUCTION);
            out.meta.attempt = st.failures.saturating_add(1);
            out.meta.attempts_left = 0;
            return Err(Box::new(out));
        }
        Ok(Attempt {
            number: st.failures.saturating_add(1),
            max,
        })
    }

    /// Ends a call: counts a failure, fills `meta.attempt`/`meta.attempts_left`, and marks the
    /// last allowed failure `retryable: false` with the stop instruction.
    pub fn end(&self, session: &str, step: u32, tool: &str, attempt: Attempt, out: &mut Outcome) {
        out.meta.attempt = attempt.number;
        let counts =
            out.status() == Status::Error && out.error_code() != Some(ErrorCode::Cancelled);
        let mut failures = attempt.number.saturating_sub(1);
        if counts {
            let mut guard = self.lock();
            let map = &mut *guard;
            if map.entries >= MAX_TRACKED {
                map.sessions.clear();
                map.entries = 0;
            }
            let tools = map.sessions.entry(session.to_string()).or_default();
            let st = match tools.get_mut(tool) {
                Some(st) => st,
                None => {
                    map.entries += 1;
                    tools.entry(tool.to_string()).or_insert(State {
                        step,
                        failures: 0,
                        last: None,
                    })
                }
            };
            if st.step != step {
                *st = State {
                    step,
                    failures: 0,
                    last: None,
                };
            }
            if st.step == step {
                st.failures = st.failures.saturating_add(1);
                st.last = out.error().map(|e| (e.code, e.message.clone()));
                failures = st.failures;
            }
        }
        out.meta.attempts_left = attempt.max.saturating_sub(failures.max(attempt.number));
        if counts && attempt.max > 0 && out.meta.attempts_left == 0 {
            if let Some(e) = out.error_mut() {
                e.retryable = false;
                e.suggestion =
                    format!("Stop calling {tool} in this step and tell the user what went wrong.");
            }
            out.instruction = Some(STOP_INSTRUCTION.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fail(b: &Budgets, step: u32) -> Outcome {
        let a = b.begin("s", step, "t", 3).unwrap();
        let mut out = Outcome::from_error(ToolError::validation("bad", "fix"));
        b.end("s", step, "t", a, &mut out);
        out
    }

    #[test]
    fn failures_use_the_budget_and_the_last_one_says_stop() {
        let b = Budgets::new();
        let o1 = fail(&b, 1);
        assert_eq!((o1.meta.attempt, o1.meta.attempts_left), (1, 2));
        assert!(o1.error().unwrap().retryable);
        let o2 = fail(&b, 1);
        assert_eq!((o2.meta.attempt, o2.meta.attempts_left), (2, 1));
        let o3 = fail(&b, 1);
        assert_eq!((o3.meta.attempt, o3.meta.attempts_left), (3, 0));
        assert!(!o3.error().unwrap().retryable);
        assert_eq!(o3.instruction.as_deref(), Some(STOP_INSTRUCTION));
        let refused = b.begin("s", 1, "t", 3).unwrap_err();
        assert_eq!(refused.error_code(), Some(ErrorCode::Validation));
        assert!(!refused.error().unwrap().retryable);
        // A new step, a new budget.
        let o = fail(&b, 2);
        assert_eq!((o.meta.attempt, o.meta.attempts_left), (1, 2));
    }

    #[test]
    fn successes_do_not_use_the_budget() {
        let b = Budgets::new();
        for _ in 0..5 {
            let a = b.begin("s", 1, "t", 3).unwrap();
            let mut out = Outcome::success(json!(1));
            b.end("s", 1, "t", a, &mut out);
            assert_eq!(out.meta.attempt, 1);
        }
    }

    #[test]
    fn sessions_have_separate_budgets() {
        let b = Budgets::new();
        for _ in 0..3 {
            fail(&b, 1);
        }
        assert!(b.begin("s", 1, "t", 3).is_err());
        assert!(b.begin("other", 1, "t", 3).is_ok());
    }
}
