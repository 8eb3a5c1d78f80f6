//! Reading-list tools over a small shipped article corpus (`data/articles.json`), used to show
//! the runtime's policies:
//!
//! | tool | shows |
//! |---|---|
//! | `search_articles_semantic` | a dependency that can be down (`DEPENDENCY_UNAVAILABLE`) and a declared `fallback` |
//! | `search_articles_keyword` | the fallback: same arguments, plain term matching |
//! | `track_article_view` | a write keyed by `idempotency_key`, stored in SQLite (`views` table) |
//! | `suggest_daily_reading` | composition through `ToolContext::call_tool`: search → filter unread → track |
//!
//! The semantic index is switched off with `TOOLWRIGHT_SEMANTIC_INDEX=off` (or
//! [`ArticlesConfig::semantic_index`]). Views go to `TOOLWRIGHT_VIEWS_DB` if set, else
//! `views.db` in `$TOOLWRIGHT_HOME`, `$XDG_CACHE_HOME/toolwright` or `~/.cache/toolwright`.
//!
//! The settings, the corpus, the index and the views connection live in an [`ArticlesState`]
//! stored in the registry (the corpus and the index are built on first use), so registries with
//! different settings in one process do not share them.

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use toolwright::{Outcome, Registry, RegistryError, State, Status, ToolContext, ToolError, tool};

/// Settings of the article tools; `None` fields fall back to the environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArticlesConfig {
    /// Whether the semantic index is up (default: `TOOLWRIGHT_SEMANTIC_INDEX` is not
    /// `off`/`0`/`false`/`no`).
    pub semantic_index: Option<bool>,
    /// The SQLite file of article views (default: see the module docs).
    pub views_db: Option<PathBuf>,
}

/// The state of the article tools: their settings, the corpus and the semantic index (built on
/// first use) and the connection to the views database (opened on first use, reopened when
/// the configured path changes).
#[derive(Default)]
pub struct ArticlesState {
    config: ArticlesConfig,
    corpus: OnceLock<Option<Corpus>>,
    index: OnceLock<Option<SemanticIndex>>,
    views: Mutex<Option<(PathBuf, Connection)>>,
}

impl std::fmt::Debug for ArticlesState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArticlesState")
            .field("config", &self.config)
            .field("corpus_loaded", &self.corpus.get().is_some())
            .field("index_built", &self.index.get().is_some())
            .finish()
    }
}

impl ArticlesState {
    /// The state for `config` (nothing is loaded or opened yet).
    pub fn new(config: ArticlesConfig) -> Self {
        ArticlesState {
            config,
            ..ArticlesState::default()
        }
    }

    /// The settings.
    pub fn config(&self) -> &ArticlesConfig {
        &self.config
    }

    /// Whether the semantic index answers (the environment is read at call time when the
    /// setting is `None`).
    pub fn semantic_index_enabled(&self) -> bool {
        self.config.semantic_index.unwrap_or_else(|| {
            !matches!(
                std::env::var("TOOLWRIGHT_SEMANTIC_INDEX")
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase()
                    .as_str(),
                "off" | "0" | "false" | "no"
            )
        })
    }

