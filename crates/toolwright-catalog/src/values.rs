//! Values in a request: URLs, file paths, e-mail addresses, times, dates and arithmetic that a
//! person writes literally ("read https://…", "open /tmp/notes.txt", "what is 17 * 23"). Routing
//! adds the name of each kind to the query, so that a tool whose parameters take that kind of
//! value (`url`, `path`, `email`, `time`, `expression`) is found by what the request carries,
//! not only by the words around it.
//!
//! ```
//! use toolwright_catalog::values::{ValueKind, value_kinds};
//! assert_eq!(value_kinds("read https://example.com/a and /tmp/x.txt"), [ValueKind::Url, ValueKind::Path]);
//! assert!(value_kinds("hello world").is_empty());
//! ```

/// A kind of literal value found in a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// `https://…`, `http://…`, `www.…`.
    Url,
    /// A file path (`/a/b`, `~/a`, `./a`, `dir/name.ext`) or a file name with an extension
    /// (`notes.txt`).
    Path,
    /// `name@host.tld`.
    Email,
    /// A clock time (`14:00`, `7pm`, `07:15`).
    Time,
    /// An ISO date (`2024-05-01`).
    Date,
    /// Arithmetic on numbers: an operator between two numbers (`17 * 23`, `7/8`, `3 - 1`,
    /// `12 times 4`, `100 divided by 7`), a power or root (`2^10`, `9 squared`, `square root
    /// of 2`) or a percentage of a number (`15% of 80`).
    Arithmetic,
    /// A SQL statement written out: `SELECT … FROM`, `INSERT INTO`, `UPDATE … SET`, `DELETE
    /// FROM`, `CREATE` / `DROP` / `ALTER TABLE` (keywords in capitals), or `select *` /
    /// `select count(…)` … `from` in any case.
    Sql,
    /// A Cypher graph pattern written out: a node with a label (`(:City {…})`, `(p:Person)`) or
    /// `MATCH (`.
    Cypher,
}

impl ValueKind {
    /// The words routing adds to a query that holds a value of this kind.
    pub fn words(self) -> &'static str {
        match self {
            ValueKind::Url => "url",
            ValueKind::Path => "file path",
            ValueKind::Email => "email",
            ValueKind::Time => "time",
            ValueKind::Date => "date",
            ValueKind::Arithmetic => "arithmetic expression",
            ValueKind::Sql => "sql query",
            ValueKind::Cypher => "cypher graph query",
        }
    }
}

/// Whether a parameter, by its name's words or its schema's `format`, takes a value of `kind`:
/// `url`, `uri`, `link`, `href` or format `uri` a URL; `path`, `file`, `filename`, `dir`,
/// `directory`, `folder` a path; `email` or format `email` an e-mail address; `time` or format
/// `time` / `date-time` a clock time; `date` or format `date` / `date-time` a date; `sql` a SQL
/// statement; `expression` arithmetic; `cypher` a Cypher pattern.
///
/// ```
/// use serde_json::json;
/// use toolwright_catalog::values::{ValueKind, takes_kind};
/// assert!(takes_kind("time", &json!({"type": "string"}), ValueKind::Time));
/// assert!(takes_kind("target", &json!({"type": "string", "format": "uri"}), ValueKind::Url));
/// assert!(takes_kind("repo_path", &json!({"type": "string"}), ValueKind::Path));
/// assert!(!takes_kind("timezone", &json!({"type": "string"}), ValueKind::Time));
/// ```
pub fn takes_kind(name: &str, schema: &serde_json::Value, kind: ValueKind) -> bool {
    let words = crate::text::words(name);
    let has = |xs: &[&str]| words.iter().any(|w| xs.contains(&w.as_str()));
    let format = schema
        .get("format")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    match kind {
        ValueKind::Url => has(&["url", "uri", "link", "href"]) || matches!(format, "uri" | "url"),
        ValueKind::Path => has(&[
            "path",
            "file",
            "filename",
            "filepath",
            "dir",
            "directory",
            "folder",
        ]),
        ValueKind::Email => has(&["email"]) || format == "email",
        ValueKind::Time => has(&["time"]) || matches!(format, "time" | "date-time"),
        ValueKind::Date => has(&["date"]) || matches!(format, "date" | "date-time"),
        ValueKind::Sql => has(&["sql"]),
        ValueKind::Arithmetic => has(&["expression"]),
        ValueKind::Cypher => has(&["cypher"]),
    }
}

