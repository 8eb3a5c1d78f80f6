#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Tries a per-toolset calibration of the "no tool fits" similarity: the generic out-of-scope
//! probes of `toolwright_local::probes` are routed against each toolset like a request (hybrid
//! router, 3 candidates, best similarity), their distribution summarised, and rules reading the
//! request's similarity relative to it are fitted as `fit_no_tool_rule` does (class-balanced
//! logistic regression, 5% in-scope budget) and measured leave-one-set-out.
//!
//! `cargo run --release -p toolwright-eval --features embed --example probe_calibration -- DIR...`
//!
//! How the probe list was written: blind, from general knowledge of what people ask assistants
//! (small talk, arithmetic, creative writing, general knowledge and trivia, translation, advice,
//! definitions, recipes, health and fitness, and personal errands for other services), before
//! any request of any evaluation dataset was read (committed first, in `toolwright-local`, as
//! 44d6358), and never changed after. It holds no request of any dataset. Tried and not taken:
//! the eval crate's README has the figures.

mod common;

use std::path::PathBuf;
use toolwright_agent::Ranker;
use toolwright_eval::toolset::ToolsetDataset;
use toolwright_local::select::evidence;

/// The probes, one generic off-domain request each.
const PROBES: &[&str] = &[
    // Small talk.
    "hi, how are you today?",
    "tell me something interesting",
    "what's your favourite colour?",
    "thanks, that was helpful!",
    "good morning! did you sleep well?",
    // Arithmetic and unit conversions.
    "what is 17 times 23?",
    "how many ounces are in a pound?",
    "convert 30 degrees celsius to fahrenheit",
    "what's the square root of 144?",
    "if I save 50 dollars a week, how much will I have in a year?",
    // Creative writing.
    "write a short poem about the sea",
    "tell me a joke about cats",
    "write a bedtime story about a dragon who is afraid of the dark",
    "give me a catchy slogan for a lemonade stand",
    "compose a haiku about autumn leaves",
    // General knowledge and trivia.
    "who was the first person to walk on the moon?",
    "what is the capital of Australia?",
    "why is the sky blue?",
    "how far is the sun from the earth?",
    "who painted the Mona Lisa?",
    "when did the Second World War end?",
    "how many bones are in the human body?",
    // Translation and language.
    "how do you say 'good night' in Japanese?",
    "translate 'where is the train station' into Spanish",
    "what does the word 'ephemeral' mean?",
    "give me a synonym for happy",
    "is it 'affect' or 'effect' in this sentence: the weather will affect our plans",
    // Advice.
    "how can I fall asleep faster?",
    "any tips for a job interview tomorrow?",
    "what should I get my sister for her birthday?",
    "how do I stop procrastinating?",
    "how do I ask my landlord to fix the heating politely?",
    // Recipes and cooking.
    "how do I make pancakes from scratch?",
    "what can I cook with rice, eggs and spinach?",
    "how long should I boil an egg for a soft yolk?",
    // Health and fitness.
    "what's a good stretching routine for lower back pain?",
    "how much water should I drink a day?",
    "suggest a 20 minute workout I can do at home",
    // Personal errands for other services.
    "order me a large pepperoni pizza",
    "book a taxi to the airport for 6 am",
    "call mom",
    "set an alarm for 7 tomorrow morning",
    "play some relaxing jazz music",
    "book a table for two at an Italian restaurant tonight",
    "turn off the living room lights",
    "remind me to water the plants on Sunday",
    "find me a cheap flight to Lisbon next month",
    // Opinions, philosophy and explanations.
    "what is the meaning of life?",
    "explain quantum physics like I'm five",
    "which is better, cats or dogs?",
    "summarise the plot of Romeo and Juliet",
    "recommend a good science fiction novel",
    "what's a fun board game for a family of four?",
    "how do airplanes stay in the air?",
];

/// One request: out of scope, names a value, `[similarity, lexical, words, action, object]`.
#[derive(Clone, Copy)]
struct Pt {
    oos: bool,
    named: bool,
    x: [f32; 5],
    /// The best cosine similarity of the request and a probe.
    nn: f32,
}

/// A toolset's probe similarities, sorted, and their summary.
struct Probe {
    /// Mean over tools of the best cosine of the tool's text with another tool's text.
    selfsim: f32,
    sorted: Vec<f32>,
    lex: Vec<f32>,
    mean: f32,
    sd: f32,
}

