//! The agent loop: ask the model, run its calls through the runtime, give it the envelopes,
//! repeat until it answers or the step limit; and the naive `plan-execute` baseline.

use crate::lenient;
use crate::message::{Message, Reply, Role, Usage};
use crate::provider::{Candidate, Provider, Turn};
use crate::routing::{Ranker, Routing, default_ranker};
use crate::telemetry;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use toolwright_core::canonical::canonical_string;
use toolwright_core::{
    ErrorCode, FieldError, Outcome, Problem, SharedStr, ToolCall, ToolError, ToolSpec,
};
use toolwright_runtime::{CallOptions, Runtime};
use tracing::Instrument;

/// How the agent works.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Multi-step: calls, results back to the model, corrections, until an answer.
    #[default]
    Loop,
    /// The classic single shot: one plan of calls, run in sequence without feedback, then an
    /// answer. The naive baseline for evaluations.
    PlanExecute,
}

impl Mode {
    /// Parses `loop` / `plan-execute` (also `guided` / `naive`).
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "loop" | "guided" | "react" => Some(Mode::Loop),
            "plan-execute" | "plan" | "naive" => Some(Mode::PlanExecute),
            _ => None,
        }
    }
}

/// Settings of an [`Agent`].
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Loop or plan-execute.
    pub mode: Mode,
    /// Most model turns per query (default 8).
    pub max_steps: u32,
    /// Routing of large toolsets.
    pub routing: Routing,
    /// A system prompt placed first in the conversation.
    pub system_prompt: Option<String>,
    /// When the conversation's text exceeds this many characters, older tool results are
    /// shortened (status, message and error kept; data dropped).
    pub context_budget_chars: usize,
    /// Calls count as approved by a person (confirmation gate); off by default.
    pub approve: bool,
    /// The agent's name in telemetry (`gen_ai.agent.name`; the run's span is then named
    /// `invoke_agent {name}`). None by default.
    pub name: Option<String>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            mode: Mode::Loop,
            max_steps: 8,
            routing: Routing::default(),
            system_prompt: None,
            context_budget_chars: 48_000,
            approve: false,
            name: None,
        }
    }
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum StopReason {
    /// The model answered.
    Answered,
    /// The step limit was reached first.
    MaxSteps,
    /// The model repeated a call that had failed, with identical arguments.
    RepeatedFailingCall {
        /// The tool.
        tool: String,
    },
    /// The provider failed (after its own retries).
    ProviderError {
        /// What went wrong.
        message: String,
    },
}

/// One call of a run, with its envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The model turn it came from (1-based).
    pub step: u32,
    /// The call as the model made it (arguments repaired when the text was malformed).
    pub call: ToolCall,
    /// The tool's display label.
    pub label: String,
    /// The envelope the model received.
    pub envelope: Outcome,
    /// Whether the runtime ran it (false: the agent answered it itself, e.g. unreadable arguments).
    pub ran: bool,
}

/// One model turn of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// 1-based.
    pub step: u32,
    /// Time the model took, in milliseconds.
    pub model_ms: u64,
    /// Time the calls of this step took (wall), in milliseconds.
    pub tools_ms: u64,
    /// The model's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The model's reasoning, when the format has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<String>,
    /// The model's plan, when the format has one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<String>,
    /// Ids of the calls made in this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
    /// Tokens, when the provider reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// What the provider or the agent did besides asking the model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The inputs the provider asked the user for instead of calling ([`Reply::needs_input`]):
    /// the run's answer is then that question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs_input: Vec<String>,
}

/// Everything about one query: what was asked, routed, called and answered, with timings and
/// token counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// The query.
    pub query: String,
    /// The provider's name.
    pub provider: String,
    /// The mode.
    pub mode: Mode,
    /// The final answer, when there is one.
    pub answer: Option<String>,
    /// Why the run ended.
    pub stop: StopReason,
    /// The router's ranking, when the agent routed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routed: Option<Vec<Candidate>>,
    /// Tools offered to the model.
    pub tools_offered: Vec<String>,
    /// The model turns.
    pub steps: Vec<StepRecord>,
    /// Every call, in order.
    pub calls: Vec<CallRecord>,
    /// The conversation after the run.
    pub messages: Vec<Message>,
    /// Tokens summed over the turns that reported them.
    pub usage: Usage,
    /// Wall time of the run, in milliseconds.
    pub total_ms: u64,
    /// Time spent waiting for the model, in milliseconds.
    pub model_ms: u64,
    /// Time spent running tools, in milliseconds.
    pub tools_ms: u64,
    /// Agent-level notes (context shortening, repaired arguments...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Progress of a run, for a UI. Emitted synchronously, in order, from inside [`Agent::run`]: an
