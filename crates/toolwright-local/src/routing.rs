//! Routers with the local embedder: what `route`, `run`, `serve` and `eval` build.
//!
//! [`build_router`] gives a hybrid router (BM25 + all-MiniLM-L6-v2, fused) when the embedder is
//! installed, and BM25 with a one-line hint when it is not. Tool vectors are cached on disk
//! ([`toolwright_catalog::EmbeddingCache`] in [`toolwright_catalog::dense::default_cache_dir`]),
//! so a toolset of thousands of tools is embedded once. The embedder is loaded once per process.

use std::sync::Arc;
use toolwright_catalog::dense::BuildStats;
use toolwright_catalog::{Router, ScorerKind};
use toolwright_core::ToolSpec;

/// The hint printed when dense routing is off because the embedder is missing.
pub const NO_EMBEDDER_HINT: &str = "routing with BM25 only: run `toolwright model fetch` to get the local embedder for hybrid routing";

/// A router and how it was made.
#[derive(Debug)]
pub struct RouterSetup {
    /// The router.
    pub router: Router,
    /// A line for the person when the router is not what they would expect (BM25 because the
    /// embedder is missing), else `None`.
    pub hint: Option<String>,
    /// How many tool vectors came from the cache and how many were embedded now (dense and
    /// hybrid only).
    pub stats: Option<BuildStats>,
}

/// Builds the router for `specs`. `kind`: `None` = hybrid when the embedder is installed, BM25
/// otherwise (with [`RouterSetup::hint`] set); `Some(Bm25)` never loads the embedder;
/// `Some(Dense | Hybrid)` fails when it is missing. `progress(done, total)` follows embedding.
///
/// # Errors
/// A dense or hybrid router was asked for and the embedder is missing or failed: the message
/// says what to do.
pub fn build_router(
    specs: Vec<ToolSpec>,
    kind: Option<ScorerKind>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<RouterSetup, String> {
    if kind == Some(ScorerKind::Bm25) {
        return Ok(RouterSetup {
            router: Router::from_specs(specs),
            hint: None,
            stats: None,
        });
    }
    match dense::embedder() {
        Ok(embedder) => {
            let (router, stats) = dense::attach(
                specs,
                embedder,
                kind.unwrap_or(ScorerKind::Hybrid),
                progress,
            )?;
            Ok(RouterSetup {
                router,
                hint: None,
                stats: Some(stats),
            })
        }
        Err(e) if kind.is_none() => {
            tracing::debug!("no embedder: {e}");
            Ok(RouterSetup {
                router: Router::from_specs(specs),
                hint: Some(NO_EMBEDDER_HINT.to_string()),
                stats: None,
            })
        }
        Err(e) => Err(e),
    }
}

/// The process's embedder, loaded on first use (`Err` says why there is none).
///
/// # Errors
/// The embedder is not installed, does not load, or this build has no `embed` feature.
pub fn shared_embedder() -> Result<Arc<dyn toolwright_catalog::Embedder>, String> {
    dense::embedder()
}

#[cfg(feature = "embed")]
mod dense {
    use super::*;
    use crate::embed::{self, LocalEmbedder};
    use std::sync::OnceLock;
    use toolwright_catalog::dense::{DenseIndex, EmbeddingCache, default_cache_dir};
    use toolwright_catalog::{DenseScorer, Embedder};

    pub(super) fn embedder() -> Result<Arc<dyn Embedder>, String> {
        static LOADED: OnceLock<Result<Arc<LocalEmbedder>, String>> = OnceLock::new();
        let loaded = LOADED.get_or_init(|| {
            let dir = embed::find().ok_or_else(|| {
                format!(
                    "the local embedder is not installed; run `{}`",
                    embed::FETCH_COMMAND
                )
            })?;
            LocalEmbedder::load(&dir)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        });
        loaded.clone().map(|e| e as Arc<dyn Embedder>)
    }

    pub(super) fn attach(
        specs: Vec<ToolSpec>,
        embedder: Arc<dyn Embedder>,
        kind: ScorerKind,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Router, BuildStats), String> {
        let cache = EmbeddingCache::new(default_cache_dir());
        let (index, stats) =
            DenseIndex::build_with_stats(&specs, embedder.as_ref(), Some(&cache), progress)
                .map_err(|e| e.to_string())?;
        let router =
            Router::from_specs(specs).with_dense(DenseScorer::new(Arc::new(index), embedder), kind);
        Ok((router, stats))
    }
}

#[cfg(not(feature = "embed"))]
mod dense {
    use super::*;

    pub(super) fn embedder() -> Result<Arc<dyn toolwright_catalog::Embedder>, String> {
        Err("this build of toolwright has no local embedder (feature `embed`)".to_string())
    }

    pub(super) fn attach(
        specs: Vec<ToolSpec>,
        _embedder: Arc<dyn toolwright_catalog::Embedder>,
        _kind: ScorerKind,
        _progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(Router, BuildStats), String> {
        Ok((Router::from_specs(specs), BuildStats::default()))
    }
}
