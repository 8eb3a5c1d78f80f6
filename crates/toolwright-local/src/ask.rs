//! Inputs the request does not give: ask the user instead of inventing them.
//!
//! A tool that needs an identifier (`project_id`, `issueNumber`, `collection_uuid`) cannot be
//! called well for a request that writes none: "list the modules of my project" has no project
//! id in it, and a small model fills the parameter from the request's words
//! (`{"project_id": "projects"}`) or makes a number up. The call then fails at the server or,
//! worse, acts on the wrong thing. [`missing_inputs`] reads, before any model call, which
//! required identifiers of the chosen tool the request gives no value for, and the provider then
//! asks the user for them ([`question`]) rather than calling.
//!
//! A parameter counts when it is required, has no `enum`, `const` or `default`, and holds an
//! identifier: a word of its name is `id`, `ids`, `uuid`, `guid`, `gid` or `identifier`, or
//! the first words of its description call it an ID ("The ID of the parent page"), or it is a
//! number whose name ends in `number` or `num` after a word of the tool's object
//! (`issue_number` of `update_issue`; not `thoughtNumber`). An identifier that the description
//! says another tool returns ("Use the id returned by one of the connect tools") is not asked
//! for: the user does not know it either. The request gives a value for a
//! string identifier when it writes any word that looks like a value
//! ([`crate::cues::value_like`]: digits, `-` `_` `/` `.` `:` `#` `@` inside a word, capitals,
//! `camelCase`), quotes a text, or writes a proper name that is not its first word and not a word
//! of the tool's own name or description ("the Kitchen project"); for a number, when it writes
//! a number (`4821`, `#1423`, `sc-2210`: not the digits inside `pro_01gsz4t5…`). The test is
//! deliberately loose: any such word stops the question, because a wrong question costs the
//! user a turn while the server rejects a wrong identifier anyway.
//!
//! A tool's objects of named fields are read as its parameters ([`crate::wrapper`]).
//!
//! Before asking, the provider looks at the router's other candidates: a tool that needs an
//! identifier the request does not write is often the wrong one ("what projects do I have"
//! ranks `get_project` before `list_projects`), so the next candidate that lacks nothing,
//! only reads and reads what the request says ([`stands_in`]) is called instead. A tool that
//! writes is never called on that weaker evidence: the question is asked.

use serde_json::Value;
use toolwright_core::ToolSpec;

/// A required input the request does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The parameter's name (a lifted object's field by its own name).
    pub param: String,
    /// The first sentence of its description (empty when it has none).
    pub about: String,
}

/// The required identifiers of `spec` that `query` gives no value for (see the module docs),
/// in the schema's order.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::ToolSpec;
/// use toolwright_local::ask::missing_inputs;
/// let tool = ToolSpec::new("list_modules", "Get all modules of a project", json!({
///     "type": "object",
///     "properties": {"project_id": {"type": "string", "description": "The project's ID."}},
///     "required": ["project_id"]}));
/// let asked: Vec<String> = missing_inputs(&tool, "list the modules of my project")
///     .into_iter().map(|m| m.param).collect();
/// assert_eq!(asked, ["project_id"]);
/// assert!(missing_inputs(&tool, "list the modules of project 4af1-77b2").is_empty());
/// assert!(missing_inputs(&tool, "list the modules of the Kitchen project").is_empty());
/// ```
pub fn missing_inputs(spec: &ToolSpec, query: &str) -> Vec<Missing> {
    let lifted = crate::wrapper::unwrap(spec);
    let spec = lifted.as_ref().map_or(spec, |(s, _)| s);
    let Some(props) = toolwright_catalog::schema::properties(&spec.parameters) else {
        return Vec::new();
    };
    let required = toolwright_catalog::schema::required(&spec.parameters);
    let words = Given::read(spec, query);
    props
        .iter()
        .filter(|(name, _)| required.iter().any(|r| r == *name))
        .filter_map(|(name, schema)| {
            let about = description(schema);
            let kind = identifier_kind(&spec.name, name, schema, &about)?;
            let given = match kind {
                IdKind::Number => words.number,
                IdKind::Text => words.digits || words.value || long_cued(name, query),
            };
            (!given).then(|| Missing {
                param: name.clone(),
                about: first_sentence(&about),
            })
        })
        .collect()
}