impl Probe {
    fn new(mut s: Vec<f32>, mut lex: Vec<f32>) -> Probe {
        s.sort_by(f32::total_cmp);
        lex.sort_by(f32::total_cmp);
        let n = s.len() as f32;
        let mean = s.iter().sum::<f32>() / n;
        let sd = (s.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n).sqrt();
        Probe {
            selfsim: 0.0,
            sorted: s,
            lex,
            mean,
            sd,
        }
    }
    fn q(&self, p: f32) -> f32 {
        let i = ((self.sorted.len() - 1) as f32 * p).round() as usize;
        self.sorted[i]
    }
    /// Share of probes at least as similar as `s`.
    fn above(&self, s: f32) -> f32 {
        self.sorted.iter().filter(|&&v| v >= s).count() as f32 / self.sorted.len() as f32
    }
    /// Share of probes with at least the lexical evidence `l`.
    fn lex_above(&self, l: f32) -> f32 {
        self.lex.iter().filter(|&&v| v >= l).count() as f32 / self.lex.len() as f32
    }
}

struct Set {
    name: String,
    pts: Vec<Pt>,
    probe: Probe,
}

/// The probes, or every other one with `PROBE_HALF=0` or `1` (how much the list matters).
fn probe_list() -> Vec<&'static str> {
    match std::env::var("PROBE_HALF")
        .ok()
        .and_then(|h| h.parse::<usize>().ok())
    {
        Some(h) => PROBES.iter().copied().skip(h).step_by(2).collect(),
        None => PROBES.to_vec(),
    }
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    let d: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    d / (n(a) * n(b)).max(1e-9)
}

fn load(dir: &std::path::Path, probe_vecs: &[Vec<f32>]) -> Result<Set, String> {
    let ds = ToolsetDataset::load(dir)?;
    let ranker = common::hybrid_ranker(&ds)?;
    let probe_ev: Vec<_> = probe_list()
        .iter()
        .map(|p| evidence(&ranker.rank(p, 3), p, &ds.specs).unwrap())
        .collect();
    let probe = Probe::new(
        probe_ev.iter().map(|e| e.similarity).collect(),
        probe_ev.iter().map(|e| e.lexical).collect(),
    );
    let emb = toolwright_local::routing::shared_embedder()?;
    let tv = common::tool_vectors(emb.as_ref(), &ds);
    let mut probe = probe;
    probe.selfsim = tv
        .iter()
        .enumerate()
        .map(|(i, a)| {
            tv.iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, b)| cos(a, b))
                .fold(f32::NEG_INFINITY, f32::max)
        })
        .sum::<f32>()
        / tv.len() as f32;
    let queries: Vec<String> = ds.requests.iter().map(|r| r.query.clone()).collect();
    let qv = common::embed_all(emb.as_ref(), &queries);
    let pts = ds
        .requests
        .iter()
        .zip(&qv)
        .filter_map(|(r, v)| {
            let ranked = ranker.rank(&r.query, 3);
            let e = evidence(&ranked, &r.query, &ds.specs)?;
            Some(Pt {
                oos: r.out_of_scope(),
                named: e.value_named,
                x: toolwright_eval::toolset_command::rule_features(&e),
                nn: probe_vecs
                    .iter()
                    .map(|p| cos(p, v))
                    .fold(f32::NEG_INFINITY, f32::max),
            })
        })
        .collect();
    Ok(Set {
        name: dir.display().to_string(),
        pts,
        probe,
    })
}

