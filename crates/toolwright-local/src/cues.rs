//! Role cues: which of the request's spans a parameter's value is, by the words around it.
//!
//! String grounding ([`crate::spans`]) lets a free-form string parameter take any span of the
//! request, and a small model then often takes the wrong one: `channel_id` gets `slack` in
//! "last 30 messages in slack channel C0ENG42", `path` gets `are` in "what files are in
//! /home/ana/Downloads?". People name what a value is right next to it. Two general cues narrow
//! a parameter's spans when the request holds them, and leave them alone otherwise:
//!
//! - **A name cue** ([`cue_values`]): the request writes the parameter's name word ("channel",
//!   "thread", "project", "branch", "table", from `channel_id`, `thread_ts`, `project_id`,
//!   `branch_name`, `table_name`) and right after it (past at most two linking words such as
//!   `named`, `called`, `with`, `id`) a quoted text, or a word that looks like a value: one with
//!   a digit, with `/ . _ : # @ -` between its characters, or in capitals (`C0ENG42`, `4521`,
//!   `feature/oauth`, `1712345678.123456`, `DOCS`). After `NAME:` the value is the rest of the
//!   request. A word that stands between a determiner and the name word counts too: one that
//!   looks like a value ("the hotfix/1.4 branch"), a proper name ("the Deals table",
//!   [`proper`]) unless the tool's own name or description uses it ("the Slack channel"), or a
//!   plain word that is not a vague one such as `new`, `same` or `whole` ("the cache
//!   namespace"; with two words there, the first: "the shop mongo database"). After a
//!   preposition of place, the plain word right after the name word counts ("in namespace
//!   finance"). A common abbreviation stands for the name word ("db" for `database`, "ns" for
//!   `namespace`). A comma after the name word, or a bracket before the next word, ends its
//!   phrase. Other plain words after the name word ("the player stats of LeBron James") are
//!   never taken: they are as often the start of a longer value as a value.
//! - **A generic name's own word**: a parameter named by one generic word (`key`, `value`,
//!   `id`, `text`) has no name cue; where the request writes that very word right by a value
//!   written as one ("key user:7"), it takes that value, not the span with the word in it.
//! - **An owner/name cue** ([`owner_name`]): a tool with an owner parameter (`owner`, `org`,
//!   `namespace`, ...) and a name parameter (`repo`, `repository`, `name`) takes the two sides
//!   of the request's `owner/name` word (`acme/webapp`), the notation of code hosts, registries
//!   and hubs.
//! - **A container/item cue** ([`container_item`]): a tool with a `database` (or `schema`,
//!   `dataset`, `keyspace`) parameter and a `collection` (or `table`) parameter takes the two
//!   sides of the request's `db.collection` word (`shop.orders`), the dotted notation of
//!   databases; a word ending in a file extension (`data.csv`) is not one.
//! - **An image reference** ([`image_tag`]): a tool with an `image` (or `repository`) parameter
//!   and a `tag` parameter takes the two sides of the request's `name:tag` word (`postgres:16`).
//! - **A renaming's ends** ([`rename_ends`]): a tool with a `new_name` parameter and one for the
//!   current name (`collection_name`) takes the words before and after the "to" of "rename X to
//!   Y".
//! - **A move's ends** ([`move_ends`]): a tool with a pair such as `source_branch` and
//!   `target_branch` (or `head` and `base`) takes the words after "from" and after "to" or
//!   "into".
//! - **A written-form cue** ([`written_as`], [`Written`]): a parameter named as a path, file,
//!   directory or folder takes a word of the request that is written as a path (`/srv/app`,
//!   `src/a.rs`, `notes.txt`), a URL parameter a word written as a URL, a selector parameter a
//!   word written as a CSS selector (`#submit-btn`, `.nav-menu`), a date parameter
//!   ([`written_as_described`]: `expiration_date`, or a `start` described as a date) an ISO
//!   date (`2024-03-01`), when there is one.
//! - **A placed file** ([`placed_files`], [`compose_placed`]): "todo.md in /home/ana" is the
//!   path `/home/ana/todo.md` for a parameter that [`takes_file`].
//!
//! No threshold or word list here was fitted on data; the linking words and the function
//! words are closed English word classes. How often the name cue holds the expected value
//! where it fires, on the dev set and on held-out data, is measured in the eval crate.

use std::ops::Range;

/// Words that are never a value: articles, prepositions, pronouns, auxiliaries, conjunctions
/// and the like (a closed class of English words).
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "my", "your", "our", "their", "his", "her",
    "its", "i", "me", "you", "we", "they", "he", "she", "it", "them", "us", "at", "in", "on", "of",
    "to", "from", "for", "with", "by", "about", "into", "onto", "over", "under", "than", "as",
    "and", "or", "but", "nor", "so", "if", "then", "else", "is", "are", "was", "were", "be",
    "been", "being", "am", "do", "does", "did", "have", "has", "had", "will", "would", "can",
    "could", "should", "shall", "may", "might", "must", "what", "which", "who", "whom", "whose",
    "where", "when", "why", "how", "please", "just", "also", "only", "all", "any", "some", "each",
    "every", "no", "not", "up", "down", "out", "off", "via", "per", "named", "called",
];

/// Whether a lower-case word is a function word (an article, a preposition, a pronoun...).
pub(crate) fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.contains(&word)
}

/// Determiners that may open "the VALUE NAME" ("the hotfix/1.4 branch").
pub(crate) const DETERMINERS: &[&str] = &[
    "the", "a", "an", "my", "our", "your", "this", "that", "their", "his", "her", "its",
];

/// Words of a parameter's name that say what kind of token it is, not what it names
/// (`channel_id` is named by "channel").
const GENERIC: &[&str] = &[
    "id",
    "ids",
    "name",
    "names",
    "key",
    "ts",
    "number",
    "num",
    "no",
    "str",
    "value",
    "text",
    "identifier",
    "slug",
    "uuid",
    // `python_version` is named by "python 3.11", `node_version` by "node 20".
    "version",
];

/// Words that may sit between a name word and its value ("user with id U12", "branch named x").
const LINKING: &[&str] = &[
    "named", "called", "with", "id", "number", "no", "key", "name", "uuid", "guid", "ip", "url",
    "uri", "at", "=", ":", "#",
];

/// Name words of a parameter that take a path (with [`DIRECTORY_WORDS`]).
const PATH_WORDS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filenames",
    "filepath",
];

/// Name words of a parameter that takes a directory's path.
const DIRECTORY_WORDS: &[&str] = &[
    "dir",
    "dirs",
    "directory",
    "directories",
    "dirname",
    "folder",
    "folders",
];

/// Name words of a parameter that take a URL.
const URL_WORDS: &[&str] = &["url", "urls", "uri", "uris", "link", "links", "href"];

/// Common abbreviations of the name words of computing things (short, long): either stands for
/// the other in a request.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("db", "database"),
    ("ns", "namespace"),
    ("repo", "repository"),
    ("dir", "directory"),
    ("env", "environment"),
    ("org", "organization"),
    ("msg", "message"),
    ("doc", "document"),
    ("colour", "color"),
    ("passwd", "password"),
    ("pwd", "password"),
];

/// Words that stand before a name word without naming the thing ("the new table", "the whole
/// cluster", "the same channel"): a plain word there is a value only when it is none of these.
const VAGUE: &[&str] = &[
    "new",
    "old",
    "same",
    "other",
    "another",
    "current",
    "whole",
    "entire",
    "existing",
    "following",
    "previous",
    "next",
    "first",
    "last",
    "newest",
    "latest",
    "oldest",
    "given",
    "specific",
    "particular",
    "right",
    "wrong",
    "correct",
    "empty",
    "certain",
    "different",
    "various",
    "several",
    "many",
    "most",
    "more",
    "less",
    "own",
    "single",
    "relevant",
    "corresponding",
];

/// Prepositions after which a name word and the word following it name a place ("in namespace
/// finance", "from table orders").
const PLACE_PREPOSITIONS: &[&str] = &["in", "on", "from", "into", "under", "within", "inside"];

/// Quotes that open a quoted text.
const QUOTES: &[char] = &['"', '\'', '`', '\u{2018}', '\u{201c}'];

/// Closing quotes.
const QUOTES_CLOSE: &[char] = &['"', '\'', '`', '\u{2019}', '\u{201d}'];

/// The lowercase words of a parameter's name, split at `_`, `-`, `.`, camel case and where
/// digits meet letters (`threadTs` → `thread`, `ts`; `atm_pressure` → `atm`, `pressure`;
/// `side12b` → `side`, `12`, `b`).
pub fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            out.extend((!cur.is_empty()).then(|| std::mem::take(&mut cur)));
            prev_lower = false;
            continue;
        }
        let digits_meet = cur
            .chars()
            .last()
            .is_some_and(|l| l.is_ascii_digit() != c.is_ascii_digit());
        if (c.is_uppercase() && prev_lower) || digits_meet {
            out.extend((!cur.is_empty()).then(|| std::mem::take(&mut cur)));
        }
        prev_lower = c.is_lowercase();
        cur.extend(c.to_lowercase());
    }
    out.extend((!cur.is_empty()).then_some(cur));
    out
}

/// The first pair of `names` whose words differ only in pairs of `words`, the first word of a
/// pair in the first name (`source_branch`/`target_branch` by (`source`, `target`),
/// `from_version`/`to_version` by (`from`, `to`)): the two ends of a move or of a range.
pub fn name_pair(names: &[&str], words: &[(&str, &str)]) -> Option<(String, String)> {
    name_pairs(names, words).into_iter().next()
}

/// Every pair of `names` that [`name_pair`] would find, in the order of `names`
/// (`created_from`/`created_to` and `updated_from`/`updated_to`).
pub fn name_pairs(names: &[&str], words: &[(&str, &str)]) -> Vec<(String, String)> {
    names
        .iter()
        .flat_map(|a| {
            names.iter().filter_map(move |b| {
                let (wa, wb) = (name_words(a), name_words(b));
                let paired = wa.len() == wb.len()
                    && wa != wb
                    && wa
                        .iter()
                        .zip(&wb)
                        .all(|(x, y)| x == y || words.iter().any(|(s, t)| x == s && y == t));
                paired.then(|| (a.to_string(), b.to_string()))
            })
        })
        .collect()
}

/// Name words of a range's two sides (`created_from`/`created_to`, `start_date`/`end_date`).
pub const RANGE_ENDS: &[(&str, &str)] = &[
    ("from", "to"),
    ("start", "end"),
    ("since", "until"),
    ("after", "before"),
];

/// Which side of a range a date is on, as the request marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The range starts at the date ("since", "from", "after").
    Start,
    /// The range ends at the date ("until", "before", "through").
    End,
}

/// Words before a date that make it a range's start.
const START_MARKS: &[&str] = &["since", "from", "after", "starting", "beginning"];

/// Words before a date that make it a range's end.
const END_MARKS: &[&str] = &["until", "till", "before", "through", "thru"];

/// Name words of each side of a range ([`RANGE_ENDS`], and a bound's `min` / `max`).
const START_WORDS: &[&str] = &[
    "from", "start", "since", "after", "begin", "earliest", "min",
];
const END_WORDS: &[&str] = &["to", "end", "until", "before", "latest", "max"];

/// The side of a range that the request's one ISO date is on, when the word before it says
/// ("transactions since 2026-05-01" → [`Side::Start`]); `None` for no date, two dates, or no
/// such word.
///
/// ```
/// use toolwright_local::cues::{Side, date_side};
/// assert_eq!(date_side("shipments created since 2026-06-01"), Some(Side::Start));
/// assert_eq!(date_side("invoices due before 2026-01-31?"), Some(Side::End));
/// assert_eq!(date_side("orders on 2026-01-31"), None);
/// assert_eq!(date_side("from 2026-01-01 to 2026-01-31"), None);
/// ```
pub fn date_side(query: &str) -> Option<Side> {
    let words = tokens(query);
    let dated: Vec<usize> = (0..words.len())
        .filter(|i| {
            words
                .get(*i)
                .and_then(|w| query.get(w.body.clone()))
                .is_some_and(iso_date)
        })
        .collect();
    let [at] = dated.as_slice() else {
        return None;
    };
    let before = at
        .checked_sub(1)
        .and_then(|j| words.get(j))
        .and_then(|w| query.get(w.body.clone()))?
        .to_ascii_lowercase();
    if START_MARKS.contains(&before.as_str()) {
        Some(Side::Start)
    } else if END_MARKS.contains(&before.as_str()) {
        Some(Side::End)
    } else {
        None
    }
}

/// Whether the parameter called `name` is a range's `side` by a word of its name
/// (`created_at_from` is a start, `to_date` an end).
pub fn on_side(name: &str, side: Side) -> bool {
    let words = match side {
        Side::Start => START_WORDS,
        Side::End => END_WORDS,
    };
    name_words(name).iter().any(|w| words.contains(&w.as_str()))
}

/// The calendar dates the request writes the ISO way (`2025-06-01`), in its order; a range
/// written with two dots between its dates (`2026-06-01..2026-06-30`) gives both.
///
/// ```
/// use toolwright_local::cues::iso_dates;
/// assert_eq!(iso_dates("from 2026-06-01 to 2026-06-30"), ["2026-06-01", "2026-06-30"]);
/// assert_eq!(iso_dates("for 2026-06-01..2026-06-30"), ["2026-06-01", "2026-06-30"]);
/// ```
pub fn iso_dates(query: &str) -> Vec<String> {
    tokens(query)
        .iter()
        .filter_map(|w| query.get(w.body.clone()))
        .flat_map(|w| {
            let range = w
                .split_once("..")
                .filter(|(a, b)| iso_date(a) && iso_date(b));
            match range {
                Some((a, b)) => vec![a, b],
                None => vec![w],
            }
        })
        .filter(|w| iso_date(w))
        .map(String::from)
        .collect()
}

/// Whether a word of the request looks like a value rather than an English word: it holds a
/// digit, or one of `/ . _ : # @ -` between two of its characters, or it is written in capitals
/// (three letters or more, `DOCS`, `ENG`: a key; not a kind of value such as `UUID`), or a
/// capital follows a lower-case letter inside it (`fldBudget`, `userId`).
pub fn value_like(word: &str) -> bool {
    let w = word.trim_matches('.');
    let inner = inner_marked(w);
    let upper = w.chars().filter(char::is_ascii_alphabetic).count() >= 3
        && w.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !LINKING.contains(&w.to_ascii_lowercase().as_str());
    let camel = w
        .as_bytes()
        .windows(2)
        .any(|p| matches!(p, [a, b] if a.is_ascii_lowercase() && b.is_ascii_uppercase()));
    inner || upper || camel || handle(w).is_some() || w.chars().any(|c| c.is_ascii_digit())
}

/// How a word is written as a handle: `#` and a name for a channel (`#deploys`), `@` and a name
/// for a user (`@h.tanaka`); not an e-mail address, not `#12`.
///
/// ```
/// use toolwright_local::cues::handle;
/// assert_eq!(handle("#deploys"), Some('#'));
/// assert_eq!(handle("@h.tanaka"), Some('@'));
/// assert_eq!(handle("#12"), None);
/// assert_eq!(handle("ana@acme.com"), None);
/// ```
pub fn handle(word: &str) -> Option<char> {
    let mut cs = word.chars();
    let mark = cs.next().filter(|c| matches!(c, '#' | '@'))?;
    let rest = cs.as_str();
    let named = rest.chars().next().is_some_and(char::is_alphabetic)
        && rest
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !rest.ends_with(['.', '-']);
    named.then_some(mark)
}

