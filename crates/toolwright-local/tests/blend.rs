//! all-MiniLM-L6-v2 and all-mpnet-base-v2 blended (`routing::load_embedder`), as
//! `TOOLWRIGHT_EMBEDDERS=minilm+mpnet` routes: one embedder to the router, with its own model id.
//!
//! Needs both models (`toolwright model fetch --embedder mpnet`); without them the test fails
//! and says so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::json;
use std::sync::Arc;
use toolwright_catalog::dense::DenseIndex;
use toolwright_catalog::embed::dot;
use toolwright_catalog::{DenseScorer, Router, ScorerKind};
use toolwright_core::ToolSpec;
use toolwright_local::routing::{EmbedderChoice, load_embedder};

#[test]
fn the_blend_is_one_embedder_that_routes() {
    let blend = load_embedder(EmbedderChoice::Blend).unwrap_or_else(|e| panic!("{e}"));
    let (minilm, mpnet) = (
        load_embedder(EmbedderChoice::MiniLm).unwrap(),
        load_embedder(EmbedderChoice::MpNet).unwrap(),
    );
    assert_eq!(blend.dim(), 384 + 768);
    assert_eq!(
        blend.model_id(),
        format!("blend({}*0.5,{}*0.5)", minilm.model_id(), mpnet.model_id())
    );
    // The blend's similarity is the mean of the two models' cosines.
    let texts = ["remove a file", "delete the document at this path"];
    let cos = |e: &Arc<dyn toolwright_catalog::Embedder>| {
        let v = e.embed(&texts).unwrap();
        dot(&v[0], &v[1])
    };
    let (b, m, p) = (cos(&blend), cos(&minilm), cos(&mpnet));
    assert!((b - (m + p) / 2.0).abs() < 1e-4, "{b} vs {m} and {p}");

    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let specs = vec![
        ToolSpec::new(
            "get_forecast",
            "Weather forecast for a city.",
            schema.clone(),
        ),
        ToolSpec::new("read_file", "Read a file from disk.", schema.clone()),
        ToolSpec::new("send_email", "Send an e-mail message.", schema),
    ];
    let index = DenseIndex::build(&specs, blend.as_ref(), None, &mut |_, _| {}).unwrap();
    assert_eq!(index.model_id(), blend.model_id());
    let router = Router::from_specs(specs)
        .with_dense(DenseScorer::new(Arc::new(index), blend), ScorerKind::Hybrid);
    let ranked = router.rank("will it rain in Oslo tomorrow?", 3);
    assert_eq!(ranked[0].name, "get_forecast", "{ranked:?}");
}
