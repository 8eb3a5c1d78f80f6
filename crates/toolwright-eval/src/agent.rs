//! The [`Solver`] over toolwright's agent: the same model in both modes.
//!
//! - `naive`: BFCL's own single shot for prompt-based models ([`crate::naive`]): its default
//!   system prompt with every tool, the model as a plain chat, the answer decoded like BFCL's
//!   AST decoder; no grammar, no validation feedback, no routing, no retries. The calls scored
//!   are the ones the model wrote, as it wrote them.
//! - `guided`: the agent's loop: routing, the provider's narrow schemas (for the embedded
//!   model: a relevance floor on the router score, schemas narrowed to the query with numbers
//!   grounded in it, a GBNF grammar for one call or a list of parallel calls, a second try when
//!   a call repeats a number), validation feedback and retry budgets. The calls scored are the ones the
//!   runtime accepted, with the arguments it validated (lenient coercions applied), without
//!   duplicates: what a tool would really have been called with.

use crate::run::{Attempt, Mode, PreparedTask, Solver};
use crate::score::Call;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::Arc;
use toolwright_agent::{Agent, AgentConfig, Provider, StopReason, Trace};
use toolwright_core::Status;
use toolwright_core::canonical::canonical_string;

/// Runs tasks through [`Agent`] with one provider per mode (the same model behind both).
pub struct AgentSolver {
    naive: Arc<dyn Provider>,
    guided: Arc<dyn Provider>,
    max_steps: u32,
}

impl std::fmt::Debug for AgentSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSolver")
            .field("naive", &self.naive.name())
            .field("guided", &self.guided.name())
            .finish()
    }
}

impl AgentSolver {
    /// `naive` answers in naive mode (as a plain chat model: it gets no tool definitions, only
    /// BFCL's prompt), `guided` in guided mode. For a remote model both may be the same provider;
    /// the embedded model is a plain chat for naive and its grammar-constrained provider for
    /// guided.
    pub fn new(naive: Arc<dyn Provider>, guided: Arc<dyn Provider>) -> Self {
        AgentSolver {
            naive,
            guided,
            max_steps: 6,
        }
    }

    /// Most model turns per task in guided mode (default 6).
    pub fn with_max_steps(mut self, n: u32) -> Self {
        self.max_steps = n.max(1);
        self
    }

    /// The agent configuration of guided mode.
    pub fn config(&self) -> AgentConfig {
        AgentConfig {
            mode: toolwright_agent::Mode::Loop,
            max_steps: self.max_steps,
            ..AgentConfig::default()
        }
    }
}

impl Solver for AgentSolver {
    fn name(&self) -> String {
        let (n, g) = (self.naive.name(), self.guided.name());
        if n == g {
            n
        } else {
            format!("naive: {n} · guided: {g}")
        }
    }

    fn solve<'a>(&'a self, task: &'a PreparedTask, mode: Mode) -> BoxFuture<'a, Attempt> {
        Box::pin(async move {
            if mode == Mode::Naive {
                return crate::naive::solve(self.naive.as_ref(), task).await;
            }
            let mut agent = Agent::new(self.guided.clone(), task.runtime.clone(), self.config());
            let trace = agent.run_trace(&task.task.query).await;
            attempt_from_trace(&trace, mode)
        })
    }
}

