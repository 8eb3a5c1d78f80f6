//! Routing: rank the tools of a large toolset for a query, so a model sees only the few that
//! matter.
//!
//! [`Router`] scores tools with a [`Scorer`]; the default is [`Bm25`], a small hand-written BM25
//! over each tool's name (split on `snake_case`, `camelCase` and dots), description, parameter
//! names and descriptions, and examples, with light stemming and a few related words. Another
//! scorer (embeddings) can be plugged in with [`Router::with_scorer`].
//!
//! ```
//! use toolwright_catalog::router::Router;
//! use toolwright_core::ToolSpec;
//! let specs = vec![
//!     ToolSpec::new("get_weather", "Current weather for a city.", serde_json::json!({"type": "object"})),
//!     ToolSpec::new("convert_currency", "Convert an amount between currencies.", serde_json::json!({"type": "object"})),
//! ];
//! let router = Router::new(&specs);
//! assert_eq!(router.rank("is it raining in Paris", 1)[0].name, "get_weather");
//! ```

use crate::dense::DenseIndex;
use crate::embed::Embedder;
use crate::text;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use toolwright_core::{FnTool, SideEffects, ToolError, ToolOutput, ToolSpec};

/// One ranked tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// The tool's name.
    pub name: String,
    /// Relevance score (higher is better; only comparable within one query).
    pub score: f32,
    /// The lexical score, when the router computed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical: Option<f32>,
    /// The cosine similarity of the query and the tool, when the router has an embedder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
}

/// Scores every tool of an index for a query. Implement it to plug another ranking (embeddings)
/// into [`Router`].
pub trait Scorer: Send + Sync {
    /// A short name for reports ("bm25").
    fn name(&self) -> &str;
    /// Writes the score of each tool into `scores` (one slot per tool, in the order the scorer
    /// was built with; slots start at 0). Zero means "no match".
    fn score_into(&self, query: &str, scores: &mut [f32]);
}

/// Field weights of [`Bm25`]: how much a word counts depending on where it appears.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldWeights {
    /// Words of the tool name.
    pub name: f32,
    /// Words of the description.
    pub description: f32,
    /// Parameter names.
    pub param_name: f32,
    /// Parameter descriptions and enum values.
    pub param_description: f32,
    /// Words in examples.
    pub examples: f32,
    /// Category.
    pub category: f32,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            name: 2.0,
            description: 1.0,
            param_name: 0.7,
            param_description: 0.4,
            examples: 0.4,
            category: 1.0,
        }
    }
}

/// Tuning of [`Bm25`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation.
    pub k1: f32,
    /// Length normalisation.
    pub b: f32,
    /// Weight of a related word added to the query (1.0 = same as the word itself; 0 = off).
    pub related_weight: f32,
    /// Field weights.
    pub fields: FieldWeights,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Bm25Params {
            k1: 1.2,
            b: 0.9,
            related_weight: 0.35,
            fields: FieldWeights::default(),
        }
    }
}

/// A BM25 index over tool specs (inverted index; query cost grows with the postings of the
/// query's words, not with the number of tools).
#[derive(Debug, Clone)]
pub struct Bm25 {
    vocab: HashMap<String, u32>,
    /// Per term: `(tool index, precomputed saturated tf)`.
    postings: Vec<Vec<(u32, f32)>>,
    idf: Vec<f32>,
    len: usize,
    params: Bm25Params,
}

/// The weighted bag of words of one spec.
fn document(spec: &ToolSpec, w: &FieldWeights) -> HashMap<String, f32> {
    let mut doc: HashMap<String, f32> = HashMap::new();
    let mut add = |text: &str, weight: f32| {
        for t in text::terms(text) {
            *doc.entry(t).or_insert(0.0) += weight;
        }
    };
    add(&spec.name, w.name);
    add(&spec.description, w.description);
    // "Get all projects" lists projects: such a tool is indexed under the verb "list" too, as
    // the name's field, so "list all my projects" finds `get_projects` beside `list_modules`.
    if gets_all(&spec.description) && !text::words(&spec.name).iter().any(|w| w == "list") {
        add("list", w.name);
    }
    if let Some(c) = &spec.meta.category {
        add(c, w.category);
    }
    if let Some(s) = &spec.meta.server {
        add(s, w.category);
    }
    if let Some(l) = &spec.meta.display_label {
        add(l, w.description);
    }
    let mut params = Vec::new();
    collect_params(&spec.parameters, 0, &mut params);
    for (name, schema) in params {
        add(name, w.param_name);
        if let Some(d) = schema.get("description").and_then(Value::as_str) {
            add(d, w.param_description);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            for v in values.iter().filter_map(Value::as_str) {
                add(v, w.param_description);
            }
        }
    }
    for ex in &spec.meta.examples {
        let mut strings = Vec::new();
        collect_strings(ex, 0, &mut strings);
        for s in strings {
            add(s, w.examples);
        }
    }
    doc
}

/// Whether a description opens with a read verb and "all" ("Get all projects for the current
/// user", "Retrieves all labels"): the tool lists.
fn gets_all(description: &str) -> bool {
    let d = text::words(description);
    let read = [
        "get",
        "gets",
        "retrieve",
        "retrieves",
        "fetch",
        "fetches",
        "return",
        "returns",
        "show",
        "shows",
    ];
    d.first().is_some_and(|w| read.contains(&w.as_str())) && d.get(1).is_some_and(|w| w == "all")
}

fn collect_params<'a>(schema: &'a Value, depth: usize, out: &mut Vec<(&'a str, &'a Value)>) {
    if depth > 8 {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            out.push((k, v));
            collect_params(v, depth + 1, out);
            if let Some(items) = v.get("items") {
                collect_params(items, depth + 1, out);
            }
        }
    }
}

fn collect_strings<'a>(v: &'a Value, depth: usize, out: &mut Vec<&'a str>) {
    if depth > 8 {
        return;
    }
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, depth + 1, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k);
            collect_strings(x, depth + 1, out)
        }),
        _ => {}
    }
}

impl Bm25 {
    /// Builds the index with default parameters.
    pub fn new(specs: &[ToolSpec]) -> Self {
        Bm25::with_params(specs, Bm25Params::default())
    }

    /// Builds the index with the given parameters.
    pub fn with_params(specs: &[ToolSpec], params: Bm25Params) -> Self {
        let docs: Vec<HashMap<String, f32>> =
            specs.iter().map(|s| document(s, &params.fields)).collect();
        let lens: Vec<f32> = docs.iter().map(|d| d.values().sum()).collect();
        let n = specs.len();
        let avg = if n == 0 {
            1.0
        } else {
            (lens.iter().sum::<f32>() / n as f32).max(1e-3)
        };
        let mut vocab: HashMap<String, u32> = HashMap::new();
        let mut postings: Vec<Vec<(u32, f32)>> = Vec::new();
        for (i, (doc, dl)) in docs.into_iter().zip(lens).enumerate() {
            let norm = params.k1 * (1.0 - params.b + params.b * dl / avg);
            for (term, tf) in doc {
                let next = vocab.len() as u32;
                let id = *vocab.entry(term).or_insert(next);
                if id as usize == postings.len() {
                    postings.push(Vec::new());
                }
                let sat = tf * (params.k1 + 1.0) / (tf + norm);
                if let Some(p) = postings.get_mut(id as usize) {
                    p.push((i as u32, sat));
                }
            }
        }
        let idf = postings
            .iter()
            .map(|p| {
                let df = p.len() as f32;
                ((n as f32 - df + 0.5) / (df + 0.5) + 1.0).ln()
            })
            .collect();
        Bm25 {
            vocab,
            postings,
            idf,
            len: n,
            params,
        }
    }

    /// Number of indexed tools.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The weighted query terms (term id, weight), with related words added at a lower weight.
    fn query_terms(&self, query: &str) -> Vec<(u32, f32)> {
        // Order of first appearance, so scores add up the same way on every run.
        let mut q: Vec<(u32, f32)> = Vec::new();
        let mut at: HashMap<u32, usize> = HashMap::new();
        let mut push = |id: u32, w: f32| match at.get(&id).and_then(|&i| q.get_mut(i)) {
            Some((_, old)) => *old = old.max(w),
            None => {
                at.insert(id, q.len());
                q.push((id, w));
            }
        };
        let words = text::terms(query);
        for w in &words {
            if let Some(&id) = self.vocab.get(w) {
                push(id, 1.0);
            }
            if self.params.related_weight > 0.0 {
                for r in text::related(w) {
                    if let Some(&id) = self.vocab.get(r) {
                        push(id, self.params.related_weight);
                    }
                }
            }
        }
        q
    }
}

impl Scorer for Bm25 {
    fn name(&self) -> &str {
        "bm25"
    }

