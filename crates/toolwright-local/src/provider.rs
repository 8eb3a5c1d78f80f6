//! The embedded model as a [`Provider`]: llama.cpp running a GGUF file on the CPU.
//!
//! A model of 135M parameters cannot choose among many tools nor write JSON reliably, so this
//! provider does what such a model *can* do, and says so in the trace:
//!
//! 1. the agent's router narrows the toolset to a few candidates ([`Provider::wants_routing`]);
//!    no candidate at all means the query needs no tool, and the model answers in text;
//! 2. the call is generated under a GBNF grammar built from the candidates' schemas with the tool
//!    name first ([`crate::gbnf`]), so it always parses and matches a schema; with one clear
//!    candidate the grammar fixes the name and the model only fills the arguments. In its first
//!    turn the model may write a list of calls (parallel calls, [`LocalConfig::max_parallel_calls`]);
//! 3. after the results, the model writes the answer.
//!
//! Around these steps, the named passes of [`crate::passes`] (narrowing, number grounding,
//! re-asks, the relevance floor, answer composition, ...) help the model; [`LocalConfig::passes`]
//! switches each, and each reports in the step's notes when it changed something.

use crate::compose::{Summarizer, compose_answer, key_facts, states_result};
use crate::engine::Engine;
use crate::gbnf::{GrammarLimits, tool_call_grammar};
use crate::narrow::{ground_numbers, narrow_for_query, require_given};
use crate::passes::{Passes, keep_distinct_grounded, repeated_numbers};
use crate::salvage::{named_tool, tight_retry};
use crate::select::{Decision, choose_with, drop_echoed_names};
use crate::spans::ground_strings;
use crate::wrapper::unwrap as unwrap_wrapper;
use futures::future::BoxFuture;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright_agent::http::shorten;
use toolwright_agent::prompt::tool_text;
use toolwright_agent::{
    Candidate, Message, Provider, ProviderError, ProviderInfo, Reply, Role, Turn, Usage,
};
use toolwright_core::{ToolCall, ToolSpec};

/// Settings of the local model.
#[derive(Debug, Clone)]
pub struct LocalConfig {
    /// The GGUF file.
    pub model_path: PathBuf,
    /// CPU threads (default 1, or `$TOOLWRIGHT_THREADS`: on a loaded 2-core machine, 2 threads
    /// made llama.cpp spin-wait and collapse).
    pub threads: i32,
    /// Context size in tokens.
    pub context: u32,
    /// Most tokens of a text answer.
    pub max_answer_tokens: usize,
    /// Most tokens of a tool call.
    pub max_call_tokens: usize,
    /// Candidates the router passes (the model chooses among those close to the best).
    pub candidates: usize,
    /// A candidate stays in the choice when its score is at least this fraction of the best.
    pub close_ratio: f32,
    /// Most calls the model may make in its first turn for a query (parallel calls: the same
    /// tool for several items, or several tools). 1 keeps the single-call grammar.
    pub max_parallel_calls: usize,
    /// The aids the provider applies ([`Passes`]; each documents its default).
    pub passes: Passes,
    /// Sentences for the results of particular tools, tried before the generic description
    /// when an answer is composed from envelopes (default none).
    pub summaries: Option<Summarizer>,
}

impl LocalConfig {
    /// Defaults for the model at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        LocalConfig {
            model_path: path.into(),
            threads: std::env::var("TOOLWRIGHT_THREADS")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|n: &i32| *n > 0)
                .unwrap_or(1),
            context: 4096,
            max_answer_tokens: 80,
            max_call_tokens: 160,
            candidates: 3,
            close_ratio: 0.5,
            max_parallel_calls: 4,
            passes: Passes::default(),
            summaries: None,
        }
    }
}

/// The embedded llama.cpp provider.
pub struct LocalProvider {
    engine: Arc<Engine>,
    config: LocalConfig,
}

impl std::fmt::Debug for LocalProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalProvider")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// What one turn will ask the model.
enum Job {
    /// Free text.
    Text {
        messages: Vec<(String, String)>,
        notes: Vec<String>,
    },
    /// A call under a grammar; with `direct`, the model may decline (`"none"`) and these
    /// messages get a text answer instead.
    Call {
        messages: Vec<(String, String)>,
        grammar: String,
        id: String,
        notes: Vec<String>,
        direct: Option<Vec<(String, String)>>,
        /// The user's request, to check the values of extra calls against.
        query: String,
        /// The (narrowed) tools the grammar was built from, and its limits, for a second try.
        tools: Vec<ToolSpec>,
        limits: GrammarLimits,
        /// A correction: the rejected arguments, and the job to run instead when the model
        /// writes them again (the router's next candidate).
        on_repeat: Option<(Value, Box<Job>)>,
        /// (tool, objects): the tool's arguments were filled lifted out of these objects
        /// ([`crate::wrapper`]) and are put back under them.
        wrappers: Vec<(String, crate::wrapper::Lifted)>,
        /// (tool, parameter): narrowing restricted the parameter to the schema's own values
        /// that the request names, so a value of it is never an echoed name.
        named: Vec<(String, String)>,
    },
    /// A reply that needs no model.
    Fixed(Reply),
    /// An answer from results: the model's text if it states them, else composed.
    Answer {
        messages: Vec<(String, String)>,
        results: Vec<(String, Value)>,
        notes: Vec<String>,
    },
}

fn pair(role: &str, content: impl Into<String>) -> (String, String) {
    (role.to_string(), content.into())
}

const DIRECT_SYSTEM: &str = "You are a helpful assistant. Answer briefly and politely.";

