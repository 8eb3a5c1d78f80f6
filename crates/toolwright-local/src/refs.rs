//! Git references named by what they are: "the develop branch", "tag v1.4.0", "off of develop".
//!
//! A parameter takes a reference when the head word of its name is one (`ref`, `from_branch`,
//! `base_branch`, `sha`), or, for a one-word name (`base`, `target`), when its description's
//! first clause ends a phrase with one ("Filter by base branch name", "Branch/tag/commit to get
//! contents from"; not "Commit message", where `commit` says what kind of message). Such a
//! parameter whose own name points at nothing in the request takes the words the request
//! names as references:
//!
//! - a value written next to a reference noun ("branch", "tag", "commit", "revision"): "on the
//!   develop branch", "against the release-1.2 branch", "tag v1.4.0";
//!   (a tag, a commit or a revision only when written as a value, `v1.4.0`, `a1b2c3d`: "recent
//!   commits" names none);
//! - for the *source* of a new reference (a name word such as `from`, `source`, `base` or
//!   `parent`, or a description that starts with "Source" or "Base"), first the word after
//!   "off of", "off", "from", "based on" or "on top of", past "the" and a reference noun: "a
//!   branch named feature/oauth off of develop" → `from_branch: develop`, "cut hotfix/1.4.1
//!   from tag v1.4.0" → `ref: v1.4.0`;
//! - for one end of a pair that names a move's two ends (`head` and `base` of a pull
//!   request), only the word after its marker: "from" or "off" for the first, "against",
//!   "into" or "onto" for the second ("open against the release-1.2 branch" → `base`), so that
//!   a branch the request names once is not offered to both ends.
//!
//! Narrowing keeps such an optional parameter when the request names a reference that no
//! parameter which stays is cued to ([`crate::narrow::narrow_for_query`]), and string grounding
//! offers it these words ([`crate::spans::ground_strings`]).

use crate::cues::{cue_values, name_words};

/// Words that name a git reference.
const REF_NOUNS: &[&str] = &["branch", "tag", "commit", "revision", "ref", "sha"];

/// Words of a parameter's name that make it the source a new reference starts from.
const SOURCE_WORDS: &[&str] = &["from", "source", "src", "base", "parent", "origin", "start"];

/// Words after a reference noun that leave it the head of its phrase ("base branch name").
const PHRASE_ENDS: &[&str] = &["name", "names", "or", "to", "from", "for", "of", "and"];

/// Words before the reference a new one starts from ("off of develop", "based on main").
const SOURCE_MARKERS: &[&[&str]] = &[
    &["off", "of"],
    &["off"],
    &["from"],
    &["based", "on"],
    &["on", "top", "of"],
];

/// Words before the reference a change goes into ("against the release-1.2 branch").
const TARGET_MARKERS: &[&[&str]] = &[&["against"], &["into"], &["onto"]];

/// Words skipped between a source marker and the reference ("from the tag v1.4.0").
const SKIPPED: &[&str] = &["the", "a", "branch", "tag", "commit", "revision"];

/// The lower-case words of `text` (letters, digits and `_`).
fn plain_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The first clause of a description (up to `.`, `;`, `,` or `(`).
fn first_clause(description: &str) -> &str {
    description
        .split(['.', ';', ',', '(', '\n'])
        .next()
        .unwrap_or("")
}

/// Whether the parameter called `name`, described by `description`, takes a git reference.
///
/// ```
/// use toolwright_local::refs::takes_ref;
/// assert!(takes_ref("from_branch", "") && takes_ref("ref", "") && takes_ref("sha", ""));
/// assert!(takes_ref("base", "Filter by base branch name"));
/// assert!(!takes_ref("message", "Commit message") && !takes_ref("commit_message", ""));
/// assert!(!takes_ref("base", "Base URL of the API"));
/// ```
pub fn takes_ref(name: &str, description: &str) -> bool {
    let words = name_words(name);
    if words
        .last()
        .is_some_and(|w| REF_NOUNS.contains(&w.as_str()))
    {
        return true;
    }
    if words.len() != 1 {
        return false;
    }
    let clause = plain_words(first_clause(description));
    clause.iter().enumerate().any(|(i, w)| {
        REF_NOUNS.contains(&w.as_str())
            && clause
                .get(i + 1)
                .is_none_or(|n| PHRASE_ENDS.contains(&n.as_str()))
    })
}

/// Where a reference parameter stands: at one end of a pair that names a move's two ends
/// (`head` and `base` of a pull request, [`crate::cues::ends_pair`]), the source a new
/// reference starts from, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The first end of a pair (`head`, `source_branch`): after "from" or "off".
    PairSource,
    /// The second end of a pair (`base`, `target_branch`): after "against", "into", "onto".
    PairTarget,
    /// The source a new reference starts from (`from_branch`, `base_branch`).
    Source,
    /// Any other reference (`ref`, `sha`).
    Plain,
}