    /// Where article views are stored.
    pub fn views_db_path(&self) -> PathBuf {
        if let Some(p) = &self.config.views_db {
            return p.clone();
        }
        if let Some(p) = std::env::var_os("TOOLWRIGHT_VIEWS_DB").filter(|p| !p.is_empty()) {
            return PathBuf::from(p);
        }
        let dir = std::env::var_os("TOOLWRIGHT_HOME")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("toolwright"))
            })
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/toolwright"))
            })
            .unwrap_or_else(|| PathBuf::from(".toolwright"));
        dir.join("views.db")
    }

    /// The shipped articles.
    ///
    /// # Errors
    /// `INTERNAL` if the shipped file does not parse (a build problem).
    pub fn articles(&self) -> Result<&[Article], ToolError> {
        self.corpus
            .get_or_init(|| serde_json::from_str(include_str!("../data/articles.json")).ok())
            .as_ref()
            .map(|c| c.articles.as_slice())
            .ok_or_else(|| ToolError::internal("the shipped article corpus does not parse"))
    }

    fn find_article(&self, id: u32) -> Result<&Article, ToolError> {
        let all = self.articles()?;
        all.iter().find(|a| a.id == id).ok_or_else(|| {
            let max = all.iter().map(|a| a.id).max().unwrap_or(0);
            ToolError::not_found(
                format!("There is no article with id {id}."),
                format!(
                    "Article ids run from 1 to {max}; find the right one with \
                     search_articles_keyword."
                ),
            )
        })
    }

    fn semantic_index(&self) -> Result<&SemanticIndex, ToolError> {
        self.index
            .get_or_init(|| build_index(self.articles().ok()?))
            .as_ref()
            .ok_or_else(|| ToolError::internal("the semantic index could not be built"))
    }

    /// Runs `f` on this state's connection to the views database (opened once per path):
    /// calls queue on a mutex instead of contending for SQLite's lock with sleeps.
    fn with_views<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, ToolError>,
    ) -> Result<T, ToolError> {
        let path = self.views_db_path();
        let mut slot = self.views.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|(p, _)| *p != path) {
            *slot = Some((path.clone(), open_views(&path)?));
        }
        match slot.as_mut() {
            Some((_, conn)) => f(conn),
            None => Err(ToolError::internal("the views database is not open")),
        }
    }

    /// Ids of the articles `session_id` has viewed.
    ///
    /// # Errors
    /// `DEPENDENCY_UNAVAILABLE` when the views database cannot be opened.
    pub fn viewed_articles(&self, session_id: &str) -> Result<HashSet<u32>, ToolError> {
        self.with_views(|conn| {
            let mut stmt = conn
                .prepare("SELECT DISTINCT article_id FROM views WHERE session_id = ?1")
                .map_err(|e| ToolError::internal(format!("views query: {e}")))?;
            let ids = stmt
                .query_map(params![session_id], |r| r.get::<_, u32>(0))
                .map_err(|e| ToolError::internal(format!("views query: {e}")))?
                .filter_map(Result::ok)
                .collect();
            Ok(ids)
        })
    }
}

/// Registers the four article tools into `reg`, storing a default [`ArticlesState`] (settings
/// from the environment) when `reg` holds none.
///
/// # Errors
/// A name clash with a tool already in `reg`.
pub fn register(reg: &Registry) -> Result<(), RegistryError> {
    if reg.state::<ArticlesState>().is_none() {
        reg.insert_state(ArticlesState::default());
    }
    reg.register(SearchArticlesSemanticTool)?;
    reg.register(SearchArticlesKeywordTool)?;
    reg.register(TrackArticleViewTool)?;
    reg.register(SuggestDailyReadingTool)?;
    Ok(())
}

/// One article of the corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Article {
    /// Id used by `track_article_view`.
    pub id: u32,
    /// Title.
    pub title: String,
    /// Author.
    pub author: String,
    /// Publication date (YYYY-MM-DD).
    pub published: String,
    /// Topics.
    pub tags: Vec<String>,
    /// One-sentence summary.
    pub summary: String,
}

#[derive(Deserialize)]
struct Corpus {
    articles: Vec<Article>,
}

const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "and",
    "are",
    "about",
    "for",
    "how",
    "i",
    "in",
    "is",
    "it",
    "me",
    "of",
    "on",
    "or",
    "the",
    "to",
    "what",
    "with",
    "want",
    "some",
    "something",
    "read",
    "reading",
    "article",
    "articles",
];

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 2 && !STOPWORDS.contains(&w.as_str()))
        .collect()
}

fn article_text(a: &Article) -> String {
    format!(
        "{} {} {} {}",
        a.title,
        a.tags.join(" "),
        a.tags.join(" "),
        a.summary
    )
}