/// The data of an envelope without long strings (sources, notes), for a small prompt.
fn compact_data(env: &Value) -> Value {
    match env.get("data") {
        Some(Value::Object(m)) => Value::Object(
            m.iter()
                .filter(|(_, v)| v.as_str().is_none_or(|s| s.len() <= 40))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// The user's request of the turn: the last user message (`last_user` indexes it in `msgs`),
/// completed by the request before it when it answers this provider's question for an input.
fn request_of(msgs: &[Message], last_user: Option<usize>) -> String {
    let query = last_user
        .and_then(|i| msgs.get(i))
        .map(|m| m.content.clone())
        .unwrap_or_default();
    // An answer to this provider's question for an input completes the request that asked.
    match last_user
        .and_then(|i| i.checked_sub(2))
        .and_then(|i| msgs.get(i..i + 2))
    {
        Some([asked, question])
            if asked.role == Role::User
                && question.role == Role::Assistant
                && crate::ask::is_question(&question.content) =>
        {
            format!("{} {query}", asked.content)
        }
        _ => query,
    }
}

/// The tool results after the last assistant message of `tail` (the messages after the
/// user's request): the results of the latest calls, or none before the first call.
fn latest_results(tail: &[Message]) -> Vec<&Message> {
    match tail.iter().rposition(|m| m.role == Role::Assistant) {
        Some(a) => tail
            .get(a + 1..)
            .unwrap_or_default()
            .iter()
            .filter(|m| m.role == Role::Tool)
            .collect(),
        None => Vec::new(),
    }
}

impl LocalProvider {
    /// Loads the model.
    ///
    /// # Errors
    /// No file at the path (the message names `toolwright model fetch`), or llama.cpp cannot
    /// load it.
    pub fn new(config: LocalConfig) -> Result<Self, ProviderError> {
        let engine = Engine::load(&config.model_path, config.threads, config.context)?;
        Ok(LocalProvider {
            engine: Arc::new(engine),
            config,
        })
    }

    /// The model file.
    pub fn model_path(&self) -> &Path {
        &self.config.model_path
    }

    /// Generates free text for `messages` (role, content) — a plain chat completion without any
    /// tool logic, e.g. for prompted JSON over the local model.
    ///
    /// # Errors
    /// llama.cpp fails or the prompt does not fit the context.
    pub async fn chat(
        &self,
        messages: Vec<(String, String)>,
        max_tokens: usize,
    ) -> Result<(String, Usage), ProviderError> {
        let engine = self.engine.clone();
        let g = tokio::task::spawn_blocking(move || {
            engine.generate(&messages, None, max_tokens, false)
        })
        .await
        .map_err(|e| ProviderError::Model(format!("the generation task failed: {e}")))??;
        Ok((g.text, g.usage))
    }

    /// Plans one turn: the first turn of a query ([`Self::plan_first`]), a correction of a
    /// rejected call ([`Self::plan_correction`]), or the answer from the latest results
    /// ([`Self::plan_answer`]).
    fn plan(&self, turn: &Turn<'_>) -> Job {
        let msgs = turn.messages;
        let last_user = msgs.iter().rposition(|m| m.role == Role::User);
        let query = request_of(msgs, last_user);
        let tail = last_user
            .and_then(|i| msgs.get(i + 1..))
            .unwrap_or_default();
        let results = latest_results(tail);
        if results.is_empty() {
            return self.plan_first(turn, &query);
        }
        // Results of the latest calls are in: correct a rejected call, or answer.
        let envelopes: Vec<(String, Value)> = results
            .iter()
            .map(|m| {
                (
                    m.name.clone().unwrap_or_default(),
                    m.envelope().unwrap_or(Value::Null),
                )
            })
            .collect();
        let corrections = tail
            .iter()
            .filter(|m| m.role == Role::Assistant && !m.tool_calls.is_empty())
            .count()
            .saturating_sub(1);
        let rejected = envelopes.iter().find(|(_, e)| {
            e.pointer("/error/code").and_then(Value::as_str) == Some("VALIDATION_ERROR")
                && e.pointer("/error/retryable").and_then(Value::as_bool) != Some(false)
        });
        if let Some((tool, env)) = rejected
            && corrections < self.config.passes.max_corrections
            && let Some(spec) = turn.tools.iter().find(|s| &s.name == tool)
        {
            return self.plan_correction(turn, &query, tail, tool, env, spec);
        }
        self.plan_answer(&query, envelopes)
    }

    /// A call of `tool` again after its arguments were rejected (envelope `env`): the prompt
    /// shows the previous arguments and the error, and when the model writes the same arguments
    /// again, the router's next candidate is tried instead ([`Self::next_candidate`]).
    fn plan_correction(
        &self,
        turn: &Turn<'_>,
        query: &str,
        tail: &[Message],
        tool: &str,
        env: &Value,
        spec: &ToolSpec,
    ) -> Job {
        let msgs = turn.messages;
        let previous = tail
            .iter()
            .rev()
            .flat_map(|m| m.tool_calls.iter())
            .find(|c| c.name == tool)
            .map(|c| {
                match unwrap_wrapper(spec).filter(|_| self.config.passes.unwrap_objects) {
                    // Shown in the shape the model is asked for.
                    Some((_, w)) => w.flatten(&c.arguments).to_string(),
                    None => c.arguments.to_string(),
                }
            })
            .unwrap_or_default();
        let error = env.get("error").cloned().unwrap_or(Value::Null);
        let mut job = self.call_job(query, &[spec], msgs.len(), None, 1);
        if let Job::Call {
            messages, notes, ..
        } = &mut job
        {
            if let Some((_, user)) = messages.last_mut() {
                user.push_str(&format!(
                    "\n\nThe previous arguments {previous} were rejected: {}. {}",
                    error.get("message").and_then(Value::as_str).unwrap_or(""),
                    error
                        .get("suggestion")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                ));
            }
            notes.push(format!(
                "asked the model again for {tool} after a validation error"
            ));
        }
        if let Job::Call { on_repeat, .. } = &mut job
            && let Some(next) = self.next_candidate(turn, tool, tail, query)
        {
            let mut fallback = self.call_job(query, &[next], msgs.len(), None, 1);
            if let Job::Call { notes, .. } = &mut fallback {
                notes.push(format!(
                    "the model wrote the rejected arguments of {tool} again: the router's next candidate {} was tried instead",
                    next.name
                ));
            }
            let rejected_args = tail
                .iter()
                .rev()
                .flat_map(|m| m.tool_calls.iter())
                .find(|c| c.name == tool)
                .map(|c| c.arguments.clone())
                .unwrap_or(Value::Null);
            *on_repeat = Some((rejected_args, Box::new(fallback)));
        }
        job
    }

    /// The answer from the latest results (`envelopes`, as (tool, envelope)): composed from the
    /// envelopes when every call failed or nothing in them can be checked, else written by the
    /// model from the results' data.
    fn plan_answer(&self, query: &str, envelopes: Vec<(String, Value)>) -> Job {
        let successes: Vec<&(String, Value)> = envelopes
            .iter()
            .filter(|(_, e)| e.get("status").and_then(Value::as_str) != Some("error"))
            .collect();
        let compose = self.config.passes.compose_answer;
        let summaries = self.config.summaries.as_ref();
        if compose && successes.is_empty() {
            let mut r = Reply::text(compose_answer(&envelopes, summaries));
            r.notes.push(
                "every call failed: the answer was composed from the error envelopes".to_string(),
            );
            return Job::Fixed(r);
        }
        // Without a number or a date in the results, the model's text could not be checked
        // against them: the answer is written from the envelopes.
        let checkable = successes
            .iter()
            .any(|(_, e)| e.get("data").is_some_and(|d| !key_facts(d).is_empty()));
        if compose && !checkable {
            let mut r = Reply::text(compose_answer(&envelopes, summaries));
            r.notes.push(
                "the results hold no number or date to check a model-written answer against: the \
                 answer was composed from the envelopes"
                    .to_string(),
            );
            return Job::Fixed(r);
        }
        let mut facts = String::new();
        for (tool, env) in &successes {
            facts.push_str(&format!("\nResult of {tool}: {}", compact_data(env)));
        }
        if !compose {
            // Nothing will be composed: the model must also say what failed.
            for (tool, env) in envelopes
                .iter()
                .filter(|(_, e)| e.get("status").and_then(Value::as_str) == Some("error"))
            {
                let why = env.pointer("/error/message").and_then(Value::as_str);
                facts.push_str(&format!("\n{tool} failed: {}", why.unwrap_or("error")));
            }
        }
        let messages = vec![
            pair(
                "system",
                "Answer the user's question in one sentence using the tool results. State the \
                 numbers exactly as given, and the date when there is one.",
            ),
            pair("user", format!("Question: {query}{facts}")),
        ];
        Job::Answer {
            messages,
            results: envelopes,
            notes: Vec::new(),
        }
    }

    /// The router's best candidate after `rejected` that this query has not called yet, when
    /// the request asks for it ([`crate::select::asked_for`]: no write the user did not ask
    /// for; else no fallback).
    fn next_candidate<'t>(
        &self,
        turn: &Turn<'t>,
        rejected: &str,
        tail: &[Message],
        query: &str,
    ) -> Option<&'t ToolSpec> {
        let called: Vec<&str> = tail
            .iter()
            .flat_map(|m| m.tool_calls.iter())
            .map(|c| c.name.as_str())
            .collect();
        turn.ranking?
            .iter()
            .filter(|c| c.name != rejected && !called.contains(&c.name.as_str()))
            .find_map(|c| turn.tools.iter().find(|s| s.name == c.name))
            .filter(|s| crate::select::asked_for(s, query))
    }

    /// The first turn of a query: choose between a direct answer and a (routed) call.
    fn plan_first(&self, turn: &Turn<'_>, query: &str) -> Job {
        let passes = &self.config.passes;
        // With similarities (a router with an embedder), "no tool fits" is the similarity floor's
        // decision; without, the lexical floors below decide.
        let has_similarity = turn
            .ranking
            .is_some_and(|r| r.iter().any(|c| c.similarity.is_some()));
        let mut candidates: Vec<&ToolSpec> = match turn.ranking {
            Some(ranked) => {
                let lexical_floor = passes.relevance_floor.filter(|_| !has_similarity);
                let usable: Vec<Candidate> = ranked
                    .iter()
                    .filter(|c| c.score > 0.0 && lexical_floor.is_none_or(|f| c.score >= f))
                    .cloned()
                    .collect();
                // The no-tool rule reads the candidates' objects by meaning with the process's
                // embedder, the one the router's similarities come from.
                let embedder = passes
                    .no_tool
                    .and_then(|r| r.object_synonym)
                    .filter(|_| has_similarity)
                    .and_then(|_| crate::routing::shared_embedder().ok());
                match choose_with(
                    &usable,
                    query,
                    turn.tools,
                    passes.selection,
                    passes.no_tool,
                    embedder.as_deref(),
                    self.config.close_ratio,
                    self.config.candidates.max(1),
                ) {
                    Decision::NoTool { reason } if !usable.is_empty() => {
                        return Job::Text {
                            messages: direct_messages(turn),
                            notes: vec![format!("{reason}: the model answered directly")],
                        };
                    }
                    Decision::NoTool { .. } => Vec::new(),
                    Decision::Tools(names) => names
                        .iter()
                        .filter_map(|n| turn.tools.iter().find(|s| &s.name == n))
                        .collect(),
                }
            }
            None => turn
                .tools
                .iter()
                .take(self.config.candidates.max(1))
                .collect(),
        };
        if candidates.is_empty() {
            let why = no_candidate_reason(turn, passes);
            return Job::Text {
                messages: direct_messages(turn),
                notes: vec![why],
            };
        }
        let mut swapped = None;
        match self.ask_missing(turn, &candidates, query) {
            Missing::Nothing => {}
            Missing::Ask(reply) => return Job::Fixed(*reply),
            Missing::Next(next, note) => {
                candidates = vec![next];
                swapped = Some(note);
            }
        }
        let top = turn
            .ranking
            .and_then(|r| r.first())
            .map_or(f32::MAX, |c| c.score);
        // A query naming allowed values of a candidate's parameters (a currency code, a role) is
        // strong evidence for that tool, whatever the lexical score.
        let names_values = candidates
            .iter()
            .any(|s| narrow_for_query(s, query).1.names_allowed_value());
        let decline_below = passes.decline_weak_matches.filter(|_| !has_similarity);
        let weak = decline_below.is_some_and(|d| top < d) && !names_values;
        let mut job = self.call_job(
            query,
            &candidates,
            turn.messages.len(),
            weak.then(|| direct_messages(turn)),
            self.config.max_parallel_calls,
        );
        if let Job::Call { notes, .. } = &mut job {
            notes.extend(swapped);
            if weak {
                notes.push(format!(
                    "weak router match (best score {top:.2} < {:.2}): the model could decline every tool and answer directly",
                    decline_below.unwrap_or(0.0)
                ));
            }
            notes.push(router_note(turn, &candidates));
        }
        job
    }

    /// The "needs input" pass ([`crate::ask`]): when the tool is fixed (one candidate) and the
    /// request gives no value for one of its required identifiers, the router's next candidate
    /// that lacks nothing, only reads and reads what the request says is called
    /// ([`crate::ask::stands_in`]), else the user is asked for the inputs instead of a call
    /// being made up.
    fn ask_missing<'t>(
        &self,
        turn: &Turn<'t>,
        candidates: &[&'t ToolSpec],
        query: &str,
    ) -> Missing<'t> {
        let [spec] = candidates else {
            return Missing::Nothing;
        };
        if !self.config.passes.ask_missing {
            return Missing::Nothing;
        }
        let missing = crate::ask::missing_inputs(spec, query);
        if missing.is_empty() {
            return Missing::Nothing;
        }
        let names: Vec<&str> = missing.iter().map(|m| m.param.as_str()).collect();
        let next = turn
            .ranking
            .unwrap_or_default()
            .iter()
            .filter(|c| c.name != spec.name)
            .filter_map(|c| turn.tools.iter().find(|s| s.name == c.name))
            .find(|s| crate::ask::stands_in(s, query));
        if let Some(next) = next {
            return Missing::Next(
                next,
                format!(
                    "{} needs {}, which the request does not give: the router's next candidate {} lacks nothing, reads what the request says and was called instead",
                    spec.name,
                    names.join(", "),
                    next.name
                ),
            );
        }
        let mut r = Reply::text(crate::ask::question(&spec.name, &missing));
        r.needs_input = names.iter().map(|n| n.to_string()).collect();
        r.notes.push(format!(
            "{} needs {} and the request writes no value for it: the user was asked instead of a call being made up",
            spec.name,
            names.join(", ")
        ));
        Missing::Ask(Box::new(r))
    }

    fn call_job(
        &self,
        query: &str,
        tools: &[&ToolSpec],
        n: usize,
        direct: Option<Vec<(String, String)>>,
        max_calls: usize,
    ) -> Job {
        let mut notes = Vec::new();
        let mut named = Vec::new();
        let (lifted, wrappers) = self.lift_wrappers(tools, &mut notes);
        let iso = crate::periods::as_iso(query);
        let query = if self.config.passes.written_dates && iso != query && takes_a_date(&lifted) {
            notes.push(format!("days written in words read as {iso:?}"));
            iso.as_str()
        } else {
            query
        };
        let narrowed: Vec<ToolSpec> = lifted
            .iter()
            .map(|s| {
                let passes = &self.config.passes;
                let t = if passes.narrowing {
                    let (t, report) = narrow_for_query(s, query);
                    notes.extend(report.describe(&s.name));
                    named.extend(
                        report
                            .restricted
                            .iter()
                            .map(|(p, _)| (s.name.clone(), p.clone())),
                    );
                    t
                } else {
                    s.clone()
                };
                if !passes.number_grounding {
                    return t;
                }
                let (g, grounded) = ground_numbers(&t, query);
                if !grounded.is_empty() {
                    notes.push(format!(
                        "{}: {} may only take numbers the query states",
                        s.name,
                        grounded.join(", ")
                    ));
                }
                g
            })
            .collect();
        // The prompt shows the schemas before string grounding: the spans a parameter may take
        // are the request itself, which the model reads once, not once per parameter.
        let shown = narrowed.clone();
        let narrowed: Vec<ToolSpec> = narrowed
            .into_iter()
            .map(|t| {
                if !self.config.passes.string_grounding {
                    return t;
                }
                let (g, grounded) = ground_strings(&t, query, self.config.passes.role_cues);
                if !grounded.is_empty() {
                    notes.push(format!(
                        "{}: {} may only take words of the request",
                        t.name,
                        grounded.join(", ")
                    ));
                }
                if !self.config.passes.require_given {
                    return g;
                }
                let (g, made) = require_given(&g);
                if !made.is_empty() {
                    notes.push(format!(
                        "{}: {} required, given by the request",
                        t.name,
                        made.join(", ")
                    ));
                }
                g
            })
            .collect();
        let limits = GrammarLimits {
            max_string: 80,
            plain_strings: true,
            allow_none: direct.is_some(),
            max_calls: max_calls.max(1),
            ..GrammarLimits::default()
        };
        let grammar = tool_call_grammar(&narrowed, &limits).unwrap_or_default();
        let system = call_system_prompt(&shown, max_calls, direct.is_some());
        let limits = GrammarLimits {
            allow_none: false,
            max_calls: 1,
            ..limits
        };
        Job::Call {
            messages: vec![pair("system", system), pair("user", query.to_string())],
            grammar,
            id: format!("local_{n}"),
            notes,
            direct,
            query: query.to_string(),
            tools: narrowed,
            limits,
            on_repeat: None,
            wrappers,
            named,
        }
    }

    /// The wrapper-objects pass ([`crate::wrapper`]): each tool as the passes read it, and the
    /// (tool, wrapper field) pairs whose calls are wrapped again.
    fn lift_wrappers(
        &self,
        tools: &[&ToolSpec],
        notes: &mut Vec<String>,
    ) -> (Vec<ToolSpec>, Vec<(String, crate::wrapper::Lifted)>) {
        let mut wrappers = Vec::new();
        let lifted = tools
            .iter()
            .map(
                |s| match unwrap_wrapper(s).filter(|_| self.config.passes.unwrap_objects) {
                    Some((t, w)) => {
                        let keys: Vec<String> =
                            w.objects.iter().map(|o| format!("`{}`", o.key)).collect();
                        notes.push(format!(
                            "{}: the fields of its {} object{} are filled as its parameters",
                            s.name,
                            keys.join(", "),
                            if keys.len() == 1 { "" } else { "s" }
                        ));
                        wrappers.push((s.name.clone(), w));
                        t
                    }
                    None => (*s).clone(),
                },
            )
            .collect();
        (lifted, wrappers)
    }
}

