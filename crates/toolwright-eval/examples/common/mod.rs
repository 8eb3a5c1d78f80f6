//! What the routing examples share: the dataset they read and batched embedding.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use toolwright_catalog::Embedder;
use toolwright_eval::toolset::ToolsetDataset;

/// The dataset named by the first argument, else the MCP dev set.
pub fn load_dataset() -> Result<ToolsetDataset, String> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/mcp"));
    Ok(ToolsetDataset::load(&dir)?)
}

/// The output file and the set folders of an example run as `NAME OUT SET_DIR...`.
pub fn out_and_sets(
    name: &str,
) -> Result<(std::io::BufWriter<std::fs::File>, Vec<String>), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, sets @ ..] = args.as_slice() else {
        return Err(format!("usage: {name} OUT SET_DIR..."));
    };
    let file = std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
    Ok((std::io::BufWriter::new(file), sets.to_vec()))
}

/// The MCP set in folder `dir`, with its name (the folder's).
pub fn load_set(dir: &str) -> Result<(String, ToolsetDataset), String> {
    let path = std::path::Path::new(dir);
    let ds = ToolsetDataset::load(path).map_err(|e| e.to_string())?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or(dir);
    Ok((name.to_string(), ds))
}

/// `texts` embedded 32 at a time, in order.
pub fn embed_all(emb: &dyn Embedder, texts: &[String]) -> Vec<Vec<f32>> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    refs.chunks(32)
        .flat_map(|c| emb.embed(c).unwrap())
        .collect()
}

/// Every tool's full text (`toolwright_catalog::dense::tool_text`) embedded with `emb`, in order.
pub fn tool_vectors(emb: &dyn Embedder, ds: &ToolsetDataset) -> Vec<Vec<f32>> {
    let texts: Vec<String> = ds
        .specs
        .iter()
        .map(toolwright_catalog::dense::tool_text)
        .collect();
    embed_all(emb, &texts)
}

/// The dataset's tools behind the hybrid router, as the provider ranks them (product defaults).
#[cfg(feature = "embed")]
pub fn hybrid_ranker(
    ds: &ToolsetDataset,
) -> Result<toolwright_agent::routing::CatalogRanker, String> {
    let setup = toolwright_local::routing::build_router(
        ds.specs.clone(),
        Some(toolwright_catalog::ScorerKind::Hybrid),
        &mut |_, _| {},
    )
    .map_err(|e| e.to_string())?;
    Ok(toolwright_agent::routing::CatalogRanker::from_router(
        setup.router,
    ))
}