    fn score_into(&self, query: &str, scores: &mut [f32]) {
        for (term, weight) in self.query_terms(query) {
            let idf = self.idf.get(term as usize).copied().unwrap_or(0.0);
            if let Some(list) = self.postings.get(term as usize) {
                for &(doc, sat) in list {
                    if let Some(s) = scores.get_mut(doc as usize) {
                        *s += weight * idf * sat;
                    }
                }
            }
        }
    }
}

/// Which scorer a [`Router`] ranks with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScorerKind {
    /// Lexical only ([`Bm25`], or the scorer given to [`Router::with_scorer`]).
    Bm25,
    /// Cosine similarity of sentence embeddings only ([`DenseScorer`]).
    Dense,
    /// Both, fused (see [`Fusion`]).
    Hybrid,
}

impl ScorerKind {
    /// Parses `bm25 | dense | hybrid`.
    pub fn parse(s: &str) -> Option<ScorerKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "bm25" | "lexical" => Some(ScorerKind::Bm25),
            "dense" | "embedding" | "embeddings" => Some(ScorerKind::Dense),
            "hybrid" => Some(ScorerKind::Hybrid),
            _ => None,
        }
    }

    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ScorerKind::Bm25 => "bm25",
            ScorerKind::Dense => "dense",
            ScorerKind::Hybrid => "hybrid",
        }
    }
}

/// How a hybrid [`Router`] fuses the lexical and dense rankings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// Weighted reciprocal-rank fusion: a tool ranked `r` (1-based) by a scorer earns
    /// `weight / (k + r)` from it, counting only each scorer's best `depth` tools (and, for the
    /// lexical side, tools that match at all).
    Rrf {
        /// The rank offset (60 in the original paper; smaller trusts the top ranks more).
        k: f32,
        /// Weight of the dense ranking; the lexical one weighs `1 - dense_weight`.
        dense_weight: f32,
        /// How many tools of each ranking take part.
        depth: usize,
    },
    /// A weighted sum of the cosine similarity and the lexical score divided by the query's best
    /// lexical score: `w · cos + (1 - w) · bm25 / max(bm25)`.
    Linear {
        /// Weight of the similarity.
        dense_weight: f32,
    },
}

/// Default [`Fusion`]: `Linear { dense_weight: 0.9 }`, chosen on the MCP dev set
/// (`crates/toolwright-eval/data/mcp`: 202 tools of 18 published servers, 300 in-scope requests)
/// with all-MiniLM-L6-v2. Recall@1 / @5 there: BM25 0.537 / 0.787, dense 0.563 / 0.800, this
/// fusion 0.640 / 0.883; the best weighted RRF (k 5, dense weight 0.6) 0.587 / 0.877. The
/// similarity carries the ranking; the lexical score, scaled to the query's best, breaks near
/// ties. The same setting was best or within 0.01 of the best on both halves of a split by
/// server (`cargo run --release -p toolwright-eval --features embed --example fusion_sweep`).
pub const DEFAULT_FUSION: Fusion = Fusion::Linear { dense_weight: 0.9 };

impl Default for Fusion {
    fn default() -> Self {
        DEFAULT_FUSION
    }
}

/// Dense scoring: a [`DenseIndex`] of the tools and the [`Embedder`] that embeds queries.
#[derive(Clone)]
pub struct DenseScorer {
    index: Arc<DenseIndex>,
    embedder: Arc<dyn Embedder>,
}

impl std::fmt::Debug for DenseScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseScorer")
            .field("model", &self.index.model_id())
            .field("tools", &self.index.len())
            .finish()
    }
}

impl DenseScorer {
    /// Scores with `index` (built with `embedder` over the router's specs, in order).
    pub fn new(index: Arc<DenseIndex>, embedder: Arc<dyn Embedder>) -> Self {
        DenseScorer { index, embedder }
    }

    /// The index.
    pub fn index(&self) -> &DenseIndex {
        &self.index
    }

    /// The query's vector, or `None` when the embedder fails (logged).
    pub fn embed_query(&self, query: &str) -> Option<Vec<f32>> {
        match self.embedder.embed(&[query]) {
            Ok(mut v) if v.len() == 1 => v.pop(),
            Ok(_) => None,
            Err(e) => {
                tracing::warn!("dense routing skipped: {e}");
                None
            }
        }
    }
}

impl Scorer for DenseScorer {
    fn name(&self) -> &str {
        "dense"
    }

    fn score_into(&self, query: &str, scores: &mut [f32]) {
        if let Some(q) = self.embed_query(query) {
            self.index.similarities(&q, scores);
        }
    }
}

/// How many of a dense or hybrid router's first candidates are re-ranked by their headline
/// similarity (see [`crate::dense::headline_text`]): enough to reach well past any top-k a model is
/// shown, few enough that scoring stays one pass over the full-text vectors.
pub const HEADLINE_DEPTH: usize = 64;

/// Every tool's scores for one query: the fused score the router ranks by, and its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// What the router ranks by (per tool; 0 or less = not a match).
    pub fused: Vec<f32>,
    /// The lexical scores (empty for a dense-only router).
    pub lexical: Vec<f32>,
    /// The cosine similarities of the query with each tool's full text (empty without an
    /// embedder, or when it failed). The fused score of the first [`HEADLINE_DEPTH`] candidates
    /// uses the better of this and the headline's similarity; this stays the full text's, the
    /// signal the no-tool floor is calibrated on.
    pub similarity: Vec<f32>,
}

/// Ranks the tools of a toolset for a query.
pub struct Router {
    specs: Vec<ToolSpec>,
    scorer: Box<dyn Scorer>,
    dense: Option<DenseScorer>,
    kind: ScorerKind,
    fusion: Fusion,
    value_words: bool,
    quoted_out_of_dense: bool,
    action_bonus: f32,
    /// Each tool's [`text::Action`] and object, from the words of its name.
    names: Vec<NameParts>,
}

/// What a tool's name says it does ([`text::name_object`]) and the kinds of values its
/// parameters take, kept per tool so that a query reads them without re-splitting names.
#[derive(Debug, Clone, Default)]
struct NameParts {
    action: Option<text::Action>,
    /// The stemmed words of the name's object, stop words left out ("in" of `list_files_in_dir`).
    object: Vec<String>,
    /// The kinds of values some parameter takes ([`crate::values::takes_kind`]).
    takes: Vec<crate::values::ValueKind>,
    /// The name's words as written, lower-cased ([`text::words`]).
    words: Vec<String>,
    /// The name's word that undoes another tool's ("unconfirm" of `unconfirmIssue` beside
    /// `confirmIssue`): the word is "un" and a word of three or more letters, and the toolset has a
    /// tool whose name is this one's with that word in its place.
    un_word: Option<String>,
    /// Whether the tool is made for many things at once: its name says so (`batch`, `bulk`,
    /// `multiple`, `many`, `multi`), or it changes something and its name ends in a plural
    /// (`create-events`, `set_email_tags`).
    many: bool,
    /// Whether the name holds a stop word, as a preposition that links two things does
    /// (`add_tag_to_task`, `reply_to_conversation`).
    linking: bool,
}

/// What the router reads off one request for its bonuses, read once per query.
struct Asked {
    /// The request's action ([`text::request_action`]).
    action: Option<text::Action>,
    /// The plural a question of which things exist asks for ([`text::asked_to_list`]).
    list: Option<String>,
    /// The kinds of values the request as written holds ([`crate::values::value_kinds`]).
    kinds: Vec<crate::values::ValueKind>,
    /// The words naming only the place of the request's thing, and the rest
    /// ([`text::place_terms`]).
    place: (Vec<String>, Vec<String>),
    /// The things the request names by an identifier ([`text::identified`]).
    named: Vec<String>,
    /// Whether the request asks to act on several things ([`text::asks_for_many`]).
    many: bool,
    /// The request's words ([`text::words`]), for the undoing cue ([`text::asks_to_undo`]).
    words: Vec<String>,
}

impl Asked {
    /// Reads `query` (the request with its value words) and the request as `written`.
    fn read(query: &str, written: &str) -> Asked {
        Asked {
            action: text::request_action(query),
            list: text::asked_to_list(query),
            kinds: crate::values::value_kinds(written),
            place: text::place_terms(query),
            named: text::identified(query),
            many: text::asks_for_many(query),
            words: text::words(query),
        }
    }
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router")
            .field("tools", &self.specs.len())
            .field("scorer", &self.scorer_name())
            .finish()
    }
}

impl Router {
    /// A BM25 router over `specs` (cloned; see [`Router::from_specs`] to hand them over).
    pub fn new(specs: &[ToolSpec]) -> Router {
        Router::from_specs(specs.to_vec())
    }