/// Whether `spec` may stand in for a first candidate that lacks an input: the request gives
/// every identifier it requires ([`missing_inputs`]), it only reads (its name's verb reads,
/// [`toolwright_catalog::text::name_action`], or it says it reads, `readOnlyHint`), and the
/// request says what it reads (a word of its name's object, or of its name when the name has
/// no verb), and the request asks for nothing but reading
/// ([`toolwright_catalog::text::request_action`] is read or says nothing). A tool that writes is
/// never called on this weaker evidence, nor one the request does not point at, nor a tool
/// that reads for a request that asks to change something: reading is not what was asked.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::ToolSpec;
/// use toolwright_local::ask::stands_in;
/// let tool = |name: &str| ToolSpec::new(name, "", json!({"type": "object"}));
/// assert!(stands_in(&tool("list_projects"), "what projects do I have"));
/// assert!(!stands_in(&tool("list_subscriptions"), "what projects do I have"));
/// assert!(!stands_in(&tool("power_cycle_droplets"), "reboot my droplet"));
/// assert!(!stands_in(&tool("list_alert_groups"), "resolve the alert group about disk space"));
/// ```
pub fn stands_in(spec: &ToolSpec, query: &str) -> bool {
    use toolwright_catalog::text::{Action, name_object, request_action, stem, terms, words};
    use toolwright_core::SideEffects;
    if request_action(query).is_some_and(|a| a != Action::Read) {
        return false;
    }
    let object = name_object(&spec.name);
    let reads = matches!(
        spec.meta.side_effects,
        SideEffects::Read | SideEffects::None
    ) || matches!(object, Some((Action::Read, _)));
    let pointed: Vec<String> = match object {
        Some((_, o)) => o,
        None => words(&spec.name).iter().map(|w| stem(w)).collect(),
    };
    let said = terms(query);
    reads && pointed.iter().any(|w| said.contains(w)) && missing_inputs(spec, query).is_empty()
}

/// Name words that say a parameter holds an identifier.
const ID_WORDS: &[&str] = &["id", "ids", "uuid", "uuids", "guid", "gid", "identifier"];

/// Whether the request writes a long token right after a word of the parameter's name
/// ("project dnwkqzxhvtpmlrsobaey" for `project_id`): twelve letters or digits or more, as
/// generated ids are written even in small letters only.
fn long_cued(name: &str, query: &str) -> bool {
    let heads: Vec<String> = crate::cues::name_words(name)
        .into_iter()
        .filter(|w| w.chars().count() > 2 && !ID_WORDS.contains(&w.as_str()))
        .collect();
    let words: Vec<&str> = query
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    words.windows(2).any(|pair| {
        let [head, token] = pair else { return false };
        heads.iter().any(|h| head.eq_ignore_ascii_case(h))
            && token.chars().count() >= 12
            && token
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
    })
}

/// What a request writes that could be an identifier.
struct Given {
    /// A word with a digit.
    digits: bool,
    /// A number: a word, or a part of one between punctuation, of digits only (`4821`,
    /// `#1423`, `sc-2210`; not `pro_01gsz4t5…`, whose digits are letters' neighbours).
    number: bool,
    /// A word that looks like a value, a quoted text, or a proper name past the first word.
    value: bool,
}

impl Given {
    fn read(spec: &ToolSpec, query: &str) -> Given {
        let own: String = format!("{} {}", spec.name, spec.description).to_lowercase();
        let own_words: std::collections::HashSet<&str> = own
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let words: Vec<&str> = query
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| !w.is_empty())
            .collect();
        let quoted = toolwright_catalog::values::without_quoted(query).trim() != query.trim();
        let proper = words
            .iter()
            .skip(1)
            .any(|w| crate::cues::proper(w) && !own_words.contains(w.to_lowercase().as_str()));
        Given {
            digits: words.iter().any(|w| w.chars().any(|c| c.is_ascii_digit())),
            number: words.iter().any(|w| {
                w.split(|c: char| !c.is_alphanumeric())
                    .any(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
            }),
            value: quoted || proper || words.iter().any(|w| crate::cues::value_like(w)),
        }
    }
}

/// How an identifier is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdKind {
    /// A number (`issue_number`, an integer `id`).
    Number,
    /// Any text.
    Text,
}

