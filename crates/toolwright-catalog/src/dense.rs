//! Dense routing: tool vectors from an [`Embedder`], kept in a [`DenseIndex`] and cached on disk
//! by an [`EmbeddingCache`] so a large toolset is embedded once, not at every start.
//!
//! Each tool is embedded twice: [`tool_text`] (its name split into words, its description's first
//! 600 characters and its parameter names) and [`headline_text`] (its name and the first sentence
//! of its description). A query is scored by the cosine similarity of its vector with the full
//! text's ([`DenseIndex::similarities`]; vectors are unit length, so a dot product); the router
//! re-ranks its best candidates by the better of the two ([`DenseIndex::headline_similarity`]),
//! so a tool whose first sentence says exactly what the request asks is not drowned by a long
//! description. Sentences that several tools of the toolset share word for word
//! ([`Boilerplate`]: "This is the public Twilio REST API", "Only works within allowed
//! directories") say nothing about any one of them: the full text leaves them out
//! ([`tool_text_in`]), and a tool whose first sentence is one has its text as written for a
//! headline ([`headline_text_in`]).
//!
//! ```
//! use toolwright_catalog::dense::{DenseIndex, tool_text};
//! use toolwright_catalog::embed::{EmbedError, Embedder};
//! use toolwright_core::ToolSpec;
//!
//! /// A toy embedder: one dimension per keyword.
//! struct Keywords;
//! impl Embedder for Keywords {
//!     fn model_id(&self) -> &str { "keywords@1" }
//!     fn dim(&self) -> usize { 2 }
//!     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
//!         Ok(texts.iter().map(|t| {
//!             let mut v = vec![t.contains("weather") as u8 as f32, t.contains("file") as u8 as f32];
//!             toolwright_catalog::embed::normalize(&mut v);
//!             v
//!         }).collect())
//!     }
//! }
//! let specs = vec![
//!     ToolSpec::new("get_weather", "Current weather for a city.", serde_json::json!({"type": "object"})),
//!     ToolSpec::new("read_file", "Read a file.", serde_json::json!({"type": "object"})),
//! ];
//! assert!(tool_text(&specs[0]).starts_with("get weather: Current weather"));
//! let index = DenseIndex::build(&specs, &Keywords, None, &mut |_, _| {}).unwrap();
//! let q = Keywords.embed(&["weather in Paris"]).unwrap().remove(0);
//! let mut scores = vec![0.0; 2];
//! index.similarities(&q, &mut scores);
//! assert!(scores[0] > scores[1]);
//! ```

use crate::embed::{EmbedError, Embedder};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use toolwright_core::ToolSpec;

/// How many characters of a description are embedded (the model reads at most a few hundred
/// tokens, and the first sentences say what a tool is for).
const DESCRIPTION_CHARS: usize = 600;
/// How many texts go to the embedder at once (bounds memory; lets progress be reported).
const CHUNK: usize = 64;

/// The text embedded for `spec`: `"<name words>: <description> (parameters: a, b)"`, or
/// `"<name words> (<server words>): …"` for a tool imported from an MCP server (its
/// `meta.server`: requests often name the product, "in postgres", "on gitlab").
pub fn tool_text(spec: &ToolSpec) -> String {
    tool_text_in(spec, &Boilerplate::default())
}

/// [`tool_text`] within a toolset: the description without the sentences that `boilerplate`
/// holds (shared word for word with other tools of the toolset).
pub fn tool_text_in(spec: &ToolSpec, boilerplate: &Boilerplate) -> String {
    let name = crate::text::words(&spec.name).join(" ");
    let desc: String = boilerplate
        .strip(&spec.description)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(DESCRIPTION_CHARS)
        .collect();
    let params: Vec<&str> = spec
        .parameters
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|p| p.keys().map(String::as_str).take(12).collect())
        .unwrap_or_default();
    let mut text = match spec.meta.server.as_deref() {
        Some(c) => format!("{name} ({}): {desc}", crate::text::words(c).join(" ")),
        None => format!("{name}: {desc}"),
    };
    if !params.is_empty() {
        text.push_str(&format!(" (parameters: {})", params.join(", ")));
    }
    text
}

