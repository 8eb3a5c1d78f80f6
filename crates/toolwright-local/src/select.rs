//! The selection policy: which tool a small model is given for a request, or none.
//!
//! Measured on the MCP dev set (`crates/toolwright-eval/data/mcp`, see the eval crate's README),
//! a 135M model choosing among the router's close candidates picked the right tool less often than
//! the router's own first guess. So by default the router decides the tool ([`Selection::RouterFirst`])
//! and the model fills the arguments under a grammar that fixes the tool name, which makes the
//! provider's tool choice exactly as good as its router's. [`Selection::ModelAmongClose`] keeps
//! the older behaviour for larger local models.
//!
//! "No tool fits" is decided before any model call, on the best cosine similarity between the
//! request and a tool description (comparable across toolsets, unlike a BM25 score): below
//! [`DEFAULT_NO_TOOL_SIMILARITY`] the model answers directly. Without an embedder there is no such
//! signal and the decision falls back to the lexical floors of [`crate::Passes`].
//!
//! ```
//! use toolwright_agent::Candidate;
//! use toolwright_local::select::{Selection, Decision, choose};
//! let ranked = vec![
//!     Candidate { name: "get_weather".into(), score: 0.09, similarity: Some(0.62) },
//!     Candidate { name: "get_time".into(), score: 0.05, similarity: Some(0.31) },
//! ];
//! assert_eq!(choose(&ranked, Selection::RouterFirst, Some(0.3), 0.5, 3),
//!            Decision::Tools(vec!["get_weather".to_string()]));
//! let far = vec![Candidate { name: "get_weather".into(), score: 0.09, similarity: Some(0.12) }];
//! assert!(matches!(choose(&far, Selection::RouterFirst, Some(0.3), 0.5, 3), Decision::NoTool { .. }));
//! ```

use serde_json::Value;
use toolwright_agent::Candidate;
use toolwright_core::ToolSpec;

/// The similarity (all-MiniLM-L6-v2 cosine, the best among the router's candidates) under which
/// no tool is taken to fit a request (see the module docs). Chosen on the MCP dev set
/// (`crates/toolwright-eval/data/mcp`, 300 in-scope and 42 out-of-scope requests, hybrid router,
/// 3 candidates) as the floor that refuses the most out-of-scope requests while refusing at most
/// 5% of the in-scope ones: 0.21 refused 40% of them and 4.7% of the in-scope. On a split by
/// server the best floor moved between 0.16 and 0.25, so treat it as a default to
/// recalibrate on your own tools (`toolwright eval --dataset DIR` prints the rates; the eval
/// crate's `fusion_sweep` example prints the calibration). Another embedder needs its own floor.
pub const DEFAULT_NO_TOOL_SIMILARITY: f32 = 0.21;

/// Who picks the tool among the router's candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selection {
    /// The router's first candidate; the model only fills the arguments.
    #[default]
    RouterFirst,
    /// The model chooses, under a grammar, among the candidates whose router score is at least
    /// `close_ratio` times the best (at most `max` of them; see [`choose`]).
    ModelAmongClose,
}

/// What [`choose`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Offer these tools (best first).
    Tools(Vec<String>),
    /// No tool fits: answer directly. The reason is for the trace.
    NoTool {
        /// Why.
        reason: String,
    },
}