    /// A BM25 router that takes ownership of `specs`.
    pub fn from_specs(specs: Vec<ToolSpec>) -> Router {
        let scorer = Box::new(Bm25::new(&specs));
        let names = tool_names(&specs);
        Router {
            specs,
            scorer,
            dense: None,
            kind: ScorerKind::Bm25,
            fusion: Fusion::default(),
            value_words: true,
            quoted_out_of_dense: true,
            action_bonus: DEFAULT_ACTION_BONUS,
            names,
        }
    }

    /// A router with another lexical scorer (which must have been built over the same `specs`,
    /// in order).
    pub fn with_scorer(specs: &[ToolSpec], scorer: Box<dyn Scorer>) -> Router {
        let names = tool_names(specs);
        Router {
            specs: specs.to_vec(),
            scorer,
            dense: None,
            kind: ScorerKind::Bm25,
            fusion: Fusion::default(),
            value_words: true,
            quoted_out_of_dense: true,
            action_bonus: DEFAULT_ACTION_BONUS,
            names,
        }
    }

    /// Adds dense scoring (built over the same specs, in order) and ranks with `kind` from now
    /// on ([`ScorerKind::Hybrid`] is what a router with an embedder should normally use).
    pub fn with_dense(mut self, dense: DenseScorer, kind: ScorerKind) -> Router {
        if dense.index.len() == self.specs.len() {
            self.dense = Some(dense);
            self.kind = kind;
        } else {
            tracing::warn!(
                "dense index has {} tools, the router {}: dense scoring is off",
                dense.index.len(),
                self.specs.len()
            );
        }
        self
    }

    /// Sets how a hybrid router fuses its rankings.
    pub fn with_fusion(mut self, fusion: Fusion) -> Router {
        self.fusion = fusion;
        self
    }

    /// Whether the names of the kinds of value a query holds (a URL, a file path, an e-mail
    /// address, a time, a date; see [`crate::values`]) are added to it before scoring. On by
    /// default: on the MCP dev set it moved hybrid recall@1 / @5 from 0.663 / 0.903 to
    /// 0.687 / 0.910 (83 of its 342 requests hold such a value). The same switch adds what the
    /// query's shorthand stands for ([`text::spelled_out`]: "PR" → "pull request").
    pub fn with_value_words(mut self, on: bool) -> Router {
        self.value_words = on;
        self
    }

    /// Whether the query is embedded without its quoted spans ([`crate::values::without_quoted`]:
    /// "add 'go to Goa' to my tasks" is embedded as "add to my tasks"); the lexical scorer always
    /// reads the whole query. On by default: a quoted span is a value (a title, a message, a
    /// search string) whose words pull a mean-pooled embedding away from what the request asks.
    /// Measured with all-MiniLM-L6-v2 (`crates/toolwright-eval/README.md`): on the MCP dev set
    /// (78 of 342 requests quote something) hybrid recall@1 / @5 went from 0.713 / 0.937 to
    /// 0.733 / 0.943; on a pooled public benchmark never used to choose it, recall@5 went from
    /// 0.842 to 0.844. Cutting the spans out of the lexical query too lost recall there.
    pub fn with_quoted_out_of_dense(mut self, on: bool) -> Router {
        self.quoted_out_of_dense = on;
        self
    }

    /// What a dense or hybrid router adds to the fused score of a tool whose name's verb means
    /// the same [`text::Action`] as the request's ([`text::request_action`]: "close issue 42"
    /// and `update_issue`, "what is in …" and `get_…`), and takes from a tool whose name's verb
    /// creates, updates or deletes while the request asks for something else (`cancel-tasks`
    /// for "is task 1423 done yet?", `create_post` for "have we written about sourdough?"): a
    /// tool that would change what the user did not ask to change ranks lower. Tools whose
    /// names read or say no verb keep their score. The same amount is taken from a tool whose
    /// name's object the request names only as the place of what it asks about (`list_bases`
    /// for "what tables are in airtable base appX1?"). Default [`DEFAULT_ACTION_BONUS`]; 0
    /// turns all three off. BM25 scores have no fixed scale, so a BM25 router ignores it.
    pub fn with_action_bonus(mut self, bonus: f32) -> Router {
        self.action_bonus = bonus;
        self
    }

    /// Ranks with `kind` from now on; a kind that needs the embedder falls back to BM25
    /// when there is none.
    pub fn set_kind(&mut self, kind: ScorerKind) {
        self.kind = if self.dense.is_some() {
            kind
        } else {
            ScorerKind::Bm25
        };
    }

    /// The specs the router ranks.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// What the router ranks with.
    pub fn kind(&self) -> ScorerKind {
        self.kind
    }

    /// What lexical scores are divided by to compare them across toolsets: `ln(1 + tools)`
    /// (at least 1), the order of a BM25 word weight (a word found in one tool of `n` weighs
    /// about `ln(n)`).
    pub fn lexical_scale(&self) -> f32 {
        (1.0 + self.specs.len() as f32).ln().max(1.0)
    }

    /// Whether dense scoring is available.
    pub fn has_dense(&self) -> bool {
        self.dense.is_some()
    }

    /// The scorer's name (`bm25`, `dense`, `hybrid`, or a custom lexical scorer's name).
    pub fn scorer_name(&self) -> &str {
        match self.kind {
            ScorerKind::Bm25 => self.scorer.name(),
            k => k.as_str(),
        }
    }

    /// Every tool's scores for `query` (see [`Scores`]).
    pub fn scores(&self, query: &str) -> Scores {
        let written = query;
        let typed;
        let query = if self.value_words {
            typed = with_spelled_out(crate::values::with_value_words(query), written);
            typed.as_str()
        } else {
            query
        };
        let n = self.specs.len();
        let dense_q = match (self.kind, &self.dense) {
            (ScorerKind::Bm25, _) | (_, None) => None,
            (_, Some(d)) if self.quoted_out_of_dense => d
                .embed_query(&crate::values::without_quoted(query))
                .map(|q| (d, q)),
            (_, Some(d)) => d.embed_query(query).map(|q| (d, q)),
        };
        let similarity = match &dense_q {
            Some((d, q)) => {
                let mut s = vec![0.0f32; n];
                d.index.similarities(q, &mut s);
                s
            }
            None => Vec::new(),
        };
        let lexical = if self.kind == ScorerKind::Dense && !similarity.is_empty() {
            Vec::new()
        } else {
            let mut s = vec![0.0f32; n];
            self.scorer.score_into(query, &mut s);
            s
        };
        let fused = match &dense_q {
            Some((d, q)) if !similarity.is_empty() => {
                let mut fused = self.fuse_kind(&lexical, &similarity);
                self.rerank_by_headline(&mut fused, &lexical, &similarity, d.index(), q);
                if self.action_bonus != 0.0 {
                    let asked = Asked::read(query, written);
                    self.add_action_bonus(&mut fused, &asked);
                    self.add_list_bonus(&mut fused, &asked);
                    self.add_kind_bonus(&mut fused, &asked);
                    self.take_place_bonus(&mut fused, &asked);
                    self.take_identified_bonus(&mut fused, &asked);
                    self.add_many_bonus(&mut fused, &asked);
                    self.promote_asked_sibling(&mut fused, &asked);
                    self.promote_undoing(&mut fused, &asked);
                }
                fused
            }
            _ => lexical.clone(),
        };
        Scores {
            fused,
            lexical,
            similarity,
        }
    }

    /// Re-scores the first [`HEADLINE_DEPTH`] candidates of `fused` with the better of their
    /// full-text and headline similarities. Dense and linear scores are per tool, so only those
    /// candidates are recomputed; reciprocal-rank fusion depends on every rank and is redone.
    fn rerank_by_headline(
        &self,
        fused: &mut Vec<f32>,
        lexical: &[f32],
        similarity: &[f32],
        index: &DenseIndex,
        query: &[f32],
    ) {
        let best = |i: usize| {
            let c = similarity.get(i).copied().unwrap_or(0.0);
            index.headline_similarity(query, i).map_or(c, |h| c.max(h))
        };
        let top = top_k(fused, HEADLINE_DEPTH);
        let max = lexical.iter().copied().fold(0.0f32, f32::max);
        match (self.kind, self.fusion) {
            (ScorerKind::Dense, _) => {
                for (i, _) in top {
                    if let Some(f) = fused.get_mut(i) {
                        *f = (1.0 + best(i)) / 2.0;
                    }
                }
            }
            (_, Fusion::Linear { dense_weight }) => {
                for (i, _) in top {
                    if let (Some(f), Some(&l)) = (fused.get_mut(i), lexical.get(i)) {
                        *f = linear_one(l, max, best(i), dense_weight);
                    }
                }
            }
            (_, Fusion::Rrf { .. }) => {
                let mut matched = similarity.to_vec();
                for (i, _) in top {
                    if let Some(m) = matched.get_mut(i) {
                        *m = best(i);
                    }
                }
                *fused = self.fuse_kind(lexical, &matched);
            }
        }
    }