/// Character trigrams of each word (with boundary marks), so "databases" meets "database" and
/// "retrying" meets "retries".
fn trigrams(text: &str) -> HashMap<String, f64> {
    let mut v = HashMap::new();
    for w in words(text) {
        let chars: Vec<char> = format!("^{w}$").chars().collect();
        for g in chars.windows(3) {
            *v.entry(g.iter().collect::<String>()).or_insert(0.0) += 1.0;
        }
    }
    v
}

struct SemanticIndex {
    idf: HashMap<String, f64>,
    vectors: Vec<(u32, HashMap<String, f64>)>,
}

fn normalize(v: &mut HashMap<String, f64>) {
    let norm = v.values().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.values_mut().for_each(|x| *x /= norm);
    }
}

fn build_index(all: &[Article]) -> Option<SemanticIndex> {
    let raw: Vec<(u32, HashMap<String, f64>)> = all
        .iter()
        .map(|a| (a.id, trigrams(&article_text(a))))
        .collect();
    let mut df: HashMap<String, f64> = HashMap::new();
    for (_, v) in &raw {
        for g in v.keys() {
            *df.entry(g.clone()).or_insert(0.0) += 1.0;
        }
    }
    let n = raw.len() as f64;
    let idf: HashMap<String, f64> = df
        .into_iter()
        .map(|(g, d)| (g, ((n + 1.0) / (d + 1.0)).ln() + 1.0))
        .collect();
    let vectors = raw
        .into_iter()
        .map(|(id, mut v)| {
            for (g, x) in v.iter_mut() {
                *x *= idf.get(g).copied().unwrap_or(1.0);
            }
            normalize(&mut v);
            (id, v)
        })
        .collect();
    Some(SemanticIndex { idf, vectors })
}

fn hit(a: &Article, score: f64) -> Value {
    json!({
        "id": a.id,
        "title": a.title,
        "author": a.author,
        "published": a.published,
        "tags": a.tags,
        "summary": a.summary,
        "score": (score * 1000.0).round() / 1000.0,
    })
}

fn ranked(mut scored: Vec<(f64, &Article)>, limit: u32) -> Vec<Value> {
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
    scored
        .into_iter()
        .take(limit as usize)
        .map(|(s, a)| hit(a, s))
        .collect()
}

/// Search the reading list by meaning (vector similarity over the article index).
///
/// Use this when the user wants articles about a topic described in their own words
/// ("something on making retries safe"); it matches related word forms, not only exact
/// terms. Needs the semantic index; when the index is down the runtime answers with
/// `search_articles_keyword` instead.
///
/// # Arguments
/// * `query` - What the user wants to read about, in plain words
/// * `limit` - How many articles to return at most
#[tool(
    display_label = "Searching articles by meaning",
    timeout_ms = 3000,
    side_effects = "read",
    fallback = "search_articles_keyword",
    dependencies = ["semantic-index"],
    category = "reading",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 100,
    examples = [r#"{"query": "making retries safe"}"#, r#"{"query": "observability for agents", "limit": 3}"#]
)]
pub fn search_articles_semantic(
    #[arg(min_length = 1, max_length = 200)] query: String,
    #[arg(default = 5, min = 1, max = 20)] limit: u32,
    state: State<ArticlesState>,
) -> Result<Value, ToolError> {
    if !state.semantic_index_enabled() {
        return Err(ToolError::dependency_unavailable(
            "The semantic search index is switched off.",
            "Use search_articles_keyword with the same query instead.",
        ));
    }
    let index = state.semantic_index()?;
    let mut q = trigrams(&query);
    for (g, x) in q.iter_mut() {
        *x *= index.idf.get(g).copied().unwrap_or(0.0);
    }
    normalize(&mut q);
    let all = state.articles()?;
    let scored: Vec<(f64, &Article)> = index
        .vectors
        .iter()
        .filter_map(|(id, v)| {
            let s: f64 = q
                .iter()
                .map(|(g, x)| x * v.get(g).copied().unwrap_or(0.0))
                .sum();
            let a = all.iter().find(|a| a.id == *id)?;
            (s >= 0.12).then_some((s, a))
        })
        .collect();
    let results = ranked(scored, limit);
    Ok(json!({"query": query, "method": "semantic", "count": results.len(), "results": results}))
}

