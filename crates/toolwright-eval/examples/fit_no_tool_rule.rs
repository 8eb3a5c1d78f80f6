#![allow(clippy::unwrap_used)]
//! Fits the embedded provider's "no tool fits" rule on several shared-toolset datasets pooled
//! (each request against its own dataset's tools), prints it in the order of
//! `toolwright_local::select::DEFAULT_NO_TOOL_RULE`, its rates on each dataset, and the
//! leave-one-dataset-out rates: a rule fitted on the others, measured on each. The same fit as
//! `toolwright eval --dataset DIR` ("fitted here"), over more than one toolset.
//!
//! `cargo run --release -p toolwright-eval --features embed --example fit_no_tool_rule -- DIR...`

use std::path::PathBuf;
use toolwright_eval::routing::{NoToolPoint, fit_no_tool, no_tool_rates};
use toolwright_eval::toolset::ToolsetDataset;
use toolwright_eval::toolset_command::no_tool_points;
use toolwright_local::select::DEFAULT_NO_TOOL_RULE;

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn main() -> Result<(), String> {
    let dirs: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if dirs.is_empty() {
        return Err("usage: fit_no_tool_rule DIR...".to_string());
    }
    let mut sets: Vec<(String, Vec<NoToolPoint>)> = Vec::new();
    for dir in &dirs {
        let ds = ToolsetDataset::load(dir)?;
        let pts = no_tool_points(&ds)?
            .into_iter()
            .map(|(p, _, _)| p)
            .collect();
        sets.push((dir.display().to_string(), pts));
    }
    let all: Vec<NoToolPoint> = sets.iter().flat_map(|(_, p)| p.iter().copied()).collect();
    let rule = fit_no_tool(&all, 0.05).ok_or("no rule: every request of one kind")?;
    println!("fitted on all: {rule:?}");
    for (name, pts) in &sets {
        let (d, f) = (
            no_tool_rates(pts, DEFAULT_NO_TOOL_RULE),
            no_tool_rates(pts, rule),
        );
        println!(
            "{name}: default refuses {} of {} out of scope, {} of {} in scope; fitted {} / {}",
            pct(d.refused_out_of_scope),
            d.out_of_scope,
            pct(d.refused_in_scope),
            d.in_scope,
            pct(f.refused_out_of_scope),
            pct(f.refused_in_scope)
        );
    }
    for (i, (name, pts)) in sets.iter().enumerate() {
        let others: Vec<NoToolPoint> = sets
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .flat_map(|(_, (_, p))| p.iter().copied())
            .collect();
        if let Some(r) = fit_no_tool(&others, 0.05) {
            let h = no_tool_rates(pts, r);
            println!(
                "fitted without {name}, measured on it: {} out of scope, {} in scope refused",
                pct(h.refused_out_of_scope),
                pct(h.refused_in_scope)
            );
        }
    }
    Ok(())
}