/// The shorter text also embedded for `spec`: `"<name words>: <first sentence>"`, where the first
/// sentence is the description's first line or period-ended piece longer than 12 characters
/// (the name alone when there is none).
///
/// ```
/// use toolwright_catalog::dense::headline_text;
/// use toolwright_core::ToolSpec;
/// let spec = ToolSpec::new(
///     "git_log",
///     "Shows the commit logs. Use max_count to limit them.",
///     serde_json::json!({"type": "object"}),
/// );
/// assert_eq!(headline_text(&spec), "git log: Shows the commit logs");
/// ```
pub fn headline_text(spec: &ToolSpec) -> String {
    headline_text_in(spec, &Boilerplate::default())
}

/// [`headline_text`] within a toolset. A tool whose first sentence is `boilerplate` (shared
/// word for word with other tools: "Twilio - Api: This is the public Twilio REST API") has no
/// headline of its own: its second view is then its [`tool_text`] as written, shared sentences
/// and all, beside the full text without them ([`tool_text_in`]).
pub fn headline_text_in(spec: &ToolSpec, boilerplate: &Boilerplate) -> String {
    let name = crate::text::words(&spec.name).join(" ");
    let first = sentences(&spec.description).find(|s| s.chars().count() > 12);
    if first.is_some_and(|s| boilerplate.holds(s)) {
        return tool_text(spec);
    }
    match first {
        Some(f) => {
            let f: String = f.chars().take(HEADLINE_CHARS).collect();
            format!(
                "{name}: {}",
                f.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        }
        None => name,
    }
}

/// The trimmed pieces of a description between periods and line breaks.
fn sentences(description: &str) -> impl Iterator<Item = &str> {
    description.split(['.', '\n']).map(str::trim)
}

/// Sentences that many tools of one toolset share word for word ("Twilio - Api: This is the
/// public Twilio REST API", "Only works within allowed directories", "Supports pagination"):
/// they tell those tools apart from nothing, so the embedded full text leaves them out
/// ([`tool_text_in`]) and a tool whose first sentence is one gets no headline of its own
/// ([`headline_text_in`]). A sentence is boilerplate when at least [`BOILERPLATE_TOOLS`]
/// tools' descriptions hold it.
///
/// ```
/// use toolwright_catalog::dense::{Boilerplate, headline_text_in, tool_text, tool_text_in};
/// use toolwright_core::ToolSpec;
/// let schema = serde_json::json!({"type": "object"});
/// let specs: Vec<ToolSpec> = ["Send a message", "Delete a call", "List recordings"]
///     .iter()
///     .map(|d| ToolSpec::new("t", format!("Acme - Api: This is the public Acme REST API. {d}."), schema.clone()))
///     .collect();
/// let b = Boilerplate::of(&specs);
/// assert!(b.holds("Acme - Api:  This is the public Acme REST API"));
/// assert_eq!(tool_text_in(&specs[0], &b), "t: Send a message.");
/// assert_eq!(headline_text_in(&specs[0], &b), tool_text(&specs[0]));
/// assert_eq!(headline_text_in(&specs[0], &Boilerplate::default()), "t: Acme - Api: This is the public Acme REST API");
/// assert!(Boilerplate::of(&specs[..2]).is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Boilerplate {
    shared: std::collections::HashSet<String>,
}

/// How many tools must share a sentence for it to be [`Boilerplate`].
pub const BOILERPLATE_TOOLS: usize = 3;

impl Boilerplate {
    /// The sentences at least [`BOILERPLATE_TOOLS`] of `specs` share.
    pub fn of(specs: &[ToolSpec]) -> Boilerplate {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for spec in specs {
            let mut own: Vec<String> = sentences(&spec.description)
                .map(normalized)
                .filter(|s| s.chars().count() > 12)
                .collect();
            own.sort();
            own.dedup();
            for s in own {
                *counts.entry(s).or_insert(0) += 1;
            }
        }
        Boilerplate {
            shared: counts
                .into_iter()
                .filter(|(_, n)| *n >= BOILERPLATE_TOOLS)
                .map(|(s, _)| s)
                .collect(),
        }
    }

