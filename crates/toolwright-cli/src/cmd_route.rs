//! `toolwright route "QUERY" [-k 5] [--functions DEFS.json] [--format json]`: the tools a router
//! would show a model for a query, with scores.

use crate::cmd_lint::{OutputFormat, SpecSource};
use crate::{Global, usage_error};
use clap::Args;
use serde_json::json;
use toolwright_catalog::router::Router;

/// `route` arguments.
#[derive(Args, Debug)]
pub struct RouteArgs {
    /// The user's request.
    query: String,
    /// How many tools to return.
    #[arg(short = 'k', long, default_value_t = 5)]
    k: usize,
    #[command(flatten)]
    source: SpecSource,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
}

/// Runs `route`.
pub async fn run(args: RouteArgs, global: &Global) -> i32 {
    if args.k == 0 {
        return usage_error("-k must be at least 1");
    }
    let loaded = match args.source.load(global).await {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let count = loaded.specs.len();
    let router = Router::from_specs(loaded.specs);
    let ranked = router.rank_indices(&args.query, args.k);
    let rows: Vec<(&toolwright::ToolSpec, f32)> = ranked
        .iter()
        .filter_map(|&(i, score)| router.specs().get(i).map(|s| (s, score)))
        .collect();
    match args.format {
        OutputFormat::Json => {
            let tools: Vec<_> = rows
                .iter()
                .map(|(s, score)| {
                    json!({"name": s.name, "score": (f64::from(*score) * 1000.0).round() / 1000.0, "description": s.description})
                })
                .collect();
            let out = json!({"query": args.query, "scorer": router.scorer_name(), "tools": tools});
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        OutputFormat::Text => {
            if rows.is_empty() {
                outln!("no tool matches {:?} (among {} tools)", args.query, count);
            }
            for (rank, (s, score)) in rows.iter().enumerate() {
                let line = s
                    .description
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or_default();
                let first = line.split(". ").next().unwrap_or_default();
                outln!("{:>2}. {:<28} {:>7.3}  {}", rank + 1, s.name, score, first);
            }
        }
    }
    0
}
