#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps, for every in-scope request of the MCP sets named on the command line, what the
//! argument passes leave each parameter of the expected tool (as the `ground` example of
//! `toolwright-local` prints it for one request): left out, free, or the values offered. For
//! counting where wrong arguments come from: a value that was never offered, or an offered one
//! the model did not take.
//!
//! ```text
//! cargo run --release -p toolwright-eval --features embed --example offers -- OUT SET_DIR...
//! ```
//!
//! One JSON line per request: `{"set","id","tool","params":{name: "left out" | "free" |
//! [offered..]}}`.

#[cfg(feature = "embed")]
mod common;

#[cfg(feature = "embed")]
fn main() -> Result<(), String> {
    use serde_json::{Map, Value, json};
    use std::io::Write;
    use toolwright_local::narrow::{ground_numbers, narrow_for_query, require_given};
    use toolwright_local::spans::ground_strings;

    let (mut out, sets) = common::out_and_sets("offers")?;
    let props = |s: &Value| -> Map<String, Value> {
        toolwright_catalog::schema::properties(s)
            .cloned()
            .unwrap_or_default()
    };
    for dir in &sets {
        let (set, ds) = common::load_set(dir)?;
        for r in ds.requests.iter().filter(|r| !r.out_of_scope()) {
            let Some(spec) = ds.specs.iter().find(|s| s.name == r.expected[0].name) else {
                continue;
            };
            // A wrapper object's fields are offered as the provider offers them (lifted).
            let lifted = toolwright_local::wrapper::unwrap(spec);
            let (spec, objects) = match &lifted {
                Some((t, w)) => (t, Some(w)),
                None => (spec, None),
            };
            let (n, _) = narrow_for_query(spec, &r.query);
            let (g, _) = ground_numbers(&n, &r.query);
            let (g, _) = ground_strings(&g, &r.query, true);
            let (g, _) = require_given(&g);
            let kept = props(&g.parameters);
            let params: Map<String, Value> = props(&spec.parameters)
                .keys()
                .map(|k| {
                    let v = match kept.get(k) {
                        None => json!("left out"),
                        Some(p) => p
                            .get("enum")
                            .or_else(|| p.get("items").and_then(|i| i.get("enum")))
                            .cloned()
                            .unwrap_or_else(|| json!("free")),
                    };
                    let owner = objects.and_then(|o| o.owner(k));
                    (owner.map_or(k.clone(), |o| format!("{o}.{k}")), v)
                })
                .collect();
            let line = json!({"set": set, "id": r.id, "tool": spec.name, "params": params});
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn main() {
    println!("offers: build with --features embed");
}
