//! Text helpers shared by the router and the linter: splitting identifiers and prose into
//! words, light stemming, stop words and a small table of related words.

/// Splits an identifier or a sentence into lowercase words: `snake_case`, `camelCase`,
/// `dotted.names`, `kebab-case`, digits and punctuation all separate words.
///
/// ```
/// use toolwright_catalog::text::words;
/// assert_eq!(words("getWeather.v2_forecast"), ["get", "weather", "v", "2", "forecast"]);
/// assert_eq!(words("What's the HTTPStatus?"), ["what's", "the", "http", "status"]);
/// ```
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if c.is_alphanumeric()
            || (c == '\'' && !cur.is_empty() && next.is_some_and(char::is_alphabetic))
        {
            if let Some(p) = prev.filter(|_| !cur.is_empty()) {
                // camelCase: lower → Upper; acronym end: "HTTPStatus" splits before "S".
                let boundary = (p.is_lowercase() && c.is_uppercase())
                    || (p.is_uppercase()
                        && c.is_uppercase()
                        && next.is_some_and(char::is_lowercase))
                    || (p.is_alphabetic() && c.is_numeric())
                    || (p.is_numeric() && c.is_alphabetic());
                if boundary {
                    out.push(std::mem::take(&mut cur));
                }
            }
            if c.is_ascii() {
                cur.push(c.to_ascii_lowercase());
            } else {
                cur.extend(c.to_lowercase());
            }
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// English words too common to help tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but",
    "by", "can", "could", "did", "do", "does", "for", "from", "give", "had", "has", "have", "he",
    "her", "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let",
    "like", "me", "might", "more", "most", "much", "my", "need", "no", "not", "now", "of", "on",
    "one", "or", "our", "please", "she", "should", "so", "some", "tell", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "too", "us", "use",
    "used", "very", "want", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "you", "your", "given", "using", "whether", "s",
];

/// Whether `word` (lowercase) is a stop word.
pub fn is_stop_word(word: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(word)
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

fn has_vowel(s: &str) -> bool {
    s.bytes().any(is_vowel)
}

/// Light English stemming (a small subset of Porter's first steps): plurals, `-ing`, `-ed`,
/// `-ly`, with doubled final consonants undone. Words that are not plain ASCII are returned as is.
///
/// ```
/// use toolwright_catalog::text::stem;
/// assert_eq!(stem("raining"), "rain");
/// assert_eq!(stem("forecasts"), "forecast");
/// assert_eq!(stem("running"), "run");
/// assert_eq!(stem("cities"), "city");
/// assert_eq!(stem("converted"), "convert");
/// ```
pub fn stem(word: &str) -> String {
    let w = word.strip_suffix("'s").unwrap_or(word);
    let w = w.trim_end_matches('\'');
    // Words whose plural-looking form means something else ("17 times 23" is not about clocks).
    if !w.is_ascii() || w.len() <= 3 || matches!(w, "times" | "news" | "series" | "plus" | "minus")
    {
        return w.to_string();
    }
    let mut s = w.to_string();
    if let Some(base) = s.strip_suffix("ies") {
        if base.len() >= 2 {
            s = format!("{base}y");
        }
    } else if let Some(base) = s.strip_suffix("sses") {
        s = format!("{base}ss");
    } else if s.ends_with("xes") || s.ends_with("ches") || s.ends_with("shes") {
        s.truncate(s.len() - 2);
    } else if s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        s.pop();
    }
    for suffix in ["ing", "ed"] {
        if let Some(base) = s.strip_suffix(suffix) {
            if base.len() >= 3 && has_vowel(base) {
                let mut b = base.to_string();
                let bytes = b.as_bytes();
                let n = bytes.len();
                // "running" → "runn" → "run"; keep "ll", "ss", "zz" ("calling", "passed").
                if n >= 2 {
                    let (x, y) = (bytes.get(n - 2).copied(), bytes.get(n - 1).copied());
                    if x == y && y.is_some_and(|c| !is_vowel(c) && !matches!(c, b'l' | b's' | b'z'))
                    {
                        b.pop();
                    }
                }
                s = b;
            }
            break;
        }
    }
    if let Some(base) = s.strip_suffix("ly")
        && base.len() >= 4
    {
        s = base.to_string();
    }
    s
}