/// Endings that make `name.ext` a domain name rather than a file.
const DOMAIN_ENDINGS: &[&str] = &[
    "com", "org", "net", "io", "dev", "ai", "app", "co", "edu", "gov", "de", "uk", "fr",
];

fn classify(token: &str) -> Option<ValueKind> {
    let t = token.trim_matches(|c: char| {
        matches!(
            c,
            '"' | '\'' | '`' | ',' | ';' | '(' | ')' | '[' | ']' | '<' | '>'
        )
    });
    let t = t.trim_end_matches(['.', '?', '!', ':']);
    if t.len() < 3 {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    if ["http://", "https://", "ftp://", "www."]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return Some(ValueKind::Url);
    }
    if let Some((user, host)) = t.split_once('@')
        && !user.is_empty()
        && host.contains('.')
        && !t.contains('/')
    {
        return Some(ValueKind::Email);
    }
    if is_time(&lower) {
        return Some(ValueKind::Time);
    }
    if is_date(t) {
        return Some(ValueKind::Date);
    }
    if ["/", "~/", "./", "../"].iter().any(|p| t.starts_with(p)) && t.len() > 1 {
        return Some(ValueKind::Path);
    }
    let (stem, ext) = t.rsplit_once('.')?;
    let file_like = stem.len() >= 2
        && (1..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
        && !DOMAIN_ENDINGS.contains(&ext.to_ascii_lowercase().as_str());
    file_like.then_some(ValueKind::Path)
}

fn is_time(t: &str) -> bool {
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.chars().all(|c| c.is_ascii_digit())
    };
    let core = t
        .strip_suffix("am")
        .or_else(|| t.strip_suffix("pm"))
        .unwrap_or(t);
    match core.split_once(':') {
        Some((h, m)) => digits(h, 1..=2) && digits(m, 2..=2),
        None => core.len() < t.len() && digits(core, 1..=2),
    }
}

fn is_date(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    matches!(parts.as_slice(), [y, m, d]
        if y.len() == 4 && m.len() == 2 && d.len() == 2
            && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit())))
}

/// Operators written as words between two numbers.
const WORD_OPERATORS: &[&[&str]] = &[
    &["times"],
    &["plus"],
    &["minus"],
    &["divided", "by"],
    &["multiplied", "by"],
    &["over"],
    &["to", "the", "power", "of"],
    &["mod"],
    &["modulo"],
];

