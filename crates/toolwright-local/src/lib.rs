//! toolwright-local: the small-model path.
//!
//! Everything that runs a model on this machine lives here: the embedded llama.cpp engine and its
//! provider, the grammar builder, model and embedder fetching, the local sentence embedder used
//! for dense routing, answer composition, and the named passes that help a small model (schema
//! narrowing, number grounding, re-asks, the selection policy). The agent crate knows none of
//! this: it sees a `Provider`, and the catalog sees an `Embedder`.

#[cfg(feature = "embed")]
pub mod embed;