/// What the "needs input" pass decided ([`LocalProvider::ask_missing`]).
enum Missing<'t> {
    /// The tool lacks nothing (or the pass is off).
    Nothing,
    /// Ask the user: this reply is the question.
    Ask(Box<Reply>),
    /// Call this candidate instead (with the note for the trace).
    Next(&'t ToolSpec, String),
}

/// Whether one of `tools` has a parameter that takes a date ([`crate::narrow::takes_date`]).
fn takes_a_date(tools: &[ToolSpec]) -> bool {
    tools.iter().any(|t| {
        t.parameters
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|props| props.iter().any(|(k, p)| crate::narrow::takes_date(k, p)))
    })
}

/// The conversation as plain text turns for a direct answer.
fn direct_messages(turn: &Turn<'_>) -> Vec<(String, String)> {
    let mut messages = vec![pair("system", DIRECT_SYSTEM)];
    for m in turn.messages {
        match m.role {
            Role::User => messages.push(pair("user", m.content.clone())),
            Role::Assistant if m.tool_calls.is_empty() && !m.content.is_empty() => {
                messages.push(pair("assistant", m.content.clone()));
            }
            _ => {}
        }
    }
    messages
}

/// The echoed-names pass on one call ([`drop_echoed_names`]): values that only repeat a tool or
/// parameter name are removed; when a required one was, and the call is the only one, the model
/// is asked once more with a reminder, and its new arguments are kept if they echo nothing
/// required.
struct EchoFix<'a> {
    engine: &'a Engine,
    config: &'a LocalConfig,
    messages: &'a [(String, String)],
    spec: &'a ToolSpec,
    limits: &'a GrammarLimits,
    /// (tool, parameter) pairs whose values are the schema's own, named by the request: kept.
    named: &'a [(String, String)],
}