    /// Whether no sentence is boilerplate.
    pub fn is_empty(&self) -> bool {
        self.shared.is_empty()
    }

    /// `description` without its boilerplate sentences (each kept with the period or line
    /// break that ends it).
    pub fn strip(&self, description: &str) -> String {
        if self.shared.is_empty() {
            return description.to_string();
        }
        description
            .split_inclusive(['.', '\n'])
            .filter(|piece| !self.holds(piece.trim_end_matches(['.', '\n']).trim()))
            .collect()
    }

    /// Whether `sentence` is boilerplate.
    pub fn holds(&self, sentence: &str) -> bool {
        !self.shared.is_empty() && self.shared.contains(&normalized(sentence))
    }
}

/// A sentence with its whitespace runs made single spaces.
fn normalized(sentence: &str) -> String {
    sentence.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How many characters of the first sentence a headline keeps.
const HEADLINE_CHARS: usize = 240;

/// The vectors of a toolset's tools, in the toolset's order.
#[derive(Debug, Clone)]
pub struct DenseIndex {
    model_id: String,
    dim: usize,
    /// `len * dim` floats, tool by tool: the vectors of [`tool_text`].
    vectors: Vec<f32>,
    /// Same layout: the vectors of [`headline_text`].
    headlines: Vec<f32>,
}

/// What [`DenseIndex::build`] did, for logs and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BuildStats {
    /// Texts whose vector came from the cache (two texts per tool: [`tool_text`] and
    /// [`headline_text`]).
    pub cached: usize,
    /// Texts embedded now.
    pub embedded: usize,
}

