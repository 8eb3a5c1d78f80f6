//! The report of a run: per-task results, a summary per mode (overall and per category), the
//! relative error reduction of guided over naive, as JSON, as text, and as HTML ([`crate::html`]).

use crate::run::{Mode, TaskResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Error rate of one category in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategorySummary {
    /// Category.
    pub category: String,
    /// Tasks.
    pub tasks: usize,
    /// Tasks scored wrong.
    pub errors: usize,
    /// errors / tasks.
    pub error_rate: f64,
}

/// The summary of one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeSummary {
    /// Mode.
    pub mode: Mode,
    /// Tasks run.
    pub tasks: usize,
    /// Tasks scored wrong.
    pub errors: usize,
    /// errors / tasks.
    pub error_rate: f64,
    /// Share of tasks (with expected calls) where the model picked the right tool(s).
    pub right_tools_rate: f64,
    /// Share of tasks (with expected calls) where the arguments were right too.
    pub right_arguments_rate: f64,
    /// Share of tasks (with expected calls) with at least one schema-valid call.
    pub valid_call_rate: f64,
    /// Share of irrelevance tasks where the model correctly called nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irrelevance_refusal_rate: Option<f64>,
    /// Mean model requests per task.
    pub mean_round_trips: f64,
    /// Prompt tokens in all.
    pub prompt_tokens: u64,
    /// Generated tokens in all.
    pub completion_tokens: u64,
    /// Sum of the tasks' wall times, in milliseconds.
    pub wall_ms: u64,
    /// Tasks whose provider failed.
    pub provider_errors: usize,
    /// Per category.
    pub by_category: Vec<CategorySummary>,
    /// Count per error kind.
    pub by_error: BTreeMap<String, usize>,
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Provider and model.
    pub provider: String,
    /// Wall time of the run, in milliseconds.
    pub wall_ms: u64,
    /// One summary per mode run.
    pub summaries: Vec<ModeSummary>,
    /// (naive error rate − guided error rate) / naive error rate, when both modes ran and naive
    /// made errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduction: Option<f64>,
    /// Every task in every mode.
    pub results: Vec<TaskResult>,
}

fn rate(n: usize, d: usize) -> f64 {
    if d == 0 { 0.0 } else { n as f64 / d as f64 }
}

fn summarize(mode: Mode, results: &[&TaskResult]) -> ModeSummary {
    let tasks = results.len();
    let errors = results.iter().filter(|r| !r.score.correct).count();
    let with_calls: Vec<&&TaskResult> = results.iter().filter(|r| !r.expected.is_empty()).collect();
    let irrelevant: Vec<&&TaskResult> = results.iter().filter(|r| r.expected.is_empty()).collect();
    let mut cats: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut by_error = BTreeMap::new();
    for r in results {
        let c = cats.entry(r.category.as_str()).or_default();
        c.0 += 1;
        if !r.score.correct {
            c.1 += 1;
        }
        if let Some(k) = r.score.error {
            *by_error.entry(k.as_str().to_string()).or_insert(0) += 1;
        }
    }
    ModeSummary {
        mode,
        tasks,
        errors,
        error_rate: rate(errors, tasks),
        right_tools_rate: rate(
            with_calls.iter().filter(|r| r.score.right_tools).count(),
            with_calls.len(),
        ),
        right_arguments_rate: rate(
            with_calls
                .iter()
                .filter(|r| r.score.right_arguments)
                .count(),
            with_calls.len(),
        ),
        valid_call_rate: rate(
            with_calls.iter().filter(|r| r.valid_call).count(),
            with_calls.len(),
        ),
        irrelevance_refusal_rate: (!irrelevant.is_empty()).then(|| {
            rate(
                irrelevant
                    .iter()
                    .filter(|r| r.irrelevance_refused == Some(true))
                    .count(),
                irrelevant.len(),
            )
        }),
        mean_round_trips: if tasks == 0 {
            0.0
        } else {
            results
                .iter()
                .map(|r| f64::from(r.round_trips))
                .sum::<f64>()
                / tasks as f64
        },
        prompt_tokens: results.iter().map(|r| r.prompt_tokens).sum(),
        completion_tokens: results.iter().map(|r| r.completion_tokens).sum(),
        wall_ms: results.iter().map(|r| r.wall_ms).sum(),
        provider_errors: results
            .iter()
            .filter(|r| r.provider_error.is_some())
            .count(),
        by_category: cats
            .into_iter()
            .map(|(c, (n, e))| CategorySummary {
                category: c.to_string(),
                tasks: n,
                errors: e,
                error_rate: rate(e, n),
            })
            .collect(),
        by_error,
    }
}

