//! Narrowing a toolset to the few tools that matter for a query.

use crate::provider::Candidate;
use std::sync::Arc;
use toolwright_core::ToolSpec;

/// Ranks tools for a query, best first. Tools that do not match at all are left out.
pub trait Ranker: Send + Sync {
    /// The `k` best tools for `query`.
    fn rank(&self, query: &str, k: usize) -> Vec<Candidate>;
}

/// The catalog's router (BM25, dense or hybrid) as a [`Ranker`].
pub struct CatalogRanker(toolwright_catalog::Router);

impl std::fmt::Debug for CatalogRanker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("CatalogRanker").field(&self.0).finish()
    }
}

impl CatalogRanker {
    /// A BM25 router over `specs`.
    pub fn new(specs: &[ToolSpec]) -> Self {
        CatalogRanker(toolwright_catalog::Router::new(specs))
    }

    /// Ranks with `router` (for example a hybrid one with an embedder).
    pub fn from_router(router: toolwright_catalog::Router) -> Self {
        CatalogRanker(router)
    }

    /// The router.
    pub fn router(&self) -> &toolwright_catalog::Router {
        &self.0
    }

    /// Gives the router back.
    pub fn into_router(self) -> toolwright_catalog::Router {
        self.0
    }
}

impl Ranker for CatalogRanker {
    fn rank(&self, query: &str, k: usize) -> Vec<Candidate> {
        let scale = self.0.lexical_scale();
        self.0
            .rank(query, k)
            .into_iter()
            .map(|r| Candidate {
                name: r.name,
                score: r.score,
                similarity: r.similarity,
                lexical: r.lexical.map(|l| l / scale),
            })
            .collect()
    }
}

/// The default ranker over `specs` (the catalog's BM25 router).
pub fn default_ranker(specs: &[ToolSpec]) -> Arc<dyn Ranker> {
    Arc::new(CatalogRanker::new(specs))
}

/// When and how the agent routes.
#[derive(Debug, Clone, PartialEq)]
pub struct Routing {
    /// Route at all (off: every tool is offered every time, unless the provider requires routing).
    pub enabled: bool,
    /// Route when the toolset has more tools than this.
    pub threshold: usize,
    /// How many tools to offer after routing.
    pub k: usize,
}

impl Default for Routing {
    fn default() -> Self {
        Routing {
            enabled: true,
            threshold: toolwright_catalog::router::DEFAULT_ROUTING_THRESHOLD,
            k: 5,
        }
    }
}