impl EchoFix<'_> {
    fn apply(
        &self,
        name: &str,
        args: &mut Value,
        single: bool,
        notes: &mut Vec<String>,
        usage: &mut Usage,
    ) -> Result<(), ProviderError> {
        let (mut left, mut dropped) = drop_echoed_names(self.spec, args);
        // A value the schema allows and the request names ("sorted by name" for a `sortBy` of
        // `name`, `slug`) is the answer, even when it is also a parameter's name.
        dropped.retain(|k| {
            let own = self.named.iter().any(|(t, p)| t == name && p == k);
            if own && let (Some(l), Some(v)) = (left.as_object_mut(), args.get(k)) {
                l.insert(k.clone(), v.clone());
            }
            !own
        });
        if dropped.is_empty() {
            return Ok(());
        }
        notes.push(format!(
            "{name}: {} only repeated a tool or parameter name, so treated as missing",
            dropped.join(", ")
        ));
        *args = left;
        let required: Vec<&str> = self
            .spec
            .parameters
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let missing: Vec<&String> = dropped
            .iter()
            .filter(|d| required.contains(&d.as_str()))
            .collect();
        if missing.is_empty() || !single {
            return Ok(());
        }
        let Ok(grammar) = tool_call_grammar(std::slice::from_ref(self.spec), self.limits) else {
            return Ok(());
        };
        let mut messages = self.messages.to_vec();
        if let Some((_, user)) = messages.last_mut() {
            let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
            user.push_str(&format!(
                "\n\nGive {} a value written in the request; a parameter's or tool's name is not a value.",
                names.join(", ")
            ));
        }
        let again = self.engine.generate(
            &messages,
            Some(&grammar),
            self.config.max_call_tokens,
            false,
        )?;
        usage.add(again.usage);
        let Some(a) = serde_json::from_str::<Value>(&again.text)
            .ok()
            .and_then(|v| v.get("arguments").filter(|a| a.is_object()).cloned())
        else {
            return Ok(());
        };
        let (a, dropped_again) = drop_echoed_names(self.spec, &a);
        if dropped_again.iter().any(|d| required.contains(&d.as_str())) {
            notes.push(format!(
                "{name}: asked again, the model repeated a name again"
            ));
        } else {
            notes.push(format!(
                "{name}: asked again for {}: {}",
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                shorten(&again.text, 300)
            ));
            *args = a;
        }
        Ok(())
    }
}