/// Search the reading list for articles containing the query's words.
///
/// Use this when the user names exact terms to look for (a technology, an author, a tag), or
/// when semantic search is unavailable. Matches whole words in titles, tags, summaries and
/// author names.
///
/// # Arguments
/// * `query` - Words to look for, e.g. "sqlite backups"
/// * `limit` - How many articles to return at most
#[tool(
    display_label = "Searching articles by keyword",
    timeout_ms = 3000,
    side_effects = "read",
    category = "reading",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 50,
    examples = [r#"{"query": "idempotency"}"#, r#"{"query": "redis locks", "limit": 3}"#]
)]
pub fn search_articles_keyword(
    #[arg(min_length = 1, max_length = 200)] query: String,
    #[arg(default = 5, min = 1, max = 20)] limit: u32,
    state: State<ArticlesState>,
) -> Result<Value, ToolError> {
    let terms: HashSet<String> = words(&query).into_iter().collect();
    let all = state.articles()?;
    let scored: Vec<(f64, &Article)> = all
        .iter()
        .filter_map(|a| {
            let title: HashSet<String> = words(&a.title).into_iter().collect();
            let tags: HashSet<String> = words(&a.tags.join(" ")).into_iter().collect();
            let body: HashSet<String> = words(&format!("{} {}", a.summary, a.author))
                .into_iter()
                .collect();
            let s: f64 = terms
                .iter()
                .map(|t| {
                    3.0 * f64::from(u8::from(title.contains(t)))
                        + 2.0 * f64::from(u8::from(tags.contains(t)))
                        + f64::from(u8::from(body.contains(t)))
                })
                .sum();
            (s > 0.0).then_some((s, a))
        })
        .collect();
    let results = ranked(scored, limit);
    Ok(json!({"query": query, "method": "keyword", "count": results.len(), "results": results}))
}

fn open_views(path: &std::path::Path) -> Result<Connection, ToolError> {
    let unavailable = |e: String| {
        ToolError::dependency_unavailable(
            format!("The reading history database is unavailable: {e}."),
            "Tell the user views cannot be recorded right now.",
        )
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| unavailable(e.to_string()))?;
    }
    let conn = Connection::open(path).map_err(|e| unavailable(e.to_string()))?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(|e| unavailable(e.to_string()))?;
    // WAL: readers never wait for the writer, and processes sharing the file (replicas) queue
    // on one write lock. Filesystems that refuse it keep the default journal.
    let _ = conn.pragma_update(None, "journal_mode", "WAL");
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS views (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             article_id INTEGER NOT NULL,
             session_id TEXT NOT NULL,
             idempotency_key TEXT NOT NULL,
             viewed_at TEXT NOT NULL
         );
         CREATE INDEX IF NOT EXISTS views_key ON views (idempotency_key);",
    )
    .map_err(|e| unavailable(e.to_string()))?;
    Ok(conn)
}