/// The fit of `toolwright_eval::routing::fit_no_tool`, over any number of features.
fn fit(all: &[(Pt, Vec<f64>)], max_in_scope: f64) -> Option<Vec<f64>> {
    let points: Vec<&(Pt, Vec<f64>)> = all.iter().filter(|(p, _)| !p.named).collect();
    let n = points.len() as f64;
    let d = points.first()?.1.len();
    let n_pos = points.iter().filter(|(p, _)| p.oos).count() as f64;
    if n_pos == 0.0 || n_pos == n {
        return None;
    }
    let mut mean = vec![0.0; d];
    for (_, x) in &points {
        for j in 0..d {
            mean[j] += x[j] / n;
        }
    }
    let mut sd = vec![0.0; d];
    for (_, x) in &points {
        for j in 0..d {
            sd[j] += (x[j] - mean[j]).powi(2) / n;
        }
    }
    let sd: Vec<f64> = sd.iter().map(|v| v.sqrt().max(1e-6)).collect();
    let zs: Vec<Vec<f64>> = points
        .iter()
        .map(|(_, x)| (0..d).map(|j| (x[j] - mean[j]) / sd[j]).collect())
        .collect();
    let (w_pos, w_neg) = (n / (2.0 * n_pos), n / (2.0 * (n - n_pos)));
    let (mut w, mut b) = (vec![0.0; d], 0.0f64);
    for _ in 0..20_000 {
        let (mut gw, mut gb) = (vec![0.0; d], 0.0f64);
        for ((p, _), z) in points.iter().zip(&zs) {
            let s = b + (0..d).map(|j| w[j] * z[j]).sum::<f64>();
            let pr = 1.0 / (1.0 + (-s).exp());
            let (y, cw) = if p.oos { (1.0, w_pos) } else { (0.0, w_neg) };
            let g = cw * (pr - y);
            for j in 0..d {
                gw[j] += g * z[j];
            }
            gb += g;
        }
        for j in 0..d {
            w[j] -= 0.5 * (gw[j] + w[j]) / n;
        }
        b -= 0.5 * gb / n;
    }
    let raw: Vec<f64> = (0..d).map(|j| w[j] / sd[j]).collect();
    let mut rule = vec![b - (0..d).map(|j| raw[j] * mean[j]).sum::<f64>()];
    rule.extend(raw);
    // As the product: f32 weights.
    let rule: Vec<f64> = rule.iter().map(|v| f64::from(*v as f32)).collect();
    let mut ins: Vec<f64> = points
        .iter()
        .filter(|(p, _)| !p.oos)
        .map(|(_, x)| score(&rule, x))
        .collect();
    ins.sort_by(|a, b| b.total_cmp(a));
    let in_scope = all.iter().filter(|(p, _)| !p.oos).count();
    let k = (max_in_scope * in_scope as f64).floor() as usize;
    let mut rule = rule;
    if let Some(t) = ins.get(k) {
        rule[0] -= *t + 1e-4;
    }
    Some(rule)
}

fn score(rule: &[f64], x: &[f64]) -> f64 {
    rule[0] + rule[1..].iter().zip(x).map(|(w, v)| w * v).sum::<f64>()
}

/// `(out-of-scope refused, of, in-scope refused, of)`.
fn rates(pts: &[(Pt, Vec<f64>)], rule: &[f64]) -> (usize, usize, usize, usize) {
    let refused = |p: &Pt, x: &[f64]| !p.named && score(rule, x) > 0.0;
    let o = pts.iter().filter(|(p, _)| p.oos).count();
    let ro = pts.iter().filter(|(p, x)| p.oos && refused(p, x)).count();
    let i = pts.len() - o;
    let ri = pts.iter().filter(|(p, x)| !p.oos && refused(p, x)).count();
    (ro, o, ri, i)
}