/// Applies the no-tool floor (when the ranking carries similarities) and `selection` to the
/// router's ranking.
pub fn choose(
    ranking: &[Candidate],
    selection: Selection,
    no_tool_floor: Option<f32>,
    close_ratio: f32,
    max: usize,
) -> Decision {
    let Some(best) = ranking.first() else {
        return Decision::NoTool {
            reason: "the router matched no tool".to_string(),
        };
    };
    let best_similarity = ranking
        .iter()
        .filter_map(|c| c.similarity)
        .fold(None, |m: Option<f32>, s| Some(m.map_or(s, |m| m.max(s))));
    if let (Some(floor), Some(sim)) = (no_tool_floor, best_similarity)
        && sim < floor
    {
        return Decision::NoTool {
            reason: format!(
                "no tool fits: the closest tool description ({}) has similarity {sim:.2} < {floor:.2}",
                best.name
            ),
        };
    }
    match selection {
        Selection::RouterFirst => Decision::Tools(vec![best.name.clone()]),
        Selection::ModelAmongClose => Decision::Tools(
            ranking
                .iter()
                .filter(|c| c.score >= best.score * close_ratio)
                .take(max.max(1))
                .map(|c| c.name.clone())
                .collect(),
        ),
    }
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// Removes the string arguments whose value is only the tool's name or a parameter's name
/// (`git_diff {"repo_path": "git_diff"}`): a small model copies names it was shown when the
/// request gives no value, and such a value is missing, not an answer. Returns the arguments
/// left and the names of those removed (a required one removed makes validation ask again).
pub fn drop_echoed_names(spec: &ToolSpec, args: &Value) -> (Value, Vec<String>) {
    let Some(map) = args.as_object() else {
        return (args.clone(), Vec::new());
    };
    let mut names: Vec<String> = vec![squash(&spec.name)];
    if let Some(props) = spec.parameters.get("properties").and_then(Value::as_object) {
        names.extend(props.keys().map(|k| squash(k)));
    }
    names.retain(|n| n.len() >= 3);
    let mut kept = serde_json::Map::new();
    let mut dropped = Vec::new();
    for (k, v) in map {
        let echoed = v
            .as_str()
            .map(squash)
            .is_some_and(|s| !s.is_empty() && names.contains(&s));
        if echoed {
            dropped.push(k.clone());
        } else {
            kept.insert(k.clone(), v.clone());
        }
    }
    (Value::Object(kept), dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cand(name: &str, score: f32, sim: Option<f32>) -> Candidate {
        Candidate {
            name: name.into(),
            score,
            similarity: sim,
        }
    }

    #[test]
    fn router_first_takes_the_best_and_the_floor_needs_a_similarity() {
        let r = [cand("a", 2.0, None), cand("b", 1.9, None)];
        assert_eq!(
            choose(&r, Selection::RouterFirst, Some(0.9), 0.5, 3),
            Decision::Tools(vec!["a".into()])
        );
        assert_eq!(
            choose(&r, Selection::ModelAmongClose, None, 0.9, 3),
            Decision::Tools(vec!["a".into(), "b".into()])
        );
        assert!(matches!(
            choose(&[], Selection::RouterFirst, None, 0.5, 3),
            Decision::NoTool { .. }
        ));
        // The floor looks at the best similarity among the candidates, not only the first's.
        let r = [cand("a", 2.0, Some(0.2)), cand("b", 1.0, Some(0.5))];
        assert_eq!(
            choose(&r, Selection::RouterFirst, Some(0.3), 0.5, 3),
            Decision::Tools(vec!["a".into()])
        );
        let r = [cand("a", 2.0, Some(0.2)), cand("b", 1.0, Some(0.25))];
        let Decision::NoTool { reason } = choose(&r, Selection::RouterFirst, Some(0.3), 0.5, 3)
        else {
            panic!()
        };
        assert!(reason.contains("0.25 < 0.30"), "{reason}");
    }

    #[test]
    fn names_copied_into_values_are_dropped() {
        let spec = ToolSpec::new(
            "git_diff",
            "Diff.",
            json!({"type": "object", "properties": {"repo_path": {"type": "string"}, "target": {"type": "string"}, "n": {"type": "integer"}}}),
        );
        let (left, dropped) = drop_echoed_names(
            &spec,
            &json!({"repo_path": "git_diff", "target": "Repo-Path", "n": 3}),
        );
        assert_eq!(left, json!({"n": 3}));
        assert_eq!(dropped, ["repo_path", "target"]);
        let (left, dropped) =
            drop_echoed_names(&spec, &json!({"repo_path": "/src/app", "target": "main"}));
        assert_eq!(left, json!({"repo_path": "/src/app", "target": "main"}));
        assert!(dropped.is_empty());
    }
}