impl Report {
    /// Builds the summaries of `results`.
    pub fn new(provider: String, results: Vec<TaskResult>, wall_ms: u64) -> Self {
        let mut modes: Vec<Mode> = results.iter().map(|r| r.mode).collect();
        modes.sort();
        modes.dedup();
        let summaries: Vec<ModeSummary> = modes
            .iter()
            .map(|&m| {
                let rs: Vec<&TaskResult> = results.iter().filter(|r| r.mode == m).collect();
                summarize(m, &rs)
            })
            .collect();
        let mut report = Report {
            provider,
            wall_ms,
            summaries,
            reduction: None,
            results,
        };
        report.reduction = report.compute_reduction();
        report
    }

    /// The summary of `mode`, if it ran.
    pub fn summary(&self, mode: Mode) -> Option<&ModeSummary> {
        self.summaries.iter().find(|s| s.mode == mode)
    }

    fn compute_reduction(&self) -> Option<f64> {
        let naive = self.summary(Mode::Naive)?;
        let guided = self.summary(Mode::Guided)?;
        (naive.error_rate > 0.0).then(|| (naive.error_rate - guided.error_rate) / naive.error_rate)
    }

    /// Adds the results of the modes this report lacks from `baseline` (a saved report of the
    /// other mode on the same tasks), so the reduction can be computed across two runs.
    ///
    /// # Errors
    /// The baseline ran other tasks than this report.
    pub fn merge_baseline(self, baseline: Report) -> Result<Report, crate::EvalError> {
        let have: Vec<Mode> = self.summaries.iter().map(|s| s.mode).collect();
        let ids = |rs: &[TaskResult], m: Mode| -> Vec<String> {
            rs.iter()
                .filter(|r| r.mode == m)
                .map(|r| r.id.clone())
                .collect()
        };
        let mine: Vec<String> = have
            .first()
            .map(|m| ids(&self.results, *m))
            .unwrap_or_default();
        let mut results = self.results;
        for s in &baseline.summaries {
            if have.contains(&s.mode) {
                continue;
            }
            let theirs = ids(&baseline.results, s.mode);
            if theirs != mine {
                return Err(crate::EvalError::invalid(format!(
                    "the baseline's {} run has other tasks ({} vs {}): rerun with the same \
                     dataset, --category and --limit",
                    s.mode.as_str(),
                    theirs.len(),
                    mine.len()
                )));
            }
            results.extend(
                baseline
                    .results
                    .iter()
                    .filter(|r| r.mode == s.mode)
                    .cloned(),
            );
        }
        let provider = if baseline.provider == self.provider {
            self.provider
        } else {
            format!("{} (baseline: {})", self.provider, baseline.provider)
        };
        Ok(Report::new(
            provider,
            results,
            self.wall_ms + baseline.wall_ms,
        ))
    }

