//! Topics: what a free-text search or prompt parameter holds.
//!
//! A parameter such as `query`, `q`, `question`, `searchTerm` or `prompt` takes the request's
//! subject, not one of its words. Offered every span of the request, a small model takes a short
//! one, and the short ones are the request's own machinery: `tavily_search {"query": "search"}`
//! for "search the web with tavily for best espresso grinder under $300", `{"query": "2022"}`
//! for "duck duck go it: who won the 2022 world cup". [`topics`] reads the subject from how
//! English marks it, and [`crate::spans::ground_strings`] offers only that (one or two spans):
//! - a question asked of the tool after the request has named it ("ask knowledge base KB9 *what
//!   our SLA for P1 incidents is*");
//! - what follows a topic word: `about`, `regarding`, `mentioning`, `titled`, `related to`,
//!   `to do with`, and `for` after a verb of searching ("search confluence *for* our runbook");
//!   an inner topic after one or two words wins ("articles about *the Tunguska event*");
//! - a request that is a question ("who won the 2022 world cup");
//! - what follows a short heading ending in a colon ("duckduckgo search: *best budget
//!   keyboards*");
//! - the object of the request's first command verb ("look up *the python 3.13 release
//!   notes*"), first for a prompt ("paint *a cyberpunk Tokyo street in the rain*").
//!
//! A topic ends at the end of its clause (`,` `;` `?` `!` `.` `:`, a dash), without closing
//! courtesy (`please`) and without a closing place that only says where to look: a phrase such
//! as "out of kb TPL44ZR2AB" or "on yahoo finance" whose words are identifiers or words of the
//! tool's own text. Requests that quote a text are left to the quote passes.

use crate::cues::name_words;
use std::ops::Range;

/// What a topic parameter is for: the two orders in which [`topics`] tries its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicKind {
    /// A search query or a question: the subject the request asks about.
    Search,
    /// A prompt to generate something (an image, a text): the thing the request describes.
    Prompt,
}

/// Name words of a parameter that takes a search's subject.
const SEARCH_NAMES: &[&str] = &[
    "query", "q", "question", "search", "keyword", "keywords", "topic", "term", "terms",
];

/// Last name words that make a parameter something else than the text (`search_depth`,
/// `query_type`, `topic_id`).
const NOT_TEXT: &[&str] = &[
    "id",
    "ids",
    "type",
    "types",
    "mode",
    "depth",
    "limit",
    "field",
    "fields",
    "filter",
    "filters",
    "options",
    "engine",
    "index",
    "language",
    "lang",
    "url",
    "urls",
    "count",
    "size",
    "page",
    "params",
    "parameters",
    "fuzzy",
    "exact",
    "syntax",
];

/// Description words of a query written in a language (SQL, Cypher, a regex): not a subject.
const LANGUAGES: &[&str] = &[
    "sql",
    "cypher",
    "graphql",
    "statement",
    "statements",
    "expression",
    "regex",
    "regexp",
    "jql",
    "cql",
    "sparql",
    "xpath",
    "jsonpath",
    "lucene",
    "select",
];

/// The kind of topic parameter `name` (documented by `description`) is, or `None` when it is
/// not one: a `query`, `q`, `question`, `searchTerm` or `keywords` that is not written in a
/// query language, or a `prompt`.
pub fn takes_topic(name: &str, description: &str) -> Option<TopicKind> {
    let words = name_words(name);
    let last = words.last()?;
    if NOT_TEXT.contains(&last.as_str()) {
        return None;
    }
    if words.iter().any(|w| w == "prompt") {
        return Some(TopicKind::Prompt);
    }
    if !words.iter().any(|w| SEARCH_NAMES.contains(&w.as_str())) {
        return None;
    }
    let described = description.to_lowercase();
    let has = |list: &[&str]| {
        described
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| list.contains(&w))
    };
    // "either a simple text or a CQL query string" takes a subject too.
    (!has(LANGUAGES) || has(PLAIN)).then_some(TopicKind::Search)
}

/// Description words that say a query in a language may also be plain words.
const PLAIN: &[&str] = &["simple", "plain", "natural", "keyword", "keywords", "free"];

/// Question words that open a question.
const WH: &[&str] = &[
    "what", "who", "which", "when", "where", "why", "how", "whose",
];