/// Whether the parameter `name` holds an identifier the user must give, and of what kind.
fn identifier_kind(tool: &str, name: &str, schema: &Value, about: &str) -> Option<IdKind> {
    let o = schema.as_object()?;
    if ["enum", "const", "default"]
        .iter()
        .any(|k| o.contains_key(*k))
    {
        return None;
    }
    let types = types_of(schema);
    let numeric = !types.is_empty()
        && types
            .iter()
            .all(|t| matches!(t.as_str(), "integer" | "number"));
    let textual = types.is_empty()
        || types
            .iter()
            .all(|t| matches!(t.as_str(), "string" | "integer" | "number"));
    if !textual {
        return None;
    }
    let words = crate::cues::name_words(name);
    // `issue_number` of `update_issue`: the number of the thing the tool acts on (not
    // `thoughtNumber`, a counter the caller keeps).
    let numbered = numeric
        && words.last().is_some_and(|w| w == "number" || w == "num")
        && words.first().is_some_and(|first| {
            toolwright_catalog::text::name_object(tool).is_some_and(|(_, object)| {
                object.contains(&toolwright_catalog::text::stem(first)) && words.len() > 1
            })
        });
    let id_word = |w: &String| ID_WORDS.contains(&w.as_str());
    // "The ID of the product": the description's first words call it one.
    let described = first_sentence(about)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .any(|w| w == "ID" || w == "IDs" || w.eq_ignore_ascii_case("identifier"));
    if !(words.iter().any(id_word) || described || numbered) || from_a_tool(about) {
        return None;
    }
    Some(if numeric {
        IdKind::Number
    } else {
        IdKind::Text
    })
}

/// Whether a description says the value comes from another tool's result ("Use the id returned
/// by one of the connect tools"): the user does not know it, so it is not asked for.
fn from_a_tool(about: &str) -> bool {
    let d = about.to_lowercase();
    [
        "returned by",
        "returned from",
        "obtained from",
        "output of",
        "result of",
    ]
    .iter()
    .any(|p| d.contains(p))
}

/// The JSON types a parameter takes (an array's items' types), without `null`.
fn types_of(schema: &Value) -> Vec<String> {
    use toolwright_catalog::schema::types;
    let mut ts = types(schema);
    if ts.iter().any(|t| t == "array") {
        let Some(items) = schema.get("items").filter(|i| i.is_object()) else {
            return vec!["array".to_string()];
        };
        if ["enum", "const"].iter().any(|k| items.get(*k).is_some()) {
            return vec!["enum".to_string()];
        }
        ts.retain(|t| t != "array");
        ts.extend(types(items));
    }
    ts.retain(|t| t != "null");
    ts
}

fn description(schema: &Value) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The first sentence of `text` (up to a `. ` or a line break), trimmed.
fn first_sentence(text: &str) -> String {
    let end = text
        .find(". ")
        .map(|i| i + 1)
        .into_iter()
        .chain(text.find('\n'))
        .min()
        .unwrap_or(text.len());
    text.get(..end).unwrap_or(text).trim().to_string()
}

/// The question put to the user for `missing` inputs of `tool`: which tool would answer, and
/// each input with what its description says of it.
///
/// ```
/// use toolwright_local::ask::{Missing, question};
/// let q = question("list_modules", &[Missing { param: "project_id".into(), about: "The project's ID.".into() }]);
/// assert_eq!(q, "I can do this with `list_modules`, but I need `project_id` (The project's ID.). Which one is it?");
/// ```
pub fn question(tool: &str, missing: &[Missing]) -> String {
    format!("{OPENING}{tool}{NEED}{}", list_and_ask(missing))
}

/// How [`question`] opens, and what it says before the inputs.
const OPENING: &str = "I can do this with `";
const NEED: &str = "`, but I need ";

/// Whether `text` is a question [`question`] wrote: the user's next message answers it, and
/// completes the request that asked it.
///
/// ```
/// use toolwright_local::ask::{is_question, question, Missing};
/// let q = question("reboot", &[Missing { param: "droplet_id".into(), about: String::new() }]);
/// assert!(is_question(&q) && !is_question("The droplet was rebooted."));
/// ```
pub fn is_question(text: &str) -> bool {
    text.strip_prefix(OPENING)
        .and_then(|rest| rest.split_once(NEED))
        .is_some_and(|(tool, _)| !tool.contains('`'))
}

