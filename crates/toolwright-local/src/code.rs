//! Code a request writes for a code parameter.
//!
//! A code runner's `code` parameter, offered every span of "execute the javascript
//! console.log(\[1,2,3\].length)", was given `execute`. People write the code itself inline, as
//! code: [`written`] finds the spans that read as code (a call, an assignment, a block: `(`,
//! `{`, `=` or `;` in a word), each taken from its first word to where its brackets and quotes
//! close, so `console.log([1, 2, 3].length)` stays whole with its spaces. [`takes_code`] says
//! which parameters take code: `code`, `script`, `snippet` or `program` in the name, or a
//! description that speaks of a code snippet, source code or code to run.
//!
//! SQL is code too, written with words rather than brackets: [`takes_sql`] says which
//! parameters take a statement (`sql`, or a `query` / `statement` documented as SQL) and
//! [`sql_statements`] finds the statements a request writes, each from its first keyword to
//! where the request goes back to English ("run SELECT count(*) FROM users on project p1").
//!
//! JSON is written whole too: [`takes_json`] says which text parameters take a JSON document
//! (`policy_json`, "ACL policy as JSON string") and [`json_written`] finds the JSON objects and
//! arrays a request writes, each from its opening bracket to the one that closes it.

/// Whether parameter `name`, documented as `doc`, takes code to run.
///
/// ```
/// use toolwright_local::code::takes_code;
/// assert!(takes_code("code", "Code Snippet"));
/// assert!(takes_code("input", "The Python source code to execute"));
/// assert!(!takes_code("source", "The source language code, e.g. 'en-US'"));
/// assert!(!takes_code("zip_code", "Postal code"));
/// ```
pub fn takes_code(name: &str, doc: &str) -> bool {
    let words = crate::cues::name_words(name);
    let named = match words.as_slice() {
        [w] => matches!(w.as_str(), "code" | "script" | "snippet" | "program"),
        _ => words
            .last()
            .is_some_and(|w| matches!(w.as_str(), "script" | "snippet")),
    };
    let d = doc.to_lowercase();
    named
        || d.contains("code snippet")
        || d.contains("source code")
        || d.contains("code to run")
        || d.contains("code to execute")
}

/// The spans of `query` written as code (see the module docs), in the request's order.
///
/// ```
/// use toolwright_local::code::written;
/// assert_eq!(written("execute the javascript console.log([1, 2, 3].length)"),
///     ["console.log([1, 2, 3].length)"]);
/// assert_eq!(written("run print('hi') in python"), ["print('hi')"]);
/// assert_eq!(written("set x=5; then print(x) please"), ["x=5;", "print(x)"]);
/// assert!(written("run the tests in the repo").is_empty());
/// assert_eq!(
///     written("run this playwright snippet: async (page) => { await page.goto('/a'); }"),
///     ["async (page) => { await page.goto('/a'); }"]);
/// ```
pub fn written(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(code_at) = next_code_word(query, at) {
        let start = with_keyword_before(query, code_at);
        let mut end = closing(query, code_at);
        // An arrow or a block after it continues the same code: `(page) => { … }`.
        while let Some(next) = continued(query, end) {
            let further = closing(query, next);
            if further <= end {
                break;
            }
            end = further;
        }
        let span = query
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['?', '!', ','])
            .trim();
        if !span.is_empty() {
            out.push(span.to_string());
        }
        at = end.max(code_at + 1);
    }
    out
}

/// Words that open code before its first bracket (`async (page) => …`, `def f(x): …`).
const CODE_OPENERS: &[&str] = &[
    "async", "await", "function", "def", "lambda", "return", "const", "let", "var",
];

/// `start`, moved back over an opening keyword written right before it.
fn with_keyword_before(query: &str, start: usize) -> usize {
    let before = query.get(..start).unwrap_or("").trim_end();
    let word = before.rsplit(char::is_whitespace).next().unwrap_or("");
    if CODE_OPENERS.contains(&word) {
        before.len() - word.len()
    } else {
        start
    }
}

/// Where the code ending at byte `end` goes on: the start of the next word when it is an arrow
/// (`=>`, `->`), or a block or chained call right after one (`{`, `.then(…)`).
fn continued(query: &str, end: usize) -> Option<usize> {
    let rest = query.get(end..)?;
    let next = rest.trim_start();
    if next.is_empty() {
        return None;
    }
    let before = query.get(..end)?.trim_end();
    let goes_on = ["=>", "->", "{", "."].iter().any(|p| next.starts_with(p))
        || before.ends_with("=>")
        || before.ends_with("->");
    goes_on.then_some(end + (rest.len() - next.len()))
}