/// observer sees each step as it happens (`toolwright ui` streams them as server-sent events).
#[derive(Debug)]
pub enum AgentEvent<'a> {
    /// The tools were chosen for the query, before the first model turn.
    Routed {
        /// The router's ranking, when the agent routed (`None`: the whole toolset is offered).
        candidates: Option<&'a [Candidate]>,
        /// The names of the tools offered to the model.
        offered: &'a [String],
    },
    /// The model is being asked (step is 1-based).
    ModelStarted {
        /// The step.
        step: u32,
    },
    /// The model answered.
    ModelFinished {
        /// The step.
        step: u32,
        /// Milliseconds.
        ms: u64,
        /// The reply.
        reply: &'a Reply,
    },
    /// A call is about to run.
    CallStarted {
        /// The call.
        call: &'a ToolCall,
        /// Its display label.
        label: &'a str,
    },
    /// A call finished.
    CallFinished {
        /// The record.
        record: &'a CallRecord,
    },
}

/// Receives [`AgentEvent`]s as a run progresses.
pub trait Observer: Send + Sync {
    /// Called for each event, in order.
    fn event(&self, event: &AgentEvent<'_>);
}

/// Runs queries against a provider and a runtime; keeps the conversation between queries
/// (`chat`). See the crate docs for an example.
pub struct Agent {
    provider: Arc<dyn Provider>,
    runtime: Runtime,
    config: AgentConfig,
    ranker: Option<Arc<dyn Ranker>>,
    observer: Option<Arc<dyn Observer>>,
    conversation: Vec<Message>,
    session: String,
    /// `error.type` of the provider failure that ended the current run, for its span.
    provider_failure: Option<String>,
    /// The request of the previous run when that run ended asking the user for an input
    /// ([`StepRecord::needs_input`]): the next query is the answer, routed together with it.
    awaiting_input: Option<String>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.provider.name())
            .field("config", &self.config)
            .field("messages", &self.conversation.len())
            .finish_non_exhaustive()
    }
}

fn ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Error codes after which repeating the identical call cannot help.
fn is_persistent(code: Option<ErrorCode>) -> bool {
    !matches!(
        code,
        Some(
            ErrorCode::Timeout
                | ErrorCode::RateLimited
                | ErrorCode::DependencyUnavailable
                | ErrorCode::Cancelled
        )
    )
}

static SESSIONS: AtomicU64 = AtomicU64::new(1);

impl Agent {
    /// An agent over `provider` and `runtime`.
    pub fn new(provider: Arc<dyn Provider>, runtime: Runtime, config: AgentConfig) -> Self {
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        Agent {
            provider,
            runtime,
            config,
            ranker: None,
            observer: None,
            conversation: Vec::new(),
            session: format!("agent-{}-{n}-{nanos:x}", std::process::id()),
            provider_failure: None,
            awaiting_input: None,
        }
    }

    /// Uses `ranker` instead of the default BM25 router.
    pub fn with_ranker(mut self, ranker: Arc<dyn Ranker>) -> Self {
        self.ranker = Some(ranker);
        self
    }

    /// Reports progress to `observer`.
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The observer, if any.
    pub(crate) fn observer(&self) -> Option<Arc<dyn Observer>> {
        self.observer.clone()
    }

    /// Replaces the observer (for the run of [`Agent::run_stream`]).
    pub(crate) fn set_observer(&mut self, observer: Option<Arc<dyn Observer>>) {
        self.observer = observer;
    }

    /// The conversation so far.
    pub fn conversation(&self) -> &[Message] {
        &self.conversation
    }

    /// Forgets the conversation.
    pub fn reset(&mut self) {
        self.conversation.clear();
        self.awaiting_input = None;
    }

    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    fn emit(&self, e: AgentEvent<'_>) {
        if let Some(o) = &self.observer {
            o.event(&e);
        }
    }

