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

/// How many features a "no tool fits" rule reads.
pub const NO_TOOL_FEATURES: usize = 5;

/// One request's "no tool fits" evidence, as the local provider's rule reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoToolPoint {
    /// No tool fits the request.
    pub out_of_scope: bool,
    /// `[best similarity, lexical evidence, content words (from the rule's floor up), action
    /// missing (0 or 1), object missing (0 or 1)]`.
    pub x: [f32; NO_TOOL_FEATURES],
    /// The request names an allowed value of the first candidate's parameters: the provider
    /// calls a tool whatever the rule's score (`NoToolRule::value_named_fits`).
    pub value_named: bool,
}

impl NoToolPoint {
    /// Whether `rule` refuses this request.
    fn refused(&self, rule: &[f32; NO_TOOL_FEATURES + 1]) -> bool {
        !self.value_named && rule_score(rule, &self.x) > 0.0
    }
}

/// A linear "no tool fits" rule `[bias, similarity, lexical, words, action missing, object
/// missing]` and its
/// refusal rates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NoToolRates {
    /// The rule (a positive `bias + w·x` refuses).
    pub rule: [f32; NO_TOOL_FEATURES + 1],
    /// Out-of-scope requests.
    pub out_of_scope: usize,
    /// Share of out-of-scope requests refused (higher is better).
    pub refused_out_of_scope: f64,
    /// In-scope requests.
    pub in_scope: usize,
    /// Share of in-scope requests refused (lower is better).
    pub refused_in_scope: f64,
}

fn rule_score(rule: &[f32; NO_TOOL_FEATURES + 1], x: &[f32; NO_TOOL_FEATURES]) -> f32 {
    let [bias, w @ ..] = rule;
    bias + w.iter().zip(x).map(|(w, x)| w * x).sum::<f32>()
}

/// The refusal rates of `rule` over `points`.
pub fn no_tool_rates(points: &[NoToolPoint], rule: [f32; NO_TOOL_FEATURES + 1]) -> NoToolRates {
    let count = |oos: bool| points.iter().filter(|p| p.out_of_scope == oos).count();
    let refused = |oos: bool| {
        let n = count(oos);
        let r = points
            .iter()
            .filter(|p| p.out_of_scope == oos && p.refused(&rule))
            .count();
        if n == 0 { 0.0 } else { r as f64 / n as f64 }
    };
    NoToolRates {
        rule,
        out_of_scope: count(true),
        refused_out_of_scope: refused(true),
        in_scope: count(false),
        refused_in_scope: refused(false),
    }
}

/// The share of the in-scope `points` that `rule` does not refuse and whose router's first
/// candidate is right (`first_right`, one flag per point): the right-tool rate of a provider that
/// calls the router's first candidate unless the rule refuses (the local provider's default).
pub fn router_first_right(
    points: &[NoToolPoint],
    first_right: &[bool],
    rule: [f32; NO_TOOL_FEATURES + 1],
) -> f64 {
    let in_scope = points.iter().filter(|p| !p.out_of_scope).count();
    let kept = points
        .iter()
        .zip(first_right)
        .filter(|(p, right)| !p.out_of_scope && **right && !p.refused(&rule))
        .count();
    if in_scope == 0 {
        0.0
    } else {
        kept as f64 / in_scope as f64
    }
}

/// Fits a "no tool fits" rule on `points`: a class-balanced logistic regression (L2 penalty 1,
/// features standardized, gradient descent) on the requests that name no allowed value (the
/// others always get a tool), then its bias shifted so that at most `max_in_scope` of all the
/// in-scope requests are refused. `None` without both kinds of request.
pub fn fit_no_tool(all: &[NoToolPoint], max_in_scope: f64) -> Option<[f32; NO_TOOL_FEATURES + 1]> {
    let points: Vec<&NoToolPoint> = all.iter().filter(|p| !p.value_named).collect();
    let n = points.len() as f64;
    let n_pos = points.iter().filter(|p| p.out_of_scope).count() as f64;
    if n_pos == 0.0 || n_pos == n {
        return None;
    }
    let xs: Vec<Features> = points.iter().map(|p| p.x.map(f64::from)).collect();
    let mean = xs.iter().fold(ZERO, |m, x| add(m, x.map(|v| v / n)));
    let var = xs
        .iter()
        .fold(ZERO, |m, x| add(m, sub(*x, mean).map(|d| d * d / n)));
    let sd = var.map(|v| v.sqrt().max(1e-6));
    let zs: Vec<Features> = xs.iter().map(|x| div(sub(*x, mean), sd)).collect();
    let (w_pos, w_neg) = (n / (2.0 * n_pos), n / (2.0 * (n - n_pos)));
    let (mut w, mut b) = (ZERO, 0.0f64);
    for _ in 0..20_000 {
        let (mut gw, mut gb) = (ZERO, 0.0f64);
        for (point, z) in points.iter().zip(&zs) {
            let p = 1.0 / (1.0 + (-(b + dot(w, *z))).exp());
            let (y, cw) = if point.out_of_scope {
                (1.0, w_pos)
            } else {
                (0.0, w_neg)
            };
            let g = cw * (p - y);
            gw = add(gw, z.map(|v| g * v));
            gb += g;
        }
        // Gradient of the mean loss plus the L2 penalty `|w|² / 2n`.
        w = sub(w, add(gw, w).map(|v| 0.5 * v / n));
        b -= 0.5 * gb / n;
    }
    let raw = div(w, sd);
    let mut rule = [0.0f32; NO_TOOL_FEATURES + 1];
    for (r, v) in rule
        .iter_mut()
        .zip(std::iter::once(b - dot(raw, mean)).chain(raw))
    {
        *r = v as f32;
    }
    let mut ins: Vec<f32> = points
        .iter()
        .filter(|p| !p.out_of_scope)
        .map(|p| rule_score(&rule, &p.x))
        .collect();
    ins.sort_by(|a, b| b.total_cmp(a));
    let in_scope = all.iter().filter(|p| !p.out_of_scope).count();
    let k = (max_in_scope * in_scope as f64).floor() as usize;
    if let (Some(t), [bias, ..]) = (ins.get(k), &mut rule) {
        // Strictly above the (k+1)-th in-scope score refuses; the margin keeps rounding from
        // refusing that one too.
        *bias -= *t + 1e-4;
    }
    Some(rule)
}