/// The [`Role`] of the reference parameter `name` among `siblings`.
fn role(name: &str, description: &str, siblings: &[&str]) -> Role {
    if let Some((a, b)) = crate::cues::ends_pair(siblings) {
        if a == name {
            return Role::PairSource;
        }
        if b == name {
            return Role::PairTarget;
        }
    }
    let source = name_words(name)
        .iter()
        .any(|w| SOURCE_WORDS.contains(&w.as_str()))
        || plain_words(first_clause(description))
            .first()
            .is_some_and(|w| w == "source" || w == "base");
    if source { Role::Source } else { Role::Plain }
}

/// The words after one of `markers` in `query` (see the module docs), as written.
fn after_markers(query: &str, markers: &[&[&str]]) -> Vec<String> {
    let ws: Vec<(String, &str)> = crate::spans::word_ranges(query)
        .into_iter()
        .filter_map(|(_, body)| query.get(body))
        .map(|w| (w.to_lowercase(), w))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        let marker = markers.iter().find(|m| {
            m.iter()
                .enumerate()
                .all(|(k, part)| ws.get(i + k).is_some_and(|(l, _)| l == part))
        });
        let Some(m) = marker else {
            i += 1;
            continue;
        };
        let mut j = i + m.len();
        while ws
            .get(j)
            .is_some_and(|(l, _)| SKIPPED.contains(&l.as_str()))
        {
            j += 1;
        }
        if let Some((l, w)) = ws.get(j)
            && !crate::cues::is_function_word(l)
            && !out.iter().any(|o: &String| o == w)
        {
            out.push((*w).to_string());
        }
        i = j.max(i + 1);
    }
    out
}

/// The references the request `query` names for the reference parameter called `name`
/// (described by `description`; its tool's parameters are `siblings`): empty unless it
/// [`takes_ref`] and its own name points at nothing in the request (see the module docs). A
/// part of a named reference (`feature` of `feature/oauth`) is not one.
///
/// ```
/// use toolwright_local::refs::refs_for;
/// let q = "create a branch named feature/oauth off of develop in acme/webapp";
/// let create = ["owner", "repo", "branch", "from_branch"];
/// assert_eq!(refs_for("from_branch", "Source branch", &create, q), ["develop"]);
/// assert!(refs_for("branch", "Name for the new branch", &create, q).is_empty());
/// let q = "read .gitlab-ci.yml from the gitlab project mygroup/backend on the develop branch";
/// assert_eq!(refs_for("ref", "The name of the branch, tag or commit", &[], q), ["develop"]);
/// let q = "on gitlab, cut a branch hotfix/1.4.1 from tag v1.4.0 in project 4521";
/// assert_eq!(refs_for("ref", "Source branch/commit for new branch", &[], q), ["v1.4.0"]);
/// // "from" names a pull request's head, not its base.
/// let q = "open PRs from fix/leak against the release-1.2 branch";
/// let pr = ["head", "base"];
/// assert_eq!(refs_for("base", "Filter by base branch name", &pr, q), ["release-1.2"]);
/// assert_eq!(refs_for("head", "Filter by head branch", &pr, q), ["fix/leak"]);
/// // A commit named by a plain word is no reference.
/// assert!(refs_for("sha", "SHA or branch", &[], "the recent commits of acme/webapp").is_empty());
/// ```
pub fn refs_for(name: &str, description: &str, siblings: &[&str], query: &str) -> Vec<String> {
    if !takes_ref(name, description) || cue_values(name, query).is_some() {
        return Vec::new();
    }
    let markers = match role(name, description, siblings) {
        Role::PairSource => return after_markers(query, SOURCE_MARKERS),
        Role::PairTarget => return after_markers(query, TARGET_MARKERS),
        Role::Source => SOURCE_MARKERS,
        Role::Plain => &[],
    };
    let after = after_markers(query, markers);
    if !after.is_empty() {
        return after;
    }
    // A branch is often a plain word ("the develop branch"); a tag or a commit named by a
    // plain word is an adjective ("recent commits").
    let mut out: Vec<String> = Vec::new();
    for noun in REF_NOUNS {
        for v in cue_values(noun, query).unwrap_or_default() {
            if !out.contains(&v) && (*noun == "branch" || crate::cues::value_like(&v)) {
                out.push(v);
            }
        }
    }
    let whole = out.clone();
    out.retain(|v| {
        !whole
            .iter()
            .any(|w| w != v && w.split(['/', '#']).any(|p| p == v))
    });
    out
}
