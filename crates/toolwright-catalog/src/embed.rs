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
///
/// Eight independent partial sums let the compiler use SIMD lanes (a plain `sum()` is one
/// dependency chain): dense routing over 10,000 tools is 3.8 million multiply-adds per query.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (a.get(..n).unwrap_or(&[]), b.get(..n).unwrap_or(&[]));
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for ((s, p), q) in acc.iter_mut().zip(x).zip(y) {
            *s += p * q;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Scales `v` to unit length in place (left as is when it is all zeros).
pub fn normalize(v: &mut [f32]) {
    let n = dot(v, v).sqrt();
    if n > 0.0 && n.is_finite() {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_the_plain_sum_for_every_length() {
        for n in [0usize, 1, 7, 8, 9, 16, 383, 384] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - plain).abs() < 1e-4, "{n}");
        }
        assert_eq!(dot(&[1.0, 2.0], &[3.0]), 3.0);
        let mut v = vec![3.0, 4.0];
        normalize(&mut v);
        assert!((dot(&v, &v) - 1.0).abs() < 1e-6);
        let mut z = vec![0.0; 3];
        normalize(&mut z);
        assert_eq!(z, [0.0; 3]);
    }
}