/// The last words of the names of parameters that take a handle ([`handle`]): a channel or
/// room takes `#name` (and `@name`, a direct channel), a user `@name`.
const HANDLE_TAKERS: [(&str, &[char]); 7] = [
    ("channel", &['#', '@']),
    ("room", &['#', '@']),
    ("user", &['@']),
    ("username", &['@']),
    ("recipient", &['@']),
    ("handle", &['@']),
    ("mention", &['@']),
];

/// The handles the request writes that parameter `name` takes ([`HANDLE_TAKERS`]), as written
/// (`#deploys`, `@h.tanaka`), in its order.
fn handles_for(name: &str, query: &str) -> Vec<String> {
    let last = name_words(name)
        .into_iter()
        .rev()
        .find(|w| w != "id" && w != "name");
    let Some(marks) =
        last.and_then(|l| HANDLE_TAKERS.iter().find(|(w, _)| *w == l).map(|(_, m)| *m))
    else {
        return Vec::new();
    };
    let quoted = toolwright_catalog::values::quoted_spans(query);
    tokens(query)
        .iter()
        .filter(|w| {
            !quoted
                .iter()
                .any(|q| q.start <= w.body.start && w.body.end <= q.end)
        })
        .filter_map(|w| query.get(w.body.clone()))
        .filter(|w| handle(w).is_some_and(|m| marks.contains(&m)))
        .map(String::from)
        .collect()
}

/// Whether a word is written as a proper name: a capital letter, then lower-case letters only
/// (`Deals`, `Projects`; not `DOCS`, not `iPhone`). In "the Deals table" it names the table;
/// a proper name that a tool's own text uses is its service or one of its own terms ("the
/// Slack channel"), which [`crate::spans::ground_strings`] drops.
pub fn proper(word: &str) -> bool {
    let mut cs = word.chars();
    cs.next().is_some_and(|c| c.is_ascii_uppercase())
        && word.chars().count() > 1
        && cs.all(|c| c.is_ascii_lowercase())
}

/// Whether a word is written as a path: it holds `/` or `\`, or ends in a file extension with
/// a letter after a name of two characters or more, or none (`notes.txt`, `.env`; not `e.g`);
/// not a URL, not an address.
pub fn path_like(word: &str) -> bool {
    if word.contains("://") || word.contains('@') {
        return false;
    }
    if word.contains(['/', '\\']) {
        return true;
    }
    word.rsplit_once('.').is_some_and(|(stem, ext)| {
        stem.chars().count() != 1
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// How a parameter's value is written, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// A path (a name word `path`, `file`, `dir`, `folder`, ...): see [`path_like`].
    Path,
    /// A URL (`url`, `uri`, `link`, `href`): `scheme://…` or `www.…`.
    Url,
    /// A CSS selector (`selector`): see [`selector_like`].
    Selector,
    /// An e-mail address (`email`, `mail`): one `@` with a dotted domain after it.
    Email,
    /// A calendar date written the ISO way (`2024-03-01`, `2024-03-01T09:00:00Z`): a parameter
    /// named as a date (`date`, `deadline`, `expiration`, ...), or as a range's side (`start`,
    /// `end`, `since`, `until`, `after`, ...) whose description or format says date (`start`,
    /// `end`, `since` and `until` also with no description at all).
    Date,
}

impl Written {
    /// Whether `word` is written this way.
    pub fn fits(self, word: &str) -> bool {
        match self {
            Written::Path => path_like(word),
            Written::Url => word.contains("://") || word.starts_with("www."),
            Written::Selector => selector_like(word),
            Written::Email => email_like(word),
            Written::Date => iso_date(word),
        }
    }

    /// How many words of `query` are written this way.
    pub fn count_in(self, query: &str) -> usize {
        tokens(query)
            .iter()
            .filter(|w| query.get(w.body.clone()).is_some_and(|t| self.fits(t)))
            .count()
    }
}

/// Whether a word is written as an e-mail address: one `@` between a local part and a domain
/// with a dot inside it (`jordan.blake@example.com`).
pub fn email_like(word: &str) -> bool {
    match word.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain
                    .trim_end_matches('.')
                    .split_once('.')
                    .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty())
                && !word.contains("://")
        }
        None => false,
    }
}

/// Whether a word is written as a CSS selector: `#id` or `.class`, an attribute test
/// (`input[name=email]`), or a tag with a class or id (`button.accept-cookies`).
pub fn selector_like(word: &str) -> bool {
    let mut cs = word.chars();
    let first = cs.next();
    let second = cs.next();
    let opens = matches!(first, Some('#' | '.')) && second.is_some_and(char::is_alphabetic);
    let attribute = word.contains('[') && word.ends_with(']');
    let tagged = word.char_indices().any(|(i, c)| {
        matches!(c, '.' | '#')
            && i > 0
            && word
                .get(..i)
                .is_some_and(|t| t.chars().all(|c| c.is_ascii_lowercase()))
            && word
                .get(i + 1..)
                .is_some_and(|r| r.starts_with(char::is_alphabetic))
    }) && !path_like(word);
    opens || attribute || tagged
}

/// How the parameter called `name` is written ([`Written`]), when its name says so.
pub fn written_as(name: &str) -> Option<Written> {
    let ws = name_words(name);
    let has = |set: &[&str]| ws.iter().any(|w| set.contains(&w.as_str()));
    if has(PATH_WORDS) || has(DIRECTORY_WORDS) {
        Some(Written::Path)
    } else if has(URL_WORDS) {
        Some(Written::Url)
    } else if has(&["selector", "selectors"]) {
        Some(Written::Selector)
    } else if has(&["email", "emails", "mail"]) {
        Some(Written::Email)
    } else {
        None
    }
}

/// Name words that say a parameter holds a date.
const DATE_WORDS: &[&str] = &[
    "date",
    "dates",
    "deadline",
    "expiration",
    "expiry",
    "birthday",
];

/// Name words of a range's side or a moment, a date when the description or format says so.
const DATE_SIDES: &[&str] = &[
    "start", "end", "since", "until", "from", "to", "after", "before", "begin", "earliest",
    "latest", "due", "min", "max",
];

/// Of [`DATE_SIDES`], those that are a date also with no description at all (`start`, `end`).
const TIME_SIDES: &[&str] = &["start", "end", "since", "until"];

/// How the parameter called `name`, described by `described` (its description, and its
/// `format` when it has one), is written: [`written_as`] by the name, else an e-mail address
/// for `cc` and `bcc` and where the description says e-mail address, else a date
/// ([`Written::Date`]) when the name is a date's (`due_date`, `expiry`), a range's side that the
/// description calls a date (`start`: "Start date"), or the description writes out the date
/// format (`YYYY-MM-DD`).
///
/// ```
/// use toolwright_local::cues::{Written, written_as_described};
/// assert_eq!(written_as_described("expiration_date", ""), Some(Written::Date));
/// assert_eq!(written_as_described("start", "Start date, YYYY-MM-DD"), Some(Written::Date));
/// assert_eq!(written_as_described("created_at_from", ""), Some(Written::Date));
/// assert_eq!(written_as_described("start", "First line to read"), None);
/// assert_eq!(written_as_described("end", ""), Some(Written::Date));
/// assert_eq!(written_as_described("starting_after", "A cursor for pagination"), None);
/// assert_eq!(written_as_described("checkin", "Check-in date (YYYY-MM-DD)"), Some(Written::Date));
/// assert_eq!(written_as_described("to", "List of recipient email addresses"), Some(Written::Email));
/// assert_eq!(written_as_described("bcc", ""), Some(Written::Email));
/// assert_eq!(written_as_described("body", "Email body content"), None);
/// assert_eq!(written_as_described("To", "The recipient's phone number"), None);
/// ```
pub fn written_as_described(name: &str, described: &str) -> Option<Written> {
    written_as(name).or_else(|| {
        let ws = name_words(name);
        let has = |set: &[&str]| ws.iter().any(|w| set.contains(&w.as_str()));
        let d = described.to_lowercase();
        // Copies and addresses of a message, or a description that says e-mail address ("List
        // of recipient email addresses" for `to`; not "Email body content").
        let email = (d.contains("email") || d.contains("e-mail"))
            && (d.contains("address") || has(&["to", "from", "recipient", "recipients"]));
        if has(&["cc", "bcc"]) || email {
            return Some(Written::Email);
        }
        let says_date = d
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "date" | "datetime" | "yyyy"));
        let bare = d.trim().is_empty() && has(TIME_SIDES);
        // A date format written out says it whatever the name ("checkin": "Check-in date
        // (YYYY-MM-DD)").
        let format = d.contains("yyyy-mm-dd");
        // A moment something happened, by the name's `at` after its first word (`created_at`,
        // `label_paid_at_from`).
        let moment = ws.iter().skip(1).any(|w| w == "at");
        (has(DATE_WORDS) || (has(DATE_SIDES) && says_date) || bare || format || moment)
            .then_some(Written::Date)
    })
}

/// Whether a word is an ISO calendar date, with or without a time after it (`2024-03-01`,
/// `2024-03-01T09:00:00Z`).
fn iso_date(word: &str) -> bool {
    let b = word.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && (b.len() == 10 || matches!(b.get(10), Some(b'T' | b't' | b' ')))
}

/// A word of the request: where it stands as written and its body without the quotes,
/// brackets and final punctuation around it.
struct Word {
    raw: Range<usize>,
    body: Range<usize>,
}

/// The request's words (see [`crate::spans`]: the same cut).
fn tokens(query: &str) -> Vec<Word> {
    crate::spans::word_ranges(query)
        .into_iter()
        .map(|(raw, body)| Word { raw, body })
        .collect()
}

/// The name word a cue looks for: the one word of the parameter's name that is not generic
/// (`channel_id` → `channel`), or the word before a last word that only says how the value is
/// written (`repo_path` → `repo`: "in the repo at /srv/shop"), or the two words of a two-word
/// name as a phrase (`commit_message` → `commit message`, `source_branch` → `source branch`:
/// both must be written, in that order), or `None` (`name`, `file_path`, three words or more).
/// A name word without an id or name suffix glued to it in one lower-case word (`hostids` →
/// `host`, `eventid` → `event`, `username` → `user`); other words as they are.
fn unglued(w: String) -> String {
    ["ids", "id", "name"]
        .iter()
        .find_map(|s| w.strip_suffix(s).filter(|h| h.chars().count() >= 4))
        .map(String::from)
        .unwrap_or(w)
}

fn cue_word(param: &str) -> Option<String> {
    let ws: Vec<String> = name_words(param)
        .into_iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .map(unglued)
        .collect();
    let form =
        |w: &str| PATH_WORDS.contains(&w) || DIRECTORY_WORDS.contains(&w) || URL_WORDS.contains(&w);
    let word = |w: &String| !FUNCTION_WORDS.contains(&w.as_str()) && w.chars().count() > 1;
    match ws.as_slice() {
        [w] => word(w).then(|| w.clone()),
        [w, last] if form(last) && !form(w) => word(w).then(|| w.clone()),
        // Two words name the value only together: "commit message 'docs: install steps'".
        [w, last] if !form(w) && word(w) && word(last) => Some(format!("{w} {last}")),
        _ => None,
    }
}

/// Whether the request's word `w` is the name word `cue` (or its plural, or singular, or its
/// common abbreviation: "db" for `database`, "ns" for `namespace`, "repository" for `repo`).
fn names(w: &str, cue: &str) -> bool {
    let w = w.to_lowercase();
    let same =
        |w: &str| w == cue || w.strip_suffix('s') == Some(cue) || cue.strip_suffix('s') == Some(w);
    same(&w)
        || ABBREVIATIONS
            .iter()
            .any(|(short, long)| (w == *short && same(long)) || (w == *long && same(short)))
}

/// The values the request gives the parameter called `param` by naming it (see the module
/// docs), with the parts of a value joined by `/` or `#` (`acme/webapp` → `acme`, `webapp`);
/// `None` when the request names no value for it.
///
/// ```
/// use toolwright_local::cues::cue_values;
/// let v = cue_values("channel_id", "last 30 messages in slack channel C0ENG42").unwrap();
/// assert_eq!(v, ["C0ENG42"]);
/// let v = cue_values("topic", "deep research on the topic 'quantum batteries'").unwrap();
/// assert_eq!(v, ["quantum batteries"]);
/// assert!(cue_values("player_name", "the player stats of LeBron James").is_none());
/// // A glued name suffix: "user 'mlopez'" for `username`.
/// let v = cue_values("username", "create zabbix user 'mlopez' with password 'x'").unwrap();
/// assert_eq!(v, ["mlopez"]);
/// ```
pub fn cue_values(param: &str, query: &str) -> Option<Vec<String>> {
    values_named_by(&cue_word(param)?, query)
}

