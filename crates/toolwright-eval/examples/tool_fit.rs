#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps, for every request of the MCP sets named on the command line, the hybrid
//! router's first `K` candidates (product defaults) with what the argument passes make of the
//! request for each of them: how many parameters the request gives a value by a cue, how many
//! required parameters are left with nothing offered. For offline experiments on whether the
//! request's values can tell close candidates apart.
//!
//! ```text
//! cargo run --release -p toolwright-eval --features embed --example tool_fit -- OUT K SET_DIR...
//! ```
//!
//! One JSON line per request (`expected` empty when out of scope): `{"set","id","expected":[..],"cands":[{"name","score",
//! "similarity","lexical","params","required","named","restricted","promoted","flags",
//! "numbers","strings","cued","required_open"}..]}`. `required_open` counts the required
//! parameters the passes left with no value offered (no `enum` after grounding).

mod common;

#[cfg(feature = "embed")]
fn main() -> Result<(), String> {
    use serde_json::{Value, json};
    use std::io::Write;
    use toolwright_catalog::ScorerKind;
    use toolwright_core::ToolSpec;
    use toolwright_local::cues::{Param, focus};
    use toolwright_local::narrow::{ground_numbers, narrow_for_query, require_given};
    use toolwright_local::spans::{ground_strings, query_spans};

    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, k, sets @ ..] = args.as_slice() else {
        return Err("usage: tool_fit OUT K SET_DIR...".into());
    };
    let k: usize = k.parse().map_err(|_| "K: a number")?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(out).map_err(|e| e.to_string())?);

    use toolwright_catalog::schema::required;
    let props = |s: &Value| -> serde_json::Map<String, Value> {
        toolwright_catalog::schema::properties(s)
            .cloned()
            .unwrap_or_default()
    };
    let features = |spec: &ToolSpec, query: &str| -> Value {
        let spans = query_spans(query);
        let ps = props(&spec.parameters);
        let names: Vec<&str> = ps.keys().map(String::as_str).collect();
        let cued = ps
            .iter()
            .filter(|(name, p)| {
                let param = Param {
                    name,
                    description: p.get("description").and_then(Value::as_str).unwrap_or(""),
                    siblings: &names,
                    tool: &spec.name,
                    tool_description: &spec.description,
                };
                focus(param, query, &spans, |_| true).is_some_and(|v| !v.is_empty())
            })
            .count();
        let (n, report) = narrow_for_query(spec, query);
        let (g, numbers) = ground_numbers(&n, query);
        let (g, strings) = ground_strings(&g, query, true);
        let (g, _) = require_given(&g);
        let gp = props(&g.parameters);
        let required_open = required(&g.parameters)
            .iter()
            .filter(|r| {
                gp.get(r.as_str()).is_some_and(|p| {
                    p.get("enum").is_none() && p.get("items").and_then(|i| i.get("enum")).is_none()
                })
            })
            .count();
        json!({
            "params": ps.len(), "required": required(&spec.parameters).len(),
            "named": report.names_allowed_value(), "restricted": report.restricted.len(),
            "promoted": report.promoted.len(), "flags": report.flags.len(),
            "numbers": numbers.len(), "strings": strings.len(), "cued": cued,
            "required_open": required_open,
        })
    };

    for dir in sets {
        let (set, ds) = common::load_set(dir)?;
        let router = toolwright_local::routing::build_router(
            ds.specs.clone(),
            Some(ScorerKind::Hybrid),
            &mut |_, _| {},
        )?
        .router;
        for r in &ds.requests {
            let cands: Vec<Value> = router
                .rank(&r.query, k)
                .iter()
                .map(|c| {
                    let mut v = json!({"name": c.name, "score": c.score,
                        "similarity": c.similarity, "lexical": c.lexical});
                    if let Some(spec) = ds.specs.iter().find(|s| s.name == c.name)
                        && let (Some(o), Value::Object(f)) =
                            (v.as_object_mut(), features(spec, &r.query))
                    {
                        o.extend(f);
                    }
                    v
                })
                .collect();
            let line = json!({"set": set, "id": r.id, "expected": r.right_tools(), "cands": cands});
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn main() {
    println!("tool_fit: build with --features embed");
}
