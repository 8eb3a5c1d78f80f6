#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Counts, for the MCP sets named on the command line, where the "needs input" question
//! ([`toolwright_local::ask::missing_inputs`]) would be asked: for every request that the
//! provider's defaults give a tool (hybrid router, 3 candidates, the no-tool rule), whether the
//! router's first tool has a required identifier the request writes no value for. In-scope
//! requests are split by whether that tool is right and, when it is, whether the expected call
//! checks the identifier and the request writes the expected value (a question there is a
//! loss). With `--show`, the in-scope questions are printed (for the read sets only).
//!
//! ```text
//! cargo run --release -p toolwright-eval --features embed --example asks -- [--show] SET_DIR...
//! ```

mod common;

use toolwright_agent::Ranker;
use toolwright_local::select::{Decision, NoToolRule, Selection, choose_with};

fn main() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--show");
    args.retain(|a| a != "--show");
    let emb = toolwright_local::routing::shared_embedder()?;
    println!(
        "set\tin-scope called\tasked: right tool, value written\tright tool, value not written\twrong tool\tout-of-scope called\tasked"
    );
    for dir in &args {
        let (set, ds) = common::load_set(dir)?;
        let ranker = common::hybrid_ranker(&ds)?;
        let (mut called, mut written, mut unwritten, mut wrong) = (0, 0, 0, 0);
        let (mut oos_called, mut oos_asked) = (0, 0);
        let (mut next_fixes, mut next_wrong, mut oos_next) = (0, 0, 0);
        for r in &ds.requests {
            let ranked = ranker.rank(&r.query, 3);
            let d = choose_with(
                &ranked,
                &r.query,
                &ds.specs,
                Selection::RouterFirst,
                Some(NoToolRule::default()),
                Some(emb.as_ref()),
                0.5,
                3,
            );
            let Decision::Tools(names) = d else { continue };
            let Some(spec) = ds.specs.iter().find(|s| Some(&s.name) == names.first()) else {
                continue;
            };
            let missing = toolwright_local::ask::missing_inputs(spec, &r.query);
            if r.out_of_scope() {
                oos_called += 1;
                oos_asked += usize::from(!missing.is_empty());
                let next = ranked.iter().skip(1).any(|c| {
                    ds.specs
                        .iter()
                        .any(|s| s.name == c.name && toolwright_local::ask::stands_in(s, &r.query))
                });
                oos_next += usize::from(!missing.is_empty() && next);
                continue;
            }
            called += 1;
            if missing.is_empty() {
                continue;
            }
            let right = r.right_tools().contains(&spec.name.as_str());
            let expected = r.expected.iter().find(|e| e.name == spec.name);
            let given = expected.is_some_and(|e| {
                missing.iter().any(|m| {
                    e.arguments.get(&m.param).is_some_and(|vs| {
                        vs.as_array().into_iter().flatten().any(|v| {
                            let s = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                            r.query.contains(&s)
                        })
                    })
                })
            });
            // The router's next candidate (of the 3) that needs no input the request lacks.
            let next = ranked.iter().skip(1).find_map(|c| {
                ds.specs
                    .iter()
                    .find(|s| s.name == c.name && toolwright_local::ask::stands_in(s, &r.query))
            });
            let next_right = next.map(|s| r.right_tools().contains(&s.name.as_str()));
            match next_right {
                Some(true) => next_fixes += 1,
                Some(false) => next_wrong += 1,
                None => {}
            }
            let kind = if !right {
                wrong += 1;
                "wrong tool"
            } else if given {
                written += 1;
                "VALUE WRITTEN"
            } else {
                unwritten += 1;
                "not written"
            };
            if show {
                let ps: Vec<&str> = missing.iter().map(|m| m.param.as_str()).collect();
                let n = next.map(|s| s.name.as_str());
                eprintln!(
                    "{set}\t{}\t{kind}\t{}\t{ps:?}\tnext {n:?} {next_right:?}\t{}",
                    r.id, spec.name, r.query
                );
            }
        }
        println!(
            "{set}\t{called}\t{written}\t{unwritten}\t{wrong}\t{oos_called}\t{oos_asked}\tnext right {next_fixes}, next wrong {next_wrong}, out of scope with a next {oos_next}"
        );
    }
    Ok(())
}