/// Groups of related words (already stemmed): a query word from a group also matches the others,
/// at a lower weight. Small on purpose: it helps everyday questions reach plainly named tools.
const RELATED: &[&[&str]] = &[
    &[
        "weather",
        "rain",
        "forecast",
        "temperature",
        "sunny",
        "snow",
        "wind",
        "humidity",
        "cloud",
        "storm",
        "umbrella",
        "hot",
        "cold",
        "degree",
    ],
    &[
        "currency", "exchange", "convert", "money", "dollar", "euro", "rate", "usd", "eur", "yen",
        "pound",
    ],
    &["file", "document", "folder", "directory", "path"],
    &["delete", "remove", "erase", "drop", "destroy"],
    &[
        "user", "account", "person", "people", "member", "employee", "customer",
    ],
    &[
        "calculate",
        "compute",
        "math",
        "arithmetic",
        "evaluate",
        "expression",
        "sum",
        "multiply",
        "divide",
        "add",
        "times",
        "plus",
        "minus",
        "product",
        "percent",
    ],
    &["find", "search", "lookup", "look", "query", "list"],
    &["time", "date", "clock", "timezone", "zone"],
    &["email", "mail", "message", "send", "inbox"],
    &["price", "cost", "pay", "payment", "buy"],
    &["city", "town", "place", "location"],
];

/// Words related to `stemmed` (excluding itself), from a small built-in table.
pub fn related(stemmed: &str) -> impl Iterator<Item = &'static str> + '_ {
    RELATED
        .iter()
        .filter(move |g| g.contains(&stemmed))
        .flat_map(|g| g.iter().copied())
        .filter(move |w| *w != stemmed)
}

/// What a request asks to do to its object, or what a tool does to it, as far as its verb says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Look something up without changing it (`get`, `list`, `search`; a question word).
    Read,
    /// Make something new (`create`, `add`, `send`).
    Create,
    /// Change something that exists (`update`, `edit`, `rename`).
    Update,
    /// Remove something (`delete`, `remove`).
    Delete,
}

/// The verbs of each [`Action`]: everyday CRUD vocabulary, not any toolset's. Besides the
/// plain CRUD verbs, the everyday verbs of a state change (`archive`, `pause`, `merge`, `close`,
/// `approve`, `restart`, `upgrade`), of a cancellation (`cancel`, `void`, `revoke`) and of
/// making something by sending, buying or setting it going (`upload`, `submit`, `buy`,
/// `invite`, `schedule`, `deploy`, `install`) are sorted in, so that
/// "void the invoice" is not taken for a look-up. Words that are as often nouns or mean several
/// actions (`open`, `order`, `book`, `start`, `run`, `pull`) are left out.
const ACTIONS: &[(Action, &[&str])] = &[
    (
        Action::Delete,
        &[
            "delete",
            "remove",
            "drop",
            "erase",
            "destroy",
            "clear",
            "cancel",
            "void",
            "revoke",
            "purge",
            "wipe",
            "trash",
            "discard",
            "uninstall",
            "unsubscribe",
            "terminate",
            "kill",
            "abort",
        ],
    ),
    (
        Action::Update,
        &[
            "update",
            "edit",
            "modify",
            "change",
            "set",
            "rename",
            "move",
            "patch",
            "replace",
            "assign",
            "transition",
            "pause",
            "resume",
            "archive",
            "unarchive",
            "merge",
            "close",
            "reopen",
            "resolve",
            "approve",
            "reject",
            "complete",
            "finish",
            "mark",
            "star",
            "unstar",
            "pin",
            "unpin",
            "lock",
            "unlock",
            "enable",
            "disable",
            "activate",
            "deactivate",
            "restore",
            "rotate",
            "resize",
            "reset",
            "share",
            "transfer",
            "acknowledge",
            "ack",
            "ban",
            "unban",
            "mute",
            "unmute",
            "upvote",
            "downvote",
            "restart",
            "reboot",
            "redeploy",
            "rerun",
            "retry",
            "rebuild",
            "upgrade",
            "downgrade",
        ],
    ),
    (
        Action::Create,
        &[
            "create", "add", "new", "make", "post", "send", "write", "insert", "generate",
            "upload", "submit", "publish", "buy", "purchase", "invite", "schedule", "reply",
            "compose", "fork", "pay", "register", "refund", "deploy", "trigger", "install",
            "launch",
        ],
    ),
    (
        Action::Read,
        &[
            "get", "list", "read", "search", "find", "fetch", "show", "view", "describe", "query",
            "retrieve", "lookup", "look", "check", "display", "see", "what", "which", "who",
            "where", "when", "how",
        ],
    ),
];