/// Where the next word from byte `from` that reads as code starts.
fn next_code_word(query: &str, from: usize) -> Option<usize> {
    let rest = query.get(from..)?;
    let mut offset = from;
    for word in rest.split_inclusive(char::is_whitespace) {
        let w = word.trim_end();
        let code = w.contains(['(', '{', ';'])
            || (w.contains('=') && !w.starts_with('=') && !w.contains("://"));
        if code && w.chars().any(char::is_alphanumeric) {
            return Some(offset);
        }
        offset += word.len();
    }
    None
}

/// Where the code starting at byte `start` ends: the end of the word where its brackets and
/// quotes have all closed (or the end of the request).
fn closing(query: &str, start: usize) -> usize {
    let (mut depth, mut quote): (i32, Option<char>) = (0, None);
    for (i, c) in query.get(start..).unwrap_or("").char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, c) if c.is_whitespace() && depth <= 0 => return start + i,
            _ => {}
        }
    }
    query.len()
}

/// Whether parameter `name`, documented as `doc`, takes a SQL statement: `sql` in its name, or a
/// `query`, `statement` or `command` documented as SQL.
///
/// ```
/// use toolwright_local::code::takes_sql;
/// assert!(takes_sql("sql", "The SQL query to execute"));
/// assert!(takes_sql("query", "SQL query to run (read-only)"));
/// assert!(!takes_sql("query", "Search terms"));
/// assert!(!takes_sql("projectId", "The project the SQL runs against"));
/// ```
pub fn takes_sql(name: &str, doc: &str) -> bool {
    let words = crate::cues::name_words(name);
    words.iter().any(|w| w == "sql")
        || (matches!(words.as_slice(), [w] if matches!(w.as_str(), "query" | "statement" | "command"))
            && doc
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w.eq_ignore_ascii_case("sql")))
}

/// Keywords that open a SQL statement (written in capitals).
const SQL_HEADS: &[&str] = &[
    "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "TRUNCATE", "WITH",
];

/// Words after which a request may go back to English ("… on postgres", "… in project p1").
const SQL_EXITS: &[&str] = &[
    "on", "in", "against", "using", "for", "from", "with", "via", "and", "then", "please",
];

/// The SQL statements `query` writes ([`toolwright_catalog::values::is_sql`] must hold), in
/// order, without a closing `;`.
///
/// ```
/// use toolwright_local::code::sql_statements;
/// assert_eq!(sql_statements("run SELECT count(*) FROM users on project little-sun-123456"),
///     ["SELECT count(*) FROM users"]);
/// assert_eq!(
///     sql_statements("run SELECT id FROM users WHERE created_at > now() - interval '1 day' on postgres"),
///     ["SELECT id FROM users WHERE created_at > now() - interval '1 day'"]);
/// assert_eq!(sql_statements("in sqlite: select * from t join u on t.id = u.id"),
///     ["select * from t join u on t.id = u.id"]);
/// assert!(sql_statements("select the files from Downloads").is_empty());
/// ```
pub fn sql_statements(query: &str) -> Vec<String> {
    if !toolwright_catalog::values::is_sql(query) {
        return Vec::new();
    }
    let words = word_spans(query);
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&(start, w)) = words.get(i) {
        let next = words.get(i + 1).map_or("", |x| x.1);
        let head = SQL_HEADS.contains(&w)
            || (w.eq_ignore_ascii_case("select") && (next == "*" || next.contains('(')));
        if !head {
            i += 1;
            continue;
        }
        let (end, resume) = sql_end(query, &words, i);
        let stmt = query.get(start..end).unwrap_or("").trim();
        let stmt = stmt.trim_end_matches([';', '?', '.', ',']).trim_end();
        if !stmt.is_empty() {
            out.push(stmt.to_string());
        }
        i = resume.max(i + 1);
    }
    out
}

/// The words of `query` with their byte offsets.
fn word_spans(query: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for piece in query.split_inclusive(char::is_whitespace) {
        let w = piece.trim_end();
        if !w.is_empty() {
            out.push((at, w));
        }
        at += piece.len();
    }
    out
}