/// The value-like words and quoted texts the request names by any of `cues` (see
/// [`cue_values`] for how a word names a value; plain words are left out): what keeps an
/// optional parameter in the schema ([`crate::narrow::narrow_for_query`]).
pub(crate) fn strong_values_named_by(cues: &[String], query: &str) -> Vec<String> {
    let mut out: Vec<String> = cues
        .iter()
        .filter_map(|c| values_named_by(c, query))
        .flatten()
        .filter(|v| value_like(v) || v.contains(' '))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The words that may name an optional parameter's value in a request: the last word of its
/// name that is not generic, the head of the phrase (`group` of `apiGroup`, `parent` of
/// `target_parent_id`; not `page` of `page_size`, which only says whose size); and when the name
/// says only what kind of token it holds (`name`, `key`) or is an abbreviation of three letters
/// or fewer (`ref`), the words of its description's first clause, at most eight, that are not
/// function words or verbs of an action ("Branch/tag/commit to get contents from" → `branch`,
/// `tag`, `commit`, `contents`; "Name of the context to set" → `context`).
pub(crate) fn cue_words(param: &str, description: &str) -> Vec<String> {
    let keep = |w: &String| {
        w.chars().count() > 2
            && !GENERIC.contains(&w.as_str())
            && !FUNCTION_WORDS.contains(&w.as_str())
            && toolwright_catalog::text::action(std::slice::from_ref(w)).is_none()
    };
    let head = name_words(param)
        .into_iter()
        .rfind(|w| !GENERIC.contains(&w.as_str()))
        .map(unglued);
    let mut out: Vec<String> = head.iter().filter(|w| keep(w)).cloned().collect();
    if head.as_ref().is_none_or(|w| w.chars().count() <= 3) {
        let clause = description
            .split(['.', ';', '(', ',', ':', '\n'])
            .next()
            .unwrap_or("");
        out.extend(
            clause
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .take(8)
                .map(str::to_lowercase)
                .filter(|w| keep(w)),
        );
    }
    out.sort();
    out.dedup();
    out
}

/// The name words of the thing a parameter named only `name` (or `title`) names, its cues: the
/// object its tool makes or changes (`label` of `add_label`, `section` of `add_section`: "new
/// label waiting-on", "add a Waiting section"), then the thing its description says it is the
/// name of ("The title of the Wikipedia article": "wikipedia's Japan article").
fn object_cue(param: Param<'_>, query: &str) -> Vec<String> {
    let bare = matches!(name_words(param.name).as_slice(), [w] if w == "name" || w == "title");
    // "rename table tblQ3Goals to 'Q3 OKRs'": after the object's word stands the old name.
    if !bare || crate::narrow::renames(query, param.name) {
        return Vec::new();
    }
    let from_tool = toolwright_catalog::text::name_object(param.tool)
        .and_then(|(_, object)| object.last().cloned());
    [
        from_tool,
        described_object(param.description),
        acted_on(param.tool, param.tool_description),
    ]
    .into_iter()
    .flatten()
    .filter(|h| h.chars().count() > 1 && !FUNCTION_WORDS.contains(&h.as_str()))
    .collect()
}

/// The thing a tool's description says it acts on: in the first phrase after a preposition and
/// an article (at most three words, ended by punctuation, a function word, or a word in `-ed`
/// or `-ing` after the first), the last word the tool's name also uses, else the phrase's last
/// word ("Extract key facts from a Wikipedia article, ..." → `article`; "Get a summary of a
/// Wikipedia article tailored to a query" → `article`).
fn acted_on(tool: &str, description: &str) -> Option<String> {
    let lower = description.to_lowercase();
    let ws: Vec<&str> = lower.split_whitespace().collect();
    let at = ws.windows(2).position(|p| {
        matches!(p, [prep, article]
            if matches!(*prep, "of" | "from" | "in" | "for" | "to" | "on")
                && matches!(*article, "a" | "an" | "the"))
    })?;
    let mut phrase: Vec<String> = Vec::new();
    for w in ws.get(at + 2..)?.iter().take(3) {
        let bare = w.trim_end_matches(|c: char| !c.is_alphanumeric());
        let participle = !phrase.is_empty() && (bare.ends_with("ed") || bare.ends_with("ing"));
        if bare.is_empty()
            || participle
            || FUNCTION_WORDS.contains(&bare)
            || !bare.chars().all(|c| c.is_alphanumeric() || c == '-')
        {
            break;
        }
        phrase.push(bare.to_string());
        if bare.len() < w.len() {
            break;
        }
    }
    let named = name_words(tool);
    phrase
        .iter()
        .rev()
        .find(|w| named.contains(w))
        .or(phrase.last())
        .cloned()
}

fn described_object(description: &str) -> Option<String> {
    let lower = description.to_lowercase();
    let ws: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let at = ws
        .windows(2)
        .position(|p| matches!(p, ["name" | "title", "of"]))?;
    let rest = ws.get(at + 2..)?;
    let rest = match rest.first() {
        Some(&("the" | "a" | "an")) => rest.get(1..)?,
        _ => rest,
    };
    let phrase: Vec<&&str> = rest
        .iter()
        .take_while(|w| !FUNCTION_WORDS.contains(w))
        .take(3)
        .collect();
    phrase.last().map(|w| w.to_string())
}

/// The values the request names by the word `cue` (see [`cue_values`]).
fn values_named_by(cue: &str, query: &str) -> Option<Vec<String>> {
    let cue = cue.to_string();
    let ws = tokens(query);
    let quoted = toolwright_catalog::values::quoted_spans(query);
    let text = |w: &Word| query.get(w.body.clone()).unwrap_or("");
    let lower = |w: &Word| text(w).to_lowercase();
    let plain = |w: &Word| FUNCTION_WORDS.contains(&lower(w).as_str());
    // A number with a unit after it is a quantity, not the thing's name ("my Gym calendar
    // within 12 hours").
    let quantity = |w: &Word| {
        text(w).parse::<f64>().is_ok()
            && ws
                .iter()
                .find(|n| n.body.start >= w.body.end)
                .is_some_and(|n| crate::units::is_unit(text(n)))
    };
    // A phrase cue ("commit message") is met where its last word is written right after the
    // others; the rules below read what follows its last word and what precedes its first.
    let parts: Vec<&str> = cue.split(' ').collect();
    let lead = parts.len() - 1;
    let mut out: Vec<String> = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let met = i >= lead
            && parts
                .iter()
                .enumerate()
                .all(|(k, part)| ws.get(i - lead + k).is_some_and(|p| names(text(p), part)));
        if !met {
            continue;
        }
        let start = i - lead;
        // Past at most two linking words.
        let mut j = i + 1;
        while j <= i + 2
            && ws
                .get(j)
                .is_some_and(|n| LINKING.contains(&lower(n).as_str()))
        {
            j += 1;
        }
        // A quoted text right there (checked on the raw word, before any linking word).
        let quote = [i + 1, j]
            .into_iter()
            .find_map(|k| quoted_at(query, &quoted, ws.get(k)?));
        if let Some(q) = quote {
            out.push(q);
            continue;
        }
        // `NAME: the rest`: the whole rest of the request, without its final punctuation;
        // unless the name already has its value before it ("the analytics database: data
        // size, object count" names `analytics`; the rules below find it).
        let named_before = start >= 2
            && ws
                .get(start - 2)
                .is_some_and(|d| DETERMINERS.contains(&lower(d).as_str()))
            && ws.get(start - 1).is_some_and(|b| !plain(b));
        if !named_before && query.get(w.raw.clone()).is_some_and(|r| r.ends_with(':')) {
            let rest = ws.get(i + 1..).unwrap_or(&[]);
            if let (Some(first), Some(last)) = (rest.first(), rest.last()) {
                out.extend(query.get(first.body.start..last.body.end).map(String::from));
                continue;
            }
        }
        // A comma after the name word, or a bracket before the next, ends its phrase: in
        // "the Deals table, base appCRM0001" the id is the base's.
        let closed = query
            .get(w.raw.clone())
            .is_some_and(|r| r.ends_with([',', ';']));
        let next = [j, j + 1]
            .into_iter()
            .filter_map(|k| ws.get(k))
            .take_while(|n| !plain(n) && !closed)
            .take_while(|n| {
                query
                    .get(n.raw.clone())
                    .is_none_or(|r| !r.starts_with(['(', '[']))
            })
            .find(|n| value_like(text(n)) && !quantity(n));
        if let Some(n) = next {
            out.push(text(n).to_string());
            continue;
        }
        // A plain word names the thing only where English puts a name: "the cache namespace",
        // "the shop mongo database" (both words offered), "in ns finance".
        let named = |n: &Word| {
            !plain(n)
                && !VAGUE.contains(&lower(n).as_str())
                && text(n)
                    .chars()
                    .all(|c| c.is_alphanumeric() || "-_.".contains(c))
                && query
                    .get(n.raw.clone())
                    .is_none_or(|r| !r.ends_with([',', ';', ':', ')', ']', '?', '!']))
        };
        let after_place = start
            .checked_sub(1)
            .and_then(|k| ws.get(k))
            .is_some_and(|p| PLACE_PREPOSITIONS.contains(&lower(p).as_str()));
        let after = ws.get(j).filter(|n| {
            after_place
                && !closed
                && named(n)
                && query
                    .get(n.raw.clone())
                    .is_some_and(|r| !r.starts_with(QUOTES))
        });
        if let Some(n) = after {
            out.push(text(n).to_string());
            continue;
        }
        // "the VALUE NAME", "the VALUE KIND NAME"
        // A possessive is a determiner too ("wikipedia's Japan article").
        let det = |k: usize| {
            ws.get(k).is_some_and(|d| {
                DETERMINERS.contains(&lower(d).as_str())
                    || query
                        .get(d.raw.clone())
                        .map(|r| r.trim_end_matches([',', '.', ';', ':', '!', '?']))
                        .is_some_and(|r| r.ends_with("'s") || r.ends_with("\u{2019}s"))
            })
        };
        let takes = |b: &Word| !plain(b) && (value_like(text(b)) || proper(text(b)) || named(b));
        let before = match start {
            i if i >= 2 && det(i - 2) => ws.get(i - 1),
            // The second word classifies ("mongo database", "helm release"): the first names,
            // unless only the second is written as a value ("the newest grafana/grafana chart").
            i if i >= 3 && det(i - 3) && ws.get(i - 1).is_some_and(takes) => {
                let like = |k: usize| ws.get(k).is_some_and(|w| value_like(text(w)));
                if like(i - 1) && !like(i - 2) {
                    ws.get(i - 1)
                } else {
                    ws.get(i - 2)
                }
            }
            _ => None,
        };
        if let Some(b) = before.filter(|b| takes(b)) {
            out.push(text(b).to_string());
        }
    }
    with_their_parts(out)
}

/// The text quoted from word `n` on, when `n` opens a quote: its inside, trimmed, if any.
fn quoted_at(query: &str, quoted: &[std::ops::Range<usize>], n: &Word) -> Option<String> {
    let starts = query.get(n.raw.clone())?.starts_with(QUOTES);
    let r = quoted
        .iter()
        .find(|r| r.start == n.raw.start)
        .filter(|_| starts)?;
    let inner = query.get(r.start + 1..r.end.saturating_sub(1))?.trim();
    (!inner.is_empty()).then(|| inner.to_string())
}

/// Each value followed by its parts ([`crate::spans::push_parts`]), each once; `None` when
/// there are none.
fn with_their_parts(values: Vec<String>) -> Option<Vec<String>> {
    let mut all = Vec::new();
    for v in values {
        let mut parts = Vec::new();
        crate::spans::push_parts(&v, &mut parts);
        all.push(v);
        all.extend(parts);
    }
    let mut seen = std::collections::HashSet::new();
    all.retain(|v| seen.insert(v.clone()));
    (!all.is_empty()).then_some(all)
}

/// What the request says a thing is called, with the word for the thing: the quoted text, or
/// the words (at most four, up to punctuation or a function word; an identifier ends them)
/// after its one "called", "named", "titled" or "entitled", and the word before that ("a new
/// project called Kitchen remodel, colour berry_red" → `project`, `Kitchen remodel`); or,
/// without those, after a verb that names a thing and the thing ("call the export 'webinar
/// leads'", "label the connection reporting", "name the file notes.md": one "call", "name",
/// "title" or "label", then "the", "a", "my" or "our", the thing's word, and the name); `None`
/// when there is no such word, or more than one.
///
/// ```
/// use toolwright_local::cues::called;
/// let q = "make a new todoist project called Kitchen remodel, colour berry_red";
/// assert_eq!(called(q).unwrap(), ("project".to_string(), "Kitchen remodel".to_string()));
/// assert_eq!(called("a page titled 'Q3 plan' in the wiki").unwrap().1, "Q3 plan");
/// assert!(called("a board named after my dog").is_none());
/// assert_eq!(called("a branch called fix/cache based on main").unwrap().1, "fix/cache");
/// let q = "dump crm.leads into a file, call the export 'webinar leads'";
/// assert_eq!(called(q).unwrap(), ("export".to_string(), "webinar leads".to_string()));
/// let q = "connect to mongodb://db:27017/x and label the connection reporting";
/// assert_eq!(called(q).unwrap(), ("connection".to_string(), "reporting".to_string()));
/// assert!(called("call the customers_old collection customers_archive").is_none());
/// ```
pub fn called(query: &str) -> Option<(String, String)> {
    let ws = tokens(query);
    let text = |w: &Word| query.get(w.body.clone()).unwrap_or("");
    let cue = |w: &Word| {
        matches!(
            text(w).to_lowercase().as_str(),
            "called" | "named" | "titled" | "entitled"
        )
    };
    let at: Vec<usize> = (0..ws.len())
        .filter(|&i| ws.get(i).is_some_and(cue))
        .collect();
    let (thing, first) = match at.as_slice() {
        [i] => (
            ws.get(i.checked_sub(1)?).map(|w| text(w).to_lowercase())?,
            i + 1,
        ),
        [] => naming_verb(query, &ws)?,
        _ => return None,
    };
    let value = name_from(query, &ws, first)?;
    Some((thing, value))
}

/// Verbs that give a thing its name, imperatively ("call the export 'webinar leads'").
const NAMING_VERBS: &[&str] = &["call", "name", "title", "label"];

/// For [`called`]: the thing's word and where its name starts, after the request's one naming
/// verb, a determiner and a plain word for the thing.
fn naming_verb(query: &str, ws: &[Word]) -> Option<(String, usize)> {
    let text = |w: &Word| query.get(w.body.clone()).unwrap_or("");
    let at: Vec<usize> = (0..ws.len())
        .filter(|&i| {
            ws.get(i).is_some_and(|w| NAMING_VERBS.contains(&text(w)))
                && ws.get(i + 1).is_some_and(|d| {
                    matches!(text(d).to_lowercase().as_str(), "the" | "a" | "my" | "our")
                })
        })
        .collect();
    let [i] = at.as_slice() else {
        return None;
    };
    let thing = ws.get(i + 2).map(text)?;
    let plain = thing.chars().all(|c| c.is_ascii_lowercase()) && !is_function_word(thing);
    (plain && ws.get(i + 3).is_some()).then(|| (thing.to_string(), i + 3))
}

/// The name that starts at word `first` of `query` (see [`called`]): a quoted text, or up to
/// four words.
fn name_from(query: &str, ws: &[Word], first: usize) -> Option<String> {
    let text = |w: &Word| query.get(w.body.clone()).unwrap_or("");
    let first_word = ws.get(first)?;
    let quoted = toolwright_catalog::values::quoted_spans(query);
    if let Some(r) = quoted.iter().find(|r| r.start == first_word.raw.start) {
        let inner = query.get(r.start + 1..r.end.saturating_sub(1))?.trim();
        return (!inner.is_empty()).then(|| inner.to_string());
    }
    let mut last: Option<&Word> = None;
    for w in ws.get(first..)?.iter().take(4) {
        let lower = text(w).to_lowercase();
        if FUNCTION_WORDS.contains(&lower.as_str()) || lower == "after" {
            break;
        }
        // An identifier is a whole name: "a branch called experiment/cache based on develop".
        if last.is_some_and(|l| inner_marked(text(l))) && lower == text(w) {
            break;
        }
        last = Some(w);
        if query
            .get(w.raw.clone())
            .is_some_and(|r| r.ends_with([',', ';', ':', '.', '!', '?', ')']))
        {
            break;
        }
    }
    query
        .get(first_word.body.start..last?.body.end)
        .map(String::from)
}

/// Whether `word` is written as an identifier, with one of `/ . _ : # @ -` between two of its
/// characters (`experiment/cache`, `v1.4.0`, `app-settings`).
fn inner_marked(word: &str) -> bool {
    let w = word.trim_matches('.');
    w.char_indices().any(|(i, c)| {
        matches!(c, '/' | '.' | '_' | ':' | '#' | '@' | '-') && i > 0 && i + c.len_utf8() < w.len()
    })
}