    /// The tools to offer for `query`, and the ranking when the agent routed.
    fn route(
        &mut self,
        query: &str,
        specs: &[ToolSpec],
    ) -> (Vec<ToolSpec>, Option<Vec<Candidate>>) {
        let wanted = self.provider.wants_routing();
        let routing = &self.config.routing;
        let k = match wanted {
            Some(k) => k,
            None if routing.enabled && specs.len() > routing.threshold => routing.k,
            None => return (specs.to_vec(), None),
        };
        let ranker = self
            .ranker
            .get_or_insert_with(|| default_ranker(specs))
            .clone();
        let ranked = ranker.rank(query, k);
        let mut chosen: Vec<ToolSpec> = ranked
            .iter()
            .filter_map(|c| specs.iter().find(|s| s.name == c.name).cloned())
            .collect();
        if chosen.is_empty() && wanted.is_none() {
            // A capable model gets the whole toolset rather than nothing.
            chosen = specs.to_vec();
        }
        (chosen, Some(ranked))
    }

    /// Shortens old tool results while the conversation is over the context budget.
    fn shorten_context(&mut self) -> bool {
        let total = |c: &[Message]| c.iter().map(|m| m.content.len()).sum::<usize>();
        if total(&self.conversation) <= self.config.context_budget_chars {
            return false;
        }
        // Keep the results of the latest calls whole.
        let last_assistant = self
            .conversation
            .iter()
            .rposition(|m| m.role == Role::Assistant)
            .unwrap_or(0);
        let mut changed = false;
        for i in 0..last_assistant {
            if total(&self.conversation) <= self.config.context_budget_chars {
                break;
            }
            let Some(m) = self.conversation.get_mut(i) else {
                break;
            };
            if m.role != Role::Tool || m.content.contains("\"shortened\"") {
                continue;
            }
            if let Some(env) = m.envelope() {
                let mut short = json!({
                    "status": env.get("status").cloned().unwrap_or(Value::Null),
                    "message": env.get("message").cloned().unwrap_or(Value::Null),
                    "shortened": "older result shortened to fit the context budget; call the tool again if you need its data",
                });
                if let (Some(e), Some(o)) = (env.get("error"), short.as_object_mut()) {
                    o.insert("error".into(), e.clone());
                }
                m.content = short.to_string();
                changed = true;
            }
        }
        changed
    }

    /// Runs one query (continuing the conversation) and returns its trace whatever happened.
    /// Never panics; a provider failure ends the run with [`StopReason::ProviderError`]. See
    /// [`Agent::run`] for the answer as a `Result`.
    ///
    /// The run is an `invoke_agent` span (OpenTelemetry GenAI semantic conventions), each model
    /// turn a `chat {model}` span and each tool call the runtime's `execute_tool` span inside it.
    pub async fn run_trace(&mut self, query: &str) -> Trace {
        let span = telemetry::agent_span(
            self.config.name.as_deref(),
            &self.provider.info(),
            &self.session,
        );
        self.provider_failure = None;
        let trace = self.run_traced(query).instrument(span.clone()).await;
        telemetry::finish_agent_span(&span, &trace, self.provider_failure.as_deref());
        trace
    }

    async fn run_traced(&mut self, query: &str) -> Trace {
        let start = Instant::now();
        if self.conversation.is_empty()
            && let Some(sp) = self.config.system_prompt.clone()
        {
            self.conversation.push(Message::system(sp));
        }
        self.conversation.push(Message::user(query));
        let specs = self.runtime.registry().specs();
        // An answer to a question for an input is routed with the request that asked it.
        let request = match self.awaiting_input.take() {
            Some(asked) => format!("{asked} {query}"),
            None => query.to_string(),
        };
        let (tools, routed) = self.route(&request, &specs);
        let mut trace = Trace {
            query: query.to_string(),
            provider: self.provider.name(),
            mode: self.config.mode,
            answer: None,
            stop: StopReason::MaxSteps,
            routed: routed.clone(),
            tools_offered: tools.iter().map(|t| t.name.clone()).collect(),
            steps: Vec::new(),
            calls: Vec::new(),
            messages: Vec::new(),
            usage: Usage::default(),
            total_ms: 0,
            model_ms: 0,
            tools_ms: 0,
            notes: Vec::new(),
        };
        self.emit(AgentEvent::Routed {
            candidates: trace.routed.as_deref(),
            offered: &trace.tools_offered,
        });
        match self.config.mode {
            Mode::Loop => self.run_loop(&tools, routed.as_deref(), &mut trace).await,
            Mode::PlanExecute => {
                self.run_plan_execute(&tools, routed.as_deref(), &mut trace)
                    .await
            }
        }
        trace.messages = self.conversation.clone();
        trace.total_ms = ms(start);
        if trace
            .steps
            .last()
            .is_some_and(|s| !s.needs_input.is_empty())
        {
            self.awaiting_input = Some(request);
        }
        trace
    }