/// The offered values of the first call the model generated, each scored whole
/// ([`crate::scoring`]).
struct ScoredOffers {
    tool: String,
    offers: Vec<(crate::scoring::Offer, Vec<(f32, usize)>)>,
}

/// The first call of a generated reply (`{tool, arguments}` or a list of them).
fn first_call(text: &str) -> Option<(String, Value)> {
    let v: Value = serde_json::from_str(text).ok()?;
    let call = match &v {
        Value::Array(items) => items.first()?,
        one => one,
    };
    let name = call.get("tool")?.as_str()?.to_string();
    Some((name, call.get("arguments")?.clone()))
}

/// Generates the call under `grammar`; with the value-scoring pass on, the offered values of
/// the first call are also scored whole, on the same evaluation of the prompt. A scoring
/// failure (the continuations do not fit the context) scores nothing and says so.
fn generate_call(
    engine: &Engine,
    config: &LocalConfig,
    messages: &[(String, String)],
    grammar: &str,
    tools: &[ToolSpec],
    notes: &mut Vec<String>,
) -> Result<(crate::engine::Generation, Option<ScoredOffers>), ProviderError> {
    let max = config.max_call_tokens * config.max_parallel_calls.clamp(1, 4);
    let Some(rule) = config.passes.score_values else {
        return Ok((engine.generate(messages, Some(grammar), max, false)?, None));
    };
    let mut found: Option<(String, Vec<crate::scoring::Offer>)> = None;
    let (g, scores) = engine.generate_scored(messages, grammar, max, |text| {
        let Some((name, args)) = first_call(text) else {
            return Vec::new();
        };
        let Some(spec) = tools.iter().find(|s| s.name == name) else {
            return Vec::new();
        };
        let offers = crate::scoring::offers(text, spec, &args);
        let branches = offers
            .iter()
            .map(|o| crate::engine::Branches {
                prefix: o.prefix.clone(),
                continuations: o.continuations.clone(),
                bound: Some((o.chosen, rule.margin)),
            })
            .collect();
        found = Some((name, offers));
        branches
    })?;
    let scored = match (found, scores) {
        (Some((tool, offers)), Ok(scores)) => Some(ScoredOffers {
            tool,
            offers: offers
                .into_iter()
                .zip(scores)
                .map(|(o, s)| {
                    let pairs = s
                        .iter()
                        .map(|s| s.map_or((f32::NEG_INFINITY, 0), |s| (s.logprob, s.tokens)))
                        .collect();
                    (o, pairs)
                })
                .collect(),
        }),
        (Some((tool, _)), Err(e)) => {
            notes.push(format!("{tool}: offered values not scored: {e}"));
            None
        }
        (None, _) => None,
    };
    Ok((g, scored))
}

