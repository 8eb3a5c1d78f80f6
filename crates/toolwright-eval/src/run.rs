//! The runner: each task through a [`Solver`] in `naive` and/or `guided` mode, scored, with a
//! progress bar.
//!
//! A solver gets the task's tools registered as [`toolwright_core::DefinitionOnly`] tools in a
//! [`Runtime`]: calls are validated against the advertised schemas and answered with an
//! envelope, never executed.

use crate::dataset::Task;
use crate::report::Report;
use crate::score::{Call, Score, score};
use futures::future::BoxFuture;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use toolwright_core::{DefinitionOnly, Registry, ToolSpec};
use toolwright_runtime::Runtime;

/// How the model is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The classic single shot, as the Berkeley Function Calling Leaderboard runs a prompt-based
    /// model ([`crate::naive`]): its default system prompt with all tools, its AST decoding of
    /// the answer; no grammar, no validation feedback, no routing, no retries.
    Naive,
    /// toolwright's loop: routing, narrow schemas, validation feedback, retry budgets.
    Guided,
}

impl Mode {
    /// `naive` or `guided`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Naive => "naive",
            Mode::Guided => "guided",
        }
    }

    /// Parses `naive` / `guided`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "naive" => Some(Mode::Naive),
            "guided" => Some(Mode::Guided),
            _ => None,
        }
    }
}

/// A task ready to run: its specs and a runtime holding them as definition-only tools.
#[derive(Debug, Clone)]
pub struct PreparedTask {
    /// The task.
    pub task: Task,
    /// Its tool definitions as specs.
    pub specs: Vec<ToolSpec>,
    /// A runtime over the definition-only tools (validates calls, executes nothing).
    pub runtime: Runtime,
}

impl PreparedTask {
    /// Prepares a task.
    ///
    /// # Errors
    /// A definition that cannot be registered (bad name, duplicate, schema that does not compile).
    pub fn new(task: Task) -> Result<Self, crate::EvalError> {
        let specs = task.specs()?;
        let reg = Registry::new();
        for s in &specs {
            reg.register(DefinitionOnly::new(s.clone()))
                .map_err(|e| crate::EvalError::from(e).at(format!("task {}", task.id)))?;
        }
        Ok(PreparedTask {
            task,
            specs,
            runtime: Runtime::new(Arc::new(reg)),
        })
    }

    /// Whether `call` names a tool of this task and its arguments validate (strictly, no coercion).
    pub fn is_valid(&self, call: &Call) -> bool {
        self.runtime
            .registry()
            .get(&call.name)
            .is_some_and(|e| e.validator.validate(&call.arguments).is_ok())
    }
}

/// What a solver did on one task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// The calls to score (naive: every call parsed from the model's answer; guided: the calls
    /// that passed validation, duplicates removed).
    pub calls: Vec<Call>,
    /// What the model wrote (its final text, or a transcript).
    pub output: String,
    /// The envelopes of the calls the model made, in order.
    pub envelopes: Vec<Value>,
    /// Model requests made.
    pub round_trips: u32,
    /// Prompt tokens, when the provider reports them.
    pub prompt_tokens: u64,
    /// Generated tokens, when the provider reports them.
    pub completion_tokens: u64,
    /// The provider failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Drives a model on one task.
pub trait Solver: Send + Sync {
    /// The provider and model, for the report.
    fn name(&self) -> String;
    /// Runs `task` in `mode`.
    fn solve<'a>(&'a self, task: &'a PreparedTask, mode: Mode) -> BoxFuture<'a, Attempt>;
}

/// The result of one task in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    /// Task id.
    pub id: String,
    /// Task category.
    pub category: String,
    /// Mode.
    pub mode: Mode,
    /// The query.
    pub query: String,
    /// The verdict.
    pub score: Score,
    /// At least one call named a tool of the task and validated against its schema.
    pub valid_call: bool,
    /// For irrelevance tasks: the model correctly called nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irrelevance_refused: Option<bool>,
    /// Model requests.
    pub round_trips: u32,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Generated tokens.
    pub completion_tokens: u64,
    /// Wall time of the task, in milliseconds.
    pub wall_ms: u64,
    /// The calls scored.
    pub calls: Vec<Call>,
    /// The expected calls.
    pub expected: Vec<crate::dataset::ExpectedCall>,
    /// What the model wrote.
    pub output: String,
    /// Envelopes the model received.
    pub envelopes: Vec<Value>,
    /// Provider failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_error: Option<String>,
}