/// Words after which the rest of the clause is the topic (longest first).
const TOPIC_MARKERS: &[&[&str]] = &[
    &["having", "to", "do", "with"],
    &["has", "to", "do", "with"],
    &["to", "do", "with"],
    &["on", "the", "topic", "of"],
    &["on", "the", "topic"],
    &["on", "the", "subject", "of"],
    &["related", "to"],
    &["relating", "to"],
    &["about"],
    &["regarding"],
    &["concerning"],
    &["mentioning"],
    &["mention"],
    &["mentions"],
    &["titled"],
    &["entitled"],
];

/// Verbs of searching: after one, `for` opens the topic ("look for", "search X for").
const SEARCH_VERBS: &[&str] = &[
    "search",
    "searching",
    "look",
    "looking",
    "query",
    "check",
    "scan",
    "hunt",
    "browse",
    "seek",
    "dig",
    "ask",
    "google",
    "grep",
    "comb",
    "scour",
    "serach",
    "seach",
];

/// Command verbs whose object is the topic, with the particles that may follow them.
const COMMAND_VERBS: &[&str] = &[
    "search",
    "find",
    "look",
    "get",
    "fetch",
    "pull",
    "show",
    "give",
    "list",
    "create",
    "make",
    "generate",
    "render",
    "draw",
    "paint",
    "produce",
    "design",
    "write",
    "summarise",
    "summarize",
    "explain",
    "investigate",
    "dig",
    "tell",
    "illustrate",
    "sketch",
    "imagine",
    "visualise",
    "visualize",
    "compose",
    "draft",
    "answer",
];

/// Words right after a command verb that are not its object ("look *up*", "draw *me*").
const AFTER_VERB: &[&str] = &[
    "up", "out", "for", "me", "us", "them", "him", "her", "into", "on",
];

/// Courtesy and adverbs of place that close a request and are no part of its topic.
const COURTESY: &[&str] = &[
    "please",
    "pls",
    "plz",
    "thanks",
    "thx",
    "asap",
    "now",
    "anywhere",
    "everywhere",
    "online",
    "again",
];

/// Prepositions of a closing time range ("between 2024-01-01 and 2024-03-31", "since 2022"),
/// which a date parameter takes.
const SPANS_OF_TIME: &[&str] = &["between", "since", "after", "before", "until", "from"];

/// Lowercase words inside a person's or a work's name ("Vincent van Gogh", "Lord of the Rings").
const NAME_PARTICLES: &[&str] = &[
    "van", "von", "de", "da", "del", "der", "den", "di", "du", "la", "le", "y", "bin", "al", "of",
    "the", "and",
];

/// Prepositions of a closing place ("out of kb X", "on yahoo finance", "in my vault").
const PLACES: &[&str] = &[
    "from", "in", "on", "via", "using", "through", "with", "at", "into", "across", "inside",
    "within", "out",
];

/// Place words that say where to look without being the topic.
const PLACE_WORDS: &[&str] = &[
    "the", "my", "our", "your", "a", "an", "of", "its", "their", "this", "that",
];

