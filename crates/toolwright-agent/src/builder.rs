//! The ergonomic surface of the agent: [`Agent::builder`], [`Agent::run`] returning a `Result`,
//! and [`Agent::run_stream`], the run's events as a [`Stream`].
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use futures::StreamExt;
//! use serde_json::json;
//! use toolwright_agent::{Agent, AgentStreamEvent, Reply};
//! use toolwright_agent::providers::scripted::ScriptedProvider;
//! use toolwright_core::{FnTool, Registry, ToolCall, ToolOutput, ToolSpec};
//!
//! let tools = Registry::new();
//! tools.register(FnTool::new(
//!     ToolSpec::new("add", "Add two integers.", json!({"type": "object",
//!         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!         "required": ["a", "b"]})),
//!     |args, _| async move { Ok(ToolOutput::Data(json!(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0)))) },
//! )).unwrap();
//! let provider = ScriptedProvider::from_replies(vec![
//!     Reply::calls(vec![ToolCall::new("c1", "add", json!({"a": 2, "b": 3}))]),
//!     Reply::text("5"),
//! ]);
//! let mut agent = Agent::builder(provider).tools(tools).max_steps(4).build();
//!
//! // Events as they happen, then the outcome.
//! let mut events = Box::pin(agent.run_stream("What is 2 + 3?"));
//! let mut calls = 0;
//! while let Some(event) = events.next().await {
//!     match event {
//!         AgentStreamEvent::CallFinished(record) => calls += usize::from(!record.envelope.is_error()),
//!         AgentStreamEvent::Done(result) => assert_eq!(result.unwrap().text, "5"),
//!         _ => {}
//!     }
//! }
//! assert_eq!(calls, 1);
//! # });
//! ```

use crate::agent::{Agent, AgentConfig, AgentEvent, CallRecord, Mode, Observer, StopReason, Trace};
use crate::message::Reply;
use crate::provider::Provider;
use crate::routing::{Ranker, Routing};
use futures::{FutureExt, Stream, StreamExt};
use std::sync::Arc;
use toolwright_core::{Registry, ToolCall};
use toolwright_runtime::Runtime;

/// Builds an [`Agent`]: a provider, the tools (a registry or a configured runtime) and settings.
pub struct AgentBuilder {
    provider: Arc<dyn Provider>,
    runtime: Option<Runtime>,
    config: AgentConfig,
    ranker: Option<Arc<dyn Ranker>>,
    observer: Option<Arc<dyn Observer>>,
}

impl std::fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("provider", &self.provider.name())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl AgentBuilder {
    /// The tools, run by a [`Runtime`] with default policies (see [`AgentBuilder::runtime`] to
    /// configure one). Without tools the agent only talks.
    pub fn tools(mut self, registry: impl Into<Arc<Registry>>) -> Self {
        self.runtime = Some(Runtime::new(registry.into()));
        self
    }

    /// The runtime that runs the tools (its store, policies and metrics).
    pub fn runtime(mut self, runtime: Runtime) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Most model turns per query (default 8; at least 1).
    pub fn max_steps(mut self, n: u32) -> Self {
        self.config.max_steps = n.max(1);
        self
    }

    /// Loop (default) or plan-execute.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.config.mode = mode;
        self
    }

    /// The agent's name in telemetry: `gen_ai.agent.name`, and the run's span is named
    /// `invoke_agent {name}`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = Some(name.into());
        self
    }

    /// A system prompt placed first in the conversation.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.config.system_prompt = Some(prompt.into());
        self
    }

    /// How large toolsets are routed.
    pub fn routing(mut self, routing: Routing) -> Self {
        self.config.routing = routing;
        self
    }

    /// Calls that need a person's confirmation count as approved (off by default).
    pub fn approve(mut self, yes: bool) -> Self {
        self.config.approve = yes;
        self
    }

    /// Every setting at once (replaces what the setters above set).
    pub fn config(mut self, config: AgentConfig) -> Self {
        self.config = config;
        self
    }

    /// Ranks tools with `ranker` instead of the default BM25 router.
    pub fn ranker(mut self, ranker: Arc<dyn Ranker>) -> Self {
        self.ranker = Some(ranker);
        self
    }

    /// Reports progress to `observer`.
    pub fn observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The agent.
    pub fn build(self) -> Agent {
        let runtime = self
            .runtime
            .unwrap_or_else(|| Runtime::new(Arc::new(Registry::new())));
        let mut agent = Agent::new(self.provider, runtime, self.config);
        if let Some(r) = self.ranker {
            agent = agent.with_ranker(r);
        }
        if let Some(o) = self.observer {
            agent = agent.with_observer(o);
        }
        agent
    }
}

/// The answer of a successful run, with its trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The model's final text.
    pub text: String,
    /// Everything the run did.
    pub trace: Trace,
}

/// Why a run ended without an answer; the trace is kept.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AgentError {
    /// The provider failed after its own retries.
    #[error("the model provider failed: {message}")]
    Provider {
        /// What went wrong.
        message: String,
        /// The run so far.
        trace: Box<Trace>,
    },
    /// The step limit was reached before an answer.
    #[error("no answer within {steps} model turns")]
    MaxSteps {
        /// The limit.
        steps: usize,
        /// The run.
        trace: Box<Trace>,
    },
    /// The model repeated a failing call with identical arguments.
    #[error("the model repeated a failing call of `{tool}`")]
    RepeatedFailingCall {
        /// The tool.
        tool: String,
        /// The run.
        trace: Box<Trace>,
    },
}

