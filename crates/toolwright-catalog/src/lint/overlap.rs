//! TW009's similarity search: which pairs of tools are described alike.
//!
//! Every pair at or above the threshold is found without comparing every pair (all-pairs
//! similarity search with prefix filtering on both sides: Bayardo et al., "Scaling up all pairs
//! similarity search", 2007, and Anastasiu & Karypis, "L2AP", 2014), and each pair found is
//! scored exactly as a plain comparison scores it, so the findings do not depend on the
//! pruning.

use crate::text;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use toolwright_core::ToolSpec;

/// FNV-1a: the word tables below hash many short strings; SipHash's flood resistance buys
/// nothing for a linter's own tables and costs a third of the term extraction.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;
type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<Fnv>>;

/// Words every tool description uses; they say nothing about which tool is which.
const BOILERPLATE: &[&str] = &[
    "tool",
    "user",
    "ask",
    "call",
    "return",
    "result",
    "specify",
    "specified",
    "provide",
    "provided",
];

/// Normalized TF-IDF vectors (term id, weight) of each spec's name and description. Term ids
/// are numbered in order of first appearance.
pub(super) fn tfidf(specs: &[ToolSpec]) -> Vec<Vec<(u32, f32)>> {
    let names: FastSet<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    // `text::terms` word by word, remembered per distinct word (a toolset repeats its words):
    // the term id of a word, or `None` for a stop word or boilerplate.
    let mut memo: FastMap<String, Option<u32>> = FastMap::default();
    let mut vocab: FastMap<String, u32> = FastMap::default();
    let mut ids: Vec<u32> = Vec::new();
    let docs: Vec<Vec<(u32, f32)>> = specs
        .iter()
        .map(|s| {
            // Drop mentions of other tools ("find the path first with search_files").
            let description: String = s
                .description
                .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
                .map(|w| w.trim_end_matches('.'))
                .filter(|w| *w == s.name || !names.contains(w))
                .collect::<Vec<_>>()
                .join(" ");
            let text = format!("{} {}", s.name, description);
            ids.clear();
            for w in text::words(&text) {
                let id = match memo.get(&w) {
                    Some(id) => *id,
                    None => {
                        let id = term_of(&w).map(|t| {
                            let next = vocab.len() as u32;
                            *vocab.entry(t).or_insert(next)
                        });
                        memo.insert(w, id);
                        id
                    }
                };
                ids.extend(id);
            }
            // Term frequencies, in order of first appearance in the document.
            let mut d: Vec<(u32, f32)> = Vec::new();
            for &id in &ids {
                match d.iter_mut().find(|(t, _)| *t == id) {
                    Some((_, tf)) => *tf += 1.0,
                    None => d.push((id, 1.0)),
                }
            }
            d
        })
        .collect();
    let mut df = vec![0.0f32; vocab.len()];
    for d in &docs {
        for (t, _) in d {
            if let Some(n) = df.get_mut(*t as usize) {
                *n += 1.0;
            }
        }
    }
    let n = specs.len() as f32;
    docs.into_iter()
        .map(|mut v| {
            for (t, w) in &mut v {
                let idf = (1.0 + n / df.get(*t as usize).copied().unwrap_or(1.0)).ln();
                *w = (1.0 + w.ln()) * idf;
            }
            let norm = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
            if norm > 0.0 {
                v.iter_mut().for_each(|(_, w)| *w /= norm);
            }
            v
        })
        .collect()
}

/// What `text::terms` keeps of one word (stop words out, stemmed), minus the boilerplate.
fn term_of(word: &str) -> Option<String> {
    if text::is_stop_word(word) {
        return None;
    }
    let t = text::stem(word);
    (!t.is_empty() && !text::is_stop_word(&t) && !BOILERPLATE.contains(&t.as_str())).then_some(t)
}

/// The sum of `a[k].1 * b[m].1` over shared terms, added in term order from zero.
fn dot(a: &[(u32, f32)], b: &[(u32, f32)]) -> f32 {
    let (mut x, mut y, mut sum) = (0usize, 0usize, 0.0f32);
    while let (Some(&(ra, wa)), Some(&(rb, wb))) = (a.get(x), b.get(y)) {
        match ra.cmp(&rb) {
            std::cmp::Ordering::Less => x += 1,
            std::cmp::Ordering::Greater => y += 1,
            std::cmp::Ordering::Equal => {
                sum += wa * wb;
                x += 1;
                y += 1;
            }
        }
    }
    sum
}