    async fn ask(
        &mut self,
        step: u32,
        tools: &[ToolSpec],
        ranking: Option<&[Candidate]>,
        trace: &mut Trace,
    ) -> Option<(Reply, StepRecord)> {
        if self.shorten_context() {
            trace.notes.push(format!(
                "step {step}: older tool results were shortened to fit the context budget"
            ));
        }
        self.emit(AgentEvent::ModelStarted { step });
        let t0 = Instant::now();
        let span = telemetry::chat_span(&self.provider.info(), step);
        let result = self
            .provider
            .complete(Turn {
                messages: &self.conversation,
                tools,
                ranking,
            })
            .instrument(span.clone())
            .await;
        telemetry::finish_chat_span(&span, &result);
        drop(span);
        let took = ms(t0);
        trace.model_ms = trace.model_ms.saturating_add(took);
        match result {
            Ok(reply) => {
                self.emit(AgentEvent::ModelFinished {
                    step,
                    ms: took,
                    reply: &reply,
                });
                if let Some(u) = reply.usage {
                    trace.usage.add(u);
                }
                let rec = StepRecord {
                    step,
                    model_ms: took,
                    tools_ms: 0,
                    text: reply.text.clone(),
                    thought: reply.thought.clone(),
                    plan: reply.plan.clone(),
                    calls: Vec::new(),
                    usage: reply.usage,
                    notes: reply.notes.clone(),
                    needs_input: reply.needs_input.clone(),
                };
                Some((reply, rec))
            }
            Err(e) => {
                self.provider_failure = Some(e.error_type().into_owned());
                trace.stop = StopReason::ProviderError {
                    message: e.to_string(),
                };
                trace.steps.push(StepRecord {
                    step,
                    model_ms: took,
                    notes: vec![format!("provider error: {e}")],
                    ..StepRecord::default()
                });
                None
            }
        }
    }

    /// Gives every call a non-empty id unique within the conversation.
    fn fix_ids(&self, calls: &mut [ToolCall], step: u32) {
        let mut seen: HashSet<SharedStr> = self
            .conversation
            .iter()
            .flat_map(|m| m.tool_calls.iter().map(|c| c.id.clone()))
            .collect();
        for (i, c) in calls.iter_mut().enumerate() {
            if c.id.trim().is_empty() || seen.contains(&c.id) {
                let mut n = 0;
                let mut id = format!("call_{step}_{i}");
                while seen.contains(id.as_str()) {
                    n += 1;
                    id = format!("call_{step}_{i}_{n}");
                }
                c.id = id.into();
            }
            seen.insert(c.id.clone());
        }
    }

    fn label(&self, name: &str) -> String {
        self.runtime
            .registry()
            .get(name)
            .map_or_else(|| name.to_string(), |e| e.spec().label().to_string())
    }

    /// Arguments the model wrote as unreadable text: repaired when the tolerant reader can,
    /// else an envelope to send back instead of running the call.
    fn repair_arguments(call: &mut ToolCall, notes: &mut Vec<String>) -> Option<Outcome> {
        let Value::String(raw) = &call.arguments else {
            return None;
        };
        match lenient::parse(raw) {
            Ok(v) if v.is_object() => {
                notes.push(format!(
                    "call {}: the arguments were not valid JSON; repaired by the tolerant reader",
                    call.id
                ));
                call.arguments = v;
                None
            }
            other => {
                let why = match other {
                    Err(e) => e.to_string(),
                    Ok(_) => "they are not a JSON object".to_string(),
                };
                let field = FieldError {
                    path: String::new(),
                    problem: Problem::WrongType,
                    message: format!("the arguments are not a JSON object: {why}"),
                    received: Some(Value::String(crate::http::shorten(raw, 200))),
                    expected: Some(json!("a JSON object")),
                    hint: None,
                };
                let e = ToolError::validation(
                    format!("The arguments of {} could not be read as JSON: {why}.", call.name),
                    "Send the arguments again as one valid JSON object matching the tool's parameters.",
                )
                .with_fields(vec![field]);
                let mut out = Outcome::from_error(e);
                out.meta.tool = call.name.as_str().into();
                out.meta.call_id = call.id.as_str().into();
                out.meta.attempt = 1;
                Some(out)
            }
        }
    }