/// Phrasal verbs whose meaning is not their first word's ("get rid of" is no `get`): everyday
/// English, tried before the single verbs at each word.
const PHRASES: &[(Action, &[&str])] = &[
    (Action::Delete, &["get", "rid", "of"]),
    (Action::Delete, &["throw", "out"]),
    (Action::Delete, &["throw", "away"]),
    (Action::Delete, &["take", "down"]),
    (Action::Create, &["set", "up"]),
    (Action::Create, &["spin", "up"]),
    (Action::Update, &["roll", "back"]),
    // "get another number": obtain a new one, not look one up.
    (Action::Create, &["get", "another"]),
    (Action::Create, &["get", "us", "another"]),
    (Action::Create, &["get", "me", "another"]),
];

/// The action of the first of `words` (lowercase, unstemmed, as [`words`] gives them) that is
/// one of the verbs of an [`Action`], or begins one of its phrasal verbs.
///
/// ```
/// use toolwright_catalog::text::{Action, action, words};
/// assert_eq!(action(&words("delete_message")), Some(Action::Delete));
/// assert_eq!(action(&words("What's the weather")), Some(Action::Read));
/// assert_eq!(action(&words("get rid of the old branch")), Some(Action::Delete));
/// assert_eq!(action(&words("set up a new project")), Some(Action::Create));
/// assert_eq!(action(&words("void the invoice")), Some(Action::Delete));
/// assert_eq!(action(&words("pause workflow 55")), Some(Action::Update));
/// assert_eq!(action(&words("transfer_cycle_issues")), Some(Action::Update));
/// assert_eq!(action(&words("upload handbook.pdf")), Some(Action::Create));
/// assert_eq!(action(&words("get us another local number")), Some(Action::Create));
/// assert_eq!(action(&words("ack alert group 7")), Some(Action::Update));
/// assert_eq!(action(&words("abort build 88")), Some(Action::Delete));
/// assert_eq!(action(&words("refund order 5512")), Some(Action::Create));
/// assert_eq!(action(&words("sequentialthinking")), None);
/// ```
pub fn action(words: &[String]) -> Option<Action> {
    action_at(words).map(|(a, _)| a)
}

/// Like [`action`], with where its verb stands: the action and the range of `words` that says it.
fn action_at(words: &[String]) -> Option<(Action, std::ops::Range<usize>)> {
    (0..words.len()).find_map(|i| {
        let rest = words.get(i..).unwrap_or_default();
        if let Some((a, p)) = PHRASES.iter().find(|(_, p)| {
            p.len() <= rest.len() && p.iter().zip(rest).all(|(p, w)| *p == w.as_str())
        }) {
            return Some((*a, i..i + p.len()));
        }
        // "what's" → "what".
        let w = rest.first()?.split('\'').next().unwrap_or_default();
        ACTIONS
            .iter()
            .find(|(_, verbs)| verbs.contains(&w))
            .map(|(a, _)| (*a, i..i + 1))
    })
}

/// What a request asks to do: the [`action`] of its first four words ("close issue 42" →
/// update, "what is in …" → read), or read when they say no action and open a yes-or-no
/// question ("is the build green?"). "new" counts only as the first word: later it is an
/// adjective ("anything new on arXiv?", "the new release is broken"). When the opening says
/// neither, the first sentence or dash-set clause that does ("Incident 231 is fixed - close it
/// out" → update).
///
/// ```
/// use toolwright_catalog::text::{Action, request_action};
/// assert_eq!(request_action("please delete the file"), Some(Action::Delete));
/// assert_eq!(request_action("the weather in Oslo, then delete it"), None);
/// assert_eq!(request_action("new branch called fix-login"), Some(Action::Create));
/// assert_eq!(request_action("anything new on arXiv?"), Some(Action::Read));
/// assert_eq!(request_action("is meili task 1423 done yet?"), Some(Action::Read));
/// assert_eq!(request_action("have we ever written about sourdough?"), Some(Action::Read));
/// assert_eq!(request_action("have the agent dig up the founders"), None);
/// assert_eq!(request_action("is it possible to delete the file?"), None);
/// assert_eq!(request_action("Incident 231 is fixed - close it out"), Some(Action::Update));
/// assert_eq!(request_action("I added tables. Can you check them?"), Some(Action::Read));
/// assert_eq!(request_action("is there an upgrade guide for v5?"), Some(Action::Read));
/// assert_eq!(request_action("deploy-prod build 77 is stuck - what is it waiting for?"), Some(Action::Read));
/// assert_eq!(request_action("deploy the api to prod"), Some(Action::Create));
/// ```
pub fn request_action(query: &str) -> Option<Action> {
    clauses(query).into_iter().find_map(clause_action)
}