type Features = [f64; NO_TOOL_FEATURES];
const ZERO: Features = [0.0; NO_TOOL_FEATURES];

fn zip_with(a: Features, b: Features, f: impl Fn(f64, f64) -> f64) -> Features {
    let mut out = ZERO;
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
    out
}

fn add(a: Features, b: Features) -> Features {
    zip_with(a, b, |x, y| x + y)
}

fn sub(a: Features, b: Features) -> Features {
    zip_with(a, b, |x, y| x - y)
}

fn div(a: Features, b: Features) -> Features {
    zip_with(a, b, |x, y| x / y)
}

fn dot(a: Features, b: Features) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Splits `points` (paired with each request's server, `"none"` out of scope) in two halves:
/// in-scope requests by server (every other server, sorted), out-of-scope ones alternately.
pub fn split_by_server(points: &[(NoToolPoint, &str)]) -> (Vec<NoToolPoint>, Vec<NoToolPoint>) {
    let mut servers: Vec<&str> = points
        .iter()
        .filter(|(p, _)| !p.out_of_scope)
        .map(|(_, s)| *s)
        .collect();
    servers.sort_unstable();
    servers.dedup();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut oos = 0usize;
    for (p, s) in points {
        let first = if p.out_of_scope {
            oos += 1;
            oos % 2 == 1
        } else {
            servers
                .iter()
                .position(|x| x == s)
                .is_some_and(|i| i % 2 == 0)
        };
        if first { a.push(*p) } else { b.push(*p) }
    }
    (a, b)
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
    fn the_no_tool_fit_separates_and_keeps_the_budget() {
        // Out of scope: low similarity and little lexical evidence.
        let point = |out_of_scope, x| NoToolPoint {
            out_of_scope,
            x,
            value_named: false,
        };
        let mut pts: Vec<NoToolPoint> = Vec::new();
        for i in 0..40 {
            let f = i as f32 / 40.0;
            pts.push(point(false, [0.35 + 0.4 * f, 1.0 + f, 6.0, 0.0, 0.0]));
            if i % 4 == 0 {
                pts.push(point(true, [0.05 + 0.3 * f, 0.2 * f, 5.0, f.round(), 0.0]));
            }
        }
        let rule = fit_no_tool(&pts, 0.05).unwrap();
        let r = no_tool_rates(&pts, rule);
        assert!(r.refused_in_scope <= 0.05, "{r:?}");
        assert!(r.refused_out_of_scope >= 0.9, "{r:?}");
        assert!(rule[1] < 0.0 && rule[2] < 0.0, "{rule:?}");
        assert!(fit_no_tool(&pts[..1], 0.05).is_none());
        // Requests that name an allowed value are never refused, and count in the budget: with
        // as many of them as the others, the rule may refuse twice as many of the others.
        let named: Vec<NoToolPoint> = pts
            .iter()
            .filter(|p| !p.out_of_scope)
            .map(|p| NoToolPoint {
                value_named: true,
                x: [0.0, 0.0, 6.0, 1.0, 0.0],
                ..*p
            })
            .collect();
        let mut with_named = pts.clone();
        with_named.extend(named);
        let rule2 = fit_no_tool(&with_named, 0.05).unwrap();
        let r2 = no_tool_rates(&with_named, rule2);
        assert!(r2.refused_in_scope <= 0.05, "{r2:?}");
        assert!(
            with_named
                .iter()
                .all(|p| !p.value_named || !p.refused(&rule2))
        );
        let (a, b) = split_by_server(&[
            (point(false, [0.0; NO_TOOL_FEATURES]), "x"),
            (point(false, [0.0; NO_TOOL_FEATURES]), "y"),
            (point(true, [0.0; NO_TOOL_FEATURES]), "none"),
        ]);
        assert_eq!((a.len(), b.len()), (2, 1));
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
