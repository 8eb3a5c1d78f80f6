//! Routers with the local embedder: what `route`, `run`, `serve` and `eval` build.
//!
//! [`build_router`] gives a hybrid router (BM25 + all-MiniLM-L6-v2, fused) when the embedder is
//! installed, and BM25 with a one-line hint when it is not. Tool vectors are cached on disk
//! ([`toolwright_catalog::EmbeddingCache`] in [`toolwright_catalog::dense::default_cache_dir`]),
//! so a toolset of thousands of tools is embedded once. The embedder is loaded once per process.
//!
//! [`ENV_EMBEDDERS`] chooses the embedder: all-MiniLM-L6-v2 (the default), all-mpnet-base-v2, or
//! both blended ([`toolwright_catalog::embed::Blend`], equal weights), which ranks better and
//! costs about five times the time per request (see [`ENV_EMBEDDERS`]).

use std::sync::Arc;
use toolwright_catalog::dense::BuildStats;
use toolwright_catalog::{Router, ScorerKind};
use toolwright_core::ToolSpec;

/// The hint printed when dense routing is off because the embedder is missing.
pub const NO_EMBEDDER_HINT: &str = "routing with BM25 only: run `toolwright model fetch` to get the local embedder for hybrid routing";

/// The environment variable that chooses the embedders: `minilm` (the default), `mpnet` (needs
/// `toolwright model fetch --embedder mpnet`), or `minilm+mpnet`, the two blended with equal
/// weights.
///
/// The blend was measured on the ten tool sets read while building the router (2026-12-06,
/// `toolwright eval --routing-only`): recall@1 / @5 +13 / +20 requests of about 1,700 over
/// MiniLM alone at equal weights (+4 / +8 with MiniLM at 0.7, +8 / +18 at 0.4, +5 / +19 at 0.3;
/// all-mpnet-base-v2 alone −14 / +7, since the router's other evidence was weighed against
/// MiniLM's similarities), and on two sets nobody had read +3 / +1 of 219 and +9 / +1 of 215
/// (session 56's set, recall@1 66.0 → 70.2%; end to end, right tool 63.7 → 67.0%). A request
/// costs an all-mpnet-base-v2 pass besides MiniLM's (12 layers of 768 against 6 of 384): held in
/// 8 bits ([`ENV_MPNET_PRECISION`]), about 14 ms on two threads (28 ms on one, 75 ms in f32) and
/// 205 MB of memory (510 MB in f32), beside MiniLM's 5 ms and 140 MB. Over the issue's budget
/// of 10 ms and 150 MB for the embedder: a choice for quality, not the default.
pub const ENV_EMBEDDERS: &str = "TOOLWRIGHT_EMBEDDERS";

/// The environment variable that sets how all-mpnet-base-v2's weights are held when
/// [`ENV_EMBEDDERS`] names it: `q8` (the default, [`MPNET_PRECISION`]) or `f32`.
///
/// The 8-bit products run on candle's own thread pool, sized by `CANDLE_NUM_THREADS` (default:
/// the machine's physical cores), not on `TOOLWRIGHT_EMBED_THREADS`; set
/// `CANDLE_NUM_THREADS=1` to keep them on the calling thread.
pub const ENV_MPNET_PRECISION: &str = "TOOLWRIGHT_MPNET_PRECISION";

/// How all-mpnet-base-v2's weights are held unless [`ENV_MPNET_PRECISION`] says otherwise:
/// 8-bit ([`crate::embed::Precision::Q8`]). Measured against f32 on twelve tool sets (2026-12-07,
/// the blend, `toolwright eval --routing-only`): recall@1 / @5 +4 / −4 requests of 2,108,
/// refusals within one request per set, for a query 5× faster and half the memory.
#[cfg(feature = "embed")]
pub const MPNET_PRECISION: crate::embed::Precision = crate::embed::Precision::Q8;

/// The embedders [`ENV_EMBEDDERS`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedderChoice {
    /// all-MiniLM-L6-v2 alone (the default).
    MiniLm,
    /// all-mpnet-base-v2 alone.
    MpNet,
    /// Both, blended with equal weights.
    Blend,
}

impl EmbedderChoice {
    /// Parses `minilm`, `mpnet` or `minilm+mpnet` (also `mpnet+minilm`), case-insensitive.
    ///
    /// ```
    /// use toolwright_local::routing::EmbedderChoice;
    /// assert_eq!(EmbedderChoice::parse("MiniLM+mpnet"), Some(EmbedderChoice::Blend));
    /// assert_eq!(EmbedderChoice::parse(" mpnet "), Some(EmbedderChoice::MpNet));
    /// assert_eq!(EmbedderChoice::parse("bge"), None);
    /// ```
    pub fn parse(s: &str) -> Option<EmbedderChoice> {
        match s.trim().to_ascii_lowercase().as_str() {
            "minilm" => Some(EmbedderChoice::MiniLm),
            "mpnet" => Some(EmbedderChoice::MpNet),
            "minilm+mpnet" | "mpnet+minilm" => Some(EmbedderChoice::Blend),
            _ => None,
        }
    }