/// Whether `token` is a number as people write them (`12`, `3.5`, `2,340`, `$187.40`, `(19`).
fn is_number(token: &str) -> bool {
    let t = token.trim_start_matches(['(', '$', '€', '£']);
    let t = t.trim_end_matches([')', '?', '!', ',', '.']);
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

/// Whether `token` holds an operator between digits (`7/8`, `2^10`, `3*4`, `(1+2)`), and is not
/// a date, a version or a size (`12/03/2024`, `1280x720` hold none).
fn is_inline_arithmetic(token: &str) -> bool {
    let t = token.trim_matches(|c: char| matches!(c, '(' | ')' | '?' | '!' | ',' | '.'));
    let digits_around = t.char_indices().any(|(i, c)| {
        matches!(c, '+' | '*' | '/' | '^' | '×' | '÷')
            && t[..i].ends_with(|c: char| c.is_ascii_digit() || c == ')')
            && t[i + c.len_utf8()..].starts_with(|c: char| c.is_ascii_digit() || c == '(')
    });
    let date_like = t.matches('/').count() >= 2;
    digits_around
        && !date_like
        && t.chars()
            .all(|c| c.is_ascii_digit() || "+-*/^×÷.,()%".contains(c))
}

/// The request's whitespace-separated tokens, and each one lower-cased without the punctuation
/// around it.
fn tokens_and_words(query: &str) -> (Vec<&str>, Vec<String>) {
    let tokens: Vec<&str> = query.split_whitespace().collect();
    let lower = tokens
        .iter()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    (tokens, lower)
}

/// Whether `query` asks for arithmetic ([`ValueKind::Arithmetic`]).
fn is_arithmetic(query: &str) -> bool {
    let (tokens, lower) = tokens_and_words(query);
    let number_at = |i: usize| tokens.get(i).is_some_and(|t| is_number(t));
    tokens.iter().enumerate().any(|(i, t)| {
        if is_inline_arithmetic(t) {
            return true;
        }
        // A symbol between two numbers: `17 * 23`, `99 - 1`.
        // (Not `x`: `1280 x 720` is a size.)
        let symbol = matches!(*t, "+" | "-" | "*" | "/" | "^" | "×" | "÷");
        if symbol && i > 0 && number_at(i - 1) && number_at(i + 1) {
            return true;
        }
        // An operator in words between two numbers: `12 times 4`, `100 divided by 7`.
        if i > 0 && number_at(i - 1) {
            for op in WORD_OPERATORS {
                let end = i + op.len();
                if lower
                    .get(i..end)
                    .is_some_and(|w| w.iter().zip(*op).all(|(a, b)| a == b))
                    && number_at(end)
                {
                    return true;
                }
            }
        }
        let w = lower.get(i).map_or("", String::as_str);
        // `9 squared`, `2 cubed`; `15% of 80`; `square root of 2`.
        (matches!(w, "squared" | "cubed") && i > 0 && number_at(i - 1))
            || (t.ends_with('%')
                && is_number(t.trim_end_matches('%'))
                && lower.get(i + 1).is_some_and(|w| w == "of")
                && number_at(i + 2))
            || (w == "root" && lower.get(i + 1).is_some_and(|w| w == "of") && number_at(i + 2))
    })
}

/// The operator a word stands for between two numbers, when it is one ([`WORD_OPERATORS`];
/// "over" and "mod" are left out: "over 100" and "a mod" are not arithmetic often enough).
fn word_operator(words: &[String]) -> Option<(usize, &'static str)> {
    const SYMBOLS: &[(&[&str], &str)] = &[
        (&["times"], "*"),
        (&["plus"], "+"),
        (&["minus"], "-"),
        (&["divided", "by"], "/"),
        (&["multiplied", "by"], "*"),
        (&["to", "the", "power", "of"], "^"),
        (&["modulo"], "%"),
    ];
    SYMBOLS.iter().find_map(|(ws, sym)| {
        (words.len() >= ws.len() && words.iter().zip(ws.iter()).all(|(a, b)| a == b))
            .then_some((ws.len(), *sym))
    })
}

/// The arithmetic the request writes, as one expression a calculator takes: the longest run of
/// numbers joined by operators, in symbols (`(48*12) + 365/7`, `3.5e6 / 1.2e3`) or in words,
/// which become symbols ("1234 times 5678" → `1234 * 5678`), without currency signs
/// (`$187.40 / 6` → `187.40 / 6`); `None` when the request writes no
/// operator between two numbers. Dates, versions and sizes (`12/03/2024`, `1280x720`) are not
/// arithmetic.
///
/// ```
/// use toolwright_catalog::values::arithmetic_expression;
/// assert_eq!(arithmetic_expression("compute (48*12) + 365/7").unwrap(), "(48*12) + 365/7");
/// assert_eq!(arithmetic_expression("evaluate 3.5e6 / 1.2e3 please").unwrap(), "3.5e6 / 1.2e3");
/// assert_eq!(arithmetic_expression("how much is 1234 times 5678?").unwrap(), "1234 * 5678");
/// assert_eq!(
///     arithmetic_expression("pay 250000 * 0.004 / (1 - 1.004**-360) a month?").unwrap(),
///     "250000 * 0.004 / (1 - 1.004**-360)"
/// );
/// assert!(arithmetic_expression("resize the window to 1280x720").is_none());
/// assert!(arithmetic_expression("the top 5 results").is_none());
/// ```
pub fn arithmetic_expression(query: &str) -> Option<String> {
    let (tokens, lower) = tokens_and_words(query);
    let sci = |t: &str| {
        let t = t.trim_start_matches(['(', '$', '€', '£']);
        let t = t.trim_end_matches([')', '?', '!', ',', '.', '%']);
        match t.split_once(['e', 'E']) {
            Some((m, e)) => {
                is_number(m)
                    && !e.is_empty()
                    && e.trim_start_matches(['+', '-'])
                        .chars()
                        .all(|c| c.is_ascii_digit())
            }
            None => is_number(t),
        }
    };
    let symbol = |t: &str| matches!(t, "+" | "-" | "*" | "/" | "^" | "×" | "÷" | "%" | "**");
    // A token of digits and operators (`(1`, `1.004**-360)`): part of a longer expression.
    let piece = |t: &str| {
        let t = t.trim_end_matches(['?', '!', ',', ';']);
        t.chars().any(|c| c.is_ascii_digit())
            && t.chars()
                .all(|c| c.is_ascii_digit() || "+-*/^×÷.()%".contains(c))
    };
    let mut best: Option<(usize, String)> = None;
    let mut i = 0;
    while i < tokens.len() {
        let mut parts: Vec<String> = Vec::new();
        let (mut j, mut ops, mut expect_number) = (i, 0usize, true);
        while let Some(t) = tokens.get(j) {
            if expect_number && (sci(t) || is_inline_arithmetic(t) || piece(t)) {
                ops += usize::from(is_inline_arithmetic(t));
                let t = t.trim_end_matches(['?', '!', ',', '.', ';']);
                parts.push(t.replacen(['$', '€', '£'], "", 1));
                j += 1;
                expect_number = false;
            } else if !expect_number
                && symbol(t)
                && tokens.get(j + 1).is_some_and(|n| sci(n) || piece(n))
            {
                parts.push((*t).to_string());
                (j, ops, expect_number) = (j + 1, ops + 1, true);
            } else if !expect_number
                && let Some((n, sym)) = word_operator(lower.get(j..).unwrap_or(&[]))
                && tokens.get(j + n).is_some_and(|t| sci(t))
            {
                parts.push(sym.to_string());
                (j, ops, expect_number) = (j + n, ops + 1, true);
            } else {
                break;
            }
        }
        if ops > 0 && best.as_ref().is_none_or(|(n, _)| j - i > *n) {
            best = Some((j - i, parts.join(" ")));
        }
        i = j.max(i + 1);
    }
    best.map(|(_, e)| e)
}

/// The kinds of value `query` holds, each once, in order of first appearance (arithmetic
/// last).
pub fn value_kinds(query: &str) -> Vec<ValueKind> {
    let mut out = Vec::new();
    for kind in query.split_whitespace().filter_map(classify) {
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    if is_arithmetic(query) {
        out.push(ValueKind::Arithmetic);
    }
    if is_sql(query) {
        out.push(ValueKind::Sql);
    }
    if is_cypher(query) {
        out.push(ValueKind::Cypher);
    }
    out
}

/// Whether `query` writes a SQL statement ([`ValueKind::Sql`]). Keywords count in capitals
/// only ("select the files from Downloads" is English), except `select` right before `*` or a
/// function call, which English does not write.
///
/// ```
/// use toolwright_catalog::values::is_sql;
/// assert!(is_sql("run SELECT count(*) FROM users on project p1"));
/// assert!(is_sql("select * from orders limit 5"));
/// assert!(is_sql("DELETE FROM sessions WHERE expired"));
/// assert!(!is_sql("select the files from Downloads"));
/// assert!(!is_sql("update the table set for dinner"));
/// ```
pub fn is_sql(query: &str) -> bool {
    let words: Vec<&str> = query
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '"' | '\'' | '`')))
        .collect();
    let later = |i: usize, kw: &str| words.iter().skip(i + 1).any(|w| *w == kw);
    let next = |i: usize| words.get(i + 1).copied().unwrap_or_default();
    words.iter().enumerate().any(|(i, w)| match *w {
        "SELECT" => later(i, "FROM"),
        "INSERT" => next(i) == "INTO",
        "UPDATE" => later(i, "SET"),
        "DELETE" => next(i) == "FROM",
        "CREATE" | "DROP" | "ALTER" | "TRUNCATE" => {
            matches!(next(i), "TABLE" | "INDEX" | "VIEW" | "SCHEMA" | "DATABASE")
        }
        w if w.eq_ignore_ascii_case("select") => {
            let n = next(i);
            (n == "*" || n.contains('('))
                && words
                    .iter()
                    .skip(i + 2)
                    .any(|w| w.eq_ignore_ascii_case("from"))
        }
        _ => false,
    })
}

