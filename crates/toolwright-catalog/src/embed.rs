//! Sentence embeddings for dense routing: the [`Embedder`] trait.
//!
//! The catalog knows nothing about how vectors are made: an embedder is plugged in (the local
//! all-MiniLM-L6-v2 lives in `toolwright-local`; tests use small hand-made ones). Vectors are
//! L2-normalised, so a dot product is the cosine similarity.

use std::fmt;

/// Why texts could not be embedded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedError(pub String);

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "embedding failed: {}", self.0)
    }
}

impl std::error::Error for EmbedError {}

/// Turns texts into unit-length vectors of a fixed dimension.
///
/// Contract:
/// - `embed` returns exactly one vector per input text, in order, each of length [`Embedder::dim`]
///   and L2 norm 1 (or all zeros for a text with no content);
/// - the same text gives the same vector on every call (deterministic), so vectors can be cached;
/// - [`Embedder::model_id`] changes whenever the vectors would (another model, another revision),
///   because caches are keyed by it.
pub trait Embedder: Send + Sync {
    /// A stable identifier of the model and its revision, e.g.
    /// `"all-MiniLM-L6-v2@53aa5172"` (used to key caches).
    fn model_id(&self) -> &str;
    /// The vector length.
    fn dim(&self) -> usize;
    /// Embeds `texts` (see the trait contract).
    ///
    /// # Errors
    /// The model failed; the error says why.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Dot product of two vectors of the same length (cosine similarity for unit vectors).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Scales `v` to unit length in place (left as is when it is all zeros).
pub fn normalize(v: &mut [f32]) {
    let n = dot(v, v).sqrt();
    if n > 0.0 && n.is_finite() {
        v.iter_mut().for_each(|x| *x /= n);
    }
}
