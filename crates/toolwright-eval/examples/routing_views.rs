#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::type_complexity)]
//! Exploration of dense-routing variants on a shared-toolset dataset (default: the MCP dev set):
//! what to embed per tool (one text, or several views scored by their maximum) and whether to
//! centre the vectors on the toolset's mean, each with the split by server of `fusion_sweep`.
//!
//! `cargo run --release -p toolwright-eval --features embed --example routing_views [DIR]`

mod common;

use toolwright_catalog::Router;
use toolwright_catalog::dense::tool_text;
use toolwright_core::ToolSpec;
use toolwright_eval::routing::calibrate_floor;
use toolwright_eval::toolset::Request;

fn norm(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}
fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Sentences of a description, each prefixed by the tool's name words.
fn sentence_views(s: &ToolSpec) -> Vec<String> {
    let name = toolwright_catalog::text::words(&s.name).join(" ");
    let mut out: Vec<String> = s
        .description
        .split(['.', '\n'])
        .map(str::trim)
        .filter(|x| x.len() > 12)
        .take(6)
        .map(|x| format!("{name}: {x}"))
        .collect();
    if out.is_empty() {
        out.push(name);
    }
    out
}

struct Data {
    lexical: Vec<Vec<f32>>,
    query: Vec<Vec<f32>>,
}

fn metrics(reqs: &[Request], specs: &[ToolSpec], scores: &[Vec<f32>]) -> (f64, f64) {
    let (mut n, mut a1, mut a5) = (0, 0, 0);
    for (r, s) in reqs.iter().zip(scores) {
        if r.out_of_scope() {
            continue;
        }
        n += 1;
        let mut idx: Vec<usize> = (0..s.len()).collect();
        idx.sort_by(|&x, &y| s[y].total_cmp(&s[x]));
        let right = r.right_tools();
        let pos = idx
            .iter()
            .position(|&i| right.contains(&specs[i].name.as_str()));
        a1 += usize::from(pos == Some(0));
        a5 += usize::from(pos.is_some_and(|p| p < 5));
    }
    (a1 as f64 / n as f64, a5 as f64 / n as f64)
}

fn fuse(lex: &[f32], sim: &[f32], w: f32) -> Vec<f32> {
    let max = lex.iter().copied().fold(0.0f32, f32::max);
    lex.iter()
        .zip(sim)
        .map(|(l, c)| w * (1.0 + c) / 2.0 + (1.0 - w) * if max > 0.0 { l / max } else { 0.0 })
        .collect()
}

