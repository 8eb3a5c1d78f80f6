#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps, for every request of the MCP sets named on the command line where the "no tool fits"
//! evidence says "object missing" (a candidate's name has the request's create, update or
//! delete verb, but none of those names' objects is a word of the request), how close the
//! request's words come to those objects in the local embedder's space: "resize the browser
//! window" against `resize_page`, "make a folder" against `create_directory`. For offline
//! experiments on telling a synonym of the object from another object.
//!
//! ```text
//! cargo run --release -p toolwright-eval --features embed --example object_words -- OUT SET_DIR...
//! ```
//!
//! One JSON line per such request: `{"set","id","oos","objects":[..],"best":[word, object,
//! cosine],"whole":cosine}`: the request's content word closest to one of the objects, and the
//! best cosine of the whole request with an object.

#[cfg(feature = "embed")]
mod common;

#[cfg(feature = "embed")]
fn main() -> Result<(), String> {
    use serde_json::json;
    use std::io::Write;
    use toolwright_agent::Ranker;
    use toolwright_catalog::text::{Action, name_object, opening_action, terms};
    use toolwright_local::select::evidence;

    let (mut out, sets) = common::out_and_sets("object_words")?;
    let emb = toolwright_local::routing::shared_embedder()?;
    let cos = |a: &[f32], b: &[f32]| toolwright_catalog::embed::dot(a, b);
    for dir in &sets {
        let (set, ds) = common::load_set(dir)?;
        let ranker = common::hybrid_ranker(&ds)?;
        for r in &ds.requests {
            let ranked = ranker.rank(&r.query, 3);
            let Some(e) = evidence(&ranked, &r.query, &ds.specs) else {
                continue;
            };
            if !e.object_missing {
                continue;
            }
            let wanted = opening_action(&r.query);
            let objects: Vec<String> = ranked
                .iter()
                .filter_map(|c| name_object(&c.name))
                .filter(|(a, _)| Some(*a) == wanted && *a != Action::Read)
                .map(|(_, o)| o.join(" "))
                .collect();
            let words = terms(&r.query);
            let texts: Vec<&str> = objects
                .iter()
                .map(String::as_str)
                .chain(words.iter().map(String::as_str))
                .chain([r.query.as_str()])
                .collect();
            let v = emb.embed(&texts).map_err(|e| e.to_string())?;
            let (ov, rest) = v.split_at(objects.len());
            let (wv, qv) = rest.split_at(words.len());
            let mut best = (String::new(), String::new(), -1.0f32);
            for (w, x) in words.iter().zip(wv) {
                for (o, y) in objects.iter().zip(ov) {
                    let c = cos(x, y);
                    if c > best.2 {
                        best = (w.clone(), o.clone(), c);
                    }
                }
            }
            let whole = ov.iter().map(|y| cos(&qv[0], y)).fold(-1.0f32, f32::max);
            let line = json!({"set": set, "id": r.id, "oos": r.out_of_scope(), "query": r.query,
                "objects": objects, "best": [best.0, best.1, best.2], "whole": whole,
                "right_first": ranked.first().is_some_and(|c| r.right_tools().contains(&c.name.as_str()))});
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn main() {
    println!("object_words: build with --features embed");
}