    /// A plain-text summary for the terminal.
    pub fn summary_text(&self) -> String {
        let mut out = format!(
            "provider: {}\nwall time: {:.1} s\n",
            self.provider,
            self.wall_ms as f64 / 1000.0
        );
        out.push_str(
            "mode    tasks  errors  error rate  right tools  right args  valid call  irrelevance ok  round trips  tokens (prompt/gen)  wall s\n",
        );
        for s in &self.summaries {
            out.push_str(&format!(
                "{:<7} {:>5}  {:>6}  {:>9.1}%  {:>10.1}%  {:>9.1}%  {:>9.1}%  {:>14}  {:>11.2}  {:>19}  {:>6.1}\n",
                s.mode.as_str(),
                s.tasks,
                s.errors,
                100.0 * s.error_rate,
                100.0 * s.right_tools_rate,
                100.0 * s.right_arguments_rate,
                100.0 * s.valid_call_rate,
                s.irrelevance_refusal_rate
                    .map_or_else(|| "-".to_string(), |r| format!("{:.1}%", 100.0 * r)),
                s.mean_round_trips,
                format!("{}/{}", s.prompt_tokens, s.completion_tokens),
                s.wall_ms as f64 / 1000.0,
            ));
        }
        for s in &self.summaries {
            let cats: Vec<String> = s
                .by_category
                .iter()
                .map(|c| {
                    format!(
                        "{} {:.1}% ({}/{})",
                        c.category,
                        100.0 * c.error_rate,
                        c.errors,
                        c.tasks
                    )
                })
                .collect();
            out.push_str(&format!(
                "{} by category: {}\n",
                s.mode.as_str(),
                cats.join(", ")
            ));
            if !s.by_error.is_empty() {
                let errs: Vec<String> =
                    s.by_error.iter().map(|(k, n)| format!("{k} {n}")).collect();
                out.push_str(&format!(
                    "{} errors: {}\n",
                    s.mode.as_str(),
                    errs.join(", ")
                ));
            }
            if s.provider_errors > 0 {
                out.push_str(&format!(
                    "{}: the provider failed on {} task(s)\n",
                    s.mode.as_str(),
                    s.provider_errors
                ));
            }
        }
        match (
            self.summary(Mode::Naive),
            self.summary(Mode::Guided),
            self.reduction,
        ) {
            (Some(n), Some(g), Some(r)) => out.push_str(&format!(
                "error reduction guided vs naive: {:.1}% ({:.1}% → {:.1}%)\n",
                100.0 * r,
                100.0 * n.error_rate,
                100.0 * g.error_rate
            )),
            (Some(_), Some(_), None) => {
                out.push_str("error reduction: n/a (naive made no errors)\n");
            }
            _ => {}
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::score::{ErrorKind, Score};

    pub(crate) fn result(id: &str, cat: &str, mode: Mode, ok: bool) -> TaskResult {
        TaskResult {
            id: id.into(),
            category: cat.into(),
            mode,
            query: "q".into(),
            score: Score {
                correct: ok,
                right_tools: ok,
                right_arguments: ok,
                error: (!ok).then_some(ErrorKind::WrongTool),
                detail: String::new(),
            },
            valid_call: ok,
            irrelevance_refused: None,
            round_trips: 2,
            prompt_tokens: 10,
            completion_tokens: 5,
            wall_ms: 100,
            calls: vec![],
            expected: vec![crate::dataset::ExpectedCall {
                name: "f".into(),
                arguments: Default::default(),
            }],
            output: String::new(),
            envelopes: vec![],
            provider_error: None,
        }
    }

    #[test]
    fn summarizes_and_computes_the_reduction() {
        let rs = vec![
            result("1", "a", Mode::Naive, false),
            result("2", "a", Mode::Naive, false),
            result("3", "b", Mode::Naive, true),
            result("4", "b", Mode::Naive, false),
            result("1", "a", Mode::Guided, true),
            result("2", "a", Mode::Guided, false),
            result("3", "b", Mode::Guided, true),
            result("4", "b", Mode::Guided, true),
        ];
        let r = Report::new("p".into(), rs, 1);
        let n = r.summary(Mode::Naive).unwrap();
        assert_eq!((n.errors, n.error_rate), (3, 0.75));
        assert_eq!(n.by_category[0].error_rate, 1.0);
        assert_eq!(n.by_error["wrong_tool"], 3);
        let g = r.summary(Mode::Guided).unwrap();
        assert_eq!(g.error_rate, 0.25);
        assert!((r.reduction.unwrap() - 2.0 / 3.0).abs() < 1e-9);
        let text = r.summary_text();
        assert!(
            text.contains("error reduction guided vs naive: 66.7% (75.0% → 25.0%)"),
            "{text}"
        );
    }

    #[test]
    fn merges_a_baseline_run_of_the_other_mode() {
        let naive = Report::new("p".into(), vec![result("1", "a", Mode::Naive, false)], 1);
        let guided = Report::new("p".into(), vec![result("1", "a", Mode::Guided, true)], 1);
        let merged = guided.clone().merge_baseline(naive).unwrap();
        assert_eq!(merged.summaries.len(), 2);
        assert_eq!(merged.reduction, Some(1.0));
        let other = Report::new("p".into(), vec![result("9", "a", Mode::Naive, false)], 1);
        assert!(guided.merge_baseline(other).is_err());
    }
}