/// What a trace means for scoring (see the module docs for which calls count in each mode).
pub fn attempt_from_trace(trace: &Trace, mode: Mode) -> Attempt {
    let calls: Vec<Call> = match mode {
        Mode::Naive => trace
            .calls
            .iter()
            .map(|r| Call::new(r.call.name.clone(), r.call.arguments.clone()))
            .collect(),
        Mode::Guided => {
            let mut seen = std::collections::HashSet::new();
            trace
                .calls
                .iter()
                .filter(|r| r.envelope.status() == Status::Success)
                .map(|r| {
                    let validated = r
                        .envelope
                        .data
                        .as_ref()
                        .and_then(|d| d.get("arguments"))
                        .filter(|a| a.is_object())
                        .cloned();
                    Call::new(
                        r.call.name.clone(),
                        validated.unwrap_or_else(|| r.call.arguments.clone()),
                    )
                })
                .filter(|c| {
                    seen.insert(format!("{}\u{0}{}", c.name, canonical_string(&c.arguments)))
                })
                .collect()
        }
    };
    let steps: Vec<Value> = trace
        .steps
        .iter()
        .map(|s| {
            let mut v = serde_json::Map::new();
            v.insert("step".into(), json!(s.step));
            if let Some(t) = &s.text {
                v.insert("text".into(), json!(t));
            }
            if let Some(t) = &s.thought {
                v.insert("thought".into(), json!(t));
            }
            if !s.plan.is_empty() {
                v.insert("plan".into(), json!(s.plan));
            }
            let made: Vec<Value> = trace
                .calls
                .iter()
                .filter(|c| c.step == s.step)
                .map(|c| json!({"name": c.call.name, "arguments": c.call.arguments}))
                .collect();
            if !made.is_empty() {
                v.insert("calls".into(), Value::Array(made));
            }
            if !s.notes.is_empty() {
                v.insert("notes".into(), json!(s.notes));
            }
            Value::Object(v)
        })
        .collect();
    let output = serde_json::to_string_pretty(&json!({
        "tools_offered": trace.tools_offered,
        "steps": steps,
        "answer": trace.answer,
        "stop": trace.stop,
    }))
    .unwrap_or_default();
    Attempt {
        calls,
        output,
        envelopes: trace.calls.iter().map(|r| r.envelope.to_json()).collect(),
        round_trips: u32::try_from(trace.steps.len()).unwrap_or(u32::MAX),
        prompt_tokens: trace.usage.input_tokens,
        completion_tokens: trace.usage.output_tokens,
        error: match &trace.stop {
            StopReason::ProviderError { message } => Some(message.clone()),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{RunOptions, run};
    use toolwright_agent::Reply;
    use toolwright_agent::providers::scripted::ScriptedProvider;
    use toolwright_core::ToolCall;

    fn tasks() -> Vec<crate::Task> {
        crate::dataset::parse_jsonl(
            r#"{"id":"a","category":"simple","query":"How many users are admins? Use limit 5.","functions":[{"name":"query_users","description":"Query users by role.","parameters":{"type":"object","properties":{"role":{"type":"string","enum":["admin","developer"]},"limit":{"type":"integer"}},"required":["role"],"additionalProperties":false}}],"expected":[{"name":"query_users","arguments":{"role":["admin"],"limit":[5]}}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn guided_scores_the_validated_call_after_feedback_and_naive_the_raw_one() {
        // The same model output in both modes: first a wrong enum value, then (after feedback,
        // guided only) the corrected call with the limit as a string, then an answer.
        let replies = || {
            vec![
                Reply::calls(vec![ToolCall::new(
                    "c1",
                    "query_users",
                    json!({"role": "admins", "limit": 5}),
                )]),
                Reply::calls(vec![ToolCall::new(
                    "c2",
                    "query_users",
                    json!({"role": "admin", "limit": "5"}),
                )]),
                Reply::text("There are 5."),
            ]
        };
        // naive: BFCL's Python call format, the same wrong enum value
        let naive: Arc<dyn Provider> = Arc::new(ScriptedProvider::from_replies(vec![Reply::text(
            "[query_users(role='admins', limit=5)]",
        )]));
        let guided: Arc<dyn Provider> = Arc::new(ScriptedProvider::from_replies(replies()));
        let solver = AgentSolver::new(naive, guided);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let report = rt
            .block_on(run(
                &tasks(),
                &solver,
                &[Mode::Naive, Mode::Guided],
                &RunOptions::default(),
            ))
            .unwrap();
        let naive = &report.results[0];
        assert!(!naive.score.correct);
        assert_eq!(naive.score.error, Some(crate::ErrorKind::WrongValue));
        assert!(!naive.valid_call);
        let guided = &report.results[1];
        assert!(guided.score.correct, "{guided:#?}");
        assert_eq!(guided.calls[0].arguments["limit"], 5); // coerced by the runtime
        assert!(guided.round_trips >= 2);
        assert_eq!(guided.envelopes[0]["error"]["code"], "VALIDATION_ERROR");
        assert_eq!(report.reduction, Some(1.0));
    }
}