/// Today's date (UTC) as YYYY-MM-DD.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let rem = secs % 86_400;
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        today(),
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Records a view under `key` unless one is recorded already (one write transaction, so a view
/// recorded by a process that died before the runtime stored its result is found, not counted
/// again); the view's id and time.
fn record_view(
    conn: &mut Connection,
    article_id: u32,
    session_id: &str,
    key: &str,
) -> Result<(i64, String), ToolError> {
    let unavailable = |e: rusqlite::Error| {
        ToolError::dependency_unavailable(
            format!("The view could not be recorded: {e}."),
            "Tell the user views cannot be recorded right now.",
        )
    };
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(unavailable)?;
    let existing: Option<(i64, String)> = tx
        .query_row(
            "SELECT id, viewed_at FROM views WHERE idempotency_key = ?1",
            params![key],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(unavailable)?;
    let row = match existing {
        Some(row) => row,
        None => {
            let at = now_rfc3339();
            tx.execute(
                "INSERT INTO views (article_id, session_id, idempotency_key, viewed_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![article_id, session_id, key, at],
            )
            .map_err(unavailable)?;
            (tx.last_insert_rowid(), at)
        }
    };
    tx.commit().map_err(unavailable)?;
    Ok(row)
}

/// Record that a reader opened an article (adds a row to the reading history).
///
/// Use this when the user reads or opens an article, so later suggestions skip it. Pass a
/// fresh `idempotency_key` per view: repeating a call with the same key does not count the
/// view twice (the runtime replays the first result).
///
/// # Arguments
/// * `article_id` - Id of the article, from a search result
/// * `session_id` - The reader's session id
/// * `idempotency_key` - Unique key of this view; reuse it only to retry the same view
#[tool(
    display_label = "Recording an article view",
    timeout_ms = 5000,
    side_effects = "write",
    category = "reading",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 100,
    idempotent,
    dependencies = ["views-db"],
    examples = [r#"{"article_id": 7, "session_id": "s1", "idempotency_key": "view-s1-7-1"}"#]
)]
pub fn track_article_view(
    #[arg(min = 1)] article_id: u32,
    #[arg(min_length = 1, max_length = 100)] session_id: String,
    #[arg(min_length = 1, max_length = 200)] idempotency_key: String,
    state: State<ArticlesState>,
) -> Result<Value, ToolError> {
    let article = state.find_article(article_id)?;
    let (view_id, at) =
        state.with_views(|conn| record_view(conn, article_id, &session_id, &idempotency_key))?;
    Ok(json!({
        "view_id": view_id,
        "article_id": article_id,
        "title": article.title,
        "session_id": session_id,
        "viewed_at": at,
    }))
}

/// Suggest today's reading on a topic: articles the reader has not seen yet, marked as viewed.
///
/// Use this when the user asks what to read today or wants a reading suggestion on a topic.
/// It searches the reading list (by meaning, or by keyword when the index is down), skips
/// articles this session already viewed, and records a view of each suggestion.
///
/// # Arguments
/// * `topic` - What the user wants to read about
/// * `session_id` - The reader's session id (the reading history is per session)
/// * `count` - How many articles to suggest
#[tool(
    display_label = "Picking today's reading",
    timeout_ms = 10000,
    side_effects = "write",
    category = "reading",
    version = "1.0.0",
    owner = "demo",
    sla_ms = 300,
    examples = [r#"{"topic": "reliable retries", "session_id": "s1"}"#],
    // Not idempotent on purpose (asking again suggests the next unread article); its only side
    // effects are track_article_view calls, each made with an idempotency key.
    lint_allow = ["TW012"]
)]
pub async fn suggest_daily_reading(
    #[arg(min_length = 1, max_length = 200)] topic: String,
    #[arg(min_length = 1, max_length = 100)] session_id: String,
    #[arg(default = 1, min = 1, max = 5)] count: u32,
    ctx: ToolContext,
    state: State<ArticlesState>,
) -> Result<Outcome, ToolError> {
    let search = ctx
        .call_tool(
            "search_articles_semantic",
            json!({"query": topic, "limit": 20}),
        )
        .await;
    if let Some(e) = search.error() {
        return Err(e.clone());
    }
    let answered_by = search.meta.tool.clone();
    let fallback_note = search
        .meta
        .fallback_from
        .as_ref()
        .map(|from| format!("{from} was unavailable, so {answered_by} found the candidates"));
    let results = search
        .data
        .as_ref()
        .and_then(|d| d.get("results"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let sid = session_id.clone();
    let seen = tokio::task::spawn_blocking(move || state.viewed_articles(&sid))
        .await
        .map_err(toolwright::__private::join_error)??;
    let unread: Vec<Value> = results
        .into_iter()
        .filter(|r| {
            r.get("id")
                .and_then(Value::as_u64)
                .and_then(|id| u32::try_from(id).ok())
                .is_some_and(|id| !seen.contains(&id))
        })
        .collect();
    let skipped = seen.len();
    let date = today();
    let mut picks = Vec::new();
    let mut failures = Vec::new();
    for r in unread.into_iter().take(count as usize) {
        let id = r.get("id").cloned().unwrap_or(Value::Null);
        // One view per article, session and day: repeating today's suggestion does not double count.
        let key = format!("daily-{session_id}-{date}-{id}");
        let tracked = ctx
            .call_tool(
                "track_article_view",
                json!({"article_id": id, "session_id": session_id, "idempotency_key": key}),
            )
            .await;
        match tracked.status() {
            Status::Error => failures.push(tracked.message.clone()),
            _ => picks.push(json!({
                "article": r,
                "view_recorded": true,
                "replayed": tracked.meta.replayed,
            })),
        }
    }
    let mut data = json!({
        "topic": topic,
        "date": date,
        "suggestions": picks,
        "already_read": skipped,
        "search": {"answered_by": answered_by, "fallback": fallback_note},
    });
    if picks_is_empty(&data) && failures.is_empty() {
        let out = Outcome::success(data)
            .with_message(format!(
                "Nothing new on `{topic}`: every matching article was already read in this session."
            ))
            .with_instruction(
                "Tell the user they have read everything on this topic; offer another topic.",
            );
        return Ok(out);
    }
    if !failures.is_empty() {
        if let Some(m) = data.as_object_mut() {
            m.insert("view_errors".into(), json!(failures));
        }
        return Ok(Outcome::partial(
            data,
            "Some suggestions could not be recorded as viewed.",
        ));
    }
    let mut msg = format!("Suggested reading on `{topic}` for {date}.");
    if let Some(note) = fallback_note {
        msg.push_str(&format!(" Note: {note}."));
    }
    Ok(Outcome::success(data).with_message(msg))
}

fn picks_is_empty(data: &Value) -> bool {
    data.get("suggestions")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn state(semantic_index: Option<bool>) -> State<ArticlesState> {
        State(Arc::new(ArticlesState::new(ArticlesConfig {
            semantic_index,
            views_db: None,
        })))
    }

    #[test]
    fn the_corpus_parses_and_has_the_ids_the_docs_use() {
        let s = state(None);
        assert_eq!(s.articles().unwrap().len(), 30);
        assert!(s.find_article(7).is_ok() && s.find_article(8).is_ok());
        assert_eq!(
            s.find_article(99).unwrap_err().code,
            toolwright::ErrorCode::NotFound
        );
    }

    #[test]
    fn keyword_search_matches_words() {
        let out = search_articles_keyword("sqlite backups".into(), 3, state(None)).unwrap();
        assert_eq!(out["method"], "keyword");
        assert_eq!(out["results"][0]["id"], 7);
        let none = search_articles_keyword("zzzz".into(), 3, state(None)).unwrap();
        assert_eq!(none["count"], 0);
    }

    #[test]
    fn semantic_search_matches_word_forms() {
        // "retrying safely with keys" shares no exact title word with article 4's title,
        // but the trigram index relates "keys"/"key" and "retrying"/"retries".
        let out = search_articles_semantic("idempotent retrying keys".into(), 5, state(Some(true)))
            .unwrap();
        let ids: Vec<u64> = out["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_u64().unwrap())
            .collect();
        assert!(ids.contains(&4), "{ids:?}");
    }

    #[test]
    fn a_switched_off_index_is_a_dependency_error_for_that_state_only() {
        let off = search_articles_semantic("retries".into(), 5, state(Some(false))).unwrap_err();
        assert_eq!(off.code, toolwright::ErrorCode::DependencyUnavailable);
        assert!(search_articles_semantic("retries".into(), 5, state(Some(true))).is_ok());
    }

    #[test]
    fn dates_are_civil() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