/// Scores one attempt of one task.
pub fn evaluate(task: &PreparedTask, mode: Mode, attempt: Attempt, wall_ms: u64) -> TaskResult {
    let s = score(&task.specs, &task.task.expected, &attempt.calls);
    let valid_call = attempt.calls.iter().any(|c| task.is_valid(c));
    TaskResult {
        id: task.task.id.clone(),
        category: task.task.category.clone(),
        mode,
        query: task.task.query.clone(),
        irrelevance_refused: task
            .task
            .is_irrelevance()
            .then_some(attempt.calls.is_empty()),
        score: s,
        valid_call,
        round_trips: attempt.round_trips,
        prompt_tokens: attempt.prompt_tokens,
        completion_tokens: attempt.completion_tokens,
        wall_ms,
        calls: attempt.calls,
        expected: task.task.expected.clone(),
        output: attempt.output,
        envelopes: attempt.envelopes,
        provider_error: attempt.error,
    }
}

/// Options of [`run`].
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Show a progress bar with an ETA on stderr (when it is a terminal).
    pub progress: bool,
}

/// Runs every task in every mode (modes in the order given, tasks in order) and builds the report.
///
/// # Errors
/// A task whose definitions cannot be registered.
pub async fn run(
    tasks: &[Task],
    solver: &dyn Solver,
    modes: &[Mode],
    opts: &RunOptions,
) -> Result<Report, crate::EvalError> {
    let prepared: Vec<PreparedTask> = tasks
        .iter()
        .cloned()
        .map(PreparedTask::new)
        .collect::<Result<_, _>>()?;
    let total = u64::try_from(prepared.len() * modes.len()).unwrap_or(u64::MAX);
    let bar = if opts.progress {
        progress_bar(total)
    } else {
        ProgressBar::hidden()
    };
    let started = Instant::now();
    let mut results = Vec::with_capacity(prepared.len() * modes.len());
    for &mode in modes {
        bar.set_prefix(mode.as_str());
        let mut errors = 0usize;
        let mut done = 0usize;
        for task in &prepared {
            bar.set_message(format!("{} ", task.task.id));
            let t = Instant::now();
            let attempt = solver.solve(task, mode).await;
            let wall = u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX);
            let r = evaluate(task, mode, attempt, wall);
            done += 1;
            if !r.score.correct {
                errors += 1;
            }
            bar.set_message(format!("errors {errors}/{done}"));
            bar.inc(1);
            results.push(r);
        }
    }
    bar.finish_and_clear();
    let wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Report::new(solver.name(), results, wall_ms))
}

/// The eval's progress bar on stderr (`len` steps, with elapsed time and ETA).
pub fn progress_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix:>7} [{bar:30}] {pos}/{len} {msg} elapsed {elapsed_precise} eta {eta_precise}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Answers from a table: task id → calls, and counts what it was asked.
    struct Table(std::collections::HashMap<String, Vec<Call>>);

    impl Solver for Table {
        fn name(&self) -> String {
            "table".into()
        }
        fn solve<'a>(&'a self, task: &'a PreparedTask, mode: Mode) -> BoxFuture<'a, Attempt> {
            Box::pin(async move {
                let mut calls = self.0.get(&task.task.id).cloned().unwrap_or_default();
                if mode == Mode::Guided {
                    // pretend the loop's validation feedback fixed invalid calls
                    calls.retain(|c| task.is_valid(c));
                }
                Attempt {
                    calls,
                    round_trips: 1,
                    ..Attempt::default()
                }
            })
        }
    }

    fn tasks() -> Vec<Task> {
        crate::dataset::parse_jsonl(
            r#"{"id":"a","category":"simple","query":"weather in paris","functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}],"expected":[{"name":"get_weather","arguments":{"city":["Paris"]}}]}
{"id":"b","category":"simple","query":"weather in rome","functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}],"expected":[{"name":"get_weather","arguments":{"city":["Rome"]}}]}
{"id":"c","category":"irrelevance","query":"tell a joke","functions":[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn runs_both_modes_and_scores_them() {
        let mut table = std::collections::HashMap::new();
        table.insert(
            "a".to_string(),
            vec![Call::new("get_weather", json!({"city": "paris"}))],
        );
        table.insert(
            "b".to_string(),
            vec![Call::new("get_weather", json!({"city": 3}))],
        );
        table.insert("c".to_string(), vec![]);
        let solver = Table(table);
        let rt = tokio::runtime::Builder::new_current_thread()
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
        assert_eq!(report.results.len(), 6);
        let naive = report.summary(Mode::Naive).unwrap();
        assert_eq!((naive.tasks, naive.errors), (3, 1));
        assert!(report.results[0].valid_call);
        assert!(!report.results[1].valid_call);
        assert_eq!(report.results[2].irrelevance_refused, Some(true));
        let guided = report.summary(Mode::Guided).unwrap();
        assert_eq!(guided.errors, 1); // b: the invalid call was dropped → no call
        assert_eq!(
            report.results[4].score.error,
            Some(crate::score::ErrorKind::NoCall)
        );
    }

    #[test]
    fn definitions_that_cannot_register_are_reported() {
        let mut t = tasks().remove(0);
        t.functions.push(t.functions[0].clone());
        assert!(
            PreparedTask::new(t)
                .unwrap_err()
                .to_string()
                .contains("already registered")
        );
    }
}