fn list_and_ask(missing: &[Missing]) -> String {
    let items: Vec<String> = missing
        .iter()
        .map(|m| {
            if m.about.is_empty() {
                format!("`{}`", m.param)
            } else {
                format!("`{}` ({})", m.param, m.about)
            }
        })
        .collect();
    let (list, which) = match items.as_slice() {
        [one] => (one.clone(), "Which one is it?"),
        [init @ .., last] => (format!("{} and {last}", init.join(", ")), "What are they?"),
        [] => (String::new(), ""),
    };
    format!("{list}. {which}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(props: Value, required: &[&str]) -> ToolSpec {
        ToolSpec::new(
            "get_issue",
            "Get one issue of a Plane project",
            json!({"type": "object", "properties": props, "required": required}),
        )
    }

    fn asked(spec: &ToolSpec, q: &str) -> Vec<String> {
        missing_inputs(spec, q)
            .into_iter()
            .map(|m| m.param)
            .collect()
    }

    #[test]
    fn a_required_identifier_the_request_does_not_write_is_asked_for() {
        let t = tool(
            json!({"issue_id": {"type": "string"}, "expand": {"type": "string"}}),
            &["issue_id"],
        );
        assert_eq!(
            asked(&t, "show me the issue about the login bug"),
            ["issue_id"]
        );
        // The tool's own proper names are no value ("Plane").
        assert_eq!(asked(&t, "show me that issue in Plane"), ["issue_id"]);
    }

    #[test]
    fn any_value_like_word_quote_or_name_stops_the_question() {
        let t = tool(json!({"issue_id": {"type": "string"}}), &["issue_id"]);
        for q in [
            "show me issue WEB-42",
            "show me issue 42",
            "show the issue 'login fails'",
            "show the issue Jordan filed",
            "show issue a1b2c3",
        ] {
            assert!(asked(&t, q).is_empty(), "{q}");
        }
    }

    #[test]
    fn a_numeric_identifier_needs_a_number() {
        let t = tool(
            json!({"epicPublicId": {"type": "integer"}}),
            &["epicPublicId"],
        );
        assert_eq!(
            asked(&t, "rename pro_01gsz4t5hdjse780 to 'Team Plan'"),
            ["epicPublicId"]
        );
        for q in ["rename epic 902", "rename epic #902", "rename sc-902"] {
            assert!(asked(&t, q).is_empty(), "{q}");
        }
    }

    #[test]
    fn a_long_token_after_the_identifiers_name_is_given() {
        let t = tool(
            json!({"project_id": {"type": "string", "description": "The project ID"}}),
            &["project_id"],
        );
        assert!(
            asked(
                &t,
                "which functions have we deployed on project dnwkqzxhvtpmlrsobaey?"
            )
            .is_empty()
        );
        assert_eq!(
            asked(&t, "which functions have we deployed on my project?"),
            ["project_id"]
        );
        assert_eq!(
            asked(&t, "which functions does the project have?"),
            ["project_id"]
        );
    }

    #[test]
    fn a_numbered_identifier_needs_a_digit() {
        let t = tool(
            json!({"issue_number": {"type": "integer"}, "owner": {"type": "string"}}),
            &["issue_number", "owner"],
        );
        assert_eq!(asked(&t, "close the issue Jordan filed"), ["issue_number"]);
        assert!(asked(&t, "close issue 7").is_empty());
        // A plain count is not an identifier, nor a number the tool's object does not name.
        let t = tool(json!({"number": {"type": "integer"}}), &["number"]);
        assert!(asked(&t, "roll a die").is_empty());
        let t = tool(
            json!({"thoughtNumber": {"type": "integer"}}),
            &["thoughtNumber"],
        );
        assert!(asked(&t, "think it through").is_empty());
    }

    #[test]
    fn optional_enumerated_or_defaulted_identifiers_are_not_asked_for() {
        let t = tool(
            json!({
                "a_id": {"type": "string"},
                "b_id": {"type": "string", "enum": ["x", "y"]},
                "c_id": {"type": "string", "default": "me"},
                "tag_ids": {"type": "array", "items": {"type": "string"}},
                "flag": {"type": "boolean"}
            }),
            &["b_id", "c_id", "tag_ids", "flag"],
        );
        assert_eq!(asked(&t, "tag the issue"), ["tag_ids"]);
    }

    #[test]
    fn an_identifier_another_tool_returns_or_a_text_that_mentions_ids_is_not_asked_for() {
        let t = tool(
            json!({
                "connectionId": {"type": "string", "description": "The connection to use. Use the id returned by one of the connect tools."},
                "query": {"type": "string", "description": "Search text or a query; filter by space ID or by label."},
                "parent": {"type": "string", "description": "The ID of the parent page."}
            }),
            &["connectionId", "query", "parent"],
        );
        assert_eq!(asked(&t, "search for our runbook"), ["parent"]);
    }

    #[test]
    fn the_fields_of_a_wrapper_object_are_read_as_parameters() {
        let t = ToolSpec::new(
            "describe_branch",
            "",
            json!({"type": "object", "properties": {"params": {"type": "object",
                "properties": {"projectId": {"type": "string"}, "branchName": {"type": "string"}},
                "required": ["projectId"]}}, "required": ["params"]}),
        );
        assert_eq!(asked(&t, "describe the dev branch"), ["projectId"]);
        assert!(asked(&t, "describe the dev branch of little-sun-123456").is_empty());
    }

    #[test]
    fn the_question_lists_every_input() {
        let m = |p: &str| Missing {
            param: p.into(),
            about: String::new(),
        };
        assert_eq!(
            question("move", &[m("a_id"), m("b_id"), m("c_id")]),
            "I can do this with `move`, but I need `a_id`, `b_id` and `c_id`. What are they?"
        );
    }
}