/// The [`request_action`] of the request's first words alone, whatever clause they are in:
/// for evidence that must not read a later aside ("Bob no longer reports to Carol. Drop that
/// link" opens with no action).
///
/// ```
/// use toolwright_catalog::text::{Action, opening_action};
/// assert_eq!(opening_action("close issue 42"), Some(Action::Update));
/// assert_eq!(opening_action("Incident 231 is fixed - close it out"), None);
/// ```
pub fn opening_action(query: &str) -> Option<Action> {
    clause_action(query)
}

/// The sentences of `query`, and the parts of each that a spaced dash sets apart.
fn clauses(query: &str) -> Vec<&str> {
    let mut cuts = vec![0];
    let bytes = query.as_bytes();
    for (i, c) in query.char_indices() {
        let next_is_space = bytes
            .get(i + c.len_utf8())
            .is_none_or(|b| b.is_ascii_whitespace());
        let prev_is_space = i > 0 && bytes.get(i - 1).is_some_and(u8::is_ascii_whitespace);
        let ends_sentence = matches!(c, '.' | '!' | '?' | ';') && next_is_space;
        let dash = matches!(c, '-' | '\u{2013}' | '\u{2014}') && prev_is_space && next_is_space;
        if ends_sentence || dash {
            cuts.push(i + c.len_utf8());
        }
    }
    cuts.push(query.len());
    cuts.dedup();
    cuts.windows(2)
        .filter_map(|w| query.get(*w.first()?..*w.get(1)?))
        .collect()
}

/// Words after which a verb of the table is a noun ("is there an upgrade guide", "my post").
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "my", "our", "your", "their", "its", "his",
    "her", "each", "every",
];

/// The words of `clause` as [`words`] gives them, with the words that cannot be its verb
/// blanked: those of a token that joins words into a name (`deploy-prod`, `post_id`,
/// `docs/post.md`: a letter or digit on both sides of a `-`, `_`, `/`, `.` or `:`), and the word
/// right after a determiner ("an upgrade guide", "the post").
fn verb_words(clause: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in clause.split_whitespace() {
        let chars: Vec<char> = token.chars().collect();
        let joined = chars.windows(3).any(|w| match w {
            [a, j, b] => {
                a.is_alphanumeric()
                    && b.is_alphanumeric()
                    && matches!(j, '-' | '_' | '/' | '.' | ':')
            }
            _ => false,
        });
        for w in words(token) {
            let after_determiner = out
                .last()
                .is_some_and(|p| DETERMINERS.contains(&p.as_str()));
            out.push(if joined || after_determiner {
                String::new()
            } else {
                w
            });
        }
    }
    out
}

/// The [`request_action`] of one clause.
fn clause_action(clause: &str) -> Option<Action> {
    let opening: Vec<String> = verb_words(clause)
        .into_iter()
        .take(QUESTION_WORDS)
        .enumerate()
        .filter(|(i, w)| *i == 0 || w != "new")
        .map(|(_, w)| w)
        .collect();
    let first = opening.get(..4).unwrap_or(&opening);
    action(first).or_else(|| {
        let later = opening.get(1..).and_then(action);
        (asks_whether(first) && later.is_none_or(|a| a == Action::Read)).then_some(Action::Read)
    })
}

/// How many of a request's first words a yes-or-no question is read from: a verb among them
/// that does more than read says what the question is about ("is it possible to delete the
/// file?").
const QUESTION_WORDS: usize = 8;

/// Words that open a yes-or-no question whatever follows them ("is the build green?", "any
/// comments on task 7?"). No imperative starts with them.
const QUESTION_OPENERS: &[&str] = &["is", "are", "was", "were", "any", "anything", "anyone"];