    /// Adds [`Router::with_action_bonus`] to the tools whose action is the request's, and takes
    /// it from those that would create, update or delete when the request asks another action
    /// ([`Router::take_bonus`]).
    fn add_action_bonus(&self, fused: &mut [f32], asked: &Asked) {
        let Some(wanted) = asked.action else {
            return;
        };
        for (f, n) in fused.iter_mut().zip(&self.names) {
            if *f <= 0.0 {
                continue;
            }
            match &n.action {
                Some(a) if *a == wanted => *f += self.action_bonus,
                Some(text::Action::Read) | None => {}
                Some(_) => self.take_bonus(f),
            }
        }
    }

    /// Adds twice [`Router::with_action_bonus`] to the tools that read and whose names carry, as
    /// written, the plural a request asks to see all of ([`text::asked_to_list`]): "what trello
    /// boards do I have?" favours `list_my_boards` over `get_board_cards`, "what projects do I
    /// have" `get_projects` over `get_project`. A question of which things exist says as much as
    /// a list of identifiers does ([`Router::add_many_bonus`]), hence the same twice.
    fn add_list_bonus(&self, fused: &mut [f32], asked: &Asked) {
        let Some(plural) = &asked.list else {
            return;
        };
        for (f, n) in fused.iter_mut().zip(&self.names) {
            if *f > 0.0 && n.action == Some(text::Action::Read) && n.words.contains(plural) {
                *f += 2.0 * self.action_bonus;
            }
        }
    }

    /// Adds [`Router::with_action_bonus`] to the tools with a parameter that takes a URL or a
    /// clock time when the request holds one ([`crate::values::value_kinds`],
    /// [`crate::values::takes_kind`]): "if it's 14:00 in New York, what time is it in London?"
    /// favours `convert_time` (its `time`) over `get_current_time`, "read https://… and
    /// summarize it" a tool that takes a URL.
    fn add_kind_bonus(&self, fused: &mut [f32], asked: &Asked) {
        if asked.kinds.is_empty() {
            return;
        }
        for (f, n) in fused.iter_mut().zip(&self.names) {
            if *f > 0.0 && n.takes.iter().any(|k| asked.kinds.contains(k)) {
                *f += self.action_bonus;
            }
        }
    }

    /// Takes [`Router::with_action_bonus`] from the tools whose name's object the request names
    /// only as the place of its thing: "what tables are in airtable base appX1" lists tables,
    /// not bases, so `list_bases` ranks lower; "leave a note on record recD77" does not create
    /// a record. A tool whose object the request also names outside its place phrases keeps
    /// its score ([`text::place_terms`]).
    fn take_place_bonus(&self, fused: &mut [f32], asked: &Asked) {
        let (place, rest) = &asked.place;
        if place.is_empty() {
            return;
        }
        for (f, n) in fused.iter_mut().zip(&self.names) {
            if *f > 0.0
                && !n.object.is_empty()
                && n.object.iter().all(|w| place.contains(w))
                && !n.object.iter().any(|w| rest.contains(w))
            {
                self.take_bonus(f);
            }
        }
    }

    /// Takes [`Router::with_action_bonus`] from the tools that make, or list all of, a thing
    /// the request names by its identifier ([`text::identified`]): "open todoist project
    /// 2203306141" is no `add_project`, "the timeline of incident 9d1e6b02" no `list_incidents`.
    ///
    /// A making tool's name has one of [`MAKING_VERBS`] (other creating verbs act on a thing that
    /// exists: "fire off campaign b7c8d9e0f1" is `send_campaign`), and every word of its object
    /// is so named. A list tool reads, and its name ends in the plural ([`text::is_plural`]) of a
    /// word so named (`get_all_queue_items` for "status of queue item 5521"). Neither name may
    /// hold a preposition: `reply_to_conversation` creates a reply, `add_tag_to_task` a link.
    fn take_identified_bonus(&self, fused: &mut [f32], asked: &Asked) {
        let named = &asked.named;
        if named.is_empty() {
            return;
        }
        for (f, n) in fused.iter_mut().zip(&self.names) {
            let lists = n.action == Some(text::Action::Read)
                && n.words
                    .last()
                    .is_some_and(|w| text::is_plural(w) && named.contains(&text::stem(w)));
            let makes = n.words.iter().any(|w| MAKING_VERBS.contains(&w.as_str()))
                && !n.object.is_empty()
                && n.object.iter().all(|w| named.contains(w));
            if *f > 0.0 && (makes || lists) && !n.linking {
                self.take_bonus(f);
            }
        }
    }

    /// Adds twice [`Router::with_action_bonus`] to the tools made for many things at once
    /// ([`NameParts::many`]) when the request asks to act on several ([`text::asks_for_many`]):
    /// "move hubspot deals 101, 102 and 103 to closed won" favours `hubspot-batch-update-objects`,
    /// "bulk create the 12 sprint review meetings" `create-events`. A list of identifiers says
    /// more than a verb does, hence twice the bonus.
    fn add_many_bonus(&self, fused: &mut [f32], asked: &Asked) {
        if !asked.many {
            return;
        }
        for (f, n) in fused.iter_mut().zip(&self.names) {
            if *f > 0.0 && n.many {
                *f += 2.0 * self.action_bonus;
            }
        }
    }

    /// Ranks first the best of the first [`PROMOTE_DEPTH`] candidates that does what the request
    /// asks ([`text::request_action`]) to the first candidate's object, when the first does
    /// something else to it: "take down page 65f1…" is `delete_page`, not `update_page`; "get rid
    /// of argo app tmp-preview" `delete_application`, not `get_application`. Its score becomes the
    /// first's plus [`Router::with_action_bonus`].
    fn promote_asked_sibling(&self, fused: &mut [f32], asked: &Asked) {
        let Some(wanted) = asked.action else {
            return;
        };
        let top = top_k(fused, PROMOTE_DEPTH);
        let Some((first, lead)) = top
            .first()
            .and_then(|(i, f)| Some((*f, self.names.get(*i)?)))
        else {
            return;
        };
        if lead.action.is_none_or(|a| a == wanted) || lead.object.is_empty() {
            return;
        }
        let sibling = top.iter().skip(1).find(|(i, _)| {
            self.names
                .get(*i)
                .is_some_and(|n| n.action == Some(wanted) && n.object == lead.object)
        });
        if let Some((i, _)) = sibling
            && let Some(f) = fused.get_mut(*i)
        {
            *f = first + self.action_bonus;
        }
    }

    /// Ranks first the best of the first [`PROMOTE_DEPTH`] candidates that undoes another tool
    /// (`unconfirmIssue` beside `confirmIssue`, `unschedule_campaign`, `unwatch_topic`) when the
    /// request asks to take something back ([`text::asks_to_undo`]): "undo the confirm on AY…",
    /// "pull it back to draft", "stop alerting me about …". Its score becomes the first's plus
    /// [`Router::with_action_bonus`].
    fn promote_undoing(&self, fused: &mut [f32], asked: &Asked) {
        if self.names.iter().all(|n| n.un_word.is_none()) {
            return;
        }
        let top = top_k(fused, PROMOTE_DEPTH);
        let Some(&(_, first)) = top.first() else {
            return;
        };
        let undoing = top.iter().find(|(i, _)| {
            self.names
                .get(*i)
                .and_then(|n| n.un_word.as_deref())
                .is_some_and(|w| text::undo_in(&asked.words, w))
        });
        if let Some((i, score)) = undoing
            && *score < first
            && let Some(f) = fused.get_mut(*i)
        {
            *f = first + self.action_bonus;
        }
    }

    /// Takes [`Router::with_action_bonus`] from a positive fused score, never below the smallest
    /// positive score: every tool stays rankable.
    fn take_bonus(&self, f: &mut f32) {
        *f = (*f - self.action_bonus).max(f32::MIN_POSITIVE);
    }

    /// The fused score of a dense or hybrid router, from lexical scores and similarities.
    fn fuse_kind(&self, lexical: &[f32], similarity: &[f32]) -> Vec<f32> {
        match self.kind {
            // Similarities can be negative: shift so that every tool stays rankable.
            ScorerKind::Dense => similarity.iter().map(|c| (1.0 + c) / 2.0).collect(),
            _ => fuse(lexical, similarity, self.fusion),
        }
    }