/// Whether `query` writes a Cypher pattern ([`ValueKind::Cypher`]): a node with a label, `(:City`
/// or `(p:Person)`, or `MATCH (`.
///
/// ```
/// use toolwright_catalog::values::is_cypher;
/// assert!(is_cypher("create a node (:City {name: 'Paris'}) in the graph"));
/// assert!(is_cypher("MATCH (p:Person)-[:KNOWS]->(f) RETURN f"));
/// assert!(!is_cypher("meet at 10 (note: bring slides)"));
/// ```
pub fn is_cypher(query: &str) -> bool {
    let words: Vec<&str> = query.split_whitespace().collect();
    let labelled = |w: &str| {
        w.strip_prefix('(')
            .and_then(|r| r.split_once(':'))
            .is_some_and(|(var, label)| {
                var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && label.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            })
    };
    words.iter().enumerate().any(|(i, w)| {
        labelled(w) || (*w == "MATCH" && words.get(i + 1).is_some_and(|n| n.starts_with('(')))
    })
}

/// `query` followed by the words of the kinds of value it holds (unchanged when it holds none).
///
/// ```
/// use toolwright_catalog::values::with_value_words;
/// assert_eq!(with_value_words("what does https://a.example/x say?"), "what does https://a.example/x say? (url)");
/// assert_eq!(with_value_words("hi"), "hi");
/// ```
pub fn with_value_words(query: &str) -> String {
    let kinds = value_kinds(query);
    if kinds.is_empty() {
        return query.to_string();
    }
    let words: Vec<&str> = kinds.iter().map(|k| k.words()).collect();
    format!("{query} ({})", words.join(", "))
}