    /// The choice [`ENV_EMBEDDERS`] makes (the default when it is unset or empty).
    ///
    /// # Errors
    /// It is set to something else; the message lists the choices.
    pub fn from_env() -> Result<EmbedderChoice, String> {
        match std::env::var(ENV_EMBEDDERS) {
            Ok(v) if !v.trim().is_empty() => EmbedderChoice::parse(&v).ok_or_else(|| {
                format!("{ENV_EMBEDDERS}={v:?}: expected `minilm`, `mpnet` or `minilm+mpnet`")
            }),
            _ => Ok(EmbedderChoice::MiniLm),
        }
    }
}

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
            // The default embedder missing has its own hint; anything else (a bad
            // TOOLWRIGHT_EMBEDDERS, all-mpnet-base-v2 chosen but missing) says what it is.
            let hint = match EmbedderChoice::from_env() {
                Ok(EmbedderChoice::MiniLm) => NO_EMBEDDER_HINT.to_string(),
                _ => format!("routing with BM25 only: {e}"),
            };
            Ok(RouterSetup {
                router: Router::from_specs(specs),
                hint: Some(hint),
                stats: None,
            })
        }
        Err(e) => Err(e),
    }
}

/// Loads the embedder `choice` names from the models folder, afresh (not the process's shared
/// one): for a library that wants the blend without setting [`ENV_EMBEDDERS`].
///
/// # Errors
/// A model it needs is not installed or does not load (the message says what to fetch), or
/// this build has no `embed` feature.
pub fn load_embedder(
    choice: EmbedderChoice,
) -> Result<Arc<dyn toolwright_catalog::Embedder>, String> {
    dense::load_choice(choice)
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
    use crate::embed::{self, LocalEmbedder, Precision};
    use std::sync::OnceLock;
    use toolwright_catalog::dense::{DenseIndex, EmbeddingCache, default_cache_dir};
    use toolwright_catalog::{DenseScorer, Embedder};

    pub(super) fn embedder() -> Result<Arc<dyn Embedder>, String> {
        static LOADED: OnceLock<Result<Arc<dyn Embedder>, String>> = OnceLock::new();
        LOADED
            .get_or_init(|| load_choice(EmbedderChoice::from_env()?))
            .clone()
    }

    pub(super) fn load_choice(choice: EmbedderChoice) -> Result<Arc<dyn Embedder>, String> {
        match choice {
            EmbedderChoice::MiniLm => minilm(),
            EmbedderChoice::MpNet => mpnet(),
            EmbedderChoice::Blend => {
                let parts = vec![(minilm()?, 1.0), (mpnet()?, 1.0)];
                toolwright_catalog::embed::Blend::new(parts)
                    .map(|b| Arc::new(b) as Arc<dyn Embedder>)
                    .map_err(|e| e.to_string())
            }
        }
    }

    fn minilm() -> Result<Arc<dyn Embedder>, String> {
        let dir = embed::find().ok_or_else(|| {
            format!(
                "the local embedder is not installed; run `{}`",
                embed::FETCH_COMMAND
            )
        })?;
        load(&dir)
    }

    fn mpnet() -> Result<Arc<dyn Embedder>, String> {
        let dir = embed::find_source(&embed::MPNET).ok_or_else(|| {
            format!(
                "all-mpnet-base-v2 is not installed; run `{} --embedder mpnet`",
                embed::FETCH_COMMAND
            )
        })?;
        let precision = match std::env::var(ENV_MPNET_PRECISION) {
            Ok(v) if !v.trim().is_empty() => Precision::parse(&v)
                .ok_or_else(|| format!("{ENV_MPNET_PRECISION}={v:?}: expected `q8` or `f32`"))?,
            _ => MPNET_PRECISION,
        };
        load_with(&dir, precision)
    }

    fn load(dir: &std::path::Path) -> Result<Arc<dyn Embedder>, String> {
        load_with(dir, Precision::F32)
    }

    fn load_with(dir: &std::path::Path, precision: Precision) -> Result<Arc<dyn Embedder>, String> {
        LocalEmbedder::load_with(dir, precision)
            .map(|e| Arc::new(e) as Arc<dyn Embedder>)
            .map_err(|e| e.to_string())
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

    pub(super) fn load_choice(
        _choice: EmbedderChoice,
    ) -> Result<Arc<dyn toolwright_catalog::Embedder>, String> {
        embedder()
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