/// The vectors with terms renamed to their rank (most frequent first, so vectors sort and merge
/// on plain integers), each sorted by rank, and `max_w[rank]`: the largest weight the term has
/// in any vector.
fn ranked(raw: Vec<Vec<(u32, f32)>>) -> (Vec<Vec<(u32, f32)>>, Vec<f32>) {
    let mut df: Vec<(u32, u32)> = Vec::new();
    for v in &raw {
        for &(t, _) in v {
            if df.len() <= t as usize {
                df.resize(t as usize + 1, (0, 0));
            }
            if let Some(e) = df.get_mut(t as usize) {
                *e = (t, e.1 + 1);
            }
        }
    }
    df.retain(|&(_, n)| n > 0);
    df.sort_by_key(|&(t, n)| (std::cmp::Reverse(n), t));
    let mut rank = vec![0u32; df.iter().map(|&(t, _)| t as usize + 1).max().unwrap_or(0)];
    for (r, &(t, _)) in df.iter().enumerate() {
        if let Some(x) = rank.get_mut(t as usize) {
            *x = r as u32;
        }
    }
    let mut max_w = vec![0.0f32; df.len()];
    let vectors = raw
        .into_iter()
        .map(|v| {
            let mut v: Vec<(u32, f32)> = v
                .into_iter()
                .map(|(t, w)| (rank.get(t as usize).copied().unwrap_or(0), w))
                .collect();
            v.sort_by_key(|&(r, _)| r);
            for &(r, w) in &v {
                if let Some(m) = max_w.get_mut(r as usize) {
                    *m = m.max(w);
                }
            }
            v
        })
        .collect();
    (vectors, max_w)
}

/// Pairs `(i, j, similarity)` with `i < j` whose name + description similarity (TF-IDF cosine,
/// 0..1) is at least `threshold`, sorted by `(i, j)`. Mentions of other tools' names do not count
/// (a description that says "use `read_file` instead" is doing the right thing).
///
/// Near-linear on real toolsets. Terms are ordered from the most to the least frequent. Each
/// vector's *head* is its longest run of frequent terms that alone cannot reach `threshold`
/// against any vector (bounded both by their weights times the largest weight each term has
/// anywhere, and by their L2 norm, the other vector being of unit length); the rest, its *tail*,
/// is indexed. Heads are prefixes in one global order, so the shared terms of two vectors that
/// share no tail term all lie in the longer head, which cannot reach the threshold: probing the
/// index with each vector's tail (rare terms, short posting lists) finds every pair. A candidate
/// is dropped when its shared tail terms plus a bound on the rest stay below the threshold (the
/// rest bounded through 128-bit signatures of each vector's terms: only terms whose bit both
/// vectors have can be shared), or when its quick score (against the probing vector spread by
/// term) does; the others are scored exactly, in the same order of additions as always (a
/// pruned search and a plain comparison agree to the last bit).
pub fn overlap_pairs(specs: &[ToolSpec], threshold: f32) -> Vec<(usize, usize, f32)> {
    if specs.len() < 2 {
        return Vec::new();
    }
    let (vectors, max_w) = ranked(tfidf(specs));
    // Float slack so that rounding never drops a pair right at the threshold.
    let bound = threshold - 1e-4;
    let heads: Vec<Heads> = vectors
        .iter()
        .map(|v| Heads::of(v, &max_w, bound))
        .collect();
    // Compact per-vector summaries read for every candidate (no walk of its terms).
    let starts: Vec<u32> = vectors
        .iter()
        .zip(&heads)
        .map(|(v, h)| h.start(v))
        .collect();
    let masks: Vec<(u128, u128)> = vectors
        .iter()
        .zip(&starts)
        .map(|(v, &start)| {
            v.iter().fold((0, 0), |(all, head), &(r, _)| {
                let b = 1u128 << bit(r);
                (all | b, if r < start { head | b } else { head })
            })
        })
        .collect();
    let mut index: Vec<Vec<(usize, f32)>> = vec![Vec::new(); max_w.len()];
    for (i, (v, h)) in vectors.iter().zip(&heads).enumerate() {
        for &(r, w) in v.get(h.indexed..).unwrap_or_default() {
            if let Some(list) = index.get_mut(r as usize) {
                list.push((i, w));
            }
        }
    }
    let mut pairs = Vec::new();
    // Per probing vector: its candidates once each (`stamp[j] == i + 1`) and the score of the
    // tail terms they share with it.
    let mut stamp = vec![0usize; vectors.len()];
    let mut acc = vec![0.0f32; vectors.len()];
    let mut candidates: Vec<usize> = Vec::new();
    // The probing vector's weights by rank (zero elsewhere), for a quick score of a candidate.
    let mut dense = vec![0.0f32; max_w.len()];
    for (i, (v, h)) in vectors.iter().zip(&heads).enumerate() {
        let start = starts.get(i).copied().unwrap_or(u32::MAX);
        // Per bit of the signatures: what the probing vector's head (tail) terms hashed there
        // can add at most (weight times the term's largest weight anywhere).
        let (mut in_head, mut in_tail) = ([0.0f32; 128], [0.0f32; 128]);
        let (mut head_bits, mut tail_bits) = (0u128, 0u128);
        for &(r, w) in v {
            if let Some(d) = dense.get_mut(r as usize) {
                *d = w;
            }
            let most = w * max_w.get(r as usize).copied().unwrap_or(1.0);
            let (sums, bits) = if r < start {
                (&mut in_head, &mut head_bits)
            } else {
                (&mut in_tail, &mut tail_bits)
            };
            if let Some(x) = sums.get_mut(bit(r) as usize) {
                *x += most;
            }
            *bits |= 1u128 << bit(r);
        }
        for &(r, w) in v.get(h.indexed..).unwrap_or_default() {
            let list = index.get(r as usize).map(Vec::as_slice).unwrap_or_default();
            let later = list.partition_point(|&(j, _)| j <= i);
            for &(j, wj) in list.get(later..).unwrap_or_default() {
                let (Some(s), Some(a)) = (stamp.get_mut(j), acc.get_mut(j)) else {
                    continue;
                };
                if *s != i + 1 {
                    *s = i + 1;
                    *a = 0.0;
                    candidates.push(j);
                }
                *a += w * wj;
            }
        }
        candidates.sort_unstable();
        for &j in &candidates {
            // Shared terms outside both tails: in the probing vector's head (and anywhere in the
            // candidate), or in its tail and the candidate's head. Their bits bound them.
            let (all_j, head_j) = masks.get(j).copied().unwrap_or((u128::MAX, u128::MAX));
            let mut rest = bits_sum(head_bits & all_j, &in_head);
            if starts.get(j).is_none_or(|&sj| sj > start) {
                rest += bits_sum(tail_bits & head_j, &in_tail);
            }
            if acc.get(j).copied().unwrap_or(0.0) + rest < bound - 1e-4 {
                continue;
            }
            let (Some(other), Some(oh)) = (vectors.get(j), heads.get(j)) else {
                continue;
            };
            let quick: f32 = other
                .iter()
                .map(|&(r, w)| dense.get(r as usize).copied().unwrap_or(0.0) * w)
                .sum();
            if quick < bound - 1e-4 {
                continue;
            }
            // The exact score: the candidate's terms past its split, then before it, each
            // summed in term order from zero.
            let split = oh.split;
            let sim = dot(v, other.get(split..).unwrap_or_default())
                + dot(v, other.get(..split).unwrap_or_default());
            if sim >= threshold {
                pairs.push((i, j, sim.min(1.0)));
            }
        }
        candidates.clear();
        for &(r, _) in v {
            if let Some(d) = dense.get_mut(r as usize) {
                *d = 0.0;
            }
        }
    }
    pairs.sort_by_key(|&(i, j, _)| (i, j));
    pairs
}