/// A parameter a cue may point at: its name, its description, and the names of its tool's
/// parameters (itself among them).
#[derive(Debug, Clone, Copy)]
pub struct Param<'a> {
    /// The parameter's name.
    pub name: &'a str,
    /// Its description (empty when it has none).
    pub description: &'a str,
    /// The names of every parameter of its tool.
    pub siblings: &'a [&'a str],
    /// Its tool's name (empty when unknown).
    pub tool: &'a str,
    /// Its tool's description (empty when unknown).
    pub tool_description: &'a str,
}

impl<'a> Param<'a> {
    /// A parameter known by its name alone.
    pub fn named(name: &'a str) -> Self {
        Param {
            name,
            description: "",
            siblings: &[],
            tool: "",
            tool_description: "",
        }
    }
}

/// The values of `spans` a parameter should take by the request's cues: the values its name
/// cue gives (whatever their length, as long as `fits` admits their length), else, for a
/// parameter named only `id` (or `uuid`), the whole words written as identifiers (`mon_123`,
/// `3b1d-77aa`), else, for a parameter that [`holds_identifier`], the identifiers
/// [`identifiers_for`] it, else, for a path or URL parameter, the spans written as one (whole
/// words or quoted texts), else `None` (no cue: every span stays).
///
/// ```
/// use toolwright_local::cues::{Param, focus};
/// let q = "how far along is firecrawl crawl 3b1d-77aa?";
/// let spans: Vec<String> = ["firecrawl", "crawl", "3b1d-77aa"].map(String::from).to_vec();
/// assert_eq!(focus(Param::named("id"), q, &spans, |_| true).unwrap(), ["3b1d-77aa"]);
/// ```
pub fn focus(
    param: Param<'_>,
    query: &str,
    spans: &[String],
    fits: impl Fn(&str) -> bool,
) -> Option<Vec<String>> {
    // A name or a title is what the request says the thing is called, when the thing is the
    // parameter's or its tool's object ("a project called Kitchen remodel" for `add_project`).
    let words = name_words(param.name);
    if matches!(words.last().map(String::as_str), Some("name" | "title"))
        && !crate::narrow::renames(query, param.name)
        && let Some((thing, v)) = called(query).filter(|(_, v)| fits(v))
    {
        let objects = toolwright_catalog::text::name_object(param.tool)
            .map(|(_, o)| o)
            .unwrap_or_default();
        let of_it = words
            .iter()
            .chain(&objects)
            .chain(acted_on(param.tool, param.tool_description).iter())
            .any(|o| !GENERIC.contains(&o.as_str()) && names(&thing, o));
        if of_it {
            return Some(vec![v]);
        }
    }
    // A handle the request writes is the channel's or the user's, whatever the cues say
    // ("ping the #deploys channel with 'v2.14.0 is live'").
    let handles: Vec<String> = handles_for(param.name, query)
        .into_iter()
        .filter(|h| fits(h))
        .collect();
    if !handles.is_empty() {
        return Some(handles);
    }
    // Who made a thing is named after `by` ("recalls by Pfizer" for `firm`).
    // The tool's name only: a description quotes makers as examples ("Pfizer").
    let own = |w: &str| tool_uses(param.tool, "", w);
    if let Some(v) = made_by(param.name, query, own)
        .map(|v| v.into_iter().filter(|v| fits(v)).collect::<Vec<_>>())
        .filter(|v| !v.is_empty())
    {
        return Some(v);
    }
    let named = cue_values(param.name, query)
        .or_else(|| {
            // After the object's word, a number is the object's id, not its name ("under project
            // 2203306141", "rename section 99120 to ..."); a code such as `LOYAL10` may be a name.
            object_cue(param, query).iter().find_map(|cue| {
                let v: Vec<String> = values_named_by(cue, query)?
                    .into_iter()
                    .filter(|v| v.chars().any(char::is_alphabetic))
                    .collect();
                (!v.is_empty()).then_some(v)
            })
        })
        .or_else(|| own_word_values(param.name, query));
    // An identifier is one word: a cue that took a phrase of value-like words ("these
    // applications: e5f6a7b8-…, 0a1b2c3d-…, 9f8e7d6c-…") gives its value-like words.
    let named = named.map(|v| {
        if !holds_identifier(param.name, param.description) {
            return v;
        }
        let mut out: Vec<String> = Vec::new();
        for s in v {
            if !s.contains(char::is_whitespace) {
                out.push(s);
                continue;
            }
            // A bracket opens an aside about something else ("(reason 1c2d…)").
            let words: Vec<String> = s
                .split(['(', '['])
                .next()
                .unwrap_or("")
                .split(|c: char| c.is_whitespace() || ",;".contains(c))
                .filter(|w| value_like(w) && w.chars().any(|c| c.is_ascii_digit()))
                .map(String::from)
                .collect();
            if words.is_empty() {
                out.push(s);
            } else {
                out.extend(words);
            }
        }
        out.dedup();
        out
    });
    // An identifier is the value-like word in brackets after the thing's name, not the name:
    // `teamId` of "the Finance team (8b1f2c3d-…)".
    let named = match named {
        Some(v)
            if holds_identifier(param.name, param.description)
                && !v.iter().any(|s| value_like(s)) =>
        {
            cue_word(param.name)
                .and_then(|c| bracketed_after(&c, query))
                .filter(|b| fits(b))
                .map_or(Some(v), |b| Some(vec![b]))
        }
        other => other,
    };
    // A path or URL parameter's name points at a path or URL, not at its parts ("the repo at
    // /home/ana/src/shop" is not `home/ana`); a branch's at the branch ("a branch named
    // feature/oauth" is not `feature`).
    let form = written_as_described(param.name, param.description);
    let whole = form.is_some() || crate::refs::takes_ref(param.name, param.description);
    if let Some(v) = named {
        let mut parts = Vec::new();
        for w in v.iter().filter(|_| whole) {
            let mut of_w = Vec::new();
            crate::spans::push_parts(w, &mut of_w);
            parts.extend(of_w.into_iter().filter(|p| p != w));
        }
        let v: Vec<String> = v
            .iter()
            .filter(|s| fits(s) && !parts.contains(s))
            .cloned()
            .collect();
        if !v.is_empty() {
            return Some(v);
        }
    }
    if is_bare_id(param.name) {
        return id_words(query, spans, &fits);
    }
    if holds_identifier(param.name, param.description)
        && let Some(v) = identifiers_for(param, query, spans, &fits)
    {
        return Some(v);
    }
    let form = form?;
    let ws = tokens(query);
    let whole = |s: &str| ws.iter().any(|w| query.get(w.body.clone()) == Some(s));
    let written = |s: &str| form.fits(s);
    let v: Vec<String> = spans
        .iter()
        .filter(|s| !s.contains(char::is_whitespace) && whole(s) && written(s) && fits(s))
        .cloned()
        .collect();
    (!v.is_empty()).then_some(v)
}

/// The value-like word that glosses `cue`'s thing as an identifier right after it: in brackets
/// ("the Finance team (8b1f2c3d-…)", "my checking account (a1b2c3d4-…)") or after the word
/// `id` ("the 'restart nginx' script, id 17").
///
/// ```
/// use toolwright_local::cues::bracketed_after;
/// let q = "channels in the Finance team (8b1f2c3d-4e5f) please";
/// assert_eq!(bracketed_after("team", q).as_deref(), Some("8b1f2c3d-4e5f"));
/// let q = "execute the 'restart nginx' script, id 17, on host 10105";
/// assert_eq!(bracketed_after("script", q).as_deref(), Some("17"));
/// assert_eq!(bracketed_after("team", "the team (the new one)"), None);
/// ```
pub fn bracketed_after(cue: &str, query: &str) -> Option<String> {
    let ws = tokens(query);
    let text = |w: &Word| query.get(w.body.clone()).unwrap_or("");
    ws.iter().enumerate().find_map(|(i, w)| {
        if !names(text(w), cue) {
            return None;
        }
        let n = ws.get(i + 1)?;
        let opens = query.get(n.raw.clone())?.starts_with(['(', '[']);
        if opens && value_like(text(n)) {
            return Some(text(n).to_string());
        }
        let v = ws.get(i + 2)?;
        (text(n).eq_ignore_ascii_case("id") && value_like(text(v))).then(|| text(v).to_string())
    })
}

/// Titles written before a person's name, which are no part of the name.
const HONORIFICS: [&str; 14] = [
    "mr",
    "mrs",
    "ms",
    "miss",
    "dr",
    "prof",
    "professor",
    "judge",
    "justice",
    "senator",
    "sen",
    "rep",
    "sir",
    "dame",
];

/// The proper names a parameter named as a title (`title`, `section_title`) or a name (`name`,
/// `product_name`) may take when no cue pointed at a value ([`focus`] gave `None`): the
/// [`proper_names`] the request writes, those of two capitalised words or more for a name (a
/// thing's name is often a small-letter token: "pod checkout-7d9f8b-x2x4q is stuck Pending"),
/// none the tool's own name or description uses ("Wikipedia"), and none when the request
/// quotes a text (the quote passes give that). A proper name read this way claims nothing from
/// other parameters: it is a reading, not a cue.
///
/// ```
/// use toolwright_local::cues::{Param, named_properly};
/// let title = Param { tool: "get_summary", ..Param::named("title") };
/// let v = named_properly(title, "wiki summary of the Treaty of Westphalia pls", |_| true);
/// assert_eq!(v.unwrap()[0], "Treaty of Westphalia");
/// assert!(named_properly(Param::named("name"), "pod web-1 is stuck Pending", |_| true).is_none());
/// ```
pub fn named_properly(
    param: Param<'_>,
    query: &str,
    fits: impl Fn(&str) -> bool,
) -> Option<Vec<String>> {
    let own = |w: &str| tool_uses(param.tool, param.tool_description, w);
    // A part of a person's name, beside a parameter for the other part, takes that part of
    // the persons the request names ("Jan Kowalski" → `first_name` Jan, `last_name`
    // Kowalski).
    if let Some(part) = name_part(param.name)
        && param
            .siblings
            .iter()
            .any(|s| name_part(s).is_some_and(|o| o != part))
    {
        let v: Vec<String> = person_names(query, own)
            .into_iter()
            .map(|(first, last)| if part == NamePart::First { first } else { last })
            .filter(|v| fits(v))
            .collect();
        return (!v.is_empty()).then_some(v);
    }
    let words = name_words(param.name);
    let title = words.last().is_some_and(|w| w == "title");
    let name = words.last().is_some_and(|w| w == "name");
    if !(title || name) || !toolwright_catalog::values::quoted_spans(query).is_empty() {
        return None;
    }
    let capitals = |v: &str| {
        v.split_whitespace()
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
            .count()
    };
    let v: Vec<String> = proper_names(query, own)
        .into_iter()
        .filter(|v| fits(v) && (title || capitals(v) > 1))
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Last name words of parameters that take who made or issued a thing: "by X" names one.
const MAKERS: &[&str] = &[
    "author",
    "authors",
    "artist",
    "firm",
    "manufacturer",
    "company",
    "vendor",
    "creator",
    "publisher",
    "brand",
    "maker",
    "labeler",
    "sponsor",
    "organization",
    "organisation",
    "developer",
    "composer",
    "director",
    "writer",
    "studio",
    "band",
    "performer",
];

/// Words before `by` that make it an ordering, not a maker ("sort by Name").
const ORDERING: &[&str] = &[
    "sort", "sorted", "order", "ordered", "group", "grouped", "filter", "filtered", "rank",
    "ranked", "split", "broken", "break", "pivot", "count", "counts",
];

/// Days and months: "by Friday", "by March" is a deadline, not a maker.
const CALENDAR_NAMES: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "eod",
    "noon",
    "midnight",
];

/// The proper names the request says made or issued a thing ("Class I recalls by *Pfizer*",
/// "songs by *Nina Simone*"), for a parameter named as a maker ([`MAKERS`]: `firm`, `author`,
/// `manufacturer`); none the tool's own words name (`own`), none after an ordering ("sort by
/// Name") and none a day or month ("by Friday").
///
/// ```
/// use toolwright_local::cues::made_by;
/// let none = |_: &str| false;
/// let q = "Class I drug recalls by Pfizer that are still ongoing";
/// assert_eq!(made_by("firm", q, none).unwrap(), ["Pfizer"]);
/// assert!(made_by("drug_name", q, none).is_none());
/// assert!(made_by("author", "finish the draft by Friday", none).is_none());
/// assert!(made_by("author", "sort by Name", none).is_none());
/// ```
pub fn made_by(param: &str, query: &str, own: impl Fn(&str) -> bool) -> Option<Vec<String>> {
    let words = name_words(param);
    if !words.last().is_some_and(|w| MAKERS.contains(&w.as_str())) {
        return None;
    }
    let ws = tokens(query);
    let text = |w: &Word| query.get(w.body.clone()).unwrap_or("");
    let starts: Vec<usize> = ws
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            text(w).eq_ignore_ascii_case("by")
                && !(*i > 0
                    && ws
                        .get(i - 1)
                        .is_some_and(|p| ORDERING.contains(&text(p).to_lowercase().as_str())))
        })
        .filter_map(|(i, _)| ws.get(i + 1))
        .filter(|n| !CALENDAR_NAMES.contains(&text(n).to_lowercase().as_str()))
        .map(|n| n.body.start)
        .collect();
    let v: Vec<String> = proper_names(query, &own)
        .into_iter()
        .filter(|n| {
            starts
                .iter()
                .any(|s| query.get(*s..).is_some_and(|t| t.starts_with(n.as_str())))
        })
        .collect();
    (!v.is_empty()).then_some(v)
}

/// The part of a person's name a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamePart {
    /// `first_name`, `firstName`, `given_name`, `buyer_first_name`, `forename`.
    First,
    /// `last_name`, `lastName`, `family_name`, `surname`.
    Last,
}

/// The part of a person's name parameter `param` takes, if it takes one.
///
/// ```
/// use toolwright_local::cues::{NamePart, name_part};
/// assert_eq!(name_part("buyer_first_name"), Some(NamePart::First));
/// assert_eq!(name_part("lastName"), Some(NamePart::Last));
/// assert_eq!(name_part("surname"), Some(NamePart::Last));
/// assert_eq!(name_part("file_name"), None);
/// ```
pub fn name_part(param: &str) -> Option<NamePart> {
    let words = name_words(param);
    let (last, before) = match words.as_slice() {
        [.., b, l] => (l.as_str(), Some(b.as_str())),
        [l] => (l.as_str(), None),
        [] => return None,
    };
    match (before, last) {
        (_, "firstname" | "forename" | "givenname") => Some(NamePart::First),
        (_, "lastname" | "surname" | "familyname") => Some(NamePart::Last),
        (Some("first" | "given" | "fore"), "name") => Some(NamePart::First),
        (Some("last" | "family" | "sur"), "name") => Some(NamePart::Last),
        _ => None,
    }
}

/// Prepositions after one of the tool's own words that open what the request is about
/// ("recalls *of* valsartan", "reports *for* lamotrigine").
const SUBJECT_MARKS: &[&str] = &["of", "for", "on", "about", "involving", "mentioning"];

