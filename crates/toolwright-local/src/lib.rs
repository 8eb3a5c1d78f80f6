//! toolwright-local: the small-model path.
//!
//! Everything that runs a model on this machine lives here: the embedded llama.cpp engine and its
//! provider, the grammar builder, model and embedder fetching, the local sentence embedder used
//! for dense routing, answer composition, and the named passes that help a small model (schema
//! narrowing, number grounding, re-asks, the selection policy). The agent crate knows none of
//! this: it sees a `Provider`, and the catalog sees an `Embedder`.

#[cfg(feature = "embed")]
pub mod embed;

pub mod ask;
pub mod caps;
pub mod clock;
pub mod code;
pub mod compose;
pub mod cues;
#[cfg(feature = "llama")]
mod engine;
pub mod gbnf;
pub mod globs;
pub mod kinds;
pub mod listed;
pub mod lists;
#[cfg(feature = "llama")]
pub mod model;
pub mod narrow;
pub mod passes;
pub mod periods;
#[cfg(feature = "llama")]
mod provider;
pub mod refs;
pub mod routing;
pub mod salvage;
pub mod scoring;
pub mod select;
pub mod spans;
pub mod topic;
pub mod units;
#[cfg(any(feature = "llama", feature = "embed"))]
mod wheel;
pub mod wrapper;
pub mod zones;

pub use compose::Summarizer;
pub use passes::Passes;
#[cfg(feature = "llama")]
pub use provider::{LocalChat, LocalConfig, LocalProvider};
