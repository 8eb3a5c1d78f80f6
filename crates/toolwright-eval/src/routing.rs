//! Routing quality on a shared-toolset dataset: recall@1/@5 and MRR per scorer, and the
//! out-of-scope decision ("no tool fits" when the best similarity is under a floor) with the
//! rates it refuses at.

use crate::toolset::Request;
use serde::Serialize;
use toolwright_catalog::Router;

/// One scorer's routing figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutingRow {
    /// `bm25`, `dense` or `hybrid`.
    pub scorer: String,
    /// In-scope requests scored.
    pub in_scope: usize,
    /// Share with a right tool first.
    pub recall_at_1: f64,
    /// Share with a right tool in the top 5.
    pub recall_at_5: f64,
    /// Mean reciprocal rank of the first right tool within the top 10 (0 when absent).
    pub mrr: f64,
    /// Requests whose right tool was not first: `(id, right tool, router's first)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub misses: Vec<(String, String, String)>,
}

/// Routes every in-scope request of `requests` with `router` and scores the ranking.
pub fn route_metrics(router: &Router, requests: &[Request]) -> RoutingRow {
    let mut n = 0usize;
    let (mut at1, mut at5, mut rr) = (0usize, 0usize, 0.0f64);
    let mut misses = Vec::new();
    for r in requests.iter().filter(|r| !r.out_of_scope()) {
        n += 1;
        let right = r.right_tools();
        let ranked = router.rank(&r.query, 10);
        let pos = ranked.iter().position(|x| right.contains(&x.name.as_str()));
        match pos {
            Some(0) => at1 += 1,
            _ => misses.push((
                r.id.clone(),
                right.first().copied().unwrap_or_default().to_string(),
                ranked.first().map(|x| x.name.clone()).unwrap_or_default(),
            )),
        }
        if pos.is_some_and(|p| p < 5) {
            at5 += 1;
        }
        if let Some(p) = pos {
            rr += 1.0 / (p as f64 + 1.0);
        }
    }
    let share = |x: usize| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    RoutingRow {
        scorer: router.scorer_name().to_string(),
        in_scope: n,
        recall_at_1: share(at1),
        recall_at_5: share(at5),
        mrr: if n == 0 { 0.0 } else { rr / n as f64 },
        misses,
    }
}

/// The best similarity among the router's first `k` tools for each request's query:
/// `(out of scope?, best)`, the signal the local provider's no-tool floor reads (it sees the `k`
/// candidates the agent routed). Empty when the router has no embedder.
pub fn best_similarities(router: &Router, requests: &[Request], k: usize) -> Vec<(bool, f32)> {
    if !router.has_dense() {
        return Vec::new();
    }
    requests
        .iter()
        .filter_map(|r| {
            let best = router
                .rank(&r.query, k)
                .iter()
                .filter_map(|x| x.similarity)
                .fold(f32::NEG_INFINITY, f32::max);
            best.is_finite().then_some((r.out_of_scope(), best))
        })
        .collect()
}

/// How a "no tool fits below `floor`" rule does on a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Refusals {
    /// The similarity floor.
    pub floor: f32,
    /// Out-of-scope requests.
    pub out_of_scope: usize,
    /// Share of out-of-scope requests refused (higher is better).
    pub refused_out_of_scope: f64,
    /// In-scope requests.
    pub in_scope: usize,
    /// Share of in-scope requests refused (lower is better).
    pub refused_in_scope: f64,
}

/// The refusal rates of `floor` over `points` (from [`best_similarities`]).
pub fn refusals_at(points: &[(bool, f32)], floor: f32) -> Refusals {
    let (oos, ins): (Vec<_>, Vec<_>) = points.iter().partition(|(o, _)| *o);
    let share = |v: &[&(bool, f32)]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().filter(|(_, s)| *s < floor).count() as f64 / v.len() as f64
        }
    };
    Refusals {
        floor,
        out_of_scope: oos.len(),
        refused_out_of_scope: share(&oos),
        in_scope: ins.len(),
        refused_in_scope: share(&ins),
    }
}

/// The floor (on a 0.01 grid) that refuses the most out-of-scope requests while refusing at
/// most `max_in_scope` of the in-scope ones; ties go to the lower floor.
pub fn calibrate_floor(points: &[(bool, f32)], max_in_scope: f64) -> Option<Refusals> {
    let mut best: Option<Refusals> = None;
    for step in 0..=100 {
        let r = refusals_at(points, step as f32 / 100.0);
        if r.refused_in_scope <= max_in_scope
            && best.is_none_or(|b| r.refused_out_of_scope > b.refused_out_of_scope)
        {
            best = Some(r);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolset::parse_requests;
    use toolwright_core::ToolSpec;

    #[test]
    fn recall_and_mrr_count_the_right_positions() {
        let specs = vec![
            ToolSpec::new(
                "get_weather",
                "Weather for a city.",
                serde_json::json!({"type": "object"}),
            ),
            ToolSpec::new(
                "read_file",
                "Read a file.",
                serde_json::json!({"type": "object"}),
            ),
        ];
        let reqs = parse_requests(
            r#"{"id":"1","query":"weather in Paris","expected":[{"name":"get_weather"}]}
{"id":"2","query":"weather of the file","expected":[{"name":"read_file"}]}
{"id":"3","query":"pizza","expected":[]}"#,
            &specs,
        )
        .unwrap();
        let row = route_metrics(&Router::new(&specs), &reqs);
        assert_eq!(row.in_scope, 2);
        assert_eq!(row.recall_at_5, 1.0);
        assert!(row.recall_at_1 < 1.0 && row.recall_at_1 >= 0.5);
        assert!(row.mrr > 0.5 && row.mrr <= 1.0);
        assert!(best_similarities(&Router::new(&specs), &reqs, 3).is_empty());
    }

    #[test]
    fn the_floor_is_calibrated_under_the_in_scope_budget() {
        let pts = [
            (true, 0.10),
            (true, 0.20),
            (true, 0.45),
            (false, 0.30),
            (false, 0.50),
            (false, 0.60),
            (false, 0.70),
        ];
        let r = calibrate_floor(&pts, 0.0).unwrap();
        assert!((r.floor - 0.21).abs() < 1e-6, "{r:?}");
        assert!((r.refused_out_of_scope - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(r.refused_in_scope, 0.0);
        let r = calibrate_floor(&pts, 0.25).unwrap();
        assert_eq!(r.refused_out_of_scope, 1.0);
        assert_eq!(refusals_at(&pts, 0.0).refused_out_of_scope, 0.0);
    }
}