/// The topics `query` offers a topic parameter of `kind`, best first (at most two, from the
/// first rule that finds one). `own`
/// says whether a word belongs to the tool's own text (its name, its service, its terms).
///
/// ```
/// use toolwright_local::topic::{TopicKind, topics};
/// let own = |w: &str| ["tavily", "web", "search"].contains(&w.to_lowercase().as_str());
/// let q = "search the web with tavily for best espresso grinder under $300, reddit only";
/// assert_eq!(topics(q, TopicKind::Search, own)[0], "best espresso grinder under $300");
/// ```
pub fn topics(query: &str, kind: TopicKind, own: impl Fn(&str) -> bool) -> Vec<String> {
    if !toolwright_catalog::values::quoted_spans(query).is_empty() {
        return Vec::new();
    }
    let words = Words::new(query);
    if words.len() == 0 {
        return Vec::new();
    }
    let start = words.after_heading();
    let rules: [Option<Vec<Range<usize>>>; 5] = match kind {
        TopicKind::Search => [
            words.asked(start).map(|r| vec![r]),
            Some(words.marked(start)),
            words.question(start).map(|r| vec![r]),
            words.headed(start).map(|r| vec![r]),
            words.commanded(start).map(|r| vec![r]),
        ],
        TopicKind::Prompt => [
            words.commanded(start).map(|r| vec![r]),
            words.headed(start).map(|r| vec![r]),
            Some(vec![words.clause_from(start)]),
            None,
            None,
        ],
    };
    // The first rule that finds a topic decides.
    for ranges in rules.into_iter().flatten() {
        let mut out: Vec<String> = Vec::new();
        for t in ranges
            .into_iter()
            .filter_map(|r| words.topic(r, kind, &own))
        {
            if !out.contains(&t) {
                out.push(t);
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    Vec::new()
}

/// The request's words with their clauses.
struct Words<'q> {
    query: &'q str,
    /// Each word's body (see [`crate::spans`]).
    body: Vec<Range<usize>>,
    /// Each word lower-cased.
    lower: Vec<String>,
    /// Whether a clause ends after the word (`,` `;` `?` `!` `.` `:`, or a dash next).
    ends: Vec<bool>,
}

impl<'q> Words<'q> {
    fn new(query: &'q str) -> Self {
        let mut body = Vec::new();
        let mut ends: Vec<bool> = Vec::new();
        for (raw, b) in crate::spans::word_ranges(query) {
            let w = &query[raw.clone()];
            if matches!(w, "-" | "\u{2013}" | "\u{2014}" | "--") {
                if let Some(e) = ends.last_mut() {
                    *e = true;
                }
                continue;
            }
            let tail = &query[b.end..raw.end];
            ends.push(tail.contains([',', ';', '?', '!', '.', ':']) || w.ends_with('\u{2014}'));
            body.push(b);
        }
        let lower = body
            .iter()
            .map(|r| query[r.clone()].to_lowercase())
            .collect();
        let mut words = Words {
            query,
            body,
            lower,
            ends,
        };
        words.keep_names_whole();
        words
    }

    /// An initial's full stop ("Ursula K. Le Guin") and a title's colon between two capitalised
    /// words ("Dune: Part Two") end no clause: they are inside a name.
    fn keep_names_whole(&mut self) {
        for i in 0..self.len().saturating_sub(1) {
            let (Some(b), Some(next)) = (self.body.get(i), self.body.get(i + 1)) else {
                continue;
            };
            let (w, tail) = (
                self.query.get(b.clone()).unwrap_or(""),
                self.query.get(b.end..next.start).unwrap_or("").trim(),
            );
            let capital = |s: &str| s.chars().next().is_some_and(char::is_uppercase);
            let next_word = self.query.get(next.clone()).unwrap_or("");
            let initial = tail == "." && w.chars().count() == 1 && capital(w);
            let titled = tail == ":" && capital(w) && capital(next_word);
            if ((initial && capital(next_word)) || titled)
                && let Some(e) = self.ends.get_mut(i)
            {
                *e = false;
            }
        }
    }

    /// Whether word `i` was written with a possessive `'s`.
    fn possessive(&self, i: usize) -> bool {
        self.body
            .get(i)
            .and_then(|b| self.query.get(b.end..))
            .is_some_and(|t| t.starts_with("'s") || t.starts_with("\u{2019}s"))
    }

    fn len(&self) -> usize {
        self.body.len()
    }

    fn word(&self, i: usize) -> &str {
        self.lower.get(i).map_or("", String::as_str)
    }

    /// The end (exclusive) of the clause holding word `i`.
    fn clause_end(&self, i: usize) -> usize {
        (i..self.len())
            .find(|&j| self.ends.get(j).copied().unwrap_or(true))
            .map_or(self.len(), |j| j + 1)
    }

    /// The start of the clause holding word `i`.
    fn clause_start(&self, i: usize) -> usize {
        (0..i)
            .rev()
            .find(|&j| self.ends.get(j).copied().unwrap_or(false))
            .map_or(0, |j| j + 1)
    }

    fn clause_from(&self, i: usize) -> Range<usize> {
        i..self.clause_end(i)
    }

    /// Where the request starts after a short heading ending in a colon ("tavily search:",
    /// "RAG lookup in AWS KB HR2024KB01:"), or 0.
    fn after_heading(&self) -> usize {
        let colon = (0..self.len().min(6)).find(|&i| {
            let b = self.body.get(i).map_or(0, |r| r.end);
            // A title's colon ("Dune: Part Two") ends no clause, and heads nothing.
            self.ends.get(i).copied().unwrap_or(false)
                && self.query.get(b..).is_some_and(|t| t.starts_with(':'))
        });
        match colon {
            Some(i) if self.len() >= i + 3 => i + 1,
            _ => 0,
        }
    }

    /// A question asked after the request named what to ask ("ask kb X what our SLA is").
    /// `when` and `where` inside a request join clauses more often than they ask ("tell me
    /// when their prices move"), so they ask nothing here.
    fn asked(&self, start: usize) -> Option<Range<usize>> {
        let asks = |w: &str| WH.contains(&w) && !matches!(w, "when" | "where");
        let i = (start + 1..self.len()).find(|&i| asks(self.word(i)))?;
        Some(self.clause_from(i))
    }

    /// A request that is a question: its first clause.
    fn question(&self, start: usize) -> Option<Range<usize>> {
        WH.contains(&self.word(start))
            .then(|| self.clause_from(start))
    }

    /// The request after its heading, when it has one.
    fn headed(&self, start: usize) -> Option<Range<usize>> {
        (start > 0).then(|| self.clause_from(start))
    }

    /// The object of the first command verb.
    fn commanded(&self, start: usize) -> Option<Range<usize>> {
        // "firecrawl's research agent", "the search box": a noun, not a command.
        let noun = |i: usize| {
            i > 0
                && (crate::cues::DETERMINERS.contains(&self.word(i - 1)) || self.possessive(i - 1))
        };
        let v = (start..self.len()).find(|&i| COMMAND_VERBS.contains(&self.word(i)) && !noun(i))?;
        let end = self.clause_end(v);
        let mut o = v + 1;
        while o < end && AFTER_VERB.contains(&self.word(o)) {
            o += 1;
        }
        // "tell me when their prices move": a condition, not an object.
        let condition = matches!(self.word(o), "when" | "where" | "if" | "whenever");
        (o < end && !condition).then_some(o..end)
    }

    /// The length of the topic marker at word `i`, if one starts there. `for` is one after a
    /// verb of searching earlier in its clause.
    fn marker_at(&self, i: usize) -> Option<usize> {
        let fits = |m: &&&[&str]| {
            m.iter()
                .enumerate()
                .all(|(k, w)| self.lower.get(i + k).is_some_and(|x| x == w))
        };
        if let Some(m) = TOPIC_MARKERS.iter().find(fits) {
            return Some(m.len());
        }
        let searched = || (self.clause_start(i)..i).any(|j| SEARCH_VERBS.contains(&self.word(j)));
        (self.word(i) == "for" && searched()).then_some(1)
    }

    /// What follows a topic marker; an inner marker one or two words in wins, and the outer
    /// topic comes second.
    fn marked(&self, start: usize) -> Vec<Range<usize>> {
        let mut i = start;
        let mut found: Vec<Range<usize>> = Vec::new();
        while i < self.len() {
            let Some(m) = self.marker_at(i) else {
                i += 1;
                continue;
            };
            let from = i + m;
            let end = self.clause_end(i);
            match found.last() {
                Some(outer) if outer.end == end && from.saturating_sub(outer.start) <= 2 + m => {
                    found.insert(0, from..end);
                }
                Some(_) => {}
                None => found.push(from..end),
            }
            i = from;
        }
        found.truncate(2);
        found
    }

    /// The text of `range` as a topic: without courtesy or a closing place at its end, and
    /// `None` when nothing but function words or the tool's own words is left. A search's
    /// topic also drops an opening determiner ("our brand colour palette" → "brand colour
    /// palette"): the words a search matches are the others.
    fn topic(
        &self,
        range: Range<usize>,
        kind: TopicKind,
        own: &impl Fn(&str) -> bool,
    ) -> Option<String> {
        let (mut start, mut end) = (range.start, range.end.min(self.len()));
        let opening =
            |w: &str| crate::cues::DETERMINERS.contains(&w) || matches!(w, "some" | "any");
        while kind == TopicKind::Search && end > start + 1 && opening(self.word(start)) {
            start += 1;
        }
        loop {
            while end > start && COURTESY.contains(&self.word(end - 1)) {
                end -= 1;
            }
            match self.closing_place(start, end, own) {
                Some(p) if p > start => end = p,
                _ => break,
            }
        }
        if kind == TopicKind::Search {
            start = self.named_after_kind(start, end, own);
        }
        let content = (start..end).any(|i| {
            let w = self.word(i);
            !crate::cues::is_function_word(w) && !own(w)
        });
        if !content {
            return None;
        }
        let (a, b) = (self.body.get(start)?.start, self.body.get(end - 1)?.end);
        self.query.get(a..b).map(str::to_string)
    }

    /// Where a search's topic starts once the words that only say what kind of thing it names
    /// are dropped: the tool's own words, then `named`, `called` or `by`, before a proper name
    /// or a number that ends the topic ("TV show *Severance*", "candidate named *Priya
    /// Raman*", "books by *Ursula K. Le Guin*", "ISBN *9780593135204*"). A search engine
    /// matches the name; the kind's words would only miss. Otherwise `start`.
    fn named_after_kind(&self, start: usize, end: usize, own: &impl Fn(&str) -> bool) -> usize {
        let mut s = start;
        while s < end && own(self.word(s)) {
            s += 1;
        }
        if s > start && s < end && matches!(self.word(s), "named" | "called" | "by") {
            s += 1;
        }
        let raw = |i: usize| {
            self.body
                .get(i)
                .and_then(|b| self.query.get(b.clone()))
                .unwrap_or("")
        };
        let capital = |i: usize| {
            raw(i)
                .chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        };
        // Lowercase particles inside a name ("Vincent van Gogh", "Gabriel García Márquez").
        let particle = |i: usize| NAME_PARTICLES.contains(&self.word(i));
        let named = s > start
            && s < end
            && capital(s)
            && (s..end).all(|i| capital(i) || (i > s && particle(i)));
        if named { s } else { start }
    }

    /// Where a closing place starts in `start..end`: a preposition whose following words are
    /// all identifiers, place words or the tool's own words.
    /// A closing time range counts too: a preposition of [`SPANS_OF_TIME`] followed by dates or
    /// numbers only.
    fn closing_place(
        &self,
        start: usize,
        end: usize,
        own: &impl Fn(&str) -> bool,
    ) -> Option<usize> {
        let place = |p: usize| {
            PLACES.contains(&self.word(p))
                && (p + 1..end).all(|j| {
                    let w = self.word(j);
                    PLACE_WORDS.contains(&w) || own(w) || identifier(w)
                })
        };
        let time = |p: usize| {
            SPANS_OF_TIME.contains(&self.word(p))
                && (p + 1..end).all(|j| {
                    let w = self.word(j);
                    matches!(w, "and" | "to" | "the") || w.chars().any(|c| c.is_ascii_digit())
                })
        };
        (start + 1..end).rev().find(|&p| {
            (place(p) || time(p)) && (p + 1..end).any(|j| !PLACE_WORDS.contains(&self.word(j)))
        })
    }
}

/// Whether a word is an identifier: letters and digits mixed (`tpl44zr2ab`, `kb7q2zlm`).
fn identifier(w: &str) -> bool {
    w.len() >= 4 && w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(|c| c.is_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(q: &str, own: &[&str]) -> Vec<String> {
        topics(q, TopicKind::Search, |w| {
            own.contains(&w.to_lowercase().as_str())
        })
    }

    #[test]
    fn search_parameters_are_told_from_others() {
        assert_eq!(takes_topic("query", ""), Some(TopicKind::Search));
        assert_eq!(takes_topic("searchTerm", ""), Some(TopicKind::Search));
        assert_eq!(takes_topic("q", "Search query"), Some(TopicKind::Search));
        assert_eq!(
            takes_topic("prompt", "Text description of desired image"),
            Some(TopicKind::Prompt)
        );
        assert_eq!(takes_topic("query", "The SQL query to run"), None);
        assert_eq!(takes_topic("search_depth", ""), None);
        assert_eq!(takes_topic("query_type", ""), None);
        assert_eq!(takes_topic("title", ""), None);
    }

    #[test]
    fn the_topic_follows_its_marker_and_ends_with_its_clause() {
        let own = ["tavily", "web", "search"];
        assert_eq!(
            search(
                "search the web with tavily for best espresso grinder under $300, reddit only",
                &own
            ),
            ["best espresso grinder under $300"]
        );
        assert_eq!(
            search(
                "what do you have stored about kubernetes? search your memory",
                &[]
            ),
            ["kubernetes"]
        );
        assert_eq!(
            search(
                "where in the downloaded 2305.10601 do they mention beam search?",
                &[]
            )[0],
            "beam search"
        );
        // An inner topic one word in wins; the outer one comes second.
        assert_eq!(
            search(
                "search wikipedia for articles about the Tunguska event",
                &["wikipedia"]
            ),
            ["Tunguska event", "articles about the Tunguska event"]
        );
        assert_eq!(
            search("serach notion for anything titled onboarding", &[])[0],
            "onboarding"
        );
        // `for` after a verb that is not one of searching opens no topic.
        assert_eq!(
            search(
                "from our bedrock KB ONBKB0001, fetch the onboarding checklist for new engineers",
                &["kb"]
            ),
            ["onboarding checklist for new engineers"]
        );
    }

    #[test]
    fn questions_headings_and_objects_are_topics() {
        assert_eq!(
            search(
                "ask knowledge base 9TZKQ4WX1R what our SLA for P1 incidents is",
                &[]
            )[0],
            "what our SLA for P1 incidents is"
        );
        assert_eq!(
            search("duck duck go it: who won the 2022 world cup", &[])[0],
            "who won the 2022 world cup"
        );
        assert_eq!(
            search(
                "duckduckgo search: best budget mechanical keyboards 2025",
                &["duckduckgo", "search"]
            )[0],
            "best budget mechanical keyboards 2025"
        );
        assert_eq!(
            search(
                "use ddg to look up the python 3.13 release notes, only 5 results",
                &[]
            )[0],
            "python 3.13 release notes"
        );
        // A closing place that only says where to look goes.
        assert_eq!(
            search(
                "get the 10 most relevant chunks about VPN setup out of kb TPL44ZR2AB",
                &["kb"]
            )[0],
            "VPN setup"
        );
        assert_eq!(
            search("recent news on Intel stock please", &[]),
            Vec::<String>::new(),
            "no marker, no verb: no topic"
        );
    }

    #[test]
    fn when_and_where_join_clauses() {
        let q = "watch competitor.com/pricing and tell me when their prices move";
        assert!(search(q, &[]).is_empty());
    }

    #[test]
    fn closing_time_ranges_and_adverbs_go() {
        assert_eq!(
            search(
                "tavily news about the Boeing 737 MAX door plug between 2024-01-01 and 2024-03-31",
                &[]
            )[0],
            "Boeing 737 MAX door plug"
        );
        assert_eq!(
            search("find contacts that mention Acme anywhere", &[])[0],
            "Acme"
        );
        // A year in the topic stays.
        assert_eq!(
            search(
                "search for articles comparing Postgres and MySQL performance in 2024",
                &[]
            )[0],
            "articles comparing Postgres and MySQL performance in 2024"
        );
        assert_eq!(
            takes_topic("query", "Either a simple text or a CQL query string"),
            Some(TopicKind::Search)
        );
    }

    #[test]
    fn prompts_take_the_described_thing() {
        let prompt = |q: &str| topics(q, TopicKind::Prompt, |_| false);
        assert_eq!(
            prompt("with stable diffusion 3.5 paint a cyberpunk Tokyo street in the rain")[0],
            "a cyberpunk Tokyo street in the rain"
        );
        assert_eq!(
            prompt("draw me a watercolor fox in a snowy forest")[0],
            "a watercolor fox in a snowy forest"
        );
        assert_eq!(
            prompt("EverArt: product shot of a glass perfume bottle on white marble")[0],
            "product shot of a glass perfume bottle on white marble"
        );
        // A verb after a possessive is a noun.
        assert_eq!(
            prompt(
                "have firecrawl's research agent dig up the founders of vector database startups"
            )[0],
            "the founders of vector database startups"
        );
    }

    #[test]
    fn a_name_after_the_words_of_its_kind_is_the_topic() {
        // Set K's Goodreads, CineLens; set L's Ashby (read, 2026-12-07).
        assert_eq!(
            search(
                "search goodreads for books by Ursula K. Le Guin",
                &["goodreads", "books", "search"]
            ),
            ["Ursula K. Le Guin"]
        );
        assert_eq!(
            search("find the movie Dune: Part Two", &["movie", "search"]),
            ["Dune: Part Two"]
        );
        assert_eq!(
            search("find the TV show Severance", &["tv", "show"]),
            ["Severance"]
        );
        assert_eq!(
            search(
                "find the candidate named Priya Raman in Ashby",
                &["candidate", "ashby"]
            ),
            ["Priya Raman"]
        );
        assert_eq!(
            search(
                "look up ISBN 9780593135204 on goodreads",
                &["isbn", "goodreads"]
            ),
            ["9780593135204"]
        );
        // Not a name after the kind's words: the phrase stays whole.
        assert_eq!(
            search("find hotels in Paris", &["hotels"]),
            ["hotels in Paris"]
        );
        assert_eq!(
            search("search issues login bug", &["issues", "search"]),
            ["issues login bug"]
        );
        // A heading's colon still heads.
        assert_eq!(
            search("duckduckgo search: best budget keyboards", &["duckduckgo"]),
            ["best budget keyboards"]
        );
    }

    #[test]
    fn quoted_requests_and_empty_ones_are_left_alone() {
        assert!(search("search my notes for 'kubernetes migration'", &[]).is_empty());
        assert!(search("", &[]).is_empty());
        assert!(search("search for", &[]).is_empty());
        assert!(search("about", &[]).is_empty());
    }
}