impl DenseIndex {
    /// Embeds `specs` (taking what it can from `cache`, and storing what it embedded there).
    /// `progress(done, total)` is called after each chunk of embedded tools.
    ///
    /// # Errors
    /// The embedder failed or returned vectors of the wrong shape.
    pub fn build(
        specs: &[ToolSpec],
        embedder: &dyn Embedder,
        cache: Option<&EmbeddingCache>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<DenseIndex, EmbedError> {
        Self::build_with_stats(specs, embedder, cache, progress).map(|(i, _)| i)
    }

    /// Like [`DenseIndex::build`], also saying how many vectors came from the cache.
    ///
    /// # Errors
    /// As [`DenseIndex::build`].
    pub fn build_with_stats(
        specs: &[ToolSpec],
        embedder: &dyn Embedder,
        cache: Option<&EmbeddingCache>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(DenseIndex, BuildStats), EmbedError> {
        let dim = embedder.dim();
        let model_id = embedder.model_id().to_string();
        // Text 2i is tool i's full text, text 2i+1 its headline.
        let boilerplate = Boilerplate::of(specs);
        let texts: Vec<String> = specs
            .iter()
            .flat_map(|s| {
                [
                    tool_text_in(s, &boilerplate),
                    headline_text_in(s, &boilerplate),
                ]
            })
            .collect();
        let keys: Vec<CacheKey> = texts.iter().map(|t| cache_key(&model_id, t)).collect();
        let stored = cache.map(|c| c.load(&model_id, dim)).unwrap_or_default();
        let by_key: HashMap<&CacheKey, &[f32]> =
            stored.iter().map(|(k, v)| (k, v.as_slice())).collect();
        let mut vectors = vec![0.0f32; texts.len() * dim];
        let mut missing: Vec<usize> = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            match by_key.get(key) {
                Some(v) => copy_into(&mut vectors, i, dim, v),
                None => missing.push(i),
            }
        }
        let stats = BuildStats {
            cached: texts.len() - missing.len(),
            embedded: missing.len(),
        };
        let mut fresh: Vec<(CacheKey, Vec<f32>)> = Vec::with_capacity(missing.len());
        for (done, chunk) in missing.chunks(CHUNK).enumerate() {
            let batch: Vec<&str> = chunk
                .iter()
                .filter_map(|&i| texts.get(i).map(String::as_str))
                .collect();
            let out = embedder.embed(&batch)?;
            if out.len() != batch.len() || out.iter().any(|v| v.len() != dim) {
                return Err(EmbedError(format!(
                    "the embedder returned {} vectors for {} texts (expected dimension {dim})",
                    out.len(),
                    batch.len()
                )));
            }
            for (&i, v) in chunk.iter().zip(out) {
                copy_into(&mut vectors, i, dim, &v);
                if let Some(k) = keys.get(i) {
                    fresh.push((*k, v));
                }
            }
            progress(((done + 1) * CHUNK).min(missing.len()), missing.len());
        }
        drop(by_key);
        if let (Some(c), false) = (cache, fresh.is_empty())
            && let Err(e) = c.store(&model_id, dim, stored, fresh)
        {
            tracing::warn!("could not write the embedding cache: {e}");
        }
        let (vectors, headlines) = split_pairs(&vectors, dim);
        let index = DenseIndex {
            model_id,
            dim,
            vectors,
            headlines,
        };
        Ok((index, stats))
    }

    /// The model the vectors were made with.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The vector length.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.vectors.len().checked_div(self.dim).unwrap_or(0)
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the cosine similarity of `query` with each tool's full text into `out` (one slot
    /// per tool).
    pub fn similarities(&self, query: &[f32], out: &mut [f32]) {
        if query.len() != self.dim || self.dim == 0 {
            return;
        }
        for (slot, v) in out.iter_mut().zip(self.vectors.chunks_exact(self.dim)) {
            *slot = crate::embed::dot(query, v);
        }
    }

    /// The cosine similarity of `query` with tool `i`'s headline, or `None` when `i` is out of
    /// range or `query` has the wrong length.
    pub fn headline_similarity(&self, query: &[f32], i: usize) -> Option<f32> {
        if query.len() != self.dim {
            return None;
        }
        let v = self.headlines.get(i * self.dim..(i + 1) * self.dim)?;
        Some(crate::embed::dot(query, v))
    }
}

/// Splits vectors stored pairwise (full text, headline) into the two tables.
fn split_pairs(pairs: &[f32], dim: usize) -> (Vec<f32>, Vec<f32>) {
    let (mut full, mut head) = (Vec::new(), Vec::new());
    if dim == 0 {
        return (full, head);
    }
    for (j, v) in pairs.chunks_exact(dim).enumerate() {
        if j % 2 == 0 {
            full.extend_from_slice(v);
        } else {
            head.extend_from_slice(v);
        }
    }
    (full, head)
}

fn copy_into(vectors: &mut [f32], i: usize, dim: usize, v: &[f32]) {
    if let Some(dst) = vectors.get_mut(i * dim..(i + 1) * dim) {
        dst.copy_from_slice(v.get(..dim).unwrap_or(&[]).get(..dst.len()).unwrap_or(&[]));
    }
}

type CacheKey = [u8; 32];

fn cache_key(model_id: &str, text: &str) -> CacheKey {
    let mut h = Sha256::new();
    h.update(model_id.as_bytes());
    h.update([0u8]);
    h.update(text.as_bytes());
    h.finalize().into()
}

/// Tool vectors on disk, one file per model (`<dir>/<model>.vec`), keyed by a SHA-256 of the model
/// id and the tool's text: a tool whose text changes is embedded again, an unchanged one never is.
///
/// The file is rewritten whole (to a temporary file, then renamed), so readers never see half a
/// file; a file that does not parse is ignored and replaced. It keeps at most
/// [`EmbeddingCache::max_entries`] vectors, the newest first.
#[derive(Debug, Clone)]
pub struct EmbeddingCache {
    dir: PathBuf,
    max_entries: usize,
}

const MAGIC: &[u8; 8] = b"TWVEC01\n";

impl EmbeddingCache {
    /// A cache in `dir` (created when first written), keeping at most 100,000 vectors per model
    /// (two per tool: about 50,000 tools).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        EmbeddingCache {
            dir: dir.into(),
            max_entries: 100_000,
        }
    }

    /// Sets the most vectors kept per model.
    pub fn with_max_entries(mut self, n: usize) -> Self {
        self.max_entries = n;
        self
    }

    /// The most vectors kept per model.
    pub fn max_entries(&self) -> usize {
        self.max_entries
    }

    /// The file that holds `model_id`'s vectors.
    pub fn path_for(&self, model_id: &str) -> PathBuf {
        let safe: String = model_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.dir.join(format!("{safe}.vec"))
    }

    /// Every vector stored for `model_id` with dimension `dim`, in file order (empty when the
    /// file is missing or does not parse).
    fn load(&self, model_id: &str, dim: usize) -> Vec<(CacheKey, Vec<f32>)> {
        let Ok(bytes) = std::fs::read(self.path_for(model_id)) else {
            return Vec::new();
        };
        parse(&bytes, dim).unwrap_or_default()
    }

    fn store(
        &self,
        model_id: &str,
        dim: usize,
        old: Vec<(CacheKey, Vec<f32>)>,
        fresh: Vec<(CacheKey, Vec<f32>)>,
    ) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path_for(model_id);
        let mut seen = std::collections::HashSet::new();
        let mut buf = Vec::with_capacity(16 + (old.len() + fresh.len()) * (32 + dim * 4));
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&(dim as u32).to_le_bytes());
        let mut count: u32 = 0;
        let count_at = buf.len();
        buf.extend_from_slice(&0u32.to_le_bytes());
        for (k, v) in fresh.iter().chain(old.iter()) {
            if count as usize >= self.max_entries || !seen.insert(*k) {
                continue;
            }
            buf.extend_from_slice(k);
            for x in v {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            count += 1;
        }
        if let Some(slot) = buf.get_mut(count_at..count_at + 4) {
            slot.copy_from_slice(&count.to_le_bytes());
        }
        let tmp = self
            .dir
            .join(format!(".{}.{}.tmp", std::process::id(), rand_suffix()));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&buf)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