fn main() -> Result<(), String> {
    let ds = common::load_dataset()?;
    let emb = toolwright_local::routing::shared_embedder()?;
    let e = |t: &[String]| common::embed_all(emb.as_ref(), t);
    let full = e(&ds.specs.iter().map(tool_text).collect::<Vec<_>>());
    let names = e(&ds
        .specs
        .iter()
        .map(|s| toolwright_catalog::text::words(&s.name).join(" "))
        .collect::<Vec<_>>());
    let sent: Vec<Vec<Vec<f32>>> = ds.specs.iter().map(|s| e(&sentence_views(s))).collect();
    let router = Router::new(&ds.specs);
    let data = Data {
        lexical: ds
            .requests
            .iter()
            .map(|r| router.scores(&r.query).lexical)
            .collect(),
        query: e(&ds
            .requests
            .iter()
            .map(|r| r.query.clone())
            .collect::<Vec<_>>()),
    };
    let dim = full[0].len();
    let mut mean = vec![0.0f32; dim];
    for v in &full {
        mean.iter_mut()
            .zip(v)
            .for_each(|(m, x)| *m += x / full.len() as f32);
    }
    let centre = |v: &[f32], k: f32| {
        let mut c: Vec<f32> = v.iter().zip(&mean).map(|(x, m)| x - k * m).collect();
        norm(&mut c);
        c
    };
    // Split by server as in fusion_sweep.
    let mut servers: Vec<&str> = ds.requests.iter().map(|r| r.server.as_str()).collect();
    servers.sort_unstable();
    servers.dedup();
    let half_a: Vec<&str> = servers.iter().copied().step_by(2).collect();
    let in_a: Vec<bool> = ds
        .requests
        .iter()
        .map(|r| half_a.contains(&r.server.as_str()))
        .collect();
    let variants: Vec<(&str, Box<dyn Fn(usize, usize) -> f32>)> = vec![
        ("full", Box::new(|q, t| dot(&data.query[q], &full[t]))),
        (
            "full centred .5",
            Box::new(|q, t| dot(&centre(&data.query[q], 0.5), &centre(&full[t], 0.5))),
        ),
        (
            "full centred 1",
            Box::new(|q, t| dot(&centre(&data.query[q], 1.0), &centre(&full[t], 1.0))),
        ),
        (
            "max(full, sentences)",
            Box::new(|q, t| {
                sent[t]
                    .iter()
                    .map(|v| dot(&data.query[q], v))
                    .fold(dot(&data.query[q], &full[t]), f32::max)
            }),
        ),
        (
            "max(full, sentences if >1)",
            Box::new(|q, t| {
                let base = dot(&data.query[q], &full[t]);
                if sent[t].len() < 2 {
                    return base;
                }
                sent[t]
                    .iter()
                    .map(|v| dot(&data.query[q], v))
                    .fold(base, f32::max)
            }),
        ),
        (
            "max(full, first sentence)",
            Box::new(|q, t| dot(&data.query[q], &full[t]).max(dot(&data.query[q], &sent[t][0]))),
        ),
        (
            "full + .5 maxsent",
            Box::new(|q, t| {
                let m = sent[t]
                    .iter()
                    .map(|v| dot(&data.query[q], v))
                    .fold(f32::MIN, f32::max);
                (dot(&data.query[q], &full[t]) + 0.5 * m) / 1.5
            }),
        ),
        (
            "full + .3 name",
            Box::new(|q, t| {
                (dot(&data.query[q], &full[t]) + 0.3 * dot(&data.query[q], &names[t])) / 1.3
            }),
        ),
        (
            "full + .5 maxsent + .2 name",
            Box::new(|q, t| {
                let m = sent[t]
                    .iter()
                    .map(|v| dot(&data.query[q], v))
                    .fold(f32::MIN, f32::max);
                (dot(&data.query[q], &full[t]) + 0.5 * m + 0.2 * dot(&data.query[q], &names[t]))
                    / 1.7
            }),
        ),
    ];
    for (name, f) in &variants {
        let sims: Vec<Vec<f32>> = (0..ds.requests.len())
            .map(|q| (0..ds.specs.len()).map(|t| f(q, t)).collect())
            .collect();
        for w in [1.0f32, 0.9, 0.8] {
            let scores: Vec<Vec<f32>> = sims
                .iter()
                .zip(&data.lexical)
                .map(|(s, l)| fuse(l, s, w))
                .collect();
            let pick = |want: bool| -> (Vec<Request>, Vec<Vec<f32>>) {
                ds.requests
                    .iter()
                    .zip(&scores)
                    .zip(&in_a)
                    .filter(|(_, a)| **a == want)
                    .map(|((r, s), _)| (r.clone(), s.clone()))
                    .unzip()
            };
            let (ra, sa) = pick(true);
            let (rb, sb) = pick(false);
            let all = metrics(&ds.requests, &ds.specs, &scores);
            let a = metrics(&ra, &ds.specs, &sa);
            let b = metrics(&rb, &ds.specs, &sb);
            let pts: Vec<(bool, f32)> = ds
                .requests
                .iter()
                .zip(&sims)
                .map(|(r, s)| (r.out_of_scope(), s.iter().copied().fold(f32::MIN, f32::max)))
                .collect();
            let oos = calibrate_floor(&pts, 0.05).map(|c| c.refused_out_of_scope);
            println!(
                "{name:<28} w={w:.1} all {:.3}/{:.3} A {:.3}/{:.3} B {:.3}/{:.3} oos@5% {:.3}",
                all.0,
                all.1,
                a.0,
                a.1,
                b.0,
                b.1,
                oos.unwrap_or(0.0)
            );
        }
    }
    Ok(())
}