/// Words that open a yes-or-no question when a subject follows ("have we written …", "did
/// anyone …", "do we have …"), and an order otherwise ("have the agent dig up …", "do a dry
/// run").
const AUXILIARIES: &[&str] = &["have", "has", "had", "do", "does", "did"];

/// Subjects that make an [`AUXILIARIES`] word open a question.
const SUBJECTS: &[&str] = &[
    "i", "we", "you", "they", "he", "she", "it", "anyone", "anybody", "someone", "somebody",
    "there",
];

/// Shorthand that requests use for what tools spell out ("approve PR 318", "the staging db"),
/// each with its one meaning. Shorthand with two meanings is left out: "docs" (documentation or
/// documents), "org" (an organization or a code host's namespace), "desc" (a description or a
/// descending order).
pub const SHORTHAND: &[(&str, &str)] = &[
    ("pr", "pull request"),
    ("prs", "pull requests"),
    ("mr", "merge request"),
    ("mrs", "merge requests"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("db", "database"),
    ("dbs", "databases"),
    ("k8s", "kubernetes"),
    ("env", "environment"),
    ("envs", "environments"),
    ("msg", "message"),
    ("msgs", "messages"),
    ("dm", "direct message"),
    ("dms", "direct messages"),
    ("pic", "picture"),
    ("pics", "pictures"),
    ("img", "image"),
    ("imgs", "images"),
    ("config", "configuration"),
    ("configs", "configurations"),
    ("info", "information"),
    ("txt", "text"),
    ("acct", "account"),
    ("dir", "directory"),
    ("dirs", "directories"),
];

/// What the shorthand words of `query` ([`SHORTHAND`]) stand for, in the order they come, each
/// once: the router adds them to the request it ranks by, since a tool's name and description
/// spell them out (`create_pull_request_review` for "approve PR 318"). Only a whole word counts,
/// not a piece of one ("MongoDB", "mongodb://db.internal", ".env"), and quoted text is a value
/// left alone.
///
/// ```
/// use toolwright_catalog::text::spelled_out;
/// assert_eq!(spelled_out("approve PR 318 in the api repo"), ["pull request", "repository"]);
/// assert_eq!(spelled_out("rename the branch 'pr-fix'"), Vec::<&str>::new());
/// assert_eq!(spelled_out("sort by date desc"), Vec::<&str>::new());
/// assert_eq!(spelled_out("overwrite /srv/app/.env, then check MongoDB"), Vec::<&str>::new());
/// assert_eq!(spelled_out("(k8s) pods of the prod env."), ["kubernetes", "environment"]);
/// ```
pub fn spelled_out(query: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    for token in crate::values::without_quoted(query).split_whitespace() {
        let w = token
            .trim_start_matches(['(', '['])
            .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']']);
        if let Some((_, long)) = SHORTHAND
            .iter()
            .find(|(short, _)| w.eq_ignore_ascii_case(short))
            && !out.contains(long)
        {
            out.push(*long);
        }
    }
    out
}

/// Words with which a request takes back something done before: "undo the confirm on AY…",
/// "pull it back to draft", "stop alerting me about …", "we don't need it anymore", "no longer".
/// Negation alone is not one ("create the namespace if it isn't there").
pub const UNDO_CUES: &[&str] = &[
    "undo", "revert", "reverse", "back", "stop", "anymore", "longer",
];

/// Whether `query` asks to take back something done before ([`UNDO_CUES`]), or names the
/// undoing verb `un_word` itself (an `unschedule_campaign` for "unschedule c9d0"). The router
/// reads it to choose between a tool and its undoing twin (`confirmIssue`, `unconfirmIssue`).
///
/// ```
/// use toolwright_catalog::text::asks_to_undo;
/// assert!(asks_to_undo("undo the confirm on AYx3k9Zq2bF1mN0pQr9V", "unconfirm"));
/// assert!(asks_to_undo("bring the page back out of the archive", "unarchive"));
/// assert!(asks_to_undo("unpin the old rota post", "unpin"));
/// assert!(!asks_to_undo("confirm issue AYx3k9Zq2bF1mN0pQr9V", "unconfirm"));
/// assert!(!asks_to_undo("create the namespace if it isn't there", "uninstall"));
/// ```
pub fn asks_to_undo(query: &str, un_word: &str) -> bool {
    undo_in(&words(query), un_word)
}