/// The closing quote of an opening quote character, for the quotes [`quoted_spans`] knows.
fn closing_quote(open: char) -> Option<char> {
    match open {
        '\'' => Some('\''),
        '"' => Some('"'),
        '`' => Some('`'),
        '\u{2018}' => Some('\u{2019}'),
        '\u{201c}' => Some('\u{201d}'),
        _ => None,
    }
}

/// The byte ranges of the quoted spans of `query`, quotes included: a quote that opens at the
/// start or after a space or `(`, `[`, `:`, `=`, and the next same quote followed by the end, a
/// space or punctuation (so apostrophes, as in "Bob's", open nothing). A span holds at most 200
/// bytes; an unclosed quote is not a span.
pub fn quoted_spans(query: &str) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    let mut prev: Option<char> = None;
    let mut chars = query.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let opens = prev.is_none_or(|p| p.is_whitespace() || matches!(p, '(' | '[' | ':' | '='));
        prev = Some(c);
        let Some(close) = closing_quote(c).filter(|_| opens) else {
            continue;
        };
        let body = i + c.len_utf8();
        let end = query[body..].char_indices().find_map(|(j, d)| {
            let after = query[body + j + d.len_utf8()..].chars().next();
            let closes = d == close
                && j > 0
                && after.is_none_or(|a| a.is_whitespace() || a.is_ascii_punctuation());
            closes.then_some(body + j + d.len_utf8())
        });
        if let Some(end) = end.filter(|e| e - i <= 200) {
            spans.push(i..end);
            while chars.peek().is_some_and(|(j, _)| *j < end) {
                chars.next();
            }
            prev = Some(close);
        }
    }
    spans
}