    /// The `k` best tools for `query`, best first, with the parts of their scores; tools that
    /// do not match at all are left out (so fewer than `k` may come back). Ties keep toolset
    /// order.
    pub fn rank(&self, query: &str, k: usize) -> Vec<Ranked> {
        if k == 0 || self.specs.is_empty() {
            return Vec::new();
        }
        let scores = self.scores(query);
        top_k(&scores.fused, k)
            .into_iter()
            .filter_map(|(i, score)| {
                self.specs.get(i).map(|s| Ranked {
                    name: s.name.clone(),
                    score,
                    lexical: scores.lexical.get(i).copied(),
                    similarity: scores.similarity.get(i).copied(),
                })
            })
            .collect()
    }

    /// Like [`Router::rank`], with indices into [`Router::specs`] and the fused score only.
    pub fn rank_indices(&self, query: &str, k: usize) -> Vec<(usize, f32)> {
        if k == 0 || self.specs.is_empty() {
            return Vec::new();
        }
        top_k(&self.scores(query).fused, k)
    }

    /// The tools to show a model for `query`: every tool when there are at most `threshold`,
    /// otherwise the [`find_tools`] meta-tool followed by the top `k` tools.
    pub fn select(&self, query: &str, threshold: usize, k: usize) -> Vec<ToolSpec> {
        if self.specs.len() <= threshold {
            return self.specs.clone();
        }
        let mut out = vec![find_tools_spec()];
        out.extend(
            self.rank_indices(query, k)
                .into_iter()
                .filter_map(|(i, _)| self.specs.get(i).cloned()),
        );
        out
    }
}

/// Default of [`Router::with_action_bonus`] (about a third of the fused score's spread among a
/// query's first candidates). First chosen as 0.01 on the MCP dev set (hybrid, 300 in-scope
/// requests; 0.687 / 0.910 → 0.700 / 0.913 at recall@1 / @5). Chosen again on the same set
/// after the router's later changes (2026-12-03), among 0.01–0.04: 0.03 moved recall@1 0.733 →
/// 0.743 and each half of a split by server 0.709 → 0.727 and 0.766 → 0.766, recall@5
/// unchanged; 0.04 gained nothing more and lost recall@5 on one half. Checked, not chosen, on
/// the MCP test set `data/mcp-test` while it was held out (0.574 → 0.596 at recall@1), on the
/// held-out `data/mcp-test2` with the day's other changes (0.751 → 0.778) and on a pooled
/// public benchmark (recall@5 0.844 → 0.849). Taken, since 2026-12-06, from tools whose verb
/// changes something other than asked: measured at 0.015, 0.03 and 0.045 on the three read MCP
/// sets (`mcp`, `mcp-test`, `mcp-test2`: recall@1 +0, +2 and +1 requests of 673), 0.03 the
/// best, so the one value serves both; on the three held-out sets +6 requests at recall@1.
/// Taken, since 2026-12-06 (session 52), from tools whose object the request names only as a
/// place: at 0.015, 0.03, 0.045 and 0.06 the three read sets gained +3, +4, +3 and +3 requests
/// at recall@1, so the one value serves all three; with it the held-out sets gained +4 and
/// three sets outside the repository +1. Given, since session 53, to the reading tools named
/// for all of the things a question asks which exist ("what trello boards do I have?",
/// [`text::asked_to_list`]): +5 requests at recall@1 over nine sets, none lost. Since session
/// 54, taken from tools that make or list all of a thing the request names by its identifier
/// ([`text::identified`]: +5 over ten sets, none lost) and given twice to tools made for many
/// things when a request asks for several ([`text::asks_for_many`]: +11 and one lost at twice
/// the bonus, measured; on the router's dumped candidates of ten sets +5 and one lost at once,
/// +14 and two lost at three times), and twice to the reading tools named for all of what a
/// question of which things exist asks (+2 more, none lost).
pub const DEFAULT_ACTION_BONUS: f32 = 0.03;

/// The verbs of a tool name that bring a new thing into being, which a thing named by its
/// identifier already is (see [`text::identified`]).
const MAKING_VERBS: &[&str] = &["create", "add", "new", "make", "insert", "generate"];

/// How many of a query's first candidates [`Router`] looks through for a tool to rank first: one
/// that undoes another when the request asks to take something back, or one that does what the
/// request asks to the first candidate's object. As deep as the candidates a model is usually
/// shown. Measured at 3 and 5 on ten sets (session 54): for undoing twins 5 found four such
/// requests and 3 two, for siblings both four; neither moved a request that was right.
pub const PROMOTE_DEPTH: usize = 5;

fn tool_names(specs: &[ToolSpec]) -> Vec<NameParts> {
    use crate::values::{ValueKind, takes_kind};
    // The kinds whose bonus held on more than one set or lost nowhere (session 53): a path, an
    // e-mail address or a date is as often a filter or a place as the value a tool takes.
    const KINDS: [ValueKind; 2] = [ValueKind::Url, ValueKind::Time];
    let mut names: Vec<NameParts> = specs
        .iter()
        .map(|s| {
            let mut params = Vec::new();
            collect_params(&s.parameters, 0, &mut params);
            let takes = KINDS
                .into_iter()
                .filter(|k| params.iter().any(|(n, schema)| takes_kind(n, schema, *k)))
                .collect();
            let (action, object) = match text::name_object(&s.name) {
                Some((action, object)) => (
                    Some(action),
                    object
                        .into_iter()
                        .filter(|w| !text::is_stop_word(w))
                        .collect(),
                ),
                None => (None, Vec::new()),
            };
            let words = text::words(&s.name);
            NameParts {
                action,
                object,
                takes,
                many: made_for_many(action, &words),
                linking: words.iter().any(|w| text::is_stop_word(w)),
                words,
                un_word: None,
            }
        })
        .collect();
    mark_undoing(&mut names);
    names
}

/// Whether a tool with name `words` and `action` is made for many things ([`NameParts::many`]).
fn made_for_many(action: Option<text::Action>, words: &[String]) -> bool {
    const SAYS_MANY: &[&str] = &["batch", "bulk", "multiple", "many", "multi"];
    words.iter().any(|w| SAYS_MANY.contains(&w.as_str()))
        || (action.is_some_and(|a| a != text::Action::Read)
            && words.last().is_some_and(|w| text::is_plural(w)))
}

/// Sets [`NameParts::un_word`] where a tool's name is another's with one word prefixed by "un".
fn mark_undoing(names: &mut [NameParts]) {
    let all: std::collections::HashSet<Vec<String>> =
        names.iter().map(|n| n.words.clone()).collect();
    for n in names.iter_mut() {
        n.un_word = n.words.iter().enumerate().find_map(|(i, w)| {
            let base = w.strip_prefix("un").filter(|b| b.len() >= 3)?;
            let mut twin = n.words.clone();
            *twin.get_mut(i)? = base.to_string();
            all.contains(&twin).then(|| w.clone())
        });
    }
}

/// `typed` (a request with its value words) followed by what the shorthand of the request as
/// `written` stands for ([`text::spelled_out`]): "approve PR 318 (pull request)".
fn with_spelled_out(mut typed: String, written: &str) -> String {
    let long = text::spelled_out(written);
    if !long.is_empty() {
        typed.push_str(&format!(" ({})", long.join(", ")));
    }
    typed
}

/// The `k` best positive, finite scores, best first (ties keep index order).
fn top_k(scores: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut hits: Vec<(usize, f32)> = scores
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, s)| *s > 0.0 && s.is_finite())
        .collect();
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k == 0 {
        return Vec::new();
    }
    if hits.len() > k {
        hits.select_nth_unstable_by(k - 1, order);
        hits.truncate(k);
    }
    hits.sort_by(order);
    hits
}

/// One tool's linear fusion: its lexical score `l` over the query's best `max`, and its
/// similarity `c` shifted to [0, 1]. Kept positive so that every tool stays rankable (a
/// similarity can be negative).
fn linear_one(l: f32, max: f32, c: f32, dense_weight: f32) -> f32 {
    let l = if max > 0.0 { l / max } else { 0.0 };
    (dense_weight * (1.0 + c) / 2.0 + (1.0 - dense_weight) * l).max(f32::MIN_POSITIVE)
}

/// Fuses lexical scores and similarities (same length) as `fusion` says.
fn fuse(lexical: &[f32], similarity: &[f32], fusion: Fusion) -> Vec<f32> {
    match fusion {
        Fusion::Linear { dense_weight } => {
            let max = lexical.iter().copied().fold(0.0f32, f32::max);
            lexical
                .iter()
                .zip(similarity)
                .map(|(&l, &c)| linear_one(l, max, c, dense_weight))
                .collect()
        }
        Fusion::Rrf {
            k,
            dense_weight,
            depth,
        } => {
            let mut fused = vec![0.0f32; lexical.len()];
            let depth = depth.max(1);
            let mut add = |ranked: Vec<(usize, f32)>, weight: f32| {
                for (r, (i, _)) in ranked.into_iter().enumerate() {
                    if let Some(f) = fused.get_mut(i) {
                        *f += weight / (k + r as f32 + 1.0);
                    }
                }
            };
            add(top_k(lexical, depth), 1.0 - dense_weight);
            // Similarities shifted to (0, 1] so that top_k keeps negative ones too.
            let shifted: Vec<f32> = similarity.iter().map(|c| (1.0 + c) / 2.0 + 1e-6).collect();
            add(top_k(&shifted, depth), dense_weight);
            fused
        }
    }
}