/// The value-scoring pass on the one call kept: each parameter whose value is still the one
/// the model wrote takes the value the rule picks from the whole-value scores.
fn apply_scores(
    rule: crate::scoring::ValueRule,
    scored: &ScoredOffers,
    kept: &mut [(String, Value)],
    notes: &mut Vec<String>,
) {
    let [(name, args)] = kept else {
        return;
    };
    if *name != scored.tool {
        return;
    }
    for (o, pairs) in &scored.offers {
        let written = o.values.get(o.chosen);
        if args.get(&o.key).and_then(Value::as_str) != written.map(String::as_str) {
            continue;
        }
        let i = rule.pick(&o.values, pairs, o.chosen);
        if let (Some(v), Some(w), true) = (o.values.get(i), written, i != o.chosen)
            && let Some(a) = args.as_object_mut()
        {
            let gain = pairs.get(i).map_or(0.0, |p| p.0) - pairs.get(o.chosen).map_or(0.0, |p| p.0);
            notes.push(format!(
                "{name}: {} took {v:?}, which the model scores {gain:.1} nats above the {w:?} it wrote, whole",
                o.key
            ));
            a.insert(o.key.clone(), Value::String(v.clone()));
        }
    }
}

/// The passes on the calls the model wrote, in the order they run: re-asks on repeated numbers,
/// distinct items, whole lists, offered values scored whole, echoed names.
struct CallPasses<'a> {
    engine: &'a Engine,
    config: &'a LocalConfig,
    messages: &'a [(String, String)],
    tools: &'a [ToolSpec],
    limits: &'a GrammarLimits,
    /// The request the calls answer.
    query: &'a str,
    /// (tool, parameter) pairs whose values are the schema's own, named by the request.
    named: &'a [(String, String)],
}

impl CallPasses<'_> {
    /// The calls of the reply `text`: parsed, or, when the model declined and the reply was
    /// cut, a decline (with `may_decline`), or else the model's retry with the required
    /// parameters only and short values. The second value is the retry's text, when it was
    /// asked.
    fn parse(
        &self,
        text: &str,
        may_decline: bool,
        notes: &mut Vec<String>,
        usage: &mut Usage,
    ) -> Result<(Value, Option<String>), ProviderError> {
        let e = match serde_json::from_str(text) {
            Ok(v) => return Ok((v, None)),
            Err(_) if may_decline && named_tool(text) == Some("none") => {
                notes.push("the model declined every tool; its reply was cut".to_string());
                return Ok((serde_json::json!({"tool": "none"}), None));
            }
            Err(e) => e,
        };
        let cut = format!(
            "the grammar-constrained output did not parse ({e}): {}",
            shorten(text, 200)
        );
        let retried = retry_tight(
            self.engine,
            self.config,
            self.messages,
            text,
            self.tools,
            self.limits,
        )?;
        let (v, u) = retried.map_err(|again| {
            ProviderError::Model(format!(
                "{cut}; asked once more with required parameters only: {}",
                shorten(&again, 200)
            ))
        })?;
        usage.add(u);
        notes.push(format!(
            "{cut}; asked once more for {} with its required parameters only and short values",
            v.get("tool").and_then(Value::as_str).unwrap_or("the tool")
        ));
        let again = v.to_string();
        Ok((v, Some(again)))
    }

    /// `kept` after the passes; `scored`: the first call's offered values scored whole, when
    /// the calls are the model's first reply.
    fn apply(
        &self,
        mut kept: Vec<(String, Value)>,
        scored: Option<&ScoredOffers>,
        notes: &mut Vec<String>,
        usage: &mut Usage,
    ) -> Result<Vec<(String, Value)>, ProviderError> {
        let CallPasses {
            engine,
            config,
            messages,
            tools,
            limits,
            query,
            named,
        } = *self;
        // One call that gave several parameters the same number while other numbers of the
        // request went unused: asked again (at most twice), the later parameters without it.
        let mut current = tools.to_vec();
        let reasks = if config.passes.reask_repeated_numbers {
            2
        } else {
            0
        };
        for _ in 0..reasks {
            let [(name, args)] = kept.as_slice() else {
                break;
            };
            let Some((spec, params)) = repeated_numbers(&current, name, args) else {
                break;
            };
            let Ok(grammar) = tool_call_grammar(std::slice::from_ref(&spec), limits) else {
                break;
            };
            let again = engine.generate(messages, Some(&grammar), config.max_call_tokens, false)?;
            usage.add(again.usage);
            let Some(a) = serde_json::from_str::<Value>(&again.text)
                .ok()
                .and_then(|v| v.get("arguments").filter(|a| a.is_object()).cloned())
            else {
                break;
            };
            notes.push(format!(
                "{name}: the model repeated a number in {} while the request states others; asked again without it there: {}",
                params.join(", "),
                shorten(&again.text, 300)
            ));
            kept = vec![(name.clone(), a)];
            current = vec![spec];
        }
        if config.passes.distinct_calls {
            for (name, args) in kept.iter_mut() {
                let Some(spec) = tools.iter().find(|s| &s.name == name) else {
                    continue;
                };
                let changed = crate::passes::distinct_items(spec, args);
                if !changed.is_empty() {
                    notes.push(format!(
                        "{name}: a value written twice in {} kept once",
                        changed.join(", ")
                    ));
                }
            }
        }
        if config.passes.whole_lists {
            for (name, args) in kept.iter_mut() {
                let Some(spec) = tools.iter().find(|s| &s.name == name) else {
                    continue;
                };
                let changed = crate::lists::whole_lists(spec, query, args);
                if !changed.is_empty() {
                    notes.push(format!(
                        "{name}: {} took every item of the list the request writes",
                        changed.join(", ")
                    ));
                }
            }
        }
        if let (Some(scored), Some(rule)) = (scored, config.passes.score_values) {
            apply_scores(rule, scored, &mut kept, notes);
        }
        if config.passes.drop_echoed_names {
            let single = kept.len() == 1;
            for (name, args) in kept.iter_mut() {
                let Some(spec) = tools.iter().find(|s| &s.name == name) else {
                    continue;
                };
                let echo = EchoFix {
                    engine,
                    config,
                    messages,
                    spec,
                    limits,
                    named,
                };
                echo.apply(name, args, single, notes, usage)?;
            }
        }
        Ok(kept)
    }
}