/// `query` with its quoted spans ([`quoted_spans`]) cut out: what a request quotes is a value
/// (a title, a message, a search string), and its words say what the value is, not what the
/// request asks for ("add 'go to Goa' to my tasks"). Unchanged when nothing is quoted or when
/// nothing but quotes would be left.
///
/// ```
/// use toolwright_catalog::values::without_quoted;
/// assert_eq!(without_quoted("add 'Hi charlie' to my tasks"), "add to my tasks");
/// assert_eq!(without_quoted("Bob's note 'lives in Berlin' is outdated"), "Bob's note is outdated");
/// assert_eq!(without_quoted("'hello'"), "'hello'");
/// ```
pub fn without_quoted(query: &str) -> String {
    let spans = quoted_spans(query);
    if spans.is_empty() {
        return query.to_string();
    }
    let mut out = String::with_capacity(query.len());
    let mut at = 0;
    for r in &spans {
        out.push_str(&query[at..r.start]);
        at = r.end;
    }
    out.push_str(&query[at..]);
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().any(char::is_alphanumeric) {
        out
    } else {
        query.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_spans_are_values_and_apostrophes_are_not() {
        let cut = without_quoted;
        assert_eq!(cut("title it \"Fix login\" please"), "title it please");
        assert_eq!(
            cut("call `tokio::spawn` in a Drop impl"),
            "call in a Drop impl"
        );
        assert_eq!(
            cut("tag it \u{2018}bug\u{2019} and \u{201c}p1\u{201d}."),
            "tag it and ."
        );
        assert_eq!(
            cut("relabel as 'bug' and 'p1', then close"),
            "relabel as and , then close"
        );
        assert_eq!(cut("set title='Draft' now"), "set title= now");
        // Apostrophes open nothing; an unclosed quote is not a span.
        assert_eq!(cut("don't touch Bob's file"), "don't touch Bob's file");
        assert_eq!(cut("rename 'draft to final"), "rename 'draft to final");
        assert_eq!(cut("the users' files and 'x'"), "the users' files and");
        // Too long to be one value; empty quotes are not a span either.
        let long = format!("say '{}' now", "a ".repeat(120));
        assert_eq!(cut(&long), long);
        assert_eq!(cut("say '' now"), "say '' now");
        assert_eq!(
            quoted_spans("a 'b' c"),
            vec![std::ops::Range { start: 2, end: 5 }]
        );
    }

    #[test]
    fn finds_each_kind() {
        use ValueKind::*;
        let k = |q| value_kinds(q);
        assert_eq!(k("open /tmp/notes.txt please"), [Path]);
        assert_eq!(k("compare package.json and Cargo.lock"), [Path]);
        assert_eq!(k("edit ~/src/main.rs"), [Path]);
        assert_eq!(k("mail ana@example.com"), [Email]);
        assert_eq!(k("at 14:00, or 7pm"), [Time]);
        assert_eq!(k("since 2024-05-01"), [Date]);
        assert_eq!(k("read 'https://x.org/a'."), [Url]);
        assert!(k("visit example.com, version 3.12, e.g. this, 1.5 km").is_empty());
        assert!(k("a/b testing, i.e. no").is_empty());
    }

    #[test]
    fn finds_arithmetic_and_not_its_lookalikes() {
        let arithmetic = |q| value_kinds(q).contains(&ValueKind::Arithmetic);
        for q in [
            "what is 17 * 23",
            "calcuate 99 * 99 - 1",
            "how much is 1234 times 5678",
            "can you work out 7/8 as a decimal",
            "(19.99 + 4.50) * 3, then take 10% off",
            "what's 17.5% of 2,340?",
            "square root of 2 to a few decimals",
            "9 squared",
            "2^10",
            "100 divided by 7",
            "$187.40 / 6",
        ] {
            assert!(arithmetic(q), "{q}");
        }
        for q in [
            "resize the window to 1280x720",
            "meeting on 12/03/2024 at 10",
            "version 3.12 of python",
            "issue 42 in acme/webapp",
            "pages 10-20 of the report",
            "the last 20 lines of /var/log/app.log",
            "a/b testing results",
            "top 5 results",
        ] {
            assert!(!arithmetic(q), "{q}");
            assert_eq!(arithmetic_expression(q), None, "{q}");
        }
        for (q, e) in [
            ("what is 17 * 23", "17 * 23"),
            ("calcuate 99 * 99 - 1", "99 * 99 - 1"),
            (
                "(19.99 + 4.50) * 3, then take 10% off",
                "(19.99 + 4.50) * 3",
            ),
            ("2^10", "2^10"),
            ("100 divided by 7", "100 / 7"),
            ("$187.40 / 6", "187.40 / 6"),
            ("12 times 4 plus 2", "12 * 4 + 2"),
        ] {
            assert_eq!(arithmetic_expression(q).as_deref(), Some(e), "{q}");
        }
    }
}