    async fn run_loop(
        &mut self,
        tools: &[ToolSpec],
        ranking: Option<&[Candidate]>,
        trace: &mut Trace,
    ) {
        // Calls that failed in this run, by (tool, canonical arguments).
        let mut failed: HashMap<(String, String), Outcome> = HashMap::new();
        // The runtime's retry budgets are per (session, step, tool): the step advances only when
        // a turn succeeds, so corrections of one call share one budget.
        let mut budget_step = 1u32;
        for step in 1..=self.config.max_steps.max(1) {
            let Some((reply, mut rec)) = self.ask(step, tools, ranking, trace).await else {
                return;
            };
            if reply.tool_calls.is_empty() {
                let answer = reply.text.clone().unwrap_or_default();
                self.conversation
                    .push(Message::assistant(answer.clone(), Vec::new()));
                trace.steps.push(rec);
                trace.answer = Some(answer);
                trace.stop = StopReason::Answered;
                return;
            }
            let mut calls = reply.tool_calls.clone();
            self.fix_ids(&mut calls, step);
            let mut pre: Vec<Option<Outcome>> = Vec::with_capacity(calls.len());
            for c in calls.iter_mut() {
                pre.push(Self::repair_arguments(c, &mut rec.notes));
            }
            self.conversation.push(Message::assistant(
                reply.text.clone().unwrap_or_default(),
                calls.clone(),
            ));
            // A call identical to one that already failed is not run again: the run stops.
            let repeated = calls.iter().find_map(|c| {
                failed
                    .get(&(c.name.to_string(), canonical_string(&c.arguments)))
                    .map(|prev| (c.clone(), prev.clone()))
            });
            let t0 = Instant::now();
            let outcomes: Vec<(Outcome, bool)> = if let Some((c, _)) = &repeated {
                calls
                    .iter()
                    .map(|x| {
                        let mut e = ToolError::new(
                            ErrorCode::Validation,
                            format!(
                                "Not run: {} was called again with the same arguments after it failed.",
                                c.name
                            ),
                        )
                        .with_retryable(false)
                        .with_suggestion("Change the arguments or answer the user with what went wrong.");
                        if x.id != c.id {
                            e.message = "Not run: the run stopped on a repeated failing call.".to_string();
                        }
                        let mut o = Outcome::from_error(e);
                        o.meta.tool = x.name.as_str().into();
                        o.meta.call_id = x.id.as_str().into();
                        (o, false)
                    })
                    .collect()
            } else {
                self.execute(&calls, pre, budget_step, true).await
            };
            rec.tools_ms = ms(t0);
            trace.tools_ms = trace.tools_ms.saturating_add(rec.tools_ms);
            let mut any_error = false;
            let mut results = Vec::new();
            for (call, (out, ran)) in calls.iter().zip(outcomes) {
                self.conversation.push(Message::tool_result(call, &out));
                if out.is_error() {
                    any_error = true;
                    if is_persistent(out.error_code()) {
                        failed.insert(
                            (call.name.to_string(), canonical_string(&call.arguments)),
                            out.clone(),
                        );
                    }
                }
                results.push((call.name.clone(), out.to_json()));
                let record = CallRecord {
                    step,
                    call: call.clone(),
                    label: self.label(&call.name),
                    envelope: out,
                    ran,
                };
                self.emit(AgentEvent::CallFinished { record: &record });
                rec.calls.push(call.id.to_string());
                trace.calls.push(record);
            }
            trace.steps.push(rec);
            if let Some((c, prev)) = repeated {
                let last = prev.error().map_or_else(
                    || prev.message.to_string(),
                    |e| format!("{}: {}", e.code, e.message),
                );
                let answer = format!(
                    "I stopped: the model called {} again with the same arguments after it had failed ({last}).",
                    c.name
                );
                self.conversation
                    .push(Message::assistant(answer.clone(), Vec::new()));
                trace.answer = Some(answer);
                trace.stop = StopReason::RepeatedFailingCall {
                    tool: c.name.into(),
                };
                let _ = results;
                return;
            }
            if !any_error {
                budget_step += 1;
            }
        }
        trace.stop = StopReason::MaxSteps;
    }