/// Default number of tools above which [`select_tools`] routes.
pub const DEFAULT_ROUTING_THRESHOLD: usize = 15;
/// Name of the lookup meta-tool.
pub const FIND_TOOLS: &str = "find_tools";

/// The spec of the `find_tools` meta-tool.
pub fn find_tools_spec() -> ToolSpec {
    let mut spec = ToolSpec::new(
        FIND_TOOLS,
        "Find the tools that can do a task, among more tools than are shown. Use this when none of \
         the tools you can see fits the request: describe the task in a few words and call one of \
         the tools it returns.",
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1,
                          "description": "The task in a few words, e.g. \"weather in Paris tomorrow\"."},
                "k": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5,
                      "description": "How many tools to return (1 to 20, default 5)."}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    )
    .side_effects(SideEffects::None);
    spec.meta.idempotent = true;
    spec.meta.display_label = Some("Looking for tools".to_string());
    spec.meta.category = Some("meta".to_string());
    spec
}

/// The `find_tools` meta-tool over `router`: arguments `{query, k}`, data
/// `{"tools": [{name, description, score}]}` (best first, possibly empty).
pub fn find_tools(router: Arc<Router>) -> FnTool {
    FnTool::new(find_tools_spec(), move |args: Value, _ctx| {
        let router = router.clone();
        async move {
            let query = args
                .get("query")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_string();
            if query.is_empty() {
                return Err(ToolError::validation(
                    "`query` is empty.",
                    "Describe the task in a few words, e.g. \"convert 10 USD to EUR\".",
                ));
            }
            let k = args
                .get("k")
                .and_then(Value::as_u64)
                .unwrap_or(5)
                .clamp(1, 20) as usize;
            let tools: Vec<Value> = router
                .rank_indices(&query, k)
                .into_iter()
                .filter_map(|(i, score)| {
                    router.specs().get(i).map(|s| {
                        json!({"name": s.name, "description": s.description,
                               "score": (f64::from(score) * 1000.0).round() / 1000.0})
                    })
                })
                .collect();
            Ok(ToolOutput::Data(json!({ "query": query, "tools": tools })))
        }
    })
}