fn parse(bytes: &[u8], dim: usize) -> Option<Vec<(CacheKey, Vec<f32>)>> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let file_dim = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let count = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?) as usize;
    if file_dim != dim || dim == 0 {
        return None;
    }
    let body = rest.get(8..)?;
    let record = 32 + dim * 4;
    if body.len() != count.checked_mul(record)? {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    for r in body.chunks_exact(record) {
        let key: CacheKey = r.get(..32)?.try_into().ok()?;
        let v: Vec<f32> = r
            .get(32..)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
            .collect();
        out.push((key, v));
    }
    Some(out)
}

/// Where [`EmbeddingCache`] files live by default: `$TOOLWRIGHT_HOME/cache/embeddings`, else
/// `$XDG_CACHE_HOME/toolwright/embeddings`, else `~/.cache/toolwright/embeddings`.
pub fn default_cache_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("TOOLWRIGHT_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join("cache").join("embeddings");
    }
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| std::env::temp_dir().join("toolwright-cache"))
        .join("toolwright")
        .join("embeddings")
}

/// Whether `path` holds a cache file for `dim`-dimensional vectors (for `doctor`-style checks).
pub fn is_cache_file(path: &Path, dim: usize) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|b| parse(&b, dim))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts the texts it embeds; vectors hash words into 16 dimensions.
    pub(crate) struct Hashing(pub AtomicUsize);
    impl Embedder for Hashing {
        fn model_id(&self) -> &str {
            "hashing@1"
        }
        fn dim(&self) -> usize {
            16
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0.0f32; 16];
                    for w in crate::text::terms(t) {
                        let h = w
                            .bytes()
                            .fold(7u32, |a, b| a.wrapping_mul(31) ^ u32::from(b));
                        v[(h % 16) as usize] += 1.0;
                    }
                    crate::embed::normalize(&mut v);
                    v
                })
                .collect())
        }
    }

    fn specs(n: usize) -> Vec<ToolSpec> {
        (0..n)
            .map(|i| {
                ToolSpec::new(
                    format!("tool_{i}"),
                    format!("Does thing number {i} with widgets."),
                    json!({"type": "object", "properties": {"x": {"type": "string"}}}),
                )
            })
            .collect()
    }

    #[test]
    fn a_shared_first_sentence_makes_no_headline() {
        let shared = |d: &str| {
            ToolSpec::new(
                format!("acme_{}", d.replace(' ', "_")),
                format!("Acme API: the public Acme REST interface. {d} for an account."),
                json!({"type": "object"}),
            )
        };
        let mut set: Vec<ToolSpec> = ["send message", "delete call", "list recordings"]
            .into_iter()
            .map(shared)
            .collect();
        set.push(ToolSpec::new(
            "git_log",
            "Shows the commit logs. Use max_count to limit them.",
            json!({"type": "object"}),
        ));
        let index = DenseIndex::build(&set, &Hashing(AtomicUsize::new(0)), None, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{e}"));
        let q = Hashing(AtomicUsize::new(0))
            .embed(&["send a message"])
            .unwrap_or_else(|e| panic!("{e}"))
            .remove(0);
        let embed = |t: &str| {
            Hashing(AtomicUsize::new(0))
                .embed(&[t])
                .unwrap_or_else(|e| panic!("{e}"))
                .remove(0)
        };
        let mut full = vec![0.0; set.len()];
        index.similarities(&q, &mut full);
        for (i, spec) in set.iter().enumerate().take(3) {
            // The full text leaves the shared sentence out; the headline is the text as written.
            let own = embed(&tool_text_in(spec, &Boilerplate::of(&set)));
            assert!(!tool_text_in(spec, &Boilerplate::of(&set)).contains("Acme API"));
            assert_eq!(full.get(i).copied(), Some(crate::embed::dot(&q, &own)));
            let written = crate::embed::dot(&q, &embed(&tool_text(spec)));
            assert_eq!(index.headline_similarity(&q, i), Some(written), "tool {i}");
        }
        // Two tools sharing it are not enough; a sentence of its own keeps its headline.
        let b = Boilerplate::of(&set[..2]);
        assert_eq!(
            headline_text_in(&set[0], &b),
            "acme send message: Acme API: the public Acme REST interface"
        );
        let q = Hashing(AtomicUsize::new(0))
            .embed(&["show the commit logs"])
            .unwrap_or_else(|e| panic!("{e}"))
            .remove(0);
        index.similarities(&q, &mut full);
        assert!(index.headline_similarity(&q, 3) > full.get(3).copied());
    }

    #[test]
    fn tool_text_names_words_description_and_parameters() {
        let s = &specs(1)[0];
        assert_eq!(
            tool_text(s),
            "tool 0: Does thing number 0 with widgets. (parameters: x)"
        );
        let long = ToolSpec::new("x", "word ".repeat(1000), json!({"type": "object"}));
        assert!(tool_text(&long).len() < DESCRIPTION_CHARS + 10);
        // An imported MCP server's name is read as the name's context; a category is not.
        let mut q = ToolSpec::new(
            "query",
            "Run a read-only SQL query",
            json!({"type": "object"}),
        );
        q.meta.category = Some("sql".into());
        assert_eq!(tool_text(&q), "query: Run a read-only SQL query");
        q.meta.server = Some("example-servers/postgres".into());
        assert_eq!(
            tool_text(&q),
            "query (example servers postgres): Run a read-only SQL query"
        );
    }

    #[test]
    fn headlines_are_the_name_and_first_sentence() {
        let s = ToolSpec::new(
            "read_text_file",
            "Read the complete contents of a file as text.\nHandles various encodings. Only in allowed directories.",
            json!({"type": "object", "properties": {"path": {}}}),
        );
        assert_eq!(
            headline_text(&s),
            "read text file: Read the complete contents of a file as text"
        );
        // No usable sentence: the name alone; a long one is cut.
        assert_eq!(
            headline_text(&ToolSpec::new("ping", "Ping.", json!({}))),
            "ping"
        );
        let long = ToolSpec::new("x", "word ".repeat(500), json!({}));
        assert!(headline_text(&long).len() <= HEADLINE_CHARS + 3);
        let index =
            DenseIndex::build(&[s], &Hashing(AtomicUsize::new(0)), None, &mut |_, _| {}).unwrap();
        let q = Hashing(AtomicUsize::new(0))
            .embed(&["read text file"])
            .unwrap()
            .remove(0);
        let h = index.headline_similarity(&q, 0).unwrap();
        assert!(h > 0.0 && h <= 1.0 + 1e-5, "{h}");
        assert_eq!(index.headline_similarity(&q, 1), None);
        assert_eq!(index.headline_similarity(&q[..3], 0), None);
    }

    #[test]
    fn cache_embeds_each_text_once_and_survives_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::new(dir.path());
        let e = Hashing(AtomicUsize::new(0));
        let a =
            DenseIndex::build_with_stats(&specs(100), &e, Some(&cache), &mut |_, _| {}).unwrap();
        assert_eq!(
            a.1,
            BuildStats {
                cached: 0,
                embedded: 200
            }
        );
        let b =
            DenseIndex::build_with_stats(&specs(100), &e, Some(&cache), &mut |_, _| {}).unwrap();
        assert_eq!(
            b.1,
            BuildStats {
                cached: 200,
                embedded: 0
            }
        );
        assert_eq!(a.0.vectors, b.0.vectors);
        assert_eq!(a.0.headlines, b.0.headlines);
        assert_eq!(e.0.load(Ordering::SeqCst), 200);
        // One changed tool is embedded again (both texts); the rest come from the cache.
        let mut changed = specs(100);
        changed[3].description = "Something else entirely.".into();
        let c = DenseIndex::build_with_stats(&changed, &e, Some(&cache), &mut |_, _| {}).unwrap();
        assert_eq!(
            c.1,
            BuildStats {
                cached: 198,
                embedded: 2
            }
        );
    }

    #[test]
    fn a_corrupt_or_foreign_cache_file_is_ignored_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::new(dir.path());
        let path = cache.path_for("hashing@1");
        std::fs::write(&path, b"TWVEC01\n garbage").unwrap();
        let e = Hashing(AtomicUsize::new(0));
        let (_, s) =
            DenseIndex::build_with_stats(&specs(5), &e, Some(&cache), &mut |_, _| {}).unwrap();
        assert_eq!(s.embedded, 10);
        assert!(is_cache_file(&path, 16));
        assert!(!is_cache_file(&path, 384));
        // Truncated: ignored, not a panic.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let (_, s) =
            DenseIndex::build_with_stats(&specs(5), &e, Some(&cache), &mut |_, _| {}).unwrap();
        assert_eq!(s.embedded, 10);
    }

    #[test]
    fn the_cache_keeps_at_most_max_entries_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::new(dir.path()).with_max_entries(20);
        let e = Hashing(AtomicUsize::new(0));
        DenseIndex::build(&specs(8), &e, Some(&cache), &mut |_, _| {}).unwrap();
        let other: Vec<ToolSpec> = (0..8)
            .map(|i| ToolSpec::new(format!("other_{i}"), "Other.", json!({"type": "object"})))
            .collect();
        DenseIndex::build(&other, &e, Some(&cache), &mut |_, _| {}).unwrap();
        let kept = cache.load("hashing@1", 16);
        assert_eq!(kept.len(), 20);
        // The newest toolset is entirely there.
        let (_, s) =
            DenseIndex::build_with_stats(&other, &e, Some(&cache), &mut |_, _| {}).unwrap();
        assert_eq!(s.cached, 16);
    }

    #[test]
    fn wrong_shapes_from_an_embedder_are_errors() {
        struct Bad;
        impl Embedder for Bad {
            fn model_id(&self) -> &str {
                "bad"
            }
            fn dim(&self) -> usize {
                4
            }
            fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
                Ok(texts.iter().map(|_| vec![1.0; 3]).collect())
            }
        }
        assert!(DenseIndex::build(&specs(2), &Bad, None, &mut |_, _| {}).is_err());
    }
}