/// Where the statement opened by word `from` ends (a byte offset), and the index of the word to
/// look for the next statement from: a `;`, or an exit word outside quotes and brackets after
/// which nothing reads as SQL (no keyword in capitals, no `=`, `<`, `>`, `(`, `*` or quote).
fn sql_end(query: &str, words: &[(usize, &str)], from: usize) -> (usize, usize) {
    let (mut depth, mut quote): (i32, Option<char>) = (0, None);
    for (j, &(at, w)) in words.iter().enumerate().skip(from) {
        let outside = depth <= 0 && quote.is_none();
        if j > from && outside && SQL_EXITS.contains(&w) && !reads_as_sql(words.get(j + 1..)) {
            return (at, j + 1);
        }
        for (k, c) in w.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"' | '`') => quote = Some(c),
                (None, '(') => depth += 1,
                (None, ')') => depth -= 1,
                (None, ';') if depth <= 0 => return (at + k, j + 1),
                _ => {}
            }
        }
    }
    (query.len(), words.len())
}

/// Whether any of `words` reads as SQL rather than English.
fn reads_as_sql(words: Option<&[(usize, &str)]>) -> bool {
    words.unwrap_or_default().iter().any(|(_, w)| {
        w.contains(['=', '<', '>', '(', '*', '\''])
            || SQL_HEADS.contains(w)
            || matches!(
                *w,
                "FROM"
                    | "WHERE"
                    | "JOIN"
                    | "ON"
                    | "GROUP"
                    | "ORDER"
                    | "LIMIT"
                    | "SET"
                    | "VALUES"
                    | "AND"
                    | "OR"
                    | "AS"
                    | "INTO"
                    | "BY"
                    | "HAVING"
            )
    })
}

/// Whether text parameter `name`, documented as `doc`, takes a JSON document: `json` is a word
/// of its name, or its documentation says "JSON string", "JSON object", "as JSON"; not a path
/// or URL ("Path to the JSON file").
///
/// ```
/// use toolwright_local::code::takes_json;
/// assert!(takes_json("policy_json", ""));
/// assert!(takes_json("policy", "ACL policy as JSON string to validate"));
/// assert!(!takes_json("policy", "The policy's name"));
/// assert!(!takes_json("path", "Path of the JSON file in the collection"));
/// ```
pub fn takes_json(name: &str, doc: &str) -> bool {
    // "Path to the JSON file" takes a path.
    if crate::cues::written_as_described(name, doc).is_some() {
        return false;
    }
    let says = [
        "JSON string",
        "JSON object",
        "JSON array",
        "JSON document",
        "JSON text",
        "JSON-encoded",
        "as JSON",
    ];
    crate::cues::name_words(name).iter().any(|w| w == "json")
        || says.iter().any(|s| doc.contains(s))
}

/// The JSON objects and arrays `query` writes, whole: from an opening `{` or `[` to the bracket
/// that closes it (brackets inside strings do not count), when the text parses as JSON. At most
/// [`MAX_JSON_STARTS`] opening brackets are tried, so a request of unclosed brackets costs
/// linear time, not quadratic.
///
/// ```
/// use toolwright_local::code::json_written;
/// let q = r#"validate this ACL: {"acls":[{"action":"accept","src":["*"]}]} please"#;
/// assert_eq!(json_written(q), [r#"{"acls":[{"action":"accept","src":["*"]}]}"#]);
/// assert!(json_written("tags [a, b]").is_empty());
/// // A hostile request of unclosed brackets is read in bounded time.
/// assert!(json_written(&"[".repeat(100_000)).is_empty());
/// ```
pub fn json_written(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut tried = 0;
    while tried < MAX_JSON_STARTS
        && let Some(start) = query
            .get(from..)
            .and_then(|t| t.find(['{', '[']))
            .map(|i| i + from)
    {
        tried += 1;
        let end = json_end(query, start);
        match end.and_then(|e| query.get(start..e)) {
            Some(text) if serde_json::from_str::<serde_json::Value>(text).is_ok() => {
                out.push(text.to_string());
                from = start + text.len();
            }
            _ => from = start + 1,
        }
    }
    out
}

/// The most opening brackets [`json_written`] tries in one request.
pub const MAX_JSON_STARTS: usize = 64;

/// The byte just after the bracket that closes the one at `start`, or `None`.
fn json_end(query: &str, start: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in query.get(start..)?.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' | '[' if !in_string => depth += 1,
            '}' | ']' if !in_string => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(start + i + c.len_utf8());
                }
            }
            _ => {}
        }
    }
    None
}