type Variant = (&'static str, fn(&Pt, &Probe) -> Vec<f32>);

fn with_sim(p: &Pt, s: f32) -> Vec<f32> {
    let mut x = p.x.to_vec();
    x[0] = s;
    x
}

fn plus(p: &Pt, extra: &[f32]) -> Vec<f32> {
    let mut x = p.x.to_vec();
    x.extend_from_slice(extra);
    x
}

const VARIANTS: &[Variant] = &[
    ("baseline", |p, _| p.x.to_vec()),
    ("sim - mean", |p, q| with_sim(p, p.x[0] - q.mean)),
    ("sim - p75", |p, q| with_sim(p, p.x[0] - q.q(0.75))),
    ("sim - p90", |p, q| with_sim(p, p.x[0] - q.q(0.90))),
    ("sim - max", |p, q| with_sim(p, p.x[0] - q.q(1.0))),
    ("z (sim-mean)/sd", |p, q| {
        with_sim(p, (p.x[0] - q.mean) / q.sd)
    }),
    ("probes above sim", |p, q| with_sim(p, q.above(p.x[0]))),
    ("+ sim - p90", |p, q| plus(p, &[p.x[0] - q.q(0.90)])),
    ("+ sim - mean", |p, q| plus(p, &[p.x[0] - q.mean])),
    ("+ probes above sim", |p, q| plus(p, &[q.above(p.x[0])])),
    ("+ lex above", |p, q| plus(p, &[q.lex_above(p.x[1])])),
    ("+ above sim, lex", |p, q| {
        plus(p, &[q.above(p.x[0]), q.lex_above(p.x[1])])
    }),
    ("sim - selfsim", |p, q| with_sim(p, p.x[0] - q.selfsim)),
    ("sim - selfsim/2", |p, q| {
        with_sim(p, p.x[0] - q.selfsim / 2.0)
    }),
    ("sim - (mean+self)/2", |p, q| {
        with_sim(p, p.x[0] - (q.mean + q.selfsim) / 2.0)
    }),
    ("+ nearest probe", |p, _| plus(p, &[p.nn])),
    ("+ nearest probe - sim", |p, _| plus(p, &[p.nn - p.x[0]])),
    ("+ nn, above sim", |p, q| plus(p, &[p.nn, q.above(p.x[0])])),
];

fn pct(a: usize, b: usize) -> String {
    format!("{:.1}%", 100.0 * a as f64 / b.max(1) as f64)
}

fn main() -> Result<(), String> {
    let dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let emb = toolwright_local::routing::shared_embedder()?;
    let probes: Vec<String> = probe_list().iter().map(|p| p.to_string()).collect();
    let probe_vecs = common::embed_all(emb.as_ref(), &probes);
    let sets: Vec<Set> = dirs
        .iter()
        .map(|d| load(d, &probe_vecs))
        .collect::<Result<_, _>>()?;
    for s in &sets {
        let q = &s.probe;
        println!(
            "{}: probes mean {:.3} sd {:.3} p75 {:.3} p90 {:.3} max {:.3}; lexical mean {:.3}; tool self-similarity {:.3}",
            s.name,
            q.mean,
            q.sd,
            q.q(0.75),
            q.q(0.9),
            q.q(1.0),
            q.lex.iter().sum::<f32>() / q.lex.len() as f32,
            q.selfsim
        );
    }
    for (label, f) in VARIANTS {
        let feats: Vec<Vec<(Pt, Vec<f64>)>> = sets
            .iter()
            .map(|s| {
                s.pts
                    .iter()
                    .map(|p| (*p, f(p, &s.probe).into_iter().map(f64::from).collect()))
                    .collect()
            })
            .collect();
        let mut line = format!("{label:<20}");
        let mut oracle = Vec::new();
        let (mut to, mut tro, mut ti, mut tri) = (0, 0, 0, 0);
        for i in 0..feats.len() {
            let train: Vec<(Pt, Vec<f64>)> = feats
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .flat_map(|(_, v)| v.iter().cloned())
                .collect();
            let rule = fit(&train, 0.05).unwrap();
            let (ro, o, ri, n) = rates(&feats[i], &rule);
            let mut own = rule.clone();
            let mut ins: Vec<f64> = feats[i]
                .iter()
                .filter(|(p, _)| !p.oos && !p.named)
                .map(|(_, x)| score(&rule, x))
                .collect();
            ins.sort_by(|a, b| b.total_cmp(a));
            if let Some(t) = ins.get((0.05 * n as f64).floor() as usize) {
                own[0] -= t + 1e-4;
            }
            oracle.push(rates(&feats[i], &own).0);
            line.push_str(&format!(
                " | {:>2}/{} {:>6} {:>2}/{} {:>5}",
                ro,
                o,
                pct(ro, o),
                ri,
                n,
                pct(ri, n)
            ));
            (to, tro, ti, tri) = (to + o, tro + ro, ti + n, tri + ri);
        }
        let all: Vec<(Pt, Vec<f64>)> = feats.iter().flatten().cloned().collect();
        let rule = fit(&all, 0.05).unwrap();
        line.push_str(&format!(
            " | pooled LOSO {} / {} | own-bias OOS {:?} | all-fit rule {:?}",
            pct(tro, to),
            pct(tri, ti),
            oracle,
            rule.iter().map(|v| *v as f32).collect::<Vec<_>>()
        ));
        println!("{line}");
    }
    Ok(())
}