/// [`asks_to_undo`] on a request's [`words`], read once.
pub(crate) fn undo_in(words: &[String], un_word: &str) -> bool {
    words
        .iter()
        .any(|w| w == un_word || UNDO_CUES.contains(&w.as_str()))
}

/// The things a request asks to see all of, when it is a question of which ones exist: "what
/// trello boards do I have?" → `boards`, "which labels have I made in todoist" → `labels`,
/// "what collections do we have in Outline?" → `collections`. The plural noun as written, right
/// before an auxiliary and its subject, within the question's first eight words.
///
/// ```
/// use toolwright_catalog::text::asked_to_list;
/// assert_eq!(asked_to_list("what trello boards do I have?").as_deref(), Some("boards"));
/// assert_eq!(asked_to_list("Which serverless functions have we deployed?").as_deref(), Some("functions"));
/// assert_eq!(asked_to_list("which labels have I made in todoist").as_deref(), Some("labels"));
/// assert_eq!(asked_to_list("what is the status of build 42?"), None);
/// assert_eq!(asked_to_list("delete the boards we have"), None);
/// ```
pub fn asked_to_list(query: &str) -> Option<String> {
    let w = words(query);
    let opening = w.first()?;
    if !matches!(opening.as_str(), "what" | "which") {
        return None;
    }
    let head = w.get(..QUESTION_WORDS).unwrap_or(&w);
    head.windows(3).skip(1).find_map(|t| match t {
        [noun, aux, subject]
            if is_plural(noun)
                && matches!(aux.as_str(), "do" | "does" | "have" | "has" | "are")
                && matches!(subject.as_str(), "i" | "we" | "you" | "there") =>
        {
            Some(noun.clone())
        }
        _ => None,
    })
}

/// Whether a lower-case word reads as an English plural: longer than three letters, ending in
/// "s" but not "ss" (`boards`, `projects`; not `class`, `bus`).
///
/// ```
/// use toolwright_catalog::text::is_plural;
/// assert!(is_plural("projects"));
/// assert!(!is_plural("project") && !is_plural("class") && !is_plural("bus"));
/// ```
pub fn is_plural(word: &str) -> bool {
    word.len() > 3 && word.ends_with('s') && !word.ends_with("ss")
}

