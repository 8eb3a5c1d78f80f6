//! toolwright-catalog: what sits around a toolset rather than inside a tool.
//!
//! - [`catalog`]: the YAML tool catalog — export, load (errors with line and column), drift
//!   check against the code, and a diff that classifies changes as breaking or compatible.
//! - [`lint`]: rules (TW001…) that catch definitions a model will misuse, each with a fix.
//! - [`dialect`]: the same spec written for JSON Schema, OpenAI (plain and strict), Anthropic,
//!   Gemini and MCP, with a portability report of what each provider would reject.
//! - [`router`]: routing of a query to the few relevant tools — BM25, dense (sentence
//!   embeddings from a plugged-in [`Embedder`]) or both fused — the `find_tools` meta-tool and
//!   [`router::select_tools`].
//! - [`dense`] and [`embed`]: tool vectors, their on-disk cache, and the embedder trait.
//!
//! Everything works on [`toolwright_core::ToolSpec`]s, whatever their origin: a registry, a
//! catalog file, or external definitions read with `toolwright_core::defs::parse_definitions`.

pub mod catalog;
pub mod dense;
pub mod dialect;
pub mod embed;
pub mod lint;
pub mod overlay;
pub mod router;
pub mod schema;
pub mod text;
pub mod values;

pub use catalog::{Catalog, CatalogError, CatalogTool, Change, ChangeKind};
pub use dense::{DenseIndex, EmbeddingCache};
pub use dialect::{Dialect, Lowering, Portability, export_dialect};
pub use embed::{EmbedError, Embedder};
pub use lint::{Finding, LintOptions, Severity};
pub use overlay::{OverlayError, apply_policies, inline_schema_refs};
pub use router::{
    DenseScorer, Fusion, Ranked, Router, Scorer, ScorerKind, Scores, find_tools, select_tools,
};