/// What the request says the tool's things are about, for a parameter named for the thing in
/// the tool's own name (`drug_name` of `search_drug_recalls`): the words right after one of
/// the tool's own words and a preposition of [`SUBJECT_MARKS`] ("any FDA recalls of
/// *valsartan*?"), one to three words that are neither function words nor the tool's own nor
/// numbers, up to punctuation. `own` says whether a word is the tool's own.
///
/// ```
/// use toolwright_local::cues::subject_of;
/// let own = |w: &str| ["fda", "recalls", "drug", "search"].contains(&w);
/// let q = "have there been any FDA recalls of valsartan?";
/// let tool = "search_drug_recalls";
/// let siblings = ["drug_name", "firm"];
/// assert_eq!(subject_of("drug_name", tool, &siblings, q, own).unwrap(), ["valsartan"]);
/// assert!(subject_of("firm", tool, &siblings, q, own).is_none());
/// assert!(subject_of("drug_name", tool, &siblings, "recalls of 2024", own).is_none());
/// ```
pub fn subject_of(
    param: &str,
    tool: &str,
    siblings: &[&str],
    query: &str,
    own: impl Fn(&str) -> bool,
) -> Option<Vec<String>> {
    let thing: Vec<String> = name_words(param)
        .into_iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .collect();
    let [thing] = thing.as_slice() else {
        return None;
    };
    if !name_words(tool).contains(thing) || holds_identifier(param, "") {
        return None;
    }
    // A word written with dots ("last.fm", "rocket.chat") is the tool's own when its parts are.
    let own = |w: &str| {
        own(w) || {
            let mut parts = w
                .split(|c: char| !c.is_alphanumeric())
                .filter(|p| !p.is_empty());
            w.contains('.') && parts.all(&own)
        }
    };
    let names = proper_names(query, |_| false);
    let ws = tokens(query);
    let lower = |i: usize| {
        ws.get(i)
            .and_then(|w| query.get(w.body.clone()))
            .unwrap_or("")
            .to_lowercase()
    };
    let content = |w: &str| {
        !w.is_empty()
            && !is_function_word(w)
            && !own(w)
            && !w.chars().any(|c| c.is_ascii_digit())
            && !crate::periods::is_month(w)
    };
    let mut out: Vec<String> = Vec::new();
    for i in 1..ws.len() {
        let before = lower(i - 1);
        if !SUBJECT_MARKS.contains(&lower(i).as_str()) || !own(&before) || is_function_word(&before)
        {
            continue;
        }
        let mut j = i + 1;
        while DETERMINERS.contains(&lower(j).as_str()) {
            j += 1;
        }
        let start = j;
        while j < ws.len() && j < start + 3 && content(&lower(j)) {
            let ended = ws.get(j).is_some_and(|w| ends(query, w));
            j += 1;
            if ended {
                break;
            }
        }
        // The phrase must end there: at punctuation, the request's end or a function word.
        let closed = j == ws.len()
            || ws.get(j - 1).is_some_and(|w| ends(query, w))
            || is_function_word(&lower(j));
        let Some(a) = ws.get(start) else {
            continue;
        };
        // A name that holds small words is whole ("tracklist of *Kind of Blue*").
        let named = names.iter().find(|n| {
            query
                .get(a.body.start..)
                .is_some_and(|t| t.starts_with(n.as_str()))
        });
        let plain = ws
            .get(j.max(start + 1) - 1)
            .filter(|_| j > start && closed)
            .and_then(|b| query.get(a.body.start..b.body.end));
        // The longer of the two: "Kind of Blue" over "Kind", "Bern railway station" over "Bern".
        let phrase = match (named, plain) {
            (Some(n), Some(p)) if p.len() > n.len() => Some(p.to_string()),
            (Some(n), _) => Some(n.clone()),
            (None, p) => p.map(str::to_string),
        };
        // "report for *company* Acme Ltd", "folder of my work *account*": a phrase holding
        // another parameter's name word is that parameter's.
        let other = |w: &str| {
            siblings
                .iter()
                .filter(|s| **s != param)
                .any(|s| name_words(s).iter().any(|n| n == w))
        };
        if let Some(v) = phrase
            && !toolwright_catalog::text::words(&v).iter().any(|w| other(w))
            && !out.contains(&v)
        {
            out.push(v);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Words for an organisation: a proper name right after one is no person's.
const ORGANISATIONS: &[&str] = &[
    "company",
    "companies",
    "organization",
    "organisation",
    "org",
    "business",
    "firm",
    "brand",
    "vendor",
    "supplier",
    "employer",
    "agency",
    "team",
];

/// The persons' names a request writes, split into a first and a last name: each
/// [`proper_names`] of two or three capitalised words, joined by nothing, none the tool's own
/// (`own`); the last word is the last name ("Jan Kowalski", "Mary Ann Lee" → `Mary Ann`,
/// `Lee`).
///
/// ```
/// use toolwright_local::cues::person_names;
/// let own = |w: &str| w == "Nimble";
/// assert_eq!(
///     person_names("add Sarah Lindqvist to Nimble", own),
///     [("Sarah".to_string(), "Lindqvist".to_string())]
/// );
/// assert!(person_names("add sarah to the list", own).is_empty());
/// assert!(person_names("create a company record for Bluewater Logistics", own).is_empty());
/// ```
pub fn person_names(query: &str, own: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let capital = |w: &str| {
        let mut cs = w.chars();
        cs.next().is_some_and(char::is_uppercase) && cs.any(char::is_lowercase)
    };
    // "a company record for Bluewater Logistics": a name after a word for an organisation is
    // the organisation's.
    let organisation = |name: &str| {
        let before = query.split(name).next().unwrap_or("");
        let words: Vec<String> = toolwright_catalog::text::words(before);
        words
            .iter()
            .rev()
            .take(4)
            .any(|w| ORGANISATIONS.contains(&w.as_str()))
    };
    proper_names(query, &own)
        .into_iter()
        .filter(|n| !organisation(n))
        .filter_map(|n| {
            let ws: Vec<&str> = n.split_whitespace().collect();
            let person = (2..=3).contains(&ws.len())
                && ws.iter().all(|w| capital(w) && !own(w))
                && ws
                    .iter()
                    .all(|w| w.chars().all(|c| c.is_alphabetic() || "-'".contains(c)));
            let (last, firsts) = ws.split_last()?;
            person.then(|| (firsts.join(" "), (*last).to_string()))
        })
        .collect()
}

/// Whether a tool's name or description uses `word` (any case) as a word of its own: "Slack"
/// for a tool that posts Slack messages.
pub(crate) fn tool_uses(tool: &str, description: &str, word: &str) -> bool {
    let word = word.to_lowercase();
    [tool, description].iter().any(|t| {
        t.split(|c: char| !c.is_alphanumeric())
            .any(|w| w.to_lowercase() == word)
    })
}

/// Words that join the capitalised words of one proper name ("Treaty of Westphalia", "Lord of
/// the Rings", "Rock and Roll").
const NAME_JOINERS: &[&str] = &[
    "of", "the", "and", "&", "de", "du", "la", "von", "van", "der",
];

/// The proper names a request writes: runs of capitalised words, joined by at most two of
/// `NAME_JOINERS` between capitals ("Treaty of Westphalia"), ended by punctuation after a
/// word.
/// - A bracketed gloss of at most four plain words right after a name is part of it ("Python
///   (programming language)").
/// - A name in sentence case followed by small-letter words is also offered with them, up to
///   three, to a function word or punctuation ("Quantum computing on wikipedia" → `Quantum`,
///   `Quantum computing`).
/// - A sentence's first word opens a name only when another capital follows, not after a
///   joiner, and it is no verb of an action nor a function word ("Show Marie Curie's article"
///   → `Marie Curie`, "Summarise the Eiffel Tower" → `Eiffel Tower`).
/// - `I` is no name, and a name every word of which `own` says is the tool's own (its service:
///   "Wikipedia") is dropped.
///
/// ```
/// use toolwright_local::cues::proper_names;
/// let none = |_: &str| false;
/// let q = "wiki summary of the Treaty of Westphalia pls";
/// assert_eq!(proper_names(q, none), ["Treaty of Westphalia", "Treaty of Westphalia pls"]);
/// let q = "sections of Python (programming language)";
/// assert_eq!(proper_names(q, none), ["Python (programming language)"]);
/// let page = |w: &str| w == "page";
/// assert_eq!(proper_names("Summarise the Eiffel Tower page", page), ["Eiffel Tower"]);
/// assert!(proper_names("what is in the docs folder?", none).is_empty());
/// assert_eq!(proper_names("who is Judge Amy Berman Jackson?", none), ["Amy Berman Jackson"]);
/// ```
pub fn proper_names(query: &str, own: impl Fn(&str) -> bool) -> Vec<String> {
    let ws = tokens(query);
    let text = |w: &Word| query.get(w.body.clone()).unwrap_or("");
    let joiner = |w: &Word| NAME_JOINERS.contains(&text(w).to_lowercase().as_str());
    let sentence_start = |i: usize| {
        i == 0
            || ws
                .get(i - 1)
                .is_some_and(|p| raw(query, p).ends_with(['.', '!', '?', ':']))
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        let Some(first) = ws.get(i).filter(|w| capital(query, w)) else {
            i += 1;
            continue;
        };
        let last = run_end(query, &ws, i);
        let mut start = i;
        if sentence_start(i) {
            let lower = text(first).to_lowercase();
            let verb = toolwright_catalog::text::action(std::slice::from_ref(&lower)).is_some();
            if last == i || verb || FUNCTION_WORDS.contains(&lower.as_str()) {
                start = i + 1;
            } else if ws.get(i + 1).is_some_and(joiner) {
                // "Summarise the Eiffel Tower": a verb before its object's article.
                start = i + 1;
                while start < last && ws.get(start).is_some_and(joiner) {
                    start += 1;
                }
            }
        }
        // A title before a person's name is not part of it ("Judge Amy Berman Jackson").
        while start < last
            && ws.get(start).is_some_and(|w| {
                HONORIFICS.contains(&text(w).trim_end_matches('.').to_lowercase().as_str())
            })
        {
            start += 1;
        }
        i = last + 1;
        let (Some(a), Some(b), Some(run)) = (ws.get(start), ws.get(last), ws.get(start..=last))
        else {
            continue;
        };
        if run.iter().filter(|w| !joiner(w)).all(|w| own(text(w))) {
            continue;
        }
        let ends_at = match gloss(query, b.raw.end).filter(|_| !ends(query, b)) {
            Some(g) => vec![g],
            None => std::iter::once(b.body.end)
                .chain(small_letter_tail(query, &ws, last, &own))
                .collect(),
        };
        for end in ends_at {
            let Some(name) = query.get(a.body.start..end) else {
                continue;
            };
            if !out.iter().any(|o| o == name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// A word as written, with the punctuation around it.
fn raw<'q>(query: &'q str, w: &Word) -> &'q str {
    query.get(w.raw.clone()).unwrap_or("")
}

/// Whether a word ends its phrase with punctuation.
fn ends(query: &str, w: &Word) -> bool {
    raw(query, w).ends_with([',', ';', ':', '.', '!', '?'])
}

/// Whether a word is capitalised (and not `I`).
fn capital(query: &str, w: &Word) -> bool {
    let t = query.get(w.body.clone()).unwrap_or("");
    t != "I"
        && t.chars().next().is_some_and(char::is_uppercase)
        && t.chars().any(char::is_alphabetic)
}

/// The index of the last capital of the run of capitals that starts at word `i`, joined by at
/// most two [`NAME_JOINERS`] between capitals, up to a word that ends its phrase.
fn run_end(query: &str, ws: &[Word], i: usize) -> usize {
    let joiner = |w: &Word| {
        let t = query.get(w.body.clone()).unwrap_or("").to_lowercase();
        NAME_JOINERS.contains(&t.as_str()) && !ends(query, w)
    };
    let mut last = i;
    while !ws.get(last).is_some_and(|w| ends(query, w)) {
        let mut k = last + 1;
        while k <= last + 2 && ws.get(k).is_some_and(joiner) {
            k += 1;
        }
        match ws.get(k) {
            Some(w) if capital(query, w) => last = k,
            _ => break,
        }
    }
    last
}

/// Where a title in sentence case ending at word `last` goes on in small letters ("Quantum
/// computing on wikipedia"): the end of up to three small-letter words after it, up to a
/// function word, punctuation, a bracket or a word of the tool's own; `None` when none follow.
fn small_letter_tail(
    query: &str,
    ws: &[Word],
    last: usize,
    own: &impl Fn(&str) -> bool,
) -> Option<usize> {
    let b = ws.get(last)?;
    if ends(query, b) || raw(query, b).len() != b.body.len() {
        return None;
    }
    let more: Vec<&Word> = ws
        .get(last + 1..)
        .unwrap_or_default()
        .iter()
        .take(3)
        .take_while(|w| {
            let t = query.get(w.body.clone()).unwrap_or("");
            raw(query, w).starts_with(t)
                && t.chars().next().is_some_and(char::is_lowercase)
                && t.chars().all(|c| c.is_alphanumeric() || c == '-')
                && !FUNCTION_WORDS.contains(&t)
                && !own(t)
        })
        .collect();
    let stop = more
        .iter()
        .position(|w| ends(query, w) || raw(query, w).len() != w.body.len())
        .map_or(more.len(), |p| p + 1);
    more.get(..stop)?.last().map(|w| w.body.end)
}

/// The end of a bracketed gloss of at most four words right after byte `at` ("Python
/// (programming language)").
fn gloss(query: &str, at: usize) -> Option<usize> {
    let rest = query.get(at..)?;
    let open = rest.len() - rest.trim_start().len();
    let inner = rest.get(open..)?.strip_prefix('(')?;
    let close = inner.find(')')?;
    let gloss = inner.get(..close)?;
    let words = gloss.split_whitespace().count();
    let plain = gloss
        .chars()
        .all(|c| c.is_alphabetic() || c == ' ' || c == '-');
    (words > 0 && words <= 4 && plain).then_some(at + open + 1 + close + 1)
}

/// For a parameter named by one generic word (`key`, `value`, `id`, `text`), which has no name
/// cue of its own: the values the request writes by that very word when they are written as
/// values ("key user:7", "value 'dark mode'"), not plain words ("the api key" names no key).
///
/// ```
/// use toolwright_local::cues::{Param, focus};
/// let q = "what's the value of key user:7 in redis?";
/// let spans: Vec<String> = ["key user:7", "user:7", "redis"].map(String::from).to_vec();
/// assert_eq!(focus(Param::named("key"), q, &spans, |_| true).unwrap(), ["user:7"]);
/// ```
fn own_word_values(param: &str, query: &str) -> Option<Vec<String>> {
    let [w] = name_words(param).try_into().ok()?;
    if !GENERIC.contains(&w.as_str()) {
        return None;
    }
    let v: Vec<String> = values_named_by(&w, query)?
        .into_iter()
        .filter(|v| value_like(v) || v.contains(' '))
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Whether a parameter is named only as an identifier (`id`, `uuid`, `key`, `identifier`): no
/// name word says what it identifies, so the name cue has nothing to look for.
fn is_bare_id(param: &str) -> bool {
    matches!(
        name_words(param).as_slice(),
        [w] if matches!(w.as_str(), "id" | "uid" | "uuid" | "guid" | "identifier")
    )
}

/// The spans that are whole words written as identifiers: letters and digits mixed, or parts
/// joined by `_` or `-` with a digit among them (`mon_123`, `3b1d-77aa`, `recD77`), not paths,
/// URLs or addresses; `None` when the request writes none.
fn id_words(query: &str, spans: &[String], fits: impl Fn(&str) -> bool) -> Option<Vec<String>> {
    let ws = tokens(query);
    let whole = |s: &str| ws.iter().any(|w| query.get(w.body.clone()) == Some(s));
    let v: Vec<String> = spans
        .iter()
        .filter(|s| whole(s) && id_shaped(s) && fits(s))
        .cloned()
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Whether a word is written as an identifier: letters and digits mixed, with nothing but `_`
/// and `-` besides (`mon_123`, `3b1d-77aa`, `recD77`).
fn id_shaped(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
        && s.chars().any(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Whether a parameter holds an identifier of something: a word of its name is `id`, `ids`,
/// `uuid` or `identifier` (`knowledgeBaseId`, `parent_id`, `issue_id_or_url`), or a serial
/// number, a hash or a digest (`serial`, `file_hash`, `checksum`), or its description calls it one
/// ("The ID of the product to create the price for.").
pub fn holds_identifier(param: &str, description: &str) -> bool {
    // A serial number, a hash or a digest is one token too ("mac C02DR3TTMD6R" is no serial).
    let id_word = |w: &str| {
        matches!(
            w,
            "id" | "ids"
                | "uid"
                | "uuid"
                | "guid"
                | "identifier"
                | "serial"
                | "hash"
                | "checksum"
                | "digest"
        )
    };
    name_words(param).iter().any(|w| id_word(w))
        || description
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "ID" || w == "IDs" || w.eq_ignore_ascii_case("identifier"))
}

/// Whether parameter `param` holds an identifier and nothing else: [`holds_identifier`], and
/// neither its name nor its description says it may be a name ("Party name/ID").
pub(crate) fn only_identifier(param: &str, description: &str) -> bool {
    let named = name_words(param).iter().any(|w| w == "name")
        || description
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w.eq_ignore_ascii_case("name") || w.eq_ignore_ascii_case("title"));
    holds_identifier(param, description) && !named
}

/// Whether an identifier's leading letters name the parameter `param`: they start one of its
/// name words (`req` of `req-4` for `requestId`, `sub` of `sub_1Kq7` for `subscription`), are
/// the initials of its name words (`pi` of `pi_3Mtw` for `payment_intent`, `kb` of `KB7Q2ZLM`
/// for `knowledgeBaseId`), or, three letters or more, abbreviate one by dropping letters but
/// the first (`tbl` for `table`, `fld` for `field`, `chk` for `check`). Two letters at least,
/// and something after them. A lowercase lead before a capital is the lead on its own
/// (`rec` of `recD77`, `tbl` of `tblQ3Goals`).
///
/// ```
/// use toolwright_local::cues::prefix_names;
/// assert!(prefix_names("recD77", "recordId"));
/// assert!(prefix_names("tblQ3Goals", "tableId"));
/// assert!(prefix_names("fldBudget", "fieldId"));
/// assert!(!prefix_names("appCRM0001", "baseId"));
/// assert!(!prefix_names("recD77", "tableId"));
/// ```
pub fn prefix_names(id: &str, param: &str) -> bool {
    let letters: String = id.chars().take_while(char::is_ascii_alphabetic).collect();
    let lower: String = letters
        .chars()
        .take_while(char::is_ascii_lowercase)
        .collect();
    let mut leads = vec![letters.to_lowercase()];
    if lower.len() >= 2 && lower.len() < letters.len() {
        leads.push(lower);
    }
    let ws: Vec<String> = name_words(param)
        .into_iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .collect();
    let initials: String = ws.iter().filter_map(|w| w.chars().next()).collect();
    leads.iter().any(|lead| {
        lead.len() >= 2
            && lead.len() < id.len()
            && (ws
                .iter()
                .any(|w| w.starts_with(lead.as_str()) || abbreviates(lead, w))
                || (ws.len() > 1 && initials == *lead))
    })
}

/// Whether `short` (three letters or more) is `word` with letters dropped, the first kept:
/// `tbl` of `table`, `msg` of `message`.
fn abbreviates(short: &str, word: &str) -> bool {
    if short.len() < 3 || short.len() >= word.len() || short.get(..1) != word.get(..1) {
        return false;
    }
    let mut rest = word.chars();
    short.chars().all(|c| rest.any(|w| w == c))
}

/// The identifiers of the request (whole words of four characters or more with letters and
/// digits mixed, [`focus`]'s `mon_123`, `KB7Q2ZLM`, `req-4`, or of six digits or more,
/// `2203306141`) that a parameter which
/// [`holds_identifier`] should take: those whose leading letters name it ([`prefix_names`]),
/// else those that name none of its tool's other parameters (`task-2` is the `taskId`'s, not
/// the `requestId`'s); `None` when none is left.
///
/// ```
/// use toolwright_local::cues::{Param, identifiers_for};
/// let q = "I finished task-2 of req-4, mark it done";
/// let spans: Vec<String> = ["task-2", "req-4", "done"].map(String::from).to_vec();
/// let p = Param { name: "requestId", description: "", siblings: &["requestId", "taskId"], tool: "", tool_description: "" };
/// assert_eq!(identifiers_for(p, q, &spans, |_| true).unwrap(), ["req-4"]);
/// let p = Param { name: "knowledgeBaseId", description: "", siblings: &[], tool: "", tool_description: "" };
/// let q = "check knowledge base SUP9988ZZ for problems with the v3 firmware";
/// let spans: Vec<String> = ["SUP9988ZZ", "v3", "firmware"].map(String::from).to_vec();
/// assert_eq!(identifiers_for(p, q, &spans, |_| true).unwrap(), ["SUP9988ZZ"]);
/// ```
pub fn identifiers_for(
    param: Param<'_>,
    query: &str,
    spans: &[String],
    fits: impl Fn(&str) -> bool,
) -> Option<Vec<String>> {
    let mut ids = id_words(query, spans, |s| s.chars().count() >= 4 && fits(s)).unwrap_or_default();
    let ws = tokens(query);
    let whole = |s: &str| ws.iter().any(|w| query.get(w.body.clone()) == Some(s));
    let long_number = |s: &str| s.len() >= 6 && s.chars().all(|c| c.is_ascii_digit());
    ids.extend(
        spans
            .iter()
            .filter(|s| long_number(s) && whole(s) && fits(s))
            .cloned(),
    );
    if ids.is_empty() {
        return None;
    }
    let own: Vec<String> = ids
        .iter()
        .filter(|s| prefix_names(s, param.name))
        .cloned()
        .collect();
    if !own.is_empty() {
        return Some(own);
    }
    let others = |s: &str| {
        param
            .siblings
            .iter()
            .any(|p| *p != param.name && prefix_names(s, p))
    };
    let free: Vec<String> = ids.into_iter().filter(|s| !others(s)).collect();
    (!free.is_empty()).then_some(free)
}

/// Prepositions that place a file in a directory ("todo.md in /home/ana", "report.pdf from
/// /home/ana/Downloads into /home/ana/Documents").
const PLACING: &[&str] = &[
    "in", "inside", "within", "under", "at", "from", "into", "to", "onto",
];

/// Words that may stand between such a preposition and its directory ("in the folder /srv").
const DIRECTORY_NOUNS: &[&str] = &[
    "the",
    "a",
    "my",
    "our",
    "your",
    "this",
    "that",
    "dir",
    "directory",
    "folder",
];

/// Whether a word is written as a directory: it holds `/` or `\`, is not a URL nor an
/// address, and its last part is not a file name (`/home/ana`, `~/Documents/`; not
/// `/srv/app/config.yaml`).
fn dir_like(word: &str) -> bool {
    let last = word
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("");
    path_like(word) && word.contains(['/', '\\']) && !last.is_empty() && !path_like(last)
}

/// Whether a word is a bare file name: written as a path ([`path_like`]) without a directory.
fn file_like(word: &str) -> bool {
    path_like(word) && !word.contains(['/', '\\'])
}

/// The request's bare file names placed in a directory, as (file, directory) pairs: a file name,
/// or a list of them joined by "and", "or" or commas, followed by one preposition of
/// `PLACING` and a directory or more ("save todo.md in /home/ana"; "package.json and
/// package-lock.json in /srv/web"; "report.pdf from /home/ana/Downloads into
/// /home/ana/Documents": both directories).
pub fn placed_files(query: &str) -> Vec<(String, String)> {
    let ws = tokens(query);
    let text = |k: usize| {
        ws.get(k)
            .and_then(|w| query.get(w.body.clone()))
            .unwrap_or("")
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        if !file_like(text(i)) {
            i += 1;
            continue;
        }
        let mut files = vec![text(i)];
        let mut j = i + 1;
        loop {
            let joined = matches!(text(j).to_lowercase().as_str(), "and" | "or");
            if joined && file_like(text(j + 1)) {
                files.push(text(j + 1));
                j += 2;
            } else if file_like(text(j)) {
                files.push(text(j));
                j += 1;
            } else {
                break;
            }
        }
        while PLACING.contains(&text(j).to_lowercase().as_str()) {
            let mut k = j + 1;
            while k < j + 3 && DIRECTORY_NOUNS.contains(&text(k).to_lowercase().as_str()) {
                k += 1;
            }
            if !dir_like(text(k)) {
                break;
            }
            for f in &files {
                out.push((f.to_string(), text(k).to_string()));
            }
            j = k + 1;
        }
        i = j.max(i + 1);
    }
    out
}

/// Whether the parameter called `param` (among `params`) takes a file's full path: it is named
/// as a path or file but not as a directory, or it is one of a move's two ends ([`ends_pair`]).
pub fn takes_file(param: &str, params: &[&str]) -> bool {
    let named_dir = name_words(param)
        .iter()
        .any(|w| DIRECTORY_WORDS.contains(&w.as_str()));
    let end = ends_pair(params).is_some_and(|(a, b)| a == param || b == param);
    !named_dir && (written_as(param) == Some(Written::Path) || end)
}

/// `values` with each file placed in a directory ([`placed_files`]) and each such directory
/// replaced by the file's full path in it ("todo.md in /home/ana" → `/home/ana/todo.md`), for a
/// parameter that [`takes_file`]; unchanged when no value is such a file or directory.
pub fn compose_placed(values: &[String], placed: &[(String, String)]) -> Vec<String> {
    let join = |f: &str, d: &str| {
        let sep = if d.contains('/') { '/' } else { '\\' };
        format!("{}{sep}{f}", d.trim_end_matches(['/', '\\']))
    };
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let joined: Vec<String> = placed
            .iter()
            .filter(|(f, d)| f == v || d == v)
            .map(|(f, d)| join(f, d))
            .collect();
        let add = if joined.is_empty() {
            vec![v.clone()]
        } else {
            joined
        };
        for a in add {
            if !out.contains(&a) {
                out.push(a);
            }
        }
    }
    out
}

/// Parameter names of the owner side of an `owner/name` word.
const OWNER_WORDS: &[&str] = &[
    "owner",
    "org",
    "organization",
    "organisation",
    "namespace",
    "user",
    "username",
    "account",
];

/// Parameter names of the name side of an `owner/name` word.
const NAME_SIDE: &[&str] = &["repo", "repository", "name"];

/// The two sides of the request's `owner/name` words (`acme/webapp` → `acme`, `webapp`): words
/// of exactly two parts, each with a letter, that are not written as a path (no leading `/`, no
/// file extension) nor a URL.
fn owner_name_words(query: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for w in tokens(query) {
        let Some(word) = query.get(w.body.clone()) else {
            continue;
        };
        let Some((a, b)) = word.split_once('/') else {
            continue;
        };
        let ok = |p: &str| {
            p.chars().next().is_some_and(char::is_alphanumeric)
                && p.chars().any(char::is_alphabetic)
                && !p.contains(['/', '\\', '#', ':'])
        };
        let file = b.rsplit_once('.').is_some_and(|(_, ext)| {
            (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphabetic())
        });
        if ok(a) && ok(b) && !word.contains("://") && !file {
            out.push((a.to_string(), b.to_string()));
        }
    }
    out
}

/// For a tool with an owner parameter (`owner`, `org`, `namespace`, `user`, ...) and a name
/// parameter (`repo`, `repository`, `name`), the values each side takes from the request's
/// `owner/name` words ("issue 17 of acme/webapp": `owner` → `acme`, `repo` → `webapp`), except
/// the words another parameter's name cue claims ("a branch named feature/oauth"). Empty when
/// the tool has no such pair or the request no such word.
///
/// ```
/// use toolwright_local::cues::owner_name;
/// let v = owner_name(&["owner", "repo", "branch"], "create a branch named feature/oauth in acme/webapp");
/// assert_eq!(v, [("owner".to_string(), vec!["acme".to_string()]),
///                ("repo".to_string(), vec!["webapp".to_string()])]);
/// ```
pub fn owner_name(params: &[&str], query: &str) -> Vec<(String, Vec<String>)> {
    let words_of = |p: &str| -> Vec<String> {
        name_words(p)
            .into_iter()
            .filter(|w| !GENERIC.contains(&w.as_str()) || w == "name")
            .collect()
    };
    let owner = params
        .iter()
        .find(|p| matches!(words_of(p).as_slice(), [w] if OWNER_WORDS.contains(&w.as_str())));
    let name = params.iter().find(|p| {
        let ws = words_of(p);
        !ws.is_empty() && ws.iter().all(|w| NAME_SIDE.contains(&w.as_str()))
    });
    let (Some(owner), Some(name)) = (owner, name) else {
        return Vec::new();
    };
    let claimed: Vec<String> = params
        .iter()
        .filter(|p| *p != owner && *p != name)
        .filter_map(|p| cue_values(p, query))
        .flatten()
        .collect();
    let pairs: Vec<(String, String)> = owner_name_words(query)
        .into_iter()
        .filter(|(a, b)| !claimed.contains(&format!("{a}/{b}")))
        .collect();
    sides(owner, name, &pairs)
}

/// `first` with the distinct first sides of `pairs`, `second` with their distinct second sides,
/// in the request's order; nothing when there are no pairs.
fn sides(first: &str, second: &str, pairs: &[(String, String)]) -> Vec<(String, Vec<String>)> {
    if pairs.is_empty() {
        return Vec::new();
    }
    let mut a: Vec<String> = Vec::new();
    let mut b: Vec<String> = Vec::new();
    for (x, y) in pairs {
        if !a.contains(x) {
            a.push(x.clone());
        }
        if !b.contains(y) {
            b.push(y.clone());
        }
    }
    vec![(first.to_string(), a), (second.to_string(), b)]
}

/// Whether the parameter `p` is named as one side of a two-part word: one of `set`, alone or
/// with a generic word after it (`database`, `db_name`, `image_name`).
fn one_side(p: &str, set: &[&str]) -> bool {
    match name_words(p).as_slice() {
        [w] => set.contains(&w.as_str()),
        [w, g] => set.contains(&w.as_str()) && GENERIC.contains(&g.as_str()),
        _ => false,
    }
}

/// Parameter names of the container side of a `container.item` word (`shop.orders`): the
/// dotted notation of databases (MongoDB's `db.collection`, SQL's `schema.table`, BigQuery's
/// `dataset.table`, Cassandra's `keyspace.table`).
const CONTAINER_WORDS: &[&str] = &["database", "db", "schema", "dataset", "keyspace"];

/// Parameter names of the item side of a `container.item` word.
const ITEM_WORDS: &[&str] = &["collection", "table", "coll"];

/// File extensions that make a dotted word a file name, not `container.item` (`data.csv`).
const FILE_EXTENSIONS: &[&str] = &[
    "csv", "tsv", "json", "jsonl", "ndjson", "txt", "md", "pdf", "xml", "yaml", "yml", "log",
    "sql", "db", "gz", "zip", "tar", "parquet", "html", "js", "ts", "py", "rs", "png", "jpg",
    "bson", "xlsx", "doc", "docx",
];

/// The two sides of the request's `container.item` words: exactly two parts joined by one dot,
/// each starting with a letter and made of letters, digits, `_` and `-`, the second not a file
/// extension ([`FILE_EXTENSIONS`]).
fn dotted_words(query: &str) -> Vec<(String, String)> {
    let part = |p: &str| {
        p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    tokens(query)
        .into_iter()
        .filter_map(|w| {
            let word = query.get(w.body.clone())?.trim_end_matches('.');
            let (a, b) = word.split_once('.')?;
            let ext = FILE_EXTENSIONS.contains(&b.to_ascii_lowercase().as_str());
            (part(a) && part(b) && !ext).then(|| (a.to_string(), b.to_string()))
        })
        .collect()
}

/// For a tool with a container parameter (`database`, `db`, `schema`, `dataset`, `keyspace`)
/// and an item parameter (`collection`, `table`), the values each side takes from the request's
/// `container.item` words ("the 20 newest orders in shop.orders": `database` → `shop`,
/// `collection` → `orders`). Empty when the tool has no such pair or the request no such word.
///
/// ```
/// use toolwright_local::cues::container_item;
/// let v = container_item(&["database", "collection", "limit"], "20 newest orders from shop.orders");
/// assert_eq!(v, [("database".to_string(), vec!["shop".to_string()]),
///                ("collection".to_string(), vec!["orders".to_string()])]);
/// assert!(container_item(&["database", "collection"], "import data.csv").is_empty());
/// assert!(container_item(&["path"], "read shop.orders").is_empty());
/// ```
pub fn container_item(params: &[&str], query: &str) -> Vec<(String, Vec<String>)> {
    let container = params.iter().find(|p| one_side(p, CONTAINER_WORDS));
    let item = params.iter().find(|p| one_side(p, ITEM_WORDS));
    let (Some(container), Some(item)) = (container, item) else {
        return Vec::new();
    };
    sides(container, item, &dotted_words(query))
}

/// Parameter names of the image side of an image reference (`postgres:16`).
const IMAGE_WORDS: &[&str] = &["image", "repository", "repo"];

/// The two sides of the request's image references (`postgres:16` → `postgres`, `16`;
/// `ghcr.io/acme/api:v1.2` → `ghcr.io/acme/api`, `v1.2`): a word with one `:` after its last
/// `/`, whose left side has a letter and whose right side is a tag (letters, digits, `_`, `.`,
/// `-`, at most 128); not a URL.
fn image_refs(query: &str) -> Vec<(String, String)> {
    let tag = |t: &str| {
        !t.is_empty()
            && t.len() <= 128
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
            && t.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
    };
    tokens(query)
        .into_iter()
        .filter_map(|w| {
            let word = query.get(w.body.clone())?.trim_end_matches('.');
            if word.contains("://") || word.contains('@') {
                return None;
            }
            let (image, t) = word.rsplit_once(':')?;
            let ok = image.chars().any(char::is_alphabetic)
                && image.chars().next().is_some_and(char::is_alphanumeric)
                && image
                    .rsplit('/')
                    .next()
                    .is_some_and(|last| !last.contains(':'));
            (ok && tag(t) && !t.contains('/')).then(|| (image.to_string(), t.to_string()))
        })
        .collect()
}

/// For a tool with an image parameter (`image`, `repository`, `repo`, `image_name`) and a
/// `tag` parameter, the values each side takes from the request's image references ("pull the
/// postgres:16 image": `repository` → `postgres`, `tag` → `16`), the notation of container
/// registries. Empty when the tool has no such pair or the request no such word.
///
/// ```
/// use toolwright_local::cues::image_tag;
/// let v = image_tag(&["repository", "tag"], "pull the postgres:16 image");
/// assert_eq!(v, [("repository".to_string(), vec!["postgres".to_string()]),
///                ("tag".to_string(), vec!["16".to_string()])]);
/// assert!(image_tag(&["image"], "run postgres:16").is_empty());
/// assert!(image_tag(&["image", "tag"], "pull https://example.com:8080").is_empty());
/// ```
pub fn image_tag(params: &[&str], query: &str) -> Vec<(String, Vec<String>)> {
    let image = params.iter().find(|p| one_side(p, IMAGE_WORDS));
    let tag = params.iter().find(|p| {
        matches!(name_words(p).as_slice(), [t] if t == "tag")
            || matches!(name_words(p).as_slice(), [i, t] if i == "image" && t == "tag")
    });
    let (Some(image), Some(tag)) = (image, tag) else {
        return Vec::new();
    };
    sides(image, tag, &image_refs(query))
}

/// For a tool with a parameter for a new name (`new_name`, `newTitle`: "new" and a last word)
/// and one for the current name (the same last word without "new": `collection_name`, `name`,
/// `old_name`; with several, the one that opens with "old" or "current"), the two ends of the
/// request's "rename X to Y" (or "as Y"): the word, or the quoted text, before the first "to"
/// after the verb for the current name, and after it for the new one ("rename the chroma
/// collection faq to faq_v2": `collection_name` → `faq`, `new_name` → `faq_v2`). The verb is
/// "re" and the names' last word ("rename", "retitle"). Empty otherwise.
///
/// ```
/// use toolwright_local::cues::rename_ends;
/// let v = rename_ends(&["collection_name", "new_name"], "rename the collection faq to faq_v2");
/// assert_eq!(v, [("collection_name".to_string(), vec!["faq".to_string()]),
///                ("new_name".to_string(), vec!["faq_v2".to_string()])]);
/// let v = rename_ends(&["name", "newName"], "rename 'Q3 plan' to 'Q4 plan'");
/// assert_eq!(v[1], ("newName".to_string(), vec!["Q4 plan".to_string()]));
/// assert!(rename_ends(&["name", "title"], "rename faq to faq_v2").is_empty());
/// ```
pub fn rename_ends(params: &[&str], query: &str) -> Vec<(String, Vec<String>)> {
    let opens = |p: &str, w: &[&str]| {
        name_words(p)
            .first()
            .is_some_and(|f| w.contains(&f.as_str()))
    };
    let Some(new) = params
        .iter()
        .find(|p| opens(p, &["new"]) && name_words(p).len() >= 2)
    else {
        return Vec::new();
    };
    let last = name_words(new).last().cloned().unwrap_or_default();
    let olds: Vec<&&str> = params
        .iter()
        .filter(|p| *p != new && !opens(p, &["new"]))
        .filter(|p| name_words(p).last() == Some(&last))
        .collect();
    let old = match olds.as_slice() {
        [one] => **one,
        many => match many.iter().find(|p| opens(p, &["old", "current"])) {
            Some(p) => **p,
            None => return Vec::new(),
        },
    };
    match renamed_ends(query, &last) {
        Some((a, b)) if a != b => vec![(old.to_string(), vec![a]), (new.to_string(), vec![b])],
        _ => Vec::new(),
    }
}

/// The two ends of "re`last` X to Y" in `query` (see [`rename_ends`]).
fn renamed_ends(query: &str, last: &str) -> Option<(String, String)> {
    let ws = tokens(query);
    let text = |k: usize| {
        ws.get(k)
            .and_then(|w| query.get(w.body.clone()))
            .unwrap_or("")
    };
    let raw = |k: usize| {
        ws.get(k)
            .and_then(|w| query.get(w.raw.clone()))
            .unwrap_or("")
            .trim_end_matches([',', '.', ';', ':', '!', '?'])
    };
    let verb = (0..ws.len()).find(|&i| {
        text(i)
            .to_lowercase()
            .strip_prefix("re")
            .is_some_and(|r| !last.is_empty() && r.starts_with(last))
    })?;
    let to =
        (verb + 2..ws.len()).find(|&i| matches!(text(i).to_lowercase().as_str(), "to" | "as"))?;
    // A quoted end runs from its opening quote to its closing one.
    let quoted_before = || {
        let close = to.checked_sub(1)?;
        if !raw(close).ends_with(QUOTES_CLOSE) {
            return None;
        }
        let open = (verb + 1..=close)
            .rev()
            .find(|&j| raw(j).starts_with(QUOTES))?;
        query
            .get(ws.get(open)?.body.start..ws.get(close)?.body.end)
            .map(String::from)
    };
    let quoted_after = || {
        let open = to + 1;
        if !raw(open).starts_with(QUOTES) {
            return None;
        }
        let close = (open..ws.len()).find(|&j| raw(j).ends_with(QUOTES_CLOSE))?;
        query
            .get(ws.get(open)?.body.start..ws.get(close)?.body.end)
            .map(String::from)
    };
    let plain = |k: usize| {
        let t = text(k);
        (!t.is_empty() && !FUNCTION_WORDS.contains(&t.to_lowercase().as_str()))
            .then(|| t.to_string())
    };
    let a = quoted_before().or_else(|| plain(to - 1))?;
    let b = quoted_after().or_else(|| plain(to + 1))?;
    Some((a, b))
}

/// Name words of a move's two ends (`source_branch`/`target_branch`, `head`/`base`).
const ENDS: &[(&str, &str)] = &[
    ("source", "target"),
    ("source", "destination"),
    ("from", "to"),
    ("src", "dest"),
    ("head", "base"),
    ("origin", "destination"),
    ("start", "end"),
    ("since", "until"),
    ("after", "before"),
];

/// The pair of `params` that names a move's two ends (`ENDS`): names that differ only there
/// (`source_branch` and `target_branch`, `source_timezone` and `target_timezone`, `head` and
/// `base`), source first.
pub fn ends_pair(params: &[&str]) -> Option<(String, String)> {
    name_pair(params, ENDS)
}

/// For a tool with a string pair that names a move's two ends (`ENDS`: names that differ
/// only there, such as `source_branch` and `target_branch`), the words after the request's
/// "from" (or "off of") for the first and after its "to", "into" or "onto" for the second: one
/// word, or a name in capitals of up to four ("a merge request from fix/leak into main", "from
/// New York to Philadelphia"). Empty unless the tool has such a pair and the
/// request gives both ends.
///
/// ```
/// use toolwright_local::cues::move_ends;
/// let v = move_ends(&["source_branch", "target_branch", "title"],
///                   "open a merge request from fix/leak into main called 'Fix it'");
/// assert_eq!(v, [("source_branch".to_string(), vec!["fix/leak".to_string()]),
///                ("target_branch".to_string(), vec!["main".to_string()])]);
/// ```
pub fn move_ends(params: &[&str], query: &str) -> Vec<(String, Vec<String>)> {
    let Some((source, target)) = ends_pair(params) else {
        return Vec::new();
    };
    let ws = tokens(query);
    let text = |k: usize| {
        ws.get(k)
            .and_then(|w| query.get(w.body.clone()))
            .unwrap_or("")
    };
    let plain = |k: usize| FUNCTION_WORDS.contains(&text(k).to_lowercase().as_str());
    let after = |preps: &[&str]| -> Option<String> {
        (0..ws.len()).find_map(|i| {
            let w = text(i).to_lowercase();
            if !preps.contains(&w.as_str()) {
                return None;
            }
            // "off of develop": past a second preposition.
            let k = if text(i + 1).eq_ignore_ascii_case("of") {
                i + 2
            } else {
                i + 1
            };
            if text(k).is_empty() || plain(k) {
                return None;
            }
            // A name in capitals runs on, up to four words and no punctuation: "from New York
            // to Philadelphia" (but "into main titled ..." is `main`).
            let raw = |j: usize| {
                ws.get(j)
                    .and_then(|w| query.get(w.raw.clone()))
                    .unwrap_or("")
            };
            let capital = |j: usize| text(j).starts_with(char::is_uppercase);
            let mut end = k + 1;
            while end < k + 4
                && capital(end - 1)
                && capital(end)
                && !plain(end)
                && !raw(end - 1).ends_with([',', ';', '.', ':', '!', '?'])
                && !raw(end).starts_with(QUOTES)
            {
                end += 1;
            }
            let (first, last) = (ws.get(k)?, ws.get(end - 1)?);
            query.get(first.body.start..last.body.end).map(String::from)
        })
    };
    match (after(&["from", "off"]), after(&["to", "into", "onto"])) {
        (Some(a), Some(b)) if a != b => vec![(source, vec![a]), (target, vec![b])],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cv(p: &str, q: &str) -> Vec<String> {
        cue_values(p, q).unwrap_or_default()
    }

    #[test]
    fn names_split_at_underscores_and_camel_case() {
        assert_eq!(name_words("thread_ts"), ["thread", "ts"]);
        assert_eq!(name_words("channelId"), ["channel", "id"]);
        assert_eq!(name_words("startTarget"), ["start", "target"]);
        assert_eq!(name_words("file-path.x"), ["file", "path", "x"]);
        assert_eq!(name_words("side12b"), ["side", "12", "b"]);
        assert_eq!(
            name_pair(&["title", "source_branch", "target_branch"], ENDS),
            Some(("source_branch".to_string(), "target_branch".to_string()))
        );
        assert_eq!(
            name_pair(&["max_price", "min_price"], &[("min", "max")]),
            Some(("min_price".to_string(), "max_price".to_string()))
        );
        assert_eq!(name_pair(&["source", "target_branch"], ENDS), None);
    }

    #[test]
    fn a_name_word_points_at_the_value_after_it() {
        let q = "reply in the thread 1712345678.123456 in channel C024BE91L: 'on it!'";
        assert_eq!(cv("thread_ts", q), ["1712345678.123456"]);
        assert_eq!(cv("channel_id", q), ["C024BE91L"]);
        assert_eq!(
            cv("project_id", "merge request in gitlab project 4521"),
            ["4521"]
        );
        assert_eq!(
            cv("user_id", "look up the Notion user with id 6794760a-1f15"),
            ["6794760a-1f15"]
        );
        assert_eq!(
            cv(
                "database_id",
                "fetch the notion database object 2f26ee68-df30"
            ),
            ["2f26ee68-df30"]
        );
        assert_eq!(
            cv("branch", "create a branch named feature/oauth off develop"),
            ["feature/oauth", "feature", "oauth"]
        );
        assert_eq!(
            cv("message", "commit it with message 'fix the total'"),
            ["fix the total"]
        );
        assert_eq!(
            cv("branch", "cut the hotfix/1.4 branch now"),
            ["hotfix/1.4", "hotfix", "1.4"]
        );
    }

    #[test]
    fn a_plain_word_names_the_thing_where_english_puts_a_name() {
        // Between a determiner and the name word.
        assert_eq!(
            cv(
                "namespace",
                "bounce the pods of the redis statefulset in the cache namespace"
            ),
            ["cache"]
        );
        assert_eq!(cv("branch", "switch to the release branch"), ["release"]);
        // Unless only the second is written as a value; "newest" names nothing.
        assert_eq!(
            cv(
                "chart",
                "move it to the newest grafana/grafana chart version"
            ),
            ["grafana/grafana", "grafana"]
        );
        assert!(cv("chart", "move it to the newest chart").is_empty());
        // Two words there: the first names, the second classifies.
        assert_eq!(
            cv(
                "database",
                "show the collections inside the shop mongo database"
            ),
            ["shop"]
        );
        // An abbreviation stands for the name word, and the other way round.
        assert_eq!(cv("database", "how many users in the app db?"), ["app"]);
        assert_eq!(cv("repo", "star the website repository"), ["website"]);
        // After a preposition of place, the word after the name word.
        assert_eq!(
            cv(
                "namespace",
                "is the rollout of billing in ns finance finished yet?"
            ),
            ["finance"]
        );
        // Vague words name nothing; nor does a word after the name word elsewhere.
        assert!(cue_values("table", "create the new table for invoices").is_none());
        assert!(cue_values("cluster", "every deployment in the whole cluster").is_none());
        assert!(cue_values("database", "the database server is down").is_none());
        assert!(cue_values("namespace", "in namespace, list pods").is_none());
    }

    #[test]
    fn a_two_word_name_is_a_cue_where_both_words_are_written() {
        let q = "update README.md on main, commit message 'docs: install steps'";
        assert_eq!(cv("commit_message", q), ["docs: install steps"]);
        assert_eq!(
            cv("source_branch", "merge source branch fix/leak into main"),
            ["fix/leak", "fix", "leak"]
        );
        // One of the words alone, or both apart, is no cue.
        assert!(cue_values("commit_message", "commit 'fix typo'").is_none());
        assert!(cue_values("commit_message", "the message of commit 'abc123'").is_none());
    }

    #[test]
    fn after_a_colon_the_value_is_the_rest() {
        let v = cv("jql", "jql: project = WEB AND status != Done.");
        assert_eq!(v, ["project = WEB AND status != Done"]);
        // A value already named before the name word is the value, not the rest.
        let q = "usage statistics for the analytics database: data size, object count";
        assert_eq!(cv("database", q), ["analytics"]);
    }

    #[test]
    fn plain_words_and_other_names_are_no_cue() {
        // Plain words may be the start of a longer value: no cue.
        assert!(cue_values("player_name", "the player stats of LeBron James").is_none());
        assert!(cue_values("time", "what is 8pm Chicago time in Singapore time?").is_none());
        // Names without one distinctive word give no cue.
        assert!(cue_values("name", "a repo named 'dotfiles'").is_none());
        assert!(cue_values("source_branch", "merge branch fix/leak").is_none());
        // A function word ends the search.
        assert!(cue_values("branch", "the branch of acme/engine").is_none());
    }

    #[test]
    fn owner_and_name_take_the_sides_of_a_slashed_word() {
        let p = ["owner", "repo", "pull_number"];
        let v = owner_name(
            &p,
            "are the CI checks passing on pull request 77 of acme/engine?",
        );
        assert_eq!(v[0], ("owner".to_string(), vec!["acme".to_string()]));
        assert_eq!(v[1], ("repo".to_string(), vec!["engine".to_string()]));
        // Paths, URLs, dates and tools without the pair give nothing.
        assert!(owner_name(&p, "read /srv/app and src/a.rs").is_empty());
        assert!(owner_name(&p, "open https://github.com/acme/engine").is_empty());
        assert!(owner_name(&p, "due 19/03 or 1/2").is_empty());
        assert!(owner_name(&["project_id", "branch"], "fork acme/engine").is_empty());
    }

    #[test]
    fn a_moves_ends_are_the_phrases_after_from_and_to() {
        let v = move_ends(
            &["source", "destination", "max_cost"],
            "Find a ride from New York to Philadelphia, with maximum cost of $50",
        );
        assert_eq!(v[0].1, ["New York"]);
        assert_eq!(v[1].1, ["Philadelphia"]);
        let v = move_ends(
            &["head", "base"],
            "a PR from feature/oauth into main titled 'Add It'",
        );
        assert_eq!(v[1].1, ["main"]);
    }

    #[test]
    fn a_move_needs_both_ends() {
        let p = ["head", "base", "title"];
        let v = move_ends(&p, "open a PR in acme/webapp from feature/oauth into main");
        assert_eq!(
            v[0],
            ("head".to_string(), vec!["feature/oauth".to_string()])
        );
        assert_eq!(v[1], ("base".to_string(), vec!["main".to_string()]));
        assert!(move_ends(&p, "open a PR from feature/oauth").is_empty());
        assert!(move_ends(&["source", "title"], "copy from a to b").is_empty());
        let v = move_ends(
            &["from_branch", "to_branch"],
            "a branch off of develop to x1",
        );
        assert_eq!(v[0].1, ["develop"]);
    }

    #[test]
    fn paths_and_urls_are_recognised_by_their_writing() {
        for p in [
            "/srv/app",
            "src/a.rs",
            "notes.txt",
            ".env",
            "C:\\x",
            "./a.jpg",
        ] {
            assert!(path_like(p), "{p}");
        }
        for p in ["v2", "1.4.1", "https://a.b/c", "a@b.com", "main", "e.g"] {
            assert!(!path_like(p), "{p}");
        }
        assert_eq!(written_as("repo_path"), Some(Written::Path));
        assert_eq!(written_as("filename"), Some(Written::Path));
        assert_eq!(written_as("url"), Some(Written::Url));
        assert_eq!(written_as("selector"), Some(Written::Selector));
        assert_eq!(written_as("content"), None);
        for w in [
            "#submit-btn",
            ".nav-menu",
            "input[name=email]",
            "button.accept-cookies",
        ] {
            assert!(selector_like(w), "{w}");
        }
        for w in ["notes.txt", "v2.3", "e42", "#", "a.b.c/d"] {
            assert!(!selector_like(w), "{w}");
        }
    }

    #[test]
    fn focus_prefers_cues_then_written_paths() {
        let q = "what files are in /home/ana/Downloads?";
        let spans = crate::spans::query_spans(q);
        let f = focus(Param::named("path"), q, &spans, |_| true).unwrap();
        assert_eq!(f, ["/home/ana/Downloads"]);
        assert!(focus(Param::named("content"), q, &spans, |_| true).is_none());
        let q = "open https://example.com/a in a tab";
        let spans = crate::spans::query_spans(q);
        assert_eq!(
            focus(Param::named("url"), q, &spans, |_| true).unwrap(),
            ["https://example.com/a"]
        );
        // A cue whose values the schema's bounds reject leaves the spans alone.
        let q = "messages in channel C0ENG42";
        let spans = crate::spans::query_spans(q);
        assert!(focus(Param::named("channel"), q, &spans, |s| s.len() < 3).is_none());
    }

    #[test]
    fn a_quantity_is_no_name_and_a_uid_is_an_id() {
        let q = "next thing on my Gym calendar within 12 hours";
        let spans = crate::spans::query_spans(q);
        let f = focus(Param::named("calendar_id"), q, &spans, |_| true);
        assert_eq!(f.unwrap_or_default(), ["Gym"]);
        let q = "get rid of calendar entry 3b2a1c0d-9e8f-4a7b";
        let spans = crate::spans::query_spans(q);
        let f = focus(Param::named("uid"), q, &spans, |_| true);
        assert_eq!(f.unwrap_or_default(), ["3b2a1c0d-9e8f-4a7b"]);
    }

    #[test]
    fn handles_go_to_channels_and_users() {
        let q = "ping the #deploys channel with 'v2.14.0 is live'";
        let spans = crate::spans::query_spans(q);
        let f = focus(Param::named("channel"), q, &spans, |_| true);
        assert_eq!(f.unwrap_or_default(), ["#deploys"]);
        let q = "message @h.tanaka directly: 'the invoice is attached in #finance'";
        let spans = crate::spans::query_spans(q);
        let f = focus(Param::named("username"), q, &spans, |_| true);
        assert_eq!(f.unwrap_or_default(), ["@h.tanaka"]);
        // A handle inside a quoted text is part of the text.
        let f = focus(Param::named("channel_name"), q, &spans, |_| true);
        assert_eq!(f.unwrap_or_default(), ["@h.tanaka"]);
    }

    #[test]
    fn an_identifier_is_the_bracketed_word_after_the_things_name() {
        let q = "show all channels in the Finance team (8b1f2c3d-4e5f-4a6b) so I can pick";
        let spans = crate::spans::query_spans(q);
        let f = focus(Param::named("teamId"), q, &spans, |_| true);
        assert_eq!(f.unwrap_or_default(), ["8b1f2c3d-4e5f-4a6b"]);
        // The thing's name stays the name's.
        let f = focus(Param::named("team_name"), q, &spans, |_| true);
        assert_eq!(f.unwrap_or_default(), ["Finance"]);
    }

    #[test]
    fn identifier_parameters_take_identifiers_by_their_prefix() {
        let spans = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sibs = ["subscription", "proration_behavior"];
        let p = Param {
            name: "subscription",
            description: "The ID of the subscription to update.",
            siblings: &sibs,
            tool: "update_subscription",
            tool_description: "",
        };
        let q = "switch sub_1Kq7 over to price_Gold2";
        let got = focus(p, q, &spans(&["sub_1Kq7", "price_Gold2", "switch"]), |_| {
            true
        });
        assert_eq!(got.unwrap(), ["sub_1Kq7"]);
        // Initials: `pi` for `payment_intent`.
        let p = Param {
            name: "payment_intent",
            description: "The ID of the PaymentIntent to refund.",
            siblings: &["payment_intent", "amount"],
            tool: "create_refund",
            tool_description: "",
        };
        let got = focus(
            p,
            "give $15 back on payment pi_3Mtw",
            &spans(&["pi_3Mtw", "payment"]),
            |_| true,
        );
        assert_eq!(got.unwrap(), ["pi_3Mtw"]);
        // Not an identifier parameter: no cue.
        let p = Param {
            name: "title",
            description: "The title.",
            siblings: &["title"],
            tool: "rename_request",
            tool_description: "",
        };
        assert!(
            focus(
                p,
                "rename req-4 to Launch",
                &spans(&["req-4", "Launch"]),
                |_| true
            )
            .is_none()
        );
        // An identifier that names a sibling is not this parameter's; nothing left: no cue.
        let p = Param {
            name: "requestId",
            description: "",
            siblings: &["requestId", "taskId"],
            tool: "close_task",
            tool_description: "",
        };
        assert!(identifiers_for(p, "close task-11 now", &spans(&["task-11"]), |_| true).is_none());
        let p = Param {
            name: "issue_id_or_url",
            description: "Sentry issue ID or URL",
            siblings: &["issue_id_or_url"],
            tool: "get_sentry_issue",
            tool_description: "",
        };
        let q = "dig into sentry 5566778899, where is it throwing";
        let got = focus(
            p,
            q,
            &spans(&["sentry 5566778899", "5566778899", "sentry"]),
            |_| true,
        );
        assert_eq!(got.unwrap(), ["5566778899"]);
        assert!(holds_identifier("knowledgeBaseId", ""));
        assert!(holds_identifier("product", "The ID of the product."));
        assert!(!holds_identifier("idea", "Ideas and identity."));
        assert!(email_like("jordan.blake@example.com"));
        assert!(!email_like("@handle") && !email_like("a@b") && !email_like("user@host@x.io"));
    }

    #[test]
    fn a_generic_name_takes_the_value_written_by_its_own_word() {
        let spans = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let q = "store the key session:42 with value active";
        let s = spans(&["session:42", "key session:42", "active", "value active"]);
        assert_eq!(
            focus(Param::named("key"), q, &s, |_| true).unwrap(),
            ["session:42"]
        );
        // A plain word by it is not a value: "active" may be the start of a longer one.
        assert!(focus(Param::named("value"), q, &s, |_| true).is_none());
        // "the api key" names no key.
        let q = "rotate the api key of project alpha";
        let s = spans(&["api", "api key", "alpha"]);
        assert!(focus(Param::named("key"), q, &s, |_| true).is_none());
    }

    #[test]
    fn a_bare_name_is_cued_by_its_tools_object() {
        let spans = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let p = Param {
            name: "name",
            description: "",
            siblings: &["name", "color"],
            tool: "add_label",
            tool_description: "",
        };
        let q = "new todoist label waiting-on, orange";
        let got = focus(
            p,
            q,
            &spans(&["todoist label waiting-on", "waiting-on", "orange"]),
            |_| true,
        );
        assert_eq!(got.unwrap(), ["waiting-on"]);
        let p = Param {
            name: "name",
            description: "",
            siblings: &["name", "project_id"],
            tool: "add_section",
            tool_description: "",
        };
        let q = "add a Waiting section to todoist project 2203306141";
        let got = focus(
            p,
            q,
            &spans(&["Waiting", "todoist project 2203306141"]),
            |_| true,
        );
        assert_eq!(got.unwrap(), ["Waiting"]);
        // The description's object, after a possessive.
        let p = Param {
            name: "title",
            description: "The title of the Wikipedia article",
            siblings: &["title", "topic"],
            tool: "wikipedia_extract_key_facts",
            tool_description: "",
        };
        let q = "main facts about the economy from wikipedia's Japan article";
        let got = focus(p, q, &spans(&["Japan", "economy", "wikipedia"]), |_| true);
        assert_eq!(got.unwrap(), ["Japan"]);
        assert_eq!(
            described_object("Name of the resource to scale").unwrap(),
            "resource"
        );
        assert!(described_object("The page's title").is_none());
        // Renaming: after the object's word stands the old name, no cue.
        let p = Param {
            name: "name",
            description: "",
            siblings: &["baseId", "tableId", "name"],
            tool: "update_table",
            tool_description: "",
        };
        let q = "rename airtable table tblQ3Goals in appX1y2Z3abc to 'Q3 OKRs'";
        assert!(focus(p, q, &spans(&["tblQ3Goals", "Q3 OKRs"]), |_| true).is_none());
        // The object's number is not its name; a code is.
        let p = Param {
            name: "name",
            description: "",
            siblings: &["name", "percent_off"],
            tool: "create_coupon",
            tool_description: "",
        };
        let got = focus(
            p,
            "create coupon LOYAL10 with 10% off",
            &spans(&["LOYAL10", "10%"]),
            |_| true,
        );
        assert_eq!(got.unwrap(), ["LOYAL10"]);
        let p = Param {
            name: "name",
            description: "",
            siblings: &["name", "project_id"],
            tool: "add_project",
            tool_description: "",
        };
        let q = "create a sub-project 'Q3 launch' under todoist project 2203306141";
        assert!(focus(p, q, &spans(&["Q3 launch", "2203306141"]), |_| true).is_none());
        // A plain word after the object is no value: no cue.
        let q = "add a section called later to project 7";
        assert!(focus(p, q, &spans(&["later", "project 7"]), |_| true).is_none());
    }
}