/// The stemmed words that a request follows with an identifier, one existing thing each:
/// "open todoist project 2203306141" → `project`, "details of label 2156154810" → `label`,
/// "what's the timeline of incident 9d1e6b02-4c" → `incident`. An identifier is a token of three
/// or more letters, digits, `-` and `_` with a digit among them; the word before it counts when
/// it is no stop word.
///
/// ```
/// use toolwright_catalog::text::identified;
/// assert_eq!(identified("open todoist project 2203306141"), ["project"]);
/// assert_eq!(identified("notes on incident 9d1e6b02-4c, and task A-17"), ["incident", "task"]);
/// assert!(identified("create a project called Apollo").is_empty());
/// assert!(identified("the last 20 messages").is_empty());
/// ```
pub fn identified(query: &str) -> Vec<String> {
    let tokens: Vec<&str> = query.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    for pair in tokens.windows(2) {
        if let [before, id] = pair
            && is_identifier(id)
            && let [word] = words(before).as_slice()
            && !is_stop_word(word)
            && !word.chars().any(|c| c.is_ascii_digit())
        {
            let w = stem(word);
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// Words with which a request asks to act on several things at once: "these three", "both",
/// "bulk create …", "in one go".
pub const MANY_CUES: &[&str] = &["these", "both", "bulk", "batch", "multiple", "several"];

/// Whether `token` (one whitespace-separated piece of a request) is an identifier: three or
/// more letters, digits, `-` and `_`, with a digit among them, before closing punctuation.
fn is_identifier(token: &str) -> bool {
    let t = token.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    t.len() >= 3
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
}

/// Whether `query` asks to act on several things at once: it lists identifiers ("deals 101, 102
/// and 103", "recT1 and recT2"), or says so ([`MANY_CUES`], "at once", "in one go"). The router
/// then favours tools made for many things (`batch_update_tasks`, `create-events`).
///
/// ```
/// use toolwright_catalog::text::asks_for_many;
/// assert!(asks_for_many("move hubspot deals 101, 102 and 103 to closed won"));
/// assert!(asks_for_many("mark recT1 and recT2 as done"));
/// assert!(asks_for_many("add these three to my calendar in one go"));
/// assert!(!asks_for_many("move task 7025543210 into my Errands project (id 2203311000)"));
/// assert!(!asks_for_many("close issue 42"));
/// ```
pub fn asks_for_many(query: &str) -> bool {
    let lower = query.to_lowercase();
    if lower.contains("at once") || lower.contains("in one go") {
        return true;
    }
    if words(query).iter().any(|w| MANY_CUES.contains(&w.as_str())) {
        return true;
    }
    let tokens: Vec<&str> = query.split_whitespace().collect();
    let joined = |t: &str| t.eq_ignore_ascii_case("and") || t == "&";
    tokens.iter().enumerate().any(|(i, a)| {
        let (next, linked) = match tokens.get(i + 1) {
            Some(t) if joined(t) => (tokens.get(i + 2), true),
            t => (t, a.ends_with(',')),
        };
        linked && is_identifier(a) && next.is_some_and(|b| is_identifier(b))
    })
}

/// Whether `words` (a request's first words) open a yes-or-no question: such a request looks
/// something up ("is task 1423 done yet?" reads a task) when no verb of its first words says
/// otherwise.
fn asks_whether(words: &[String]) -> bool {
    let at = |i: usize| words.get(i).map(String::as_str).unwrap_or_default();
    QUESTION_OPENERS.contains(&at(0)) || (AUXILIARIES.contains(&at(0)) && SUBJECTS.contains(&at(1)))
}

/// What a tool does, from the verb of its name (`update_issue` → update).
pub fn name_action(name: &str) -> Option<Action> {
    name_object(name).map(|(a, _)| a)
}

/// What a tool does and to what, from its name: the [`name_action`] and the stemmed words of
/// its object, the words after the verb (`delete_records` → delete, `["record"]`), or before it
/// when none follow (`issue_create` → create, `["issue"]`). `None` when the name has no verb.
///
/// ```
/// use toolwright_catalog::text::{Action, name_object};
/// assert_eq!(name_object("slack_post_message"), Some((Action::Create, vec!["message".to_string()])));
/// assert_eq!(name_object("hubspot-batch-update-objects"), Some((Action::Update, vec!["object".to_string()])));
/// assert_eq!(name_object("browser_resize"), Some((Action::Update, vec!["browser".to_string()])));
/// assert_eq!(name_object("sequentialthinking"), None);
/// assert_eq!(name_object("resolve-library-id").map(|(a, _)| a), Some(Action::Read));
/// assert_eq!(name_object("resolve_incident").map(|(a, _)| a), Some(Action::Update));
/// ```
pub fn name_object(name: &str) -> Option<(Action, Vec<String>)> {
    let words = words(name);
    let (action, at) = action_at(&words)?;
    let after = words.get(at.end..).unwrap_or_default();
    let object = if after.is_empty() {
        words.get(..at.start).unwrap_or_default()
    } else {
        after
    };
    let object: Vec<String> = object.iter().map(|w| stem(w)).collect();
    // Resolving a name to an identifier looks it up (`resolve-library-id`, `resolve_hostname`);
    // resolving an incident or a thread changes it.
    let looks_up = words.get(at.clone()).is_some_and(|v| v == ["resolve"])
        && object
            .last()
            .is_some_and(|o| RESOLVED_NAMES.contains(&o.as_str()));
    Some((if looks_up { Action::Read } else { action }, object))
}

/// Objects of "resolve" in a tool's name that make it a look-up: what a name resolves to.
const RESOLVED_NAMES: &[&str] = &[
    "id",
    "identifier",
    "uuid",
    "name",
    "hostname",
    "host",
    "address",
    "url",
    "uri",
    "path",
    "alias",
    "symbol",
    "reference",
    "ref",
];

/// Prepositions that open a phrase saying where the request's thing is ("in the payments
/// namespace", "on record recD77", "from the Deals table").
const PLACE_PREPOSITIONS: &[&str] = &[
    "in", "inside", "within", "from", "on", "into", "onto", "under",
];

/// Words that end a place phrase.
const PLACE_ENDS: &[&str] = &[
    "and", "or", "but", "so", "where", "that", "which", "who", "whose", "with", "to", "for", "by",
    "about", "saying", "called", "named", "if", "when", "then", "while", "because", "as",
];

/// How many words a place phrase reads after its preposition.
const PLACE_WORDS: usize = 4;

/// The stemmed words of `query` ([`terms`]) split in two: those of its place phrases ("in
/// airtable base appX1", "on record recD77"), and the rest. A phrase runs from a place
/// preposition to the next punctuation or opening parenthesis, a conjunction or another
/// preposition ("and", "where", "with", "to", "for", …), or four words.
///
/// ```
/// use toolwright_catalog::text::place_terms;
/// let (place, rest) = place_terms("what tables are in airtable base 7, please?");
/// assert_eq!(place, ["airtable", "base", "7"]);
/// assert_eq!(rest, ["table"]);
/// ```
pub fn place_terms(query: &str) -> (Vec<String>, Vec<String>) {
    let (mut place, mut rest) = (Vec::new(), Vec::new());
    let mut left = 0usize;
    for raw in query.split_whitespace() {
        let word = raw.trim_start_matches(['(', '"', '\'', '[']);
        let ends = word.ends_with([',', '.', ';', ':', '!', '?', ')', '"', ']']);
        let bare = word.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'', ']']);
        let lower = bare.to_lowercase();
        if raw.starts_with('(') && left > 0 {
            left = 0;
        }
        if PLACE_PREPOSITIONS.contains(&lower.as_str()) {
            left = if ends { 0 } else { PLACE_WORDS };
            continue;
        }
        if PLACE_ENDS.contains(&lower.as_str()) {
            left = 0;
        }
        let into = if left > 0 { &mut place } else { &mut rest };
        into.extend(terms(bare));
        left = if ends { 0 } else { left.saturating_sub(1) };
    }
    (place, rest)
}

/// Words of `text` for indexing or querying: split, stop words dropped, stemmed.
///
/// ```
/// use toolwright_catalog::text::terms;
/// assert_eq!(terms("is it raining in Paris"), ["rain", "paris"]);
/// ```
pub fn terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !is_stop_word(w))
        .map(|w| stem(&w))
        .filter(|w| !w.is_empty() && !is_stop_word(w))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_identifiers() {
        assert_eq!(words("get_weather"), ["get", "weather"]);
        assert_eq!(
            words("EuclideanDistance.calculate"),
            ["euclidean", "distance", "calculate"]
        );
        assert_eq!(
            words("triangle_properties.get"),
            ["triangle", "properties", "get"]
        );
        assert_eq!(words("  "), Vec::<String>::new());
        assert_eq!(words("sha256sum"), ["sha", "256", "sum"]);
    }

    #[test]
    fn stems_lightly() {
        assert_eq!(stem("weather"), "weather");
        assert_eq!(stem("temperatures"), "temperature");
        assert_eq!(stem("calling"), "call");
        assert_eq!(stem("passes"), "pass");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("analysis"), "analysis");
        assert_eq!(stem("boxes"), "box");
        assert_eq!(stem("what's"), "what");
        assert_eq!(stem("quickly"), "quick");
        assert_eq!(stem("bed"), "bed");
        assert_eq!(stem("ébène"), "ébène");
    }

    #[test]
    fn place_phrases_end_at_punctuation_conjunctions_and_length() {
        let place = |q: &str| place_terms(q).0;
        assert_eq!(
            place_terms("leave a note on record r77 in Deals (crm)"),
            (
                vec!["record".to_string(), "r".into(), "77".into(), "deal".into()],
                vec!["leave".to_string(), "note".into(), "crm".into()]
            )
        );
        assert_eq!(place("comment on the story saying it shipped"), ["story"]);
        assert_eq!(
            place("rows from the orders table, newest first"),
            ["order", "table"]
        );
        assert_eq!(place("files in a b c d e f"), ["b", "c", "d"]);
        assert_eq!(place("log in."), Vec::<String>::new());
        assert!(place_terms("").0.is_empty());
    }

    #[test]
    fn related_words() {
        let r: Vec<_> = related("rain").collect();
        assert!(r.contains(&"weather"));
        assert!(!r.contains(&"rain"));
        assert_eq!(related("zebra").count(), 0);
    }
}