impl AgentError {
    /// The trace of the failed run.
    pub fn trace(&self) -> &Trace {
        match self {
            AgentError::Provider { trace, .. }
            | AgentError::MaxSteps { trace, .. }
            | AgentError::RepeatedFailingCall { trace, .. } => trace,
        }
    }
}

impl From<Trace> for Result<Answer, AgentError> {
    fn from(trace: Trace) -> Self {
        match (&trace.stop, &trace.answer) {
            (StopReason::Answered, Some(text)) => Ok(Answer {
                text: text.clone(),
                trace,
            }),
            (StopReason::ProviderError { message }, _) => Err(AgentError::Provider {
                message: message.clone(),
                trace: Box::new(trace),
            }),
            (StopReason::RepeatedFailingCall { tool }, _) => Err(AgentError::RepeatedFailingCall {
                tool: tool.clone(),
                trace: Box::new(trace),
            }),
            _ => Err(AgentError::MaxSteps {
                steps: trace.steps.len(),
                trace: Box::new(trace),
            }),
        }
    }
}

/// One event of [`Agent::run_stream`], owned so it can cross threads.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentStreamEvent {
    /// The model is being asked (step is 1-based).
    ModelStarted {
        /// The step.
        step: u32,
    },
    /// The model answered: its text and tool calls, and how long it took.
    ModelFinished {
        /// The step.
        step: u32,
        /// Milliseconds.
        ms: u64,
        /// The reply.
        reply: Box<Reply>,
    },
    /// A call is about to run.
    CallStarted {
        /// The call.
        call: ToolCall,
        /// Its display label.
        label: String,
    },
    /// A call finished, with the envelope the model receives.
    CallFinished(Box<CallRecord>),
    /// The run ended; always the last event.
    Done(Result<Box<Answer>, AgentError>),
}

/// Forwards the agent's events into a channel (and to the observer that was there before).
struct Forward {
    tx: tokio::sync::mpsc::UnboundedSender<AgentStreamEvent>,
    inner: Option<Arc<dyn Observer>>,
}

impl Observer for Forward {
    fn event(&self, event: &AgentEvent<'_>) {
        if let Some(o) = &self.inner {
            o.event(event);
        }
        let owned = match event {
            // The routing is in the trace that `Done` carries; the stream starts at the model.
            AgentEvent::Routed { .. } => return,
            AgentEvent::ModelStarted { step } => AgentStreamEvent::ModelStarted { step: *step },
            AgentEvent::ModelFinished { step, ms, reply } => AgentStreamEvent::ModelFinished {
                step: *step,
                ms: *ms,
                reply: Box::new((*reply).clone()),
            },
            AgentEvent::CallStarted { call, label } => AgentStreamEvent::CallStarted {
                call: (*call).clone(),
                label: (*label).to_string(),
            },
            AgentEvent::CallFinished { record } => {
                AgentStreamEvent::CallFinished(Box::new((*record).clone()))
            }
        };
        // The receiver is gone only when the stream was dropped: nothing to tell then.
        let _ = self.tx.send(owned);
    }
}

impl Agent {
    /// Starts building an agent over `provider`.
    pub fn builder(provider: impl Provider + 'static) -> AgentBuilder {
        Self::builder_arc(Arc::new(provider))
    }

    /// [`Agent::builder`] with a provider already behind an `Arc`.
    pub fn builder_arc(provider: Arc<dyn Provider>) -> AgentBuilder {
        AgentBuilder {
            provider,
            runtime: None,
            config: AgentConfig::default(),
            ranker: None,
            observer: None,
        }
    }

    /// Runs one query (continuing the conversation): the answer, or why there is none; both
    /// carry the trace. Never panics.
    ///
    /// # Errors
    /// The provider failed, the step limit came first, or the model repeated a failing call.
    pub async fn run(&mut self, query: &str) -> Result<Answer, AgentError> {
        self.run_trace(query).await.into()
    }

    /// Runs one query and yields its events as they happen (model turns, tool calls with their
    /// envelopes), ending with [`AgentStreamEvent::Done`]. Dropping the stream cancels the run.
    pub fn run_stream<'a>(
        &'a mut self,
        query: &'a str,
    ) -> impl Stream<Item = AgentStreamEvent> + Send + 'a {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let previous = self.observer();
        self.set_observer(Some(Arc::new(Forward {
            tx: tx.clone(),
            inner: previous.clone(),
        })));
        let run = async move {
            let result: Result<Answer, AgentError> = self.run_trace(query).await.into();
            // Restoring the observer drops the forwarder's sender; `tx` goes with this future.
            self.set_observer(previous);
            let _ = tx.send(AgentStreamEvent::Done(result.map(Box::new)));
        };
        let events =
            futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) });
        // Drive the run while yielding its events; the stream ends once both are done.
        futures::stream::select(run.into_stream().filter_map(|()| async { None }), events)
    }
}
