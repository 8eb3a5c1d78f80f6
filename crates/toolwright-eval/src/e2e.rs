//! End-to-end figures on a shared-toolset dataset: each request through the agent (routing, the
//! provider, validation), scored on the first tool called, the arguments the request determines,
//! and whether out-of-scope requests were answered without a call.

use crate::dataset::{ExpectedCall, Task};
use crate::run::PreparedTask;
use crate::score::loose_eq;
use crate::toolset::{Request, ToolsetDataset};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use toolwright_agent::{Agent, AgentConfig, Provider, Ranker};

/// One request's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct E2eRow {
    /// Request id.
    pub id: String,
    /// Whether no tool fits.
    pub out_of_scope: bool,
    /// The first tool the model called (none: it answered without a call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub called: Option<String>,
    /// The first call's arguments, as the model wrote them (for reading what went wrong).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The first call's tool is right (in scope) or no call was made (out of scope).
    pub right: bool,
    /// The first call gave every argument the request determines an acceptable value
    /// (`None` when the request determines none, or the tool was wrong).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments_right: Option<bool>,
    /// Wall time in milliseconds.
    pub wall_ms: u64,
    /// What the provider reported doing, step by step (the trace's notes: the passes that
    /// changed something), for reading why a row went wrong.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The inputs the provider asked the user for instead of calling (the trace steps'
    /// `needs_input`); such a request made no call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<String>,
}

/// The end-to-end figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndToEnd {
    /// The provider.
    pub provider: String,
    /// In-scope requests run.
    pub in_scope: usize,
    /// Share of in-scope requests whose first call named a right tool.
    pub right_tool: f64,
    /// Share of in-scope requests answered without any call.
    pub refused_in_scope: f64,
    /// Share of in-scope requests answered with a question for a required input the request
    /// does not give (counted among the refused too).
    pub asked_in_scope: f64,
    /// In-scope requests with determined arguments whose tool was right.
    pub with_arguments: usize,
    /// Share of those whose arguments were right.
    pub arguments_right: f64,
    /// Out-of-scope requests run.
    pub out_of_scope: usize,
    /// Share of out-of-scope requests answered without a call.
    pub refused_out_of_scope: f64,
    /// Share of out-of-scope requests answered with a question for an input (counted among the
    /// answered without a call too).
    pub asked_out_of_scope: f64,
    /// Mean wall time per request, milliseconds.
    pub mean_ms: f64,
    /// Per request.
    pub rows: Vec<E2eRow>,
}

/// Whether `args` give every argument of `expected` an acceptable value (`""` among the values
/// means it may be left out); arguments the request does not determine are not checked.
pub fn arguments_match(expected: &ExpectedCall, args: &Value) -> bool {
    expected.arguments.iter().all(|(k, acceptable)| {
        let options = acceptable.as_array().map(Vec::as_slice).unwrap_or_default();
        match args.get(k) {
            None | Some(Value::Null) => options.iter().any(|o| o == ""),
            Some(v) => options.iter().any(|o| o != "" && loose_eq(o, v)),
        }
    })
}

fn score_request(r: &Request, first: Option<(&str, &Value)>) -> (bool, Option<bool>) {
    let Some((name, args)) = first else {
        return (r.out_of_scope(), None);
    };
    if r.out_of_scope() {
        return (false, None);
    }
    let fits: Vec<&ExpectedCall> = if r.any_of {
        r.expected.iter().filter(|e| e.name == name).collect()
    } else {
        r.expected
            .iter()
            .take(1)
            .filter(|e| e.name == name)
            .collect()
    };
    if fits.is_empty() {
        return (false, None);
    }
    let determined = fits.iter().any(|e| !e.arguments.is_empty());
    let args_ok = fits.iter().any(|e| arguments_match(e, args));
    (true, determined.then_some(args_ok))
}