    /// Runs `calls` (parallel through the runtime, or one by one), answering unreadable ones with
    /// the prepared envelopes in `pre`. Returns (envelope, ran) in call order.
    async fn execute(
        &self,
        calls: &[ToolCall],
        pre: Vec<Option<Outcome>>,
        budget_step: u32,
        parallel: bool,
    ) -> Vec<(Outcome, bool)> {
        let opts = CallOptions {
            approved: self.config.approve,
            session_id: Some(self.session.clone()),
            step: budget_step,
            ..CallOptions::default()
        };
        let mut to_run = Vec::new();
        for (c, p) in calls.iter().zip(pre.iter()) {
            if p.is_none() {
                let label = self.label(&c.name);
                self.emit(AgentEvent::CallStarted {
                    call: c,
                    label: &label,
                });
                to_run.push(c.clone());
            }
        }
        let mut ran = if parallel {
            self.runtime.invoke_batch(to_run, &opts).await
        } else {
            let mut v = Vec::new();
            for c in to_run {
                v.push(self.runtime.invoke(c, &opts).await);
            }
            v
        }
        .into_iter();
        pre.into_iter()
            .map(|p| match p {
                Some(o) => (o, false),
                None => (
                    ran.next().unwrap_or_else(|| {
                        Outcome::from_error(ToolError::internal(
                            "the runtime returned fewer results than calls",
                        ))
                    }),
                    true,
                ),
            })
            .collect()
    }

    async fn run_plan_execute(
        &mut self,
        tools: &[ToolSpec],
        ranking: Option<&[Candidate]>,
        trace: &mut Trace,
    ) {
        // 1. Plan: one turn; its calls are the plan.
        let Some((reply, mut rec)) = self.ask(1, tools, ranking, trace).await else {
            return;
        };
        if reply.tool_calls.is_empty() {
            let answer = reply.text.clone().unwrap_or_default();
            self.conversation
                .push(Message::assistant(answer.clone(), Vec::new()));
            trace.steps.push(rec);
            trace.answer = Some(answer);
            trace.stop = StopReason::Answered;
            return;
        }
        let mut calls = reply.tool_calls.clone();
        self.fix_ids(&mut calls, 1);
        let mut pre = Vec::new();
        for c in calls.iter_mut() {
            pre.push(Self::repair_arguments(c, &mut rec.notes));
        }
        self.conversation.push(Message::assistant(
            reply.text.clone().unwrap_or_default(),
            calls.clone(),
        ));
        // 2. Execute the plan in sequence, without feedback.
        let t0 = Instant::now();
        let outcomes = self.execute(&calls, pre, 1, false).await;
        rec.tools_ms = ms(t0);
        trace.tools_ms = trace.tools_ms.saturating_add(rec.tools_ms);
        let mut results = Vec::new();
        for (call, (out, ran)) in calls.iter().zip(outcomes) {
            self.conversation.push(Message::tool_result(call, &out));
            results.push((call.name.clone(), out.to_json()));
            let record = CallRecord {
                step: 1,
                call: call.clone(),
                label: self.label(&call.name),
                envelope: out,
                ran,
            };
            self.emit(AgentEvent::CallFinished { record: &record });
            rec.calls.push(call.id.to_string());
            trace.calls.push(record);
        }
        trace.steps.push(rec);
        // 3. Answer from the results; further calls are not run in this mode.
        let Some((reply, mut rec)) = self.ask(2, tools, ranking, trace).await else {
            return;
        };
        let answer = match reply.text.clone().filter(|t| !t.trim().is_empty()) {
            Some(t) => t,
            None => {
                rec.notes.push(
                    "plan-execute runs one plan only: the model asked for more calls instead of \
                     answering; the answer was written from the results' messages"
                        .to_string(),
                );
                results_text(&results)
            }
        };
        self.conversation
            .push(Message::assistant(answer.clone(), Vec::new()));
        trace.steps.push(rec);
        trace.answer = Some(answer);
        trace.stop = StopReason::Answered;
    }
}

/// An answer the model did not write: each envelope's own sentence (its error message when it
/// failed), with the data when the message is only the default "`tool` succeeded.".
fn results_text(results: &[(SharedStr, Value)]) -> String {
    results
        .iter()
        .map(|(tool, env)| {
            let text = |p: &str| env.pointer(p).and_then(Value::as_str).map(str::trim);
            if env.get("status").and_then(Value::as_str) == Some("error") {
                let why = text("/error/message").or(text("/message")).unwrap_or("");
                return format!("{tool} failed: {why}");
            }
            let message = text("/message").filter(|m| !m.is_empty());
            match (message, env.get("data")) {
                (Some(m), _) if !m.ends_with(" succeeded.") => m.to_string(),
                (_, Some(data)) if !data.is_null() => {
                    format!("{tool}: {}", crate::http::shorten(&data.to_string(), 300))
                }
                (m, _) => m.map_or_else(|| format!("{tool} succeeded."), str::to_string),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
