//! `toolwright route "QUERY" [-k 5] [--scorer bm25|dense|hybrid] [--functions DEFS.json]
//! [--format json]`: the tools a router would show a model for a query, with scores. Hybrid by
//! default when the local embedder is installed, BM25 otherwise (with a one-line hint).

use crate::cmd_lint::{OutputFormat, SpecSource};
use crate::{Global, usage_error};
use clap::Args;
use serde_json::json;
use toolwright_catalog::ScorerKind;

/// `route` arguments.
#[derive(Args, Debug)]
pub struct RouteArgs {
    /// The user's request.
    query: String,
    /// How many tools to return.
    #[arg(short = 'k', long, default_value_t = 5)]
    k: usize,
    /// How to score tools [default: hybrid when the embedder is installed, else bm25].
    #[arg(long, value_parser = parse_scorer, value_name = "bm25|dense|hybrid")]
    scorer: Option<ScorerKind>,
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
    let setup =
        match toolwright_local::routing::build_router(loaded.specs, args.scorer, &mut |_, _| {}) {
            Ok(s) => s,
            Err(e) => return usage_error(&e),
        };
    if let Some(hint) = &setup.hint {
        eprintln!("toolwright: {hint}");
    }
    let router = setup.router;
    let ranked = router.rank(&args.query, args.k);
    let rows: Vec<(&toolwright::ToolSpec, &toolwright_catalog::Ranked)> = ranked
        .iter()
        .filter_map(|r| {
            router
                .specs()
                .iter()
                .find(|s| s.name == r.name)
                .map(|s| (s, r))
        })
        .collect();
    match args.format {
        OutputFormat::Json => {
            let tools: Vec<_> = rows
                .iter()
                .map(|(s, r)| {
                    let mut row = serde_json::Map::new();
                    row.insert("name".into(), json!(s.name));
                    row.insert("score".into(), json!(round3(r.score)));
                    if let Some(x) = r.lexical {
                        row.insert("lexical".into(), json!(round3(x)));
                    }
                    if let Some(x) = r.similarity {
                        row.insert("similarity".into(), json!(round3(x)));
                    }
                    row.insert("description".into(), json!(s.description));
                    serde_json::Value::Object(row)
                })
                .collect();
            let out = json!({"query": args.query, "scorer": router.scorer_name(), "tools": tools});
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        OutputFormat::Text => {
            if rows.is_empty() {
                outln!("no tool matches {:?} (among {} tools)", args.query, count);
            }
            for (rank, (s, r)) in rows.iter().enumerate() {
                let score = r.score;
                let line = s
                    .description
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or_default();
                let first = line.split(". ").next().unwrap_or_default();
                let first: String = first.chars().take(90).collect();
                match r.similarity {
                    Some(sim) => outln!(
                        "{:>2}. {:<28} {:>7.3}  sim {:>5.2}  {}",
                        rank + 1,
                        s.name,
                        score,
                        sim,
                        first
                    ),
                    None => outln!("{:>2}. {:<28} {:>7.3}  {}", rank + 1, s.name, score, first),
                }
            }
        }
    }
    0
}

fn round3(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

/// Parses `--scorer`.
pub fn parse_scorer(s: &str) -> Result<ScorerKind, String> {
    ScorerKind::parse(s).ok_or_else(|| format!("unknown scorer {s:?} (bm25, dense or hybrid)"))
}