/// Runs `requests` of `ds` through an agent over `provider`, routing with `ranker`, one at a
/// time; `progress(done, total)` after each.
///
/// # Errors
/// The toolset cannot be registered.
pub async fn run_end_to_end(
    ds: &ToolsetDataset,
    requests: &[Request],
    provider: Arc<dyn Provider>,
    ranker: Arc<dyn Ranker>,
    config: AgentConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<EndToEnd, crate::EvalError> {
    let prepared = PreparedTask::new(Task {
        id: ds.name.clone(),
        category: "toolset".into(),
        query: "toolset".into(),
        functions: ds.functions.clone(),
        expected: Vec::new(),
    })?;
    let mut rows = Vec::with_capacity(requests.len());
    for (i, r) in requests.iter().enumerate() {
        let started = std::time::Instant::now();
        let mut agent = Agent::new(provider.clone(), prepared.runtime.clone(), config.clone())
            .with_ranker(ranker.clone());
        let trace = agent.run_trace(&r.query).await;
        let first = trace
            .calls
            .first()
            .map(|c| (c.call.name.as_str(), &c.call.arguments));
        let (right, arguments_right) = score_request(r, first);
        rows.push(E2eRow {
            id: r.id.clone(),
            out_of_scope: r.out_of_scope(),
            called: first.map(|(n, _)| n.to_string()),
            arguments: first.map(|(_, a)| a.clone()),
            right,
            arguments_right,
            wall_ms: started.elapsed().as_millis() as u64,
            notes: trace.steps.iter().flat_map(|s| s.notes.clone()).collect(),
            asked: trace
                .steps
                .iter()
                .flat_map(|s| s.needs_input.clone())
                .collect(),
        });
        progress(i + 1, requests.len());
    }
    Ok(summarize(provider.name(), rows))
}

/// The figures of `rows`.
pub fn summarize(provider: String, rows: Vec<E2eRow>) -> EndToEnd {
    let share = |num: usize, den: usize| {
        if den == 0 {
            0.0
        } else {
            num as f64 / den as f64
        }
    };
    let ins: Vec<&E2eRow> = rows.iter().filter(|r| !r.out_of_scope).collect();
    let oos: Vec<&E2eRow> = rows.iter().filter(|r| r.out_of_scope).collect();
    let with_args: Vec<bool> = ins.iter().filter_map(|r| r.arguments_right).collect();
    EndToEnd {
        provider,
        in_scope: ins.len(),
        right_tool: share(ins.iter().filter(|r| r.right).count(), ins.len()),
        refused_in_scope: share(ins.iter().filter(|r| r.called.is_none()).count(), ins.len()),
        asked_in_scope: share(
            ins.iter().filter(|r| !r.asked.is_empty()).count(),
            ins.len(),
        ),
        with_arguments: with_args.len(),
        arguments_right: share(with_args.iter().filter(|b| **b).count(), with_args.len()),
        out_of_scope: oos.len(),
        refused_out_of_scope: share(oos.iter().filter(|r| r.right).count(), oos.len()),
        asked_out_of_scope: share(
            oos.iter().filter(|r| !r.asked.is_empty()).count(),
            oos.len(),
        ),
        mean_ms: if rows.is_empty() {
            0.0
        } else {
            rows.iter().map(|r| r.wall_ms as f64).sum::<f64>() / rows.len() as f64
        },
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(text: &str) -> Request {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn arguments_are_checked_only_where_the_request_determines_them() {
        let e: ExpectedCall = serde_json::from_value(
            json!({"name": "f", "arguments": {"path": ["/a", "/b"], "n": ["", 3]}}),
        )
        .unwrap();
        assert!(arguments_match(&e, &json!({"path": "/a"})));
        assert!(arguments_match(
            &e,
            &json!({"path": "/b", "n": 3, "other": 1})
        ));
        assert!(!arguments_match(&e, &json!({"path": "/c"})));
        assert!(!arguments_match(&e, &json!({"n": 3})));
        assert!(!arguments_match(&e, &json!({"path": "/a", "n": 4})));
    }

    #[test]
    fn requests_are_scored_on_the_first_call() {
        let r = req(
            r#"{"id":"1","query":"q","expected":[{"name":"a","arguments":{"x":[1]}},{"name":"b"}],"any_of":true}"#,
        );
        assert_eq!(
            score_request(&r, Some(("a", &json!({"x": 1})))),
            (true, Some(true))
        );
        assert_eq!(
            score_request(&r, Some(("a", &json!({"x": 2})))),
            (true, Some(false))
        );
        assert_eq!(score_request(&r, Some(("b", &json!({})))), (true, None));
        assert_eq!(score_request(&r, Some(("c", &json!({})))), (false, None));
        assert_eq!(score_request(&r, None), (false, None));
        let oos = req(r#"{"id":"2","query":"pizza","expected":[]}"#);
        assert_eq!(score_request(&oos, None), (true, None));
        assert_eq!(score_request(&oos, Some(("a", &json!({})))), (false, None));
        let s = summarize(
            "p".into(),
            vec![
                E2eRow {
                    id: "1".into(),
                    out_of_scope: false,
                    called: Some("a".into()),
                    arguments: None,
                    right: true,
                    arguments_right: Some(true),
                    wall_ms: 10,
                    notes: Vec::new(),
                    asked: Vec::new(),
                },
                E2eRow {
                    id: "2".into(),
                    out_of_scope: false,
                    called: None,
                    arguments: None,
                    right: false,
                    arguments_right: None,
                    wall_ms: 10,
                    notes: Vec::new(),
                    asked: Vec::new(),
                },
                E2eRow {
                    id: "3".into(),
                    out_of_scope: true,
                    called: None,
                    arguments: None,
                    right: true,
                    arguments_right: None,
                    wall_ms: 10,
                    notes: Vec::new(),
                    asked: Vec::new(),
                },
            ],
        );
        assert_eq!(
            (s.right_tool, s.refused_in_scope, s.refused_out_of_scope),
            (0.5, 0.5, 1.0)
        );
        assert_eq!((s.with_arguments, s.arguments_right), (1, 1.0));
    }
}
