//! `toolwright stats [--format text|json|prometheus] [--reset]`: the runtime's per-tool metrics
//! (calls, errors by code, retries, timeouts, replays, fallbacks, latency, calls over SLA),
//! added up over the `call`/`run`/`serve` commands run so far.

use crate::Global;
use crate::runtime_cli::{load_stats, stats_file, update_stats};
use clap::{Args, ValueEnum};

/// Output formats of `stats`.
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum StatsFormat {
    /// One line per tool.
    #[default]
    #[value(alias = "table")]
    Text,
    /// The metrics as JSON.
    Json,
    /// Prometheus text exposition format.
    Prometheus,
}

/// `stats` arguments.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    pub format: StatsFormat,
    /// Clear the saved metrics (after printing them).
    #[arg(long)]
    pub reset: bool,
}

/// Runs `stats`.
pub async fn run(args: StatsArgs, _global: &Global) -> i32 {
    let snap = match load_stats() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("toolwright: {e}");
            return 1;
        }
    };
    match args.format {
        StatsFormat::Prometheus => print!("{}", snap.to_prometheus()),
        StatsFormat::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&snap).unwrap_or_default()
        ),
        StatsFormat::Text => {
            if snap.is_empty() {
                eprintln!(
                    "toolwright: no metrics yet ({}); run `toolwright call ...` first",
                    stats_file().display()
                );
            } else {
                print!("{}", snap.to_table());
            }
        }
    }
    if args.reset
        && let Err(e) = update_stats(|s| *s = Default::default())
    {
        eprintln!("toolwright: {e}");
        return 1;
    }
    0
}