/// Where a vector's head ends.
struct Heads {
    /// Terms before this position are not indexed.
    indexed: usize,
    /// Where the exact score splits the sum (the head bounded by `max_w` alone, as the
    /// comparison has always split it).
    split: usize,
}

impl Heads {
    fn of(v: &[(u32, f32)], max_w: &[f32], bound: f32) -> Heads {
        let (mut reach, mut norm2) = (0.0f32, 0.0f32);
        let (mut split, mut indexed) = (v.len(), v.len());
        for (k, &(r, w)) in v.iter().enumerate() {
            reach += w * max_w.get(r as usize).copied().unwrap_or(0.0);
            norm2 += w * w;
            if reach >= bound {
                split = split.min(k);
            }
            if reach.min(norm2.sqrt()) >= bound {
                indexed = indexed.min(k);
            }
        }
        Heads { indexed, split }
    }

    /// The rank at which the tail starts (`u32::MAX` without a tail).
    fn start(&self, v: &[(u32, f32)]) -> u32 {
        v.get(self.indexed).map_or(u32::MAX, |&(r, _)| r)
    }
}

/// The signature bit of a term (a multiplicative hash of its rank).
fn bit(rank: u32) -> u32 {
    (u64::from(rank).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 57) as u32
}

/// The sum of `sums[b]` over the bits `b` set in `bits`.
fn bits_sum(mut bits: u128, sums: &[f32; 128]) -> f32 {
    let mut total = 0.0;
    while bits != 0 {
        total += sums
            .get(bits.trailing_zeros() as usize)
            .copied()
            .unwrap_or(0.0);
        bits &= bits - 1;
    }
    total
}