/// The reply when the model declined every tool: its text answer to `direct`.
fn answer_directly(
    engine: &Engine,
    config: &LocalConfig,
    direct: &[(String, String)],
    mut notes: Vec<String>,
    mut usage: Usage,
) -> Result<Reply, ProviderError> {
    notes.push(
        "the model declined every tool ({\"tool\": \"none\"}); it answered directly".to_string(),
    );
    let t = engine.generate(direct, None, config.max_answer_tokens, false)?;
    usage.add(t.usage);
    let text = if t.text.is_empty() {
        notes.push("the model's answer was empty; a fixed reply was used".to_string());
        "I'm here and ready to help. What would you like to do?".to_string()
    } else {
        t.text
    };
    Ok(Reply {
        text: Some(text),
        usage: Some(usage),
        notes,
        ..Reply::default()
    })
}

/// Why the first turn has no candidate tool: no tools offered, the router's best match below
/// the relevance floor, or no match at all.
fn no_candidate_reason(turn: &Turn<'_>, passes: &Passes) -> String {
    if turn.tools.is_empty() {
        "no tools offered: the model answered in text".to_string()
    } else if let Some(best) = turn.ranking.and_then(|r| r.first()) {
        format!(
            "the router's best match {} ({:.2}) is below the relevance floor {:.2}: no tool fits, the model answered directly",
            best.name,
            best.score,
            passes.relevance_floor.unwrap_or(0.0)
        )
    } else {
        "the router matched no tool for this query: the model answered directly".to_string()
    }
}

/// The note on the router's ranking (or the candidates, without one) and how the model
/// chooses among `candidates`.
fn router_note(turn: &Turn<'_>, candidates: &[&ToolSpec]) -> String {
    let names: Vec<String> = match turn.ranking {
        Some(r) => r
            .iter()
            .map(|c| format!("{} ({:.2})", c.name, c.score))
            .collect(),
        None => candidates.iter().map(|s| s.name.clone()).collect(),
    };
    if candidates.len() == 1 {
        format!(
            "router: {}; one clear candidate, so the grammar fixed the tool and the model filled the arguments",
            names.join(", ")
        )
    } else {
        format!(
            "router: {}; the model chose among {} candidates under a grammar",
            names.join(", "),
            candidates.len()
        )
    }
}

/// The system prompt of a call: the instructions (a list of calls when `max_calls` > 1, and
/// the way to decline when `may_decline`) and the `shown` tools.
fn call_system_prompt(shown: &[ToolSpec], max_calls: usize, may_decline: bool) -> String {
    let mut system = String::from(
        "You are a function-calling assistant. Call the tool that does what the user asks, \
         with argument values taken from the user's request. Reply with JSON only.",
    );
    if max_calls > 1 {
        system.push_str(
            " Reply with a list of calls: usually one call; when the user asks for the same \
             thing for several items, one call per item.",
        );
    }
    if may_decline {
        system.push_str(
            " If the message is small talk, or no tool below fits it, reply {\"tool\": \"none\"}.",
        );
    }
    system.push_str("\n\n");
    for t in shown {
        system.push_str(&tool_text(t, false, false));
        system.push('\n');
    }
    system
}

fn run_job(engine: &Engine, config: &LocalConfig, job: Job) -> Result<Reply, ProviderError> {
    match job {
        Job::Fixed(r) => Ok(r),
        Job::Text { messages, notes } => {
            let g = engine.generate(&messages, None, config.max_answer_tokens, false)?;
            let mut r = Reply::text(g.text);
            r.usage = Some(g.usage);
            r.notes = notes;
            if r.text.as_deref().is_none_or(str::is_empty) {
                r.text = Some("I'm here and ready to help. What would you like to do?".to_string());
                r.notes
                    .push("the model's answer was empty; a fixed reply was used".to_string());
            }
            Ok(r)
        }
        Job::Call {
            messages,
            grammar,
            id,
            mut notes,
            direct,
            query,
            tools,
            limits,
            on_repeat,
            wrappers,
            named,
        } => {
            let (g, scored) =
                generate_call(engine, config, &messages, &grammar, &tools, &mut notes)?;
            let mut usage = g.usage;
            let passes = CallPasses {
                engine,
                config,
                messages: &messages,
                tools: &tools,
                limits: &limits,
                query: &query,
                named: &named,
            };
            // What the calls come from: the output, or the retry's call when it did not parse.
            let (v, generated) = passes.parse(&g.text, direct.is_some(), &mut notes, &mut usage)?;
            let wanted = wanted_calls(v);
            let (kept, dropped) = if config.passes.distinct_calls {
                keep_distinct_grounded(wanted, &query)
            } else {
                (wanted, 0)
            };
            if dropped > 0 {
                notes.push(format!(
                    "{dropped} extra call(s) dropped: nothing new in them, or a text value the request does not contain"
                ));
            }
            let scored = scored.as_ref().filter(|_| generated.is_none());
            let kept = passes.apply(kept, scored, &mut notes, &mut usage)?;
            let kept = rewrap(kept, &wrappers);
            if let Some((rejected, fallback)) = on_repeat
                && let [(_, args)] = kept.as_slice()
                && *args == rejected
            {
                let mut r = run_job(engine, config, *fallback)?;
                notes.append(&mut r.notes);
                r.notes = notes;
                if let Some(u) = r.usage.as_mut() {
                    u.add(usage);
                }
                return Ok(r);
            }
            let calls = numbered_calls(kept, &id);
            if let (Some(direct), true) = (direct, calls.is_empty()) {
                return answer_directly(engine, config, &direct, notes, usage);
            }
            notes.push(format!(
                "generated under the grammar: {}",
                shorten(generated.as_deref().unwrap_or(&g.text), 300)
            ));
            Ok(Reply {
                tool_calls: calls,
                usage: Some(usage),
                notes,
                ..Reply::default()
            })
        }
        Job::Answer {
            messages,
            results,
            notes,
        } => run_answer(engine, config, &messages, &results, notes),
    }
}