/// The tools to show a model for `query` (see [`Router::select`]): all of `specs` when there
/// are at most `threshold` (use [`DEFAULT_ROUTING_THRESHOLD`]), else `find_tools` + the top `k`.
pub fn select_tools(specs: &[ToolSpec], query: &str, threshold: usize, k: usize) -> Vec<ToolSpec> {
    if specs.len() <= threshold {
        return specs.to_vec();
    }
    Router::new(specs).select(query, threshold, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn demo_like() -> Vec<ToolSpec> {
        let obj = |props: Value| json!({"type": "object", "properties": props, "additionalProperties": false});
        vec![
            ToolSpec::new(
                "get_weather",
                "Get the current weather and a short forecast for a city. Use this when the user asks about weather conditions.",
                obj(
                    json!({"city": {"type": "string", "description": "City name, e.g. Paris."},
                           "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}),
                ),
            ),
            ToolSpec::new(
                "convert_currency",
                "Convert an amount of money from one currency to another at a dated rate. Use this when the user asks for an exchange.",
                obj(
                    json!({"amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}}),
                ),
            ),
            ToolSpec::new(
                "read_file",
                "Read a text file from the sandbox directory. Use this when the user wants to see a file's contents.",
                obj(json!({"path": {"type": "string"}})),
            ),
            ToolSpec::new(
                "write_file",
                "Write text to a file in the sandbox. Use this when the user asks to save something.",
                obj(json!({"path": {"type": "string"}, "content": {"type": "string"}})),
            ),
            ToolSpec::new(
                "delete_file",
                "Delete a file from the sandbox. Use this when the user asks to remove a file.",
                obj(json!({"path": {"type": "string"}})),
            ),
            ToolSpec::new(
                "calculate",
                "Evaluate an arithmetic expression. Use this when the user needs exact math.",
                obj(json!({"expression": {"type": "string"}})),
            ),
            ToolSpec::new(
                "query_users",
                "Search users by role or name. Use this when the user asks who has an account.",
                obj(json!({"role": {"type": "string", "enum": ["admin", "developer", "manager"]}})),
            ),
            ToolSpec::new(
                "get_time",
                "Current date and time in a time zone. Use this when the user asks what time it is.",
                obj(
                    json!({"timezone": {"type": "string", "description": "IANA zone such as Europe/Paris."}}),
                ),
            ),
        ]
    }

    #[test]
    fn everyday_questions_reach_the_right_tool() {
        let r = Router::new(&demo_like());
        let cases = [
            ("is it raining in Paris", "get_weather"),
            ("what's the weather like in Tokyo", "get_weather"),
            ("will I need an umbrella tomorrow in London", "get_weather"),
            ("how many euros is 100 dollars", "convert_currency"),
            ("convert 50 GBP to JPY", "convert_currency"),
            ("show me what is in notes.txt file", "read_file"),
            ("remove the old report file", "delete_file"),
            ("what is 17 times 23, compute it", "calculate"),
            ("which users are admins", "query_users"),
            ("what time is it in Tokyo", "get_time"),
        ];
        for (q, want) in cases {
            let got = r.rank(q, 3);
            assert_eq!(
                got.first().map(|x| x.name.as_str()),
                Some(want),
                "{q}: {got:?}"
            );
        }
    }

    #[test]
    fn rank_is_sorted_bounded_and_drops_non_matches() {
        let r = Router::new(&demo_like());
        let got = r.rank("file", 2);
        assert_eq!(got.len(), 2);
        assert!(got[0].score >= got[1].score);
        assert!(r.rank("zzzz qqqq", 5).is_empty());
        assert!(r.rank("", 5).is_empty());
        assert!(r.rank("file", 0).is_empty());
        assert!(Router::new(&[]).rank("file", 3).is_empty());
    }

    #[test]
    fn select_tools_routes_only_above_threshold() {
        let specs = demo_like();
        assert_eq!(select_tools(&specs, "weather", 15, 3).len(), specs.len());
        let picked = select_tools(&specs, "weather in Paris", 4, 2);
        assert_eq!(picked[0].name, FIND_TOOLS);
        assert_eq!(picked[1].name, "get_weather");
        assert!(picked.len() <= 3);
    }

    #[tokio::test]
    async fn find_tools_answers_with_names_and_descriptions() {
        use toolwright_core::{Tool, ToolContext};
        let tool = find_tools(Arc::new(Router::new(&demo_like())));
        let out = tool
            .call(
                json!({"query": "is it raining in Paris", "k": 2}),
                ToolContext::default(),
            )
            .await;
        let Ok(ToolOutput::Data(d)) = out else {
            panic!("{out:?}")
        };
        assert_eq!(d["tools"][0]["name"], "get_weather");
        assert!(
            d["tools"][0]["description"]
                .as_str()
                .unwrap()
                .contains("weather")
        );
        assert!(d["tools"].as_array().unwrap().len() <= 2);
        let err = tool
            .call(json!({"query": "  "}), ToolContext::default())
            .await;
        assert!(err.is_err());
    }

    #[test]
    fn huge_queries_stay_fast() {
        let r = Router::new(&demo_like());
        let q: String = (0..20_000).map(|i| format!("w{i} weather ")).collect();
        let t = std::time::Instant::now();
        assert_eq!(r.rank(&q, 1)[0].name, "get_weather");
        assert!(t.elapsed().as_secs() < 10);
    }

    #[test]
    fn custom_scorer_plugs_in() {
        struct Last;
        impl Scorer for Last {
            fn name(&self) -> &str {
                "last"
            }
            fn score_into(&self, _q: &str, scores: &mut [f32]) {
                if let Some(s) = scores.last_mut() {
                    *s = 1.0;
                }
            }
        }
        let specs = demo_like();
        let r = Router::with_scorer(&specs, Box::new(Last));
        assert_eq!(r.rank("anything", 3)[0].name, "get_time");
        assert_eq!(r.scorer_name(), "last");
    }

    /// An embedder that knows a handful of synonyms BM25 does not.
    struct Synonyms;
    impl Embedder for Synonyms {
        fn model_id(&self) -> &str {
            "synonyms@1"
        }
        fn dim(&self) -> usize {
            4
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, crate::EmbedError> {
            let groups: [&[&str]; 4] = [
                &["weather", "drizzle", "forecast", "umbrella"],
                &["currency", "yen", "money", "exchange"],
                &["file", "document", "read"],
                &["users", "staff", "account"],
            ];
            Ok(texts
                .iter()
                .map(|t| {
                    let t = t.to_lowercase();
                    let mut v: Vec<f32> = groups
                        .iter()
                        .map(|g| g.iter().filter(|w| t.contains(*w)).count() as f32)
                        .collect();
                    crate::embed::normalize(&mut v);
                    v
                })
                .collect())
        }
    }

    fn hybrid(kind: ScorerKind, fusion: Fusion) -> Router {
        let specs = demo_like();
        let e: Arc<dyn Embedder> = Arc::new(Synonyms);
        let index = DenseIndex::build(&specs, e.as_ref(), None, &mut |_, _| {}).unwrap();
        Router::new(&specs)
            .with_dense(DenseScorer::new(Arc::new(index), e), kind)
            .with_fusion(fusion)
    }

    #[test]
    fn dense_and_hybrid_find_what_words_alone_miss() {
        // "drizzle" and "yen" appear in no tool's text: BM25 cannot match them.
        assert!(
            Router::new(&demo_like())
                .rank("any drizzle in Oslo", 3)
                .is_empty()
        );
        for fusion in [
            DEFAULT_FUSION,
            Fusion::Rrf {
                k: 5.0,
                dense_weight: 0.6,
                depth: 50,
            },
        ] {
            for kind in [ScorerKind::Dense, ScorerKind::Hybrid] {
                let r = hybrid(kind, fusion);
                assert_eq!(r.scorer_name(), kind.as_str());
                let got = r.rank("any drizzle in Oslo", 3);
                assert_eq!(got[0].name, "get_weather", "{kind:?} {fusion:?}");
                assert!(got[0].similarity.unwrap() > 0.9);
                assert_eq!(
                    r.rank("how much yen for 10 dollars", 1)[0].name,
                    "convert_currency"
                );
            }
        }
        // Words still count in hybrid: a query only BM25 understands keeps its tool first.
        let r = hybrid(ScorerKind::Hybrid, DEFAULT_FUSION);
        assert_eq!(r.rank("what time is it in Tokyo", 1)[0].name, "get_time");
    }

    /// Two tools of one description, named `a` and `b`, and a hybrid router over them with a
    /// given action bonus; the specs are returned for a BM25 router too.
    fn twins(a: &str, b: &str, description: &str) -> (Vec<ToolSpec>, impl Fn(f32) -> Router) {
        let specs: Vec<ToolSpec> = [a, b]
            .iter()
            .map(|n| ToolSpec::new(*n, description, json!({"type": "object"})))
            .collect();
        (specs.clone(), pair(specs))
    }

    /// A hybrid router over `specs` (dense side [`Synonyms`]) for a given action bonus.
    fn pair(specs: Vec<ToolSpec>) -> impl Fn(f32) -> Router {
        let e: Arc<dyn Embedder> = Arc::new(Synonyms);
        let index = Arc::new(DenseIndex::build(&specs, e.as_ref(), None, &mut |_, _| {}).unwrap());
        move |bonus: f32| {
            Router::new(&specs)
                .with_dense(
                    DenseScorer::new(index.clone(), e.clone()),
                    ScorerKind::Hybrid,
                )
                .with_action_bonus(bonus)
        }
    }

    /// How much the default bonus moves the second tool's lead over the first for `q`.
    fn moved(router: &impl Fn(f32) -> Router, q: &str) -> f32 {
        let gap = |r: Router| {
            let s = r.scores(q).fused;
            s[1] - s[0]
        };
        gap(router(DEFAULT_ACTION_BONUS)) - gap(router(0.0))
    }

    #[test]
    fn the_request_verb_breaks_ties_between_tools_of_one_object() {
        let (specs, router) = twins("get_issue", "update_issue", "An issue of the tracker.");
        let on = router(DEFAULT_ACTION_BONUS);
        assert_eq!(on.rank("change the issue title", 1)[0].name, "update_issue");
        assert_eq!(on.rank("what does the issue say", 1)[0].name, "get_issue");
        let diff = |r: &Router| {
            let s = r.scores("modify the tracker issue").fused;
            s[1] - s[0]
        };
        assert!((diff(&on) - diff(&router(0.0)) - DEFAULT_ACTION_BONUS).abs() < 1e-6);
        // A tool that would change something ranks lower for a request that reads: the reader
        // gains the bonus, the writer loses it.
        let read = |r: &Router| {
            let s = r.scores("is the tracker issue still open?").fused;
            s[0] - s[1]
        };
        assert!((read(&on) - read(&router(0.0)) - 2.0 * DEFAULT_ACTION_BONUS).abs() < 1e-6);
        // BM25 has no fixed scale: the bonus does not apply.
        let bm25 = Router::new(&specs).with_action_bonus(1.0);
        let s = bm25.scores("modify the tracker issue").fused;
        assert_eq!(s[0], s[1]);
    }

    #[test]
    fn a_tool_whose_object_is_only_the_place_ranks_lower() {
        let (_, router) = twins("list_bases", "list_tables", "Bases of the tracker.");
        // "base" is only where the tables are: `list_bases` loses the bonus.
        let q = "what tables are in tracker base Apollo?";
        assert!((moved(&router, q) - DEFAULT_ACTION_BONUS).abs() < 1e-6);
        // Named outside the place phrase too, the base may be what is asked about.
        let q = "which bases hold tables in tracker base Apollo?";
        assert!(moved(&router, q).abs() < 1e-6);
    }

    #[test]
    fn a_thing_named_by_its_identifier_is_not_created_or_listed() {
        let (_, router) = twins("add_project", "get_project", "Projects of the tracker.");
        assert!(
            (moved(&router, "open tracker project 2203306141") - DEFAULT_ACTION_BONUS).abs() < 1e-6
        );
        assert!(moved(&router, "open tracker project Apollo").abs() < 1e-6);
        // Sending, publishing or scheduling acts on a thing that exists.
        let (_, router) = twins("send_campaign", "get_campaign", "Campaigns of the tracker.");
        assert!(moved(&router, "tracker campaign b7c8d9e0f1 now").abs() < 1e-6);
        let (_, router) = twins(
            "list_incidents",
            "get_incident",
            "Incidents of the tracker.",
        );
        assert!(
            (moved(&router, "timeline of tracker incident 9d1e-4c") - DEFAULT_ACTION_BONUS).abs()
                < 1e-6
        );
        // A name with a preposition creates something else: a link, a reply.
        let (_, router) = twins("add_tag_to_task", "get_task", "Tasks of the tracker.");
        assert!(moved(&router, "tracker tag 880, task 1206").abs() < 1e-6);
    }

    #[test]
    fn a_request_for_several_things_favours_the_tool_made_for_many() {
        let (_, router) = twins("update_task", "batch_update_tasks", "Tasks of the tracker.");
        let q = "tracker tasks 701, 702 and 705 due on friday";
        assert!((moved(&router, q) - 2.0 * DEFAULT_ACTION_BONUS).abs() < 1e-6);
        assert!(moved(&router, "tracker task 701 due on friday").abs() < 1e-6);
        // A changing tool whose name ends in a plural is made for many too.
        let (_, router) = twins("create-event", "create-events", "Events of the calendar.");
        let q = "calendar: dentist tue 3pm, gym wed 7am, all in one go";
        assert!((moved(&router, q) - 2.0 * DEFAULT_ACTION_BONUS).abs() < 1e-6);
    }

    #[test]
    fn a_question_of_which_things_exist_favours_the_tool_named_for_all_of_them() {
        let (_, router) = twins("get_project", "get_projects", "Projects of the tracker.");
        let q = "what projects do I have in the tracker?";
        assert!((moved(&router, q) - 2.0 * DEFAULT_ACTION_BONUS).abs() < 1e-6);
        // A question about one project favours neither by its plural.
        assert!(moved(&router, "what is in the tracker project 42?").abs() < 1e-6);
    }

    #[test]
    fn a_value_in_the_request_favours_the_tools_that_take_its_kind() {
        let tool = |name: &str, param: &str| {
            ToolSpec::new(
                name,
                "Time in a zone.",
                json!({"type": "object", "properties": {param: {"type": "string"}}}),
            )
        };
        let router = pair(vec![
            tool("get_current_time", "timezone"),
            tool("convert_time", "time"),
        ]);
        // Neither request says an action, so only the kind bonus moves the gap.
        let q = "the time in Lima when it is 14:00 in the zone of Oslo";
        assert!((moved(&router, q) - DEFAULT_ACTION_BONUS).abs() < 1e-6);
        assert!(moved(&router, "the time in the zone of Oslo").abs() < 1e-6);
    }

    #[test]
    fn shorthand_is_spelled_out_before_ranking() {
        let specs = vec![
            ToolSpec::new(
                "create_pull_request_review",
                "Review a pull request.",
                json!({}),
            ),
            ToolSpec::new("approve_expense", "Approve an expense claim.", json!({})),
        ];
        let q = "approve PR 318 of the web app";
        assert_eq!(
            Router::new(&specs).rank(q, 1)[0].name,
            "create_pull_request_review"
        );
        let off = Router::new(&specs).with_value_words(false);
        assert_eq!(off.rank(q, 1)[0].name, "approve_expense");
    }

    #[test]
    fn the_sibling_that_does_what_is_asked_ranks_first() {
        let tool = |name: &str, description: &str| {
            ToolSpec::new(name, description, json!({"type": "object"}))
        };
        let specs = vec![
            tool(
                "update_page",
                "Change a page of the site: title, body, status.",
            ),
            tool("delete_page", "Delete a page."),
            tool("get_page", "A page."),
        ];
        let q = "remove page 42: change of plan, the site status";
        // Without the bonus `update_page` leads by more than a small bonus could make up...
        let s = pair(specs.clone())(0.0).scores(q).fused;
        assert!(s[0] - s[1] > 0.01, "{s:?}");
        // ...and with one, its sibling that removes is ranked first all the same.
        let router = pair(specs)(0.001);
        assert_eq!(router.rank(q, 1)[0].name, "delete_page");
        let q = "change the title of the site page";
        assert_eq!(router.rank(q, 1)[0].name, "update_page");
    }

    #[test]
    fn a_request_to_take_something_back_ranks_the_undoing_twin_first() {
        let tool = |name: &str| {
            ToolSpec::new(
                name,
                "Confirm an issue of the tracker.",
                json!({"type": "object"}),
            )
        };
        let specs = vec![
            tool("confirmIssue"),
            tool("unconfirmIssue"),
            tool("assignIssue"),
        ];
        let router = pair(specs.clone())(DEFAULT_ACTION_BONUS);
        let first = |q: &str| router.rank(q, 1)[0].name.clone();
        assert_eq!(first("confirm the tracker issue AY12"), "confirmIssue");
        assert_eq!(
            first("undo the confirm on tracker issue AY12"),
            "unconfirmIssue"
        );
        assert_eq!(first("unconfirm tracker issue AY12"), "unconfirmIssue");
        // Negation alone takes nothing back, and without the bonus nothing is promoted.
        assert_eq!(
            first("confirm the tracker issue if it isn't yet"),
            "confirmIssue"
        );
        let off = pair(specs)(0.0);
        assert_eq!(
            off.rank("undo the confirm on tracker issue AY12", 1)[0].name,
            "confirmIssue"
        );
        // "un" and a word no other tool has is no twin: `unzip_archive` undoes nothing here.
        let lone = pair(vec![tool("zip_file"), tool("unzip_archive")])(DEFAULT_ACTION_BONUS);
        assert!(lone.names.iter().all(|n| n.un_word.is_none()));
    }

    #[test]
    fn a_tool_that_gets_all_of_something_is_found_by_list() {
        let spec = |name: &str, description: &str| {
            ToolSpec::new(
                name,
                description,
                json!({"type": "object", "properties": {
                "project_id": {"type": "string", "description": "The project"}}}),
            )
        };
        // Plane's tools: every one reads a project, four list something of one.
        let specs = vec![
            spec("list_modules", "Get all modules for a specific project"),
            spec("list_labels", "Get all labels for a specific project"),
            spec("list_states", "Get all states for a specific project"),
            spec("list_cycles", "Get all cycles for a specific project"),
            ToolSpec::new(
                "get_projects",
                "Get all projects for the current user",
                json!({}),
            ),
        ];
        let bm25 = Router::new(&specs);
        let s = bm25.scores("list all my projects").fused;
        assert!(s[4] > s[0], "{s:?}");
        assert!(gets_all("Retrieves all labels.") && !gets_all("Get the label"));
    }

    #[test]
    fn values_in_a_request_reach_the_tools_that_take_them() {
        let specs = vec![
            ToolSpec::new(
                "fetch",
                "Fetches a page from the internet.",
                json!({"type": "object", "properties": {"url": {"type": "string"}}}),
            ),
            ToolSpec::new(
                "summarize",
                "Summarize a text or a page.",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            ),
        ];
        // No word of the request is in a tool's text; the URL's kind is.
        let q = "what is on https://example.org/x1";
        assert_eq!(Router::new(&specs).rank(q, 1)[0].name, "fetch");
        assert!(
            Router::new(&specs)
                .with_value_words(false)
                .rank(q, 1)
                .is_empty()
        );
    }

    #[test]
    fn a_router_without_embedder_stays_bm25_and_a_failing_embedder_falls_back() {
        let mut r = Router::new(&demo_like());
        r.set_kind(ScorerKind::Hybrid);
        assert_eq!(r.kind(), ScorerKind::Bm25);
        assert!(!r.has_dense());
        struct Failing;
        impl Embedder for Failing {
            fn model_id(&self) -> &str {
                "failing"
            }
            fn dim(&self) -> usize {
                4
            }
            fn embed(&self, _: &[&str]) -> Result<Vec<Vec<f32>>, crate::EmbedError> {
                Err(crate::EmbedError("down".into()))
            }
        }
        let specs = demo_like();
        let index = DenseIndex::build(&specs, &Synonyms, None, &mut |_, _| {}).unwrap();
        let r = Router::new(&specs).with_dense(
            DenseScorer::new(Arc::new(index), Arc::new(Failing)),
            ScorerKind::Hybrid,
        );
        let got = r.rank("is it raining in Paris", 2);
        assert_eq!(got[0].name, "get_weather");
        assert_eq!(got[0].similarity, None);
        // A dense index of another toolset is refused, not misused.
        let small = DenseIndex::build(&specs[..2], &Synonyms, None, &mut |_, _| {}).unwrap();
        let r = Router::new(&specs).with_dense(
            DenseScorer::new(Arc::new(small), Arc::new(Synonyms)),
            ScorerKind::Hybrid,
        );
        assert!(!r.has_dense());
    }

    #[tokio::test]
    async fn find_tools_uses_the_routers_scorer() {
        use toolwright_core::{Tool, ToolContext};
        let tool = find_tools(Arc::new(hybrid(ScorerKind::Hybrid, DEFAULT_FUSION)));
        let Ok(ToolOutput::Data(d)) = tool
            .call(
                json!({"query": "drizzle tomorrow?"}),
                ToolContext::default(),
            )
            .await
        else {
            panic!()
        };
        assert_eq!(d["tools"][0]["name"], "get_weather");
    }

    #[test]
    fn the_embedder_reads_the_request_without_its_quoted_values() {
        use std::sync::Mutex;
        /// Records what it embeds.
        #[derive(Default)]
        struct Recording(Mutex<Vec<String>>);
        impl Embedder for Recording {
            fn model_id(&self) -> &str {
                "recording"
            }
            fn dim(&self) -> usize {
                2
            }
            fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, crate::EmbedError> {
                let mut seen = self.0.lock().unwrap();
                seen.extend(texts.iter().map(|t| t.to_string()));
                Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
            }
        }
        let specs = demo_like();
        let e = Arc::new(Recording::default());
        let index = Arc::new(DenseIndex::build(&specs, e.as_ref(), None, &mut |_, _| {}).unwrap());
        e.0.lock().unwrap().clear();
        let router = |on: bool| {
            Router::new(&specs)
                .with_dense(
                    DenseScorer::new(index.clone(), e.clone()),
                    ScorerKind::Hybrid,
                )
                .with_quoted_out_of_dense(on)
        };
        let q = "add 'weather in Paris' to my notes";
        let on = router(true);
        let lexical = on.scores(q).lexical;
        assert_eq!(
            e.0.lock().unwrap().pop().as_deref(),
            Some("add to my notes")
        );
        // The lexical scorer still reads the quoted words.
        let whole = router(false).scores(q).lexical;
        assert!(
            lexical
                .iter()
                .zip(&whole)
                .all(|(a, b)| (a - b).abs() < 1e-4)
        );
        assert!(lexical.iter().any(|&x| x > 0.0));
        assert_eq!(e.0.lock().unwrap().pop().as_deref(), Some(q));
    }

    #[test]
    fn scorer_kinds_parse() {
        assert_eq!(ScorerKind::parse("Hybrid"), Some(ScorerKind::Hybrid));
        assert_eq!(ScorerKind::parse("bm25"), Some(ScorerKind::Bm25));
        assert_eq!(ScorerKind::parse("dense"), Some(ScorerKind::Dense));
        assert_eq!(ScorerKind::parse("magic"), None);
    }
}
