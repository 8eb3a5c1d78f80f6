//! Writes the synthetic toolset of the routing and lint benchmarks ([`routing_corpus`]) as a
//! definitions file (bare `{name, description, parameters}` objects) on stdout, so the CLI can be
//! timed end to end: `tools-json 20000 > /tmp/tools.json; toolwright lint --functions /tmp/tools.json`.

use std::io::Write;
use std::process::ExitCode;
use toolwright_bench::routing_corpus;

fn main() -> ExitCode {
    let Some(n) = std::env::args()
        .nth(1)
        .and_then(|a| a.parse::<usize>().ok())
    else {
        eprintln!("usage: tools-json N");
        return ExitCode::from(2);
    };
    let defs: Vec<serde_json::Value> = routing_corpus(n)
        .into_iter()
        .map(|s| {
            serde_json::json!({"name": s.name, "description": s.description, "parameters": s.parameters})
        })
        .collect();
    let text = match serde_json::to_string(&defs) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tools-json: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = writeln!(std::io::stdout().lock(), "{text}") {
        eprintln!("tools-json: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