/// The calls the model wrote (`v`: one call `{tool, arguments}` or a list of them), as
/// (tool, arguments), without the declines (`{"tool": "none"}`).
fn wanted_calls(v: Value) -> Vec<(String, Value)> {
    // One call `{tool, arguments}`, or a list of them; `{"tool": "none"}` declines.
    let items = match v {
        Value::Array(items) => items,
        one => vec![one],
    };
    items
        .iter()
        .filter_map(|c| {
            let name = c.get("tool").and_then(Value::as_str).unwrap_or_default();
            (name != "none").then(|| {
                (
                    name.to_string(),
                    c.get("arguments")
                        .cloned()
                        .unwrap_or(Value::Object(Default::default())),
                )
            })
        })
        .collect()
}

/// Puts the arguments of each tool in `wrappers` back under the objects they were lifted out
/// of ([`crate::wrapper`]).
fn rewrap(
    kept: Vec<(String, Value)>,
    wrappers: &[(String, crate::wrapper::Lifted)],
) -> Vec<(String, Value)> {
    kept.into_iter()
        .map(
            |(name, args)| match wrappers.iter().find(|(tool, _)| *tool == name) {
                Some((_, w)) => (name, w.wrap(args)),
                None => (name, args),
            },
        )
        .collect()
}

/// The calls with their ids: the first gets `id`, the next ones `{id}_1`, `{id}_2`, ...
fn numbered_calls(kept: Vec<(String, Value)>, id: &str) -> Vec<ToolCall> {
    kept.into_iter()
        .enumerate()
        .map(|(i, (name, args))| {
            let call_id = if i == 0 {
                id.to_string()
            } else {
                format!("{id}_{i}")
            };
            ToolCall::new(call_id, name, args)
        })
        .collect()
}

/// Runs a [`Job::Answer`]: the model writes the answer from the results, and it is kept when
/// it states them (or composing is off), else the answer is composed from the envelopes.
fn run_answer(
    engine: &Engine,
    config: &LocalConfig,
    messages: &[(String, String)],
    results: &[(String, Value)],
    mut notes: Vec<String>,
) -> Result<Reply, ProviderError> {
    let g = engine.generate(messages, None, config.max_answer_tokens, true)?;
    let envs: Vec<Value> = results.iter().map(|(_, e)| e.clone()).collect();
    let text = if !config.passes.compose_answer {
        g.text
    } else if states_result(&g.text, &envs) {
        notes.push("the model's answer states the result".to_string());
        g.text
    } else {
        notes.push(format!(
            "the model's answer did not state the result ({:?}); the answer was composed from the envelopes",
            shorten(&g.text, 200)
        ));
        compose_answer(results, config.summaries.as_ref())
    };
    Ok(Reply {
        text: Some(text),
        usage: Some(g.usage),
        notes,
        ..Reply::default()
    })
}

impl LocalProvider {
    /// The log-probability the model gives each of `continuations` as the start of its reply to
    /// `messages` (role, content), summed over each continuation's tokens. Blocking; one prompt
    /// evaluation for all of them.
    ///
    /// # Errors
    /// When the prompt and the longest continuation do not fit the context, or llama.cpp fails.
    pub fn continuation_logprobs(
        &self,
        messages: &[(String, String)],
        continuations: &[&str],
    ) -> Result<Vec<f32>, ProviderError> {
        self.engine.continuation_logprobs(messages, continuations)
    }

    /// The model's file name.
    fn model_file(&self) -> String {
        self.config
            .model_path
            .file_name()
            .map_or_else(|| "model".into(), |f| f.to_string_lossy().into_owned())
    }
}

impl Provider for LocalProvider {
    fn name(&self) -> String {
        format!("local:{}", self.model_file())
    }

    /// `gen_ai.provider.name` `llama.cpp` (in process), the model file as the model.
    fn info(&self) -> ProviderInfo {
        ProviderInfo::new("llama.cpp", Some(self.model_file()))
    }

    fn wants_routing(&self) -> Option<usize> {
        Some(self.config.candidates.max(1))
    }

    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        let job = self.plan(&turn);
        let engine = self.engine.clone();
        let config = self.config.clone();
        Box::pin(async move {
            if let Job::Fixed(r) = job {
                return Ok(r);
            }
            tokio::task::spawn_blocking(move || run_job(&engine, &config, job))
                .await
                .map_err(|e| ProviderError::Model(format!("the generation task failed: {e}")))?
        })
    }
}

/// The local model as a plain text chat (no tool logic), for prompted JSON over it.
#[derive(Debug)]
pub struct LocalChat(pub Arc<LocalProvider>);

impl Provider for LocalChat {
    fn name(&self) -> String {
        self.0.name()
    }

    fn info(&self) -> ProviderInfo {
        self.0.info()
    }

    /// A small model reads a short prompt best, and faster: route to a few tools.
    fn wants_routing(&self) -> Option<usize> {
        self.0.wants_routing()
    }

    fn complete<'a>(&'a self, turn: Turn<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        let messages: Vec<(String, String)> = turn
            .messages
            .iter()
            .map(|m| {
                let role = if m.role == Role::Tool {
                    "user"
                } else {
                    m.role.as_str()
                };
                pair(role, m.content.clone())
            })
            .collect();
        Box::pin(async move {
            let max = self.0.config.max_call_tokens.max(256);
            let (text, usage) = self.0.chat(messages, max).await?;
            let mut r = Reply::text(text);
            r.usage = Some(usage);
            Ok(r)
        })
    }
}

/// One more try after an output that did not parse ([`crate::salvage`]): the tool it named,
/// required parameters only, short values. `Err(what it said)` when that try does not parse
/// either.
fn retry_tight(
    engine: &Engine,
    config: &LocalConfig,
    messages: &[(String, String)],
    text: &str,
    tools: &[ToolSpec],
    limits: &GrammarLimits,
) -> Result<Result<(Value, Usage), String>, ProviderError> {
    let Some(retry) = tight_retry(text, tools, limits) else {
        return Ok(Err("no tool to ask for".to_string()));
    };
    let grammar = match tool_call_grammar(std::slice::from_ref(&retry.spec), &retry.limits) {
        Ok(g) => g,
        Err(e) => return Ok(Err(e.to_string())),
    };
    // The budget of a two-call reply: a single call under these limits fits it.
    let g = engine.generate(messages, Some(&grammar), 2 * config.max_call_tokens, false)?;
    Ok(serde_json::from_str::<Value>(&g.text)
        .ok()
        .filter(|v| v.get("arguments").is_some_and(Value::is_object))
        .map(|v| (v, g.usage))
        .ok_or(g.text))
}
