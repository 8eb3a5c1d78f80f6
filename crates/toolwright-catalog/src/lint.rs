//! Lint: rules that catch tool definitions a model will misuse. Each [`Finding`] has a rule id,
//! a severity, a location (tool and JSON Pointer into its parameters) and a concrete fix.
//!
//! | id | rule | severity |
//! |---|---|---|
//! | TW001 | vague name (`get_data`, `search`, `process`, `handle`) | error |
//! | TW002 | name is not `verb_noun` | warning |
//! | TW003 | description has no "use this when" sentence | warning |
//! | TW004 | description empty (error) or too short (warning) | error / warning |
//! | TW005 | description too long | warning |
//! | TW006 | parameter without a description | warning |
//! | TW007 | free string whose description lists a closed set of values (should be an enum) | warning |
//! | TW008 | numeric parameter without bounds | warning |
//! | TW009 | two tools whose descriptions overlap so much a model will confuse them | warning |
//! | TW010 | more than 20 tools exposed at once without routing | warning |
//! | TW011 | destructive tool without confirmation | error |
//! | TW012 | side-effecting tool without idempotency | warning |
//! | TW013 | parameter schema unusable (not an object, broken `required`, does not compile) | error |
//! | TW014 | duplicate or invalid tool name | error |
//!
//! ```
//! use toolwright_catalog::lint::{lint, LintOptions, Severity};
//! use toolwright_core::ToolSpec;
//! let specs = vec![ToolSpec::new("get_data", "Gets data.",
//!     serde_json::json!({"type": "object", "properties": {"id": {"type": "string"}}}))];
//! let findings = lint(&specs, &LintOptions::default());
//! assert!(findings.iter().any(|f| f.rule == "TW001" && f.severity == Severity::Error));
//! assert!(findings.iter().any(|f| f.rule == "TW006" && f.pointer.as_deref() == Some("/properties/id")));
//! ```

use crate::schema::{self, child};
use crate::text;

mod overlap;
pub use overlap::overlap_pairs;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use toolwright_core::{SideEffects, ToolSpec};

/// How serious a finding is. `Error` fails `toolwright lint` (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Advice.
    Info,
    /// Likely to confuse a model; fix it.
    Warning,
    /// Will cause wrong or unsafe calls.
    Error,
}

impl Severity {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A rule of the linter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Stable id (`TW001`).
    pub id: &'static str,
    /// Short kebab-case name.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// What it checks.
    pub summary: &'static str,
}

/// Every rule.
pub const RULES: &[Rule] = &[
    Rule {
        id: "TW001",
        name: "vague-name",
        severity: Severity::Error,
        summary: "tool name too vague to choose by (get_data, search, process, handle)",
    },
    Rule {
        id: "TW002",
        name: "name-not-verb-noun",
        severity: Severity::Warning,
        summary: "tool name should be verb_noun (get_weather, convert_currency)",
    },
    Rule {
        id: "TW003",
        name: "description-no-when",
        severity: Severity::Warning,
        summary: "description should say when to use the tool (\"Use this when ...\")",
    },
    Rule {
        id: "TW004",
        name: "description-too-short",
        severity: Severity::Warning,
        summary: "description empty (error) or too short to choose by",
    },
    Rule {
        id: "TW005",
        name: "description-too-long",
        severity: Severity::Warning,
        summary: "description longer than providers keep or models read",
    },
    Rule {
        id: "TW006",
        name: "parameter-undocumented",
        severity: Severity::Warning,
        summary: "parameter without a description",
    },
    Rule {
        id: "TW007",
        name: "closed-set-string",
        severity: Severity::Warning,
        summary: "free string whose description lists its allowed values: make it an enum",
    },
    Rule {
        id: "TW008",
        name: "numeric-unbounded",
        severity: Severity::Warning,
        summary: "numeric parameter without minimum or maximum",
    },
    Rule {
        id: "TW009",
        name: "overlapping-tools",
        severity: Severity::Warning,
        summary: "two tools described so alike that a model will confuse them",
    },
    Rule {
        id: "TW010",
        name: "too-many-tools",
        severity: Severity::Warning,
        summary: "more than 20 tools exposed at once without routing",
    },
    Rule {
        id: "TW011",
        name: "destructive-without-confirmation",
        severity: Severity::Error,
        summary: "destructive tool that runs without a person's confirmation",
    },
    Rule {
        id: "TW012",
        name: "side-effect-without-idempotency",
        severity: Severity::Warning,
        summary: "tool that changes state but is not idempotent (retries may repeat the effect)",
    },
    Rule {
        id: "TW013",
        name: "invalid-schema",
        severity: Severity::Error,
        summary: "parameter schema is not a usable object schema",
    },
    Rule {
        id: "TW014",
        name: "invalid-name",
        severity: Severity::Error,
        summary: "duplicate tool name, or a name providers reject",
    },
];

/// One problem found by the linter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Rule id (`TW006`).
    pub rule: &'static str,
    /// Rule name (`parameter-undocumented`).
    pub name: &'static str,
    /// Severity.
    pub severity: Severity,
    /// The tool, or `None` for findings about the whole toolset.
    pub tool: Option<String>,
    /// JSON Pointer into the tool's parameter schema (`/properties/city`), when about a parameter.
    pub pointer: Option<String>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

/// Linter settings.
#[derive(Debug, Clone, PartialEq)]
pub struct LintOptions {
    /// The toolset is served through a router (`find_tools` + top-k), so TW010 does not apply.
    pub routing: bool,
    /// Tool count above which TW010 fires.
    pub max_tools_without_routing: usize,
    /// The specs declare their side effects (registry, catalog). External definitions usually do
    /// not (everything defaults to `write`), so TW012 is skipped for them and TW011 relies on
    /// names and descriptions only.
    pub declared_side_effects: bool,
    /// Similarity (0..1) at or above which TW009 fires.
    pub overlap_threshold: f32,
    /// Descriptions shorter than this (characters) get TW004.
    pub min_description_chars: usize,
    /// Descriptions longer than this (characters) get TW005.
    pub max_description_chars: usize,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions {
            routing: false,
            max_tools_without_routing: 20,
            declared_side_effects: true,
            overlap_threshold: 0.6,
            min_description_chars: 40,
            max_description_chars: 1024,
        }
    }
}

fn rule(id: &str) -> Rule {
    RULES.iter().find(|r| r.id == id).copied().unwrap_or(Rule {
        id: "TW000",
        name: "unknown",
        severity: Severity::Warning,
        summary: "",
    })
}

struct Sink<'a> {
    out: &'a mut Vec<Finding>,
}

impl Sink<'_> {
    fn push(
        &mut self,
        id: &str,
        severity: Option<Severity>,
        tool: Option<&str>,
        pointer: Option<String>,
        message: String,
        fix: String,
    ) {
        let r = rule(id);
        self.out.push(Finding {
            rule: r.id,
            name: r.name,
            severity: severity.unwrap_or(r.severity),
            tool: tool.map(str::to_string),
            pointer,
            message,
            fix,
        });
    }
}

/// Runs every rule over `specs`. Findings come in toolset order (per tool: by rule id), then
/// toolset-wide findings.
pub fn lint(specs: &[ToolSpec], options: &LintOptions) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut sink = Sink { out: &mut out };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for spec in specs {
        let count = seen.entry(spec.name.as_str()).or_insert(0);
        *count += 1;
        if *count == 2 {
            sink.push(
                "TW014",
                None,
                Some(&spec.name),
                None,
                format!("tool name `{}` is used more than once", spec.name),
                "Give each tool a unique name; a model cannot tell duplicates apart.".into(),
            );
        }
        lint_tool(spec, options, &mut sink);
    }
    overlaps(specs, options, &mut sink);
    if !options.routing && specs.len() > options.max_tools_without_routing {
        sink.push(
            "TW010",
            None,
            None,
            None,
            format!("{} tools are exposed at once (more than {}); models choose worse among many tools", specs.len(), options.max_tools_without_routing),
            "Route: show the `find_tools` meta-tool plus the top-k tools for each query (toolwright_catalog::router::select_tools), or split the toolset.".into(),
        );
    }
    // Findings the tool's author allowed (`lint_allow`), like clippy's `#[allow]`.
    let mut allowed: HashMap<&str, Vec<&str>> = HashMap::new();
    for s in specs.iter().filter(|s| !s.meta.lint_allow.is_empty()) {
        allowed
            .entry(s.name.as_str())
            .or_default()
            .extend(s.meta.lint_allow.iter().map(String::as_str));
    }
    out.retain(|f| {
        !f.tool
            .as_deref()
            .and_then(|t| allowed.get(t))
            .is_some_and(|rules| rules.contains(&f.rule))
    });
    let order: HashMap<&str, usize> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    out.sort_by_key(|f| {
        let pos = f
            .tool
            .as_deref()
            .and_then(|t| order.get(t).copied())
            .unwrap_or(usize::MAX);
        (pos, f.rule)
    });
    out
}

/// Whether any finding is an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// Words that say nothing about what a tool does or acts on.
const GENERIC: &[&str] = &[
    "get",
    "set",
    "do",
    "run",
    "data",
    "info",
    "information",
    "search",
    "process",
    "handle",
    "handler",
    "execute",
    "exec",
    "tool",
    "tools",
    "helper",
    "util",
    "utils",
    "query",
    "fetch",
    "manage",
    "action",
    "call",
    "perform",
    "main",
    "misc",
    "thing",
    "stuff",
    "item",
    "object",
    "function",
    "func",
    "fn",
    "api",
    "request",
    "task",
    "operation",
    "service",
    "method",
    "invoke",
    "general",
    "generic",
    "result",
    "results",
    "value",
    "values",
    "input",
    "output",
    "make",
    "my",
    "new",
    "default",
    "test",
    "foo",
    "bar",
    "it",
    "work",
    "go",
    "the",
];

/// Verbs a tool name may start with.
const VERBS: &[&str] = &[
    "get",
    "set",
    "list",
    "create",
    "add",
    "update",
    "edit",
    "delete",
    "remove",
    "read",
    "write",
    "send",
    "search",
    "find",
    "convert",
    "calculate",
    "compute",
    "query",
    "fetch",
    "book",
    "cancel",
    "check",
    "validate",
    "generate",
    "translate",
    "summarize",
    "summarise",
    "analyze",
    "analyse",
    "schedule",
    "lookup",
    "look",
    "run",
    "start",
    "stop",
    "open",
    "close",
    "move",
    "copy",
    "rename",
    "upload",
    "download",
    "export",
    "import",
    "parse",
    "format",
    "count",
    "sort",
    "filter",
    "estimate",
    "predict",
    "recommend",
    "compare",
    "play",
    "post",
    "reserve",
    "order",
    "buy",
    "sell",
    "pay",
    "transfer",
    "submit",
    "approve",
    "reject",
    "assign",
    "resolve",
    "describe",
    "explain",
    "plan",
    "track",
    "monitor",
    "notify",
    "sum",
    "multiply",
    "divide",
    "subtract",
    "evaluate",
    "solve",
    "draw",
    "plot",
    "render",
    "encode",
    "decode",
    "hash",
    "encrypt",
    "decrypt",
    "sign",
    "verify",
    "merge",
    "split",
    "replace",
    "insert",
    "append",
    "clear",
    "reset",
    "enable",
    "disable",
    "install",
    "deploy",
    "build",
    "test",
    "retrieve",
    "load",
    "save",
    "store",
    "log",
    "record",
    "measure",
    "detect",
    "identify",
    "classify",
    "extract",
    "scan",
    "ping",
    "echo",
    "show",
    "display",
    "view",
    "print",
    "fill",
    "apply",
    "register",
    "login",
    "logout",
    "subscribe",
    "unsubscribe",
    "share",
    "invite",
    "join",
    "leave",
    "mark",
    "tag",
    "label",
    "archive",
    "restore",
    "backup",
    "sync",
    "refresh",
    "fetch",
    "forecast",
    "locate",
    "map",
    "route",
    "navigate",
    "rate",
    "review",
    "reply",
    "forward",
    "call",
    "dial",
    "text",
    "email",
    "message",
    "publish",
    "unpublish",
    "grant",
    "revoke",
    "lock",
    "unlock",
    "drop",
    "purge",
    "wipe",
    "erase",
    "destroy",
    "kill",
    "terminate",
    "truncate",
    "overwrite",
    "execute",
    "process",
    "handle",
    "make",
    "do",
    "predict",
    "simulate",
    "optimize",
    "transform",
    "resize",
    "crop",
    "rotate",
    "compress",
    "decompress",
    "zip",
    "unzip",
    "fetch",
    "inspect",
    "diff",
    "patch",
    "commit",
    "push",
    "pull",
    "clone",
    "fork",
    "watch",
    "listen",
    "wait",
    "sleep",
    "roll",
    "flip",
    "pick",
    "choose",
    "select",
    "match",
    "rank",
    "score",
    "tokenize",
    "embed",
    "index",
    "crawl",
    "scrape",
    "browse",
    "visit",
    "request",
    "invoke",
    "trigger",
    "emit",
    "dispatch",
    "queue",
    "enqueue",
    "dequeue",
    "poll",
    "confirm",
    "accept",
    "decline",
    "complete",
    "finish",
    "close",
    "resume",
    "pause",
    "suspend",
    "retry",
    "undo",
    "redo",
    "preview",
    "render",
    "suggest",
    "propose",
    "draft",
    "answer",
    "ask",
    "greet",
    "guess",
    "collect",
    "gather",
    "aggregate",
    "group",
    "reverse",
    "shuffle",
    "sample",
    "authenticate",
    "authorize",
    "charge",
    "refund",
    "invoice",
    "quote",
    "price",
    "ship",
    "deliver",
    "return",
    "reorder",
    "rebook",
    "reschedule",
    "remind",
    "alert",
    "report",
    "audit",
    "benchmark",
    "profile",
    "trace",
    "debug",
    "lint",
    "fix",
    "normalize",
    "clean",
    "prepare",
    "initialize",
    "init",
    "configure",
    "connect",
    "disconnect",
    "attach",
    "detach",
    "mount",
    "unmount",
    "toggle",
    "increase",
    "decrease",
    "increment",
    "decrement",
    "adjust",
    "change",
    "modify",
    "upsert",
];

/// Verbs whose effect usually cannot be undone.
const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete",
    "remove",
    "drop",
    "destroy",
    "purge",
    "wipe",
    "erase",
    "truncate",
    "overwrite",
    "kill",
    "terminate",
    "revoke",
    "uninstall",
    "deactivate",
    "unregister",
    "shred",
    "nuke",
];

fn lint_tool(spec: &ToolSpec, options: &LintOptions, sink: &mut Sink<'_>) {
    let name = spec.name.as_str();
    let words = text::words(name);
    lint_name(name, &words, sink);
    // Descriptions.
    let d = spec.description.trim();
    lint_description(name, d, &words, options, sink);
    // Schema.
    if !lint_parameters(spec, sink) {
        return;
    }
    // Side effects.
    lint_side_effects(spec, &words, d, options, sink);
}

/// Checks the tool's name (its `words`): valid characters (TW014), not only generic words
/// (TW001), and otherwise verb first with an object after it (TW002).
fn lint_name(name: &str, words: &[String], sink: &mut Sink<'_>) {
    let tool = Some(name);
    if !toolwright_core::is_valid_tool_name(name) {
        sink.push("TW014", None, tool, None, format!("tool name `{name}` is not 1-64 letters, digits, `_`, `.` or `-`; providers reject it"), "Rename it with letters, digits and `_` only, e.g. `get_weather`.".into());
    }
    // TW001: every word is generic.
    if !words.is_empty() && words.iter().all(|w| GENERIC.contains(&w.as_str())) {
        sink.push(
            "TW001",
            None,
            tool,
            None,
            format!(
                "tool name `{name}` is too vague: it says neither what the tool does nor on what"
            ),
            format!(
                "Rename it verb_noun after what it acts on, e.g. `{}`.",
                vague_example(words)
            ),
        );
    } else {
        // TW002: verb first, at least two words (the namespace of a dotted name aside).
        let last: Vec<String> = name.rsplit('.').next().map(text::words).unwrap_or_default();
        let first = words.first().map(String::as_str).unwrap_or_default();
        let verb_first =
            VERBS.contains(&first) || last.first().is_some_and(|w| VERBS.contains(&w.as_str()));
        if !verb_first || words.len() < 2 {
            let why = if !verb_first {
                "does not start with a verb"
            } else {
                "has no object after the verb"
            };
            sink.push(
                "TW002",
                None,
                tool,
                None,
                format!("tool name `{name}` {why}; verb_noun names (get_weather, convert_currency) are easier for a model to pick"),
                format!("Rename it verb_noun, e.g. `{}`.", verb_noun_example(words)),
            );
        }
    }
}

/// Checks the trimmed description `d` of tool `name` (whose name splits into `words`): not
/// empty, within the length bounds of `options` (TW004, TW005), and saying when to use the tool
/// (TW003).
fn lint_description(
    name: &str,
    d: &str,
    words: &[String],
    options: &LintOptions,
    sink: &mut Sink<'_>,
) {
    let tool = Some(name);
    let chars = d.chars().count();
    if d.is_empty() {
        sink.push("TW004", Some(Severity::Error), tool, None, "description is empty; a model chooses tools by their descriptions".into(), "Write what the tool does, what it returns and when to use it: \"Get the current weather for a city. Use this when the user asks about weather.\"".into());
    } else {
        if chars < options.min_description_chars {
            sink.push("TW004", None, tool, None, format!("description is {chars} characters; too short to tell the tool apart (minimum {})", options.min_description_chars), "Say what the tool does, on what, what it returns, and when to use it.".into());
        }
        if chars > options.max_description_chars {
            sink.push("TW005", None, tool, None, format!("description is {chars} characters (more than {}); providers cut or reject long descriptions and models skim them", options.max_description_chars), "Keep the description to what and when (2-4 sentences); move details into parameter descriptions.".into());
        }
        if !says_when(d) {
            sink.push(
                "TW003",
                None,
                tool,
                None,
                "description does not say when to use the tool".into(),
                format!(
                    "Add a sentence such as \"Use this when the user asks {}.\"",
                    when_example(words)
                ),
            );
        }
    }
}

/// Checks the parameter schema: an object schema that compiles, with resolving references
/// (TW013), then its properties one by one. `false` when the parameters are not a JSON Schema
/// object at all, so nothing after this check applies.
fn lint_parameters(spec: &ToolSpec, sink: &mut Sink<'_>) -> bool {
    let tool = Some(spec.name.as_str());
    let params = &spec.parameters;
    match params {
        Value::Object(m) => {
            let t = schema::types(params);
            if !(t.is_empty() && !m.contains_key("enum") || t.iter().any(|x| x == "object")) {
                sink.push("TW013", None, tool, Some(String::new()), format!("parameters must be an object schema, got type {}", t.join(" | ")), "Wrap the value: {\"type\": \"object\", \"properties\": {\"value\": …}, \"required\": [\"value\"]}.".into());
            }
            if let Err(e) = toolwright_core::ArgValidator::new(params) {
                sink.push(
                    "TW013",
                    None,
                    tool,
                    Some(String::new()),
                    format!("parameter schema does not compile: {e}"),
                    "Fix the schema so it is valid JSON Schema 2020-12.".into(),
                );
            }
        }
        _ => {
            sink.push(
                "TW013",
                None,
                tool,
                Some(String::new()),
                "parameters is not a JSON Schema object".into(),
                "Use {\"type\": \"object\", \"properties\": {…}}.".into(),
            );
            return false;
        }
    }
    let mut problems = Vec::new();
    let inlined = schema::inline_refs(params, &mut problems);
    for p in problems.iter().filter(|p| !p.recursive) {
        sink.push(
            "TW013",
            None,
            tool,
            Some(p.pointer.clone()),
            format!("reference {} does not resolve", p.reference),
            "Point $ref at an existing entry of $defs.".into(),
        );
    }
    lint_object(spec, &inlined, "", 0, sink);
    true
}

/// Checks the declared side effects against the name (its `words`) and the trimmed description
/// `d`: a tool that looks destructive must ask for confirmation (TW011), and, when `options`
/// trust declared side effects, one with effects must be idempotent (TW012).
fn lint_side_effects(
    spec: &ToolSpec,
    words: &[String],
    d: &str,
    options: &LintOptions,
    sink: &mut Sink<'_>,
) {
    let name = spec.name.as_str();
    let tool = Some(name);
    let destructive_word = words
        .first()
        .is_some_and(|w| DESTRUCTIVE_VERBS.contains(&w.as_str()))
        || name
            .rsplit('.')
            .next()
            .map(text::words)
            .and_then(|w| w.first().cloned())
            .is_some_and(|w| DESTRUCTIVE_VERBS.contains(&w.as_str()));
    let lower = d.to_lowercase();
    let destructive_text = [
        "permanently",
        "irreversibl",
        "cannot be undone",
        "can't be undone",
        "can not be undone",
    ]
    .iter()
    .any(|p| lower.contains(p));
    let declared = spec.meta.side_effects == SideEffects::Destructive;
    if (declared || destructive_word || destructive_text) && !spec.needs_confirmation() {
        let why = if destructive_word {
            format!(
                "its name starts with `{}`",
                words.first().cloned().unwrap_or_default()
            )
        } else {
            "its description says the effect cannot be undone".to_string()
        };
        sink.push(
            "TW011",
            None,
            tool,
            None,
            format!("tool looks destructive ({why}) but runs without confirmation"),
            "Declare it `side_effects = destructive` (the runtime then asks a person before each call) or set `requires_confirmation = true`.".into(),
        );
    }
    if options.declared_side_effects
        && !spec.meta.side_effects.is_read_only()
        && !spec.meta.idempotent
    {
        sink.push(
            "TW012",
            None,
            tool,
            None,
            format!("tool has side effects ({}) but is not idempotent: a retry or a repeated model call repeats the effect", spec.meta.side_effects.as_str()),
            "Make it idempotent and declare `idempotent = true` (the runtime then replays the stored result for a repeated idempotency key), or declare `side_effects = read`/`none` if it changes nothing.".into(),
        );
    }
}

fn says_when(d: &str) -> bool {
    let l = d.to_lowercase();
    [
        "use this when",
        "use when",
        "use it when",
        "use this to ",
        "use this for",
        "use this tool",
        "use this if",
        "use it to ",
        "use it for",
        "call this when",
        "call it when",
        "call this to",
        "call this tool",
        "when the user",
        "useful when",
        "useful for",
        "use for ",
        "use to ",
        "use only when",
        "use this only",
        "use this before",
        "use this after",
        "use this instead",
    ]
    .iter()
    .any(|p| l.contains(p))
}

fn vague_example(words: &[String]) -> String {
    match words.first().map(String::as_str) {
        Some("search" | "query" | "find") => "search_orders".into(),
        Some("process" | "handle" | "run" | "execute" | "do" | "perform") => {
            "process_refund".into()
        }
        _ => "get_weather".into(),
    }
}

fn verb_noun_example(words: &[String]) -> String {
    match words {
        [] => "get_weather".into(),
        [one] if VERBS.contains(&one.as_str()) => format!("{one}_expression"),
        [one] => format!("get_{one}"),
        many => format!("get_{}", many.join("_")),
    }
}

fn when_example(words: &[String]) -> String {
    let noun: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
    if noun.is_empty() {
        "for …".into()
    } else {
        format!("about {}", noun.join(" "))
    }
}

fn lint_object(spec: &ToolSpec, s: &Value, ptr: &str, depth: usize, sink: &mut Sink<'_>) {
    if depth > 16 {
        return;
    }
    let tool = Some(spec.name.as_str());
    if let Some(req) = s.get("required").and_then(Value::as_array) {
        let props = schema::properties(s);
        for r in req.iter().filter_map(Value::as_str) {
            if !props.is_some_and(|p| p.contains_key(r))
                && s.get("additionalProperties") == Some(&Value::Bool(false))
            {
                sink.push("TW013", None, tool, Some(ptr.to_string()), format!("`required` names `{r}`, which is not a declared property (and extra keys are rejected): no call can pass"), format!("Declare `{r}` under properties or remove it from required."));
            }
        }
    }
    let Some(props) = schema::properties(s) else {
        return;
    };
    for (name, p) in props {
        let pp = child(&child(ptr, "properties"), name);
        lint_param(spec, name, p, &pp, sink);
        let target = if schema::main_type(p).as_deref() == Some("array") {
            p.get("items").unwrap_or(p)
        } else {
            p
        };
        let inner_ptr = if std::ptr::eq(target, p) {
            pp.clone()
        } else {
            child(&pp, "items")
        };
        if schema::properties(target).is_some() {
            lint_object(spec, target, &inner_ptr, depth + 1, sink);
        }
    }
}

fn lint_param(spec: &ToolSpec, name: &str, p: &Value, ptr: &str, sink: &mut Sink<'_>) {
    let tool = Some(spec.name.as_str());
    let description = p
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim();
    if description.is_empty() {
        sink.push(
            "TW006",
            None,
            tool,
            Some(ptr.to_string()),
            format!("parameter `{name}` has no description"),
            format!("Add \"description\" to `{name}`: what it is, its unit or format, and an example (\"City name, e.g. Paris\")."),
        );
    }
    let ty = schema::main_type(p);
    let has_enum = p.get("enum").is_some() || p.get("const").is_some();
    if ty.as_deref() == Some("string")
        && !has_enum
        && p.get("format").is_none()
        && p.get("pattern").is_none()
        && let Some(values) = closed_set(description)
    {
        let list: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
        sink.push(
                "TW007",
                None,
                tool,
                Some(ptr.to_string()),
                format!("parameter `{name}` is a free string but its description lists the allowed values ({})", values.join(", ")),
                format!("Make it an enum: \"enum\": [{}] (in Rust, an enum type); the schema then rejects anything else and the model sees the choices.", list.join(", ")),
            );
    }
    if matches!(ty.as_deref(), Some("integer" | "number")) && !has_enum {
        let bounded = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
            .iter()
            .any(|k| p.get(*k).is_some());
        if !bounded {
            sink.push(
                "TW008",
                None,
                tool,
                Some(ptr.to_string()),
                format!("numeric parameter `{name}` has no minimum or maximum"),
                format!("Bound it: add \"minimum\"/\"maximum\" to `{name}` (e.g. \"minimum\": 0 for amounts and counts, a maximum for limits) so out-of-range calls are rejected before the tool runs."),
            );
        }
    }
}

/// Values listed as a closed set in a description (`one of: a, b, c`, `either 'a' or 'b'`,
/// `possible values are "x", "y"`), or `None`.
pub fn closed_set(description: &str) -> Option<Vec<String>> {
    // A list of values sits in the first sentences; a bound keeps odd inputs fast.
    let description = match description.char_indices().nth(2048) {
        Some((i, _)) => description.get(..i).unwrap_or(description),
        None => description,
    };
    let l = description.to_lowercase();
    let strong = [
        "one of",
        "possible values",
        "allowed values",
        "valid values",
        "accepted values",
        "options are",
        "options:",
        "must be either",
        "can be either",
        "either",
    ];
    let has_strong = strong.iter().any(|c| l.contains(c));
    let examples = ["e.g", "for example", "such as", "for instance", "like "]
        .iter()
        .any(|c| l.contains(c));
    // Quoted values: 'a', "b", `c`.
    let quoted = quoted_values(description);
    if quoted.len() >= 2 {
        let listed = has_strong
            || ((l.contains(" or ") || l.contains("can be") || l.contains("must be")) && !examples);
        if listed {
            return Some(quoted);
        }
    }
    // `a|b|c` or `(a/b/c)`.
    for token in description.split_whitespace() {
        let t = token
            .trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | '.' | ',' | ';' | ':'));
        if t.contains('|') {
            let parts: Vec<String> = t.split('|').map(str::to_string).collect();
            if parts.len() >= 2 && parts.iter().all(|p| is_value_word(p)) {
                return Some(parts);
            }
        }
    }
    // Unquoted list after a strong cue: "One of: celsius, fahrenheit, kelvin."
    if has_strong && !examples {
        for cue in [
            "one of",
            "possible values",
            "allowed values",
            "valid values",
            "accepted values",
            "options are",
            "options:",
            "either",
        ] {
            if let Some(i) = l.find(cue) {
                let rest = description.get(i + cue.len()..).unwrap_or_default();
                let rest = rest.trim_start_matches([':', ' ', '-']);
                let rest = rest
                    .strip_prefix("are ")
                    .or_else(|| rest.strip_prefix("is "))
                    .unwrap_or(rest);
                let list = rest.split(['.', ';', '\n', ')']).next().unwrap_or_default();
                let parts: Vec<String> = list
                    .split([',', '/'])
                    .flat_map(|x| x.split(" or "))
                    .map(|x| x.trim().trim_start_matches("and ").trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect();
                if parts.len() >= 2 && parts.len() <= 20 && parts.iter().all(|p| is_value_word(p)) {
                    return Some(parts);
                }
            }
        }
    }
    None
}

fn is_value_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && !s.contains(' ')
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '+'))
        && !text::is_stop_word(&s.to_lowercase())
}

fn quoted_values(d: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = d.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars.get(i).copied().unwrap_or(' ');
        if matches!(c, '\'' | '"' | '`' | '‘' | '“') {
            // An apostrophe inside a word ("user's") does not open a quote.
            let prev_alpha = i > 0 && chars.get(i - 1).is_some_and(|p| p.is_alphanumeric());
            if !(c == '\'' && prev_alpha) {
                let close = match c {
                    '‘' => '’',
                    '“' => '”',
                    other => other,
                };
                if let Some(len) = chars.iter().skip(i + 1).position(|&x| x == close) {
                    let v: String = chars.iter().skip(i + 1).take(len).collect();
                    if is_value_word(&v) && !out.contains(&v) {
                        out.push(v);
                    }
                    i += len + 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// TW009: pairs of tools described alike.
fn overlaps(specs: &[ToolSpec], options: &LintOptions, sink: &mut Sink<'_>) {
    for (i, j, sim) in overlap_pairs(specs, options.overlap_threshold) {
        let (Some(a), Some(b)) = (specs.get(i), specs.get(j)) else {
            continue;
        };
        if a.name == b.name {
            continue;
        }
        sink.push(
            "TW009",
            None,
            Some(&a.name),
            None,
            format!("`{}` and `{}` are described alike (similarity {sim:.2}); a model will confuse them", a.name, b.name),
            format!("Say in each description what sets it apart and when to use the other (\"For … use `{}` instead\"), or merge the two tools.", b.name),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::overlap::tfidf;
    use super::*;
    use serde_json::json;

    const GOOD_DESC: &str =
        "Get the current weather for a city. Use this when the user asks about weather conditions.";

    fn good() -> ToolSpec {
        ToolSpec::new(
            "get_weather",
            GOOD_DESC,
            json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name, e.g. Paris or London."},
                "days": {"type": "integer", "minimum": 1, "maximum": 7, "description": "Forecast days."},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "One of celsius, fahrenheit."}
            }, "required": ["city"], "additionalProperties": false}),
        )
        .side_effects(SideEffects::Read)
    }

    fn rules_of(specs: &[ToolSpec]) -> Vec<&'static str> {
        lint(specs, &LintOptions::default())
            .iter()
            .map(|f| f.rule)
            .collect()
    }

    fn with(f: impl FnOnce(&mut ToolSpec)) -> Vec<Finding> {
        let mut s = good();
        f(&mut s);
        lint(&[s], &LintOptions::default())
    }

    fn has(findings: &[Finding], rule: &str) -> bool {
        findings.iter().any(|f| f.rule == rule)
    }

    #[test]
    fn a_good_tool_is_clean() {
        assert!(
            rules_of(&[good()]).is_empty(),
            "{:?}",
            lint(&[good()], &LintOptions::default())
        );
    }

    #[test]
    fn tw001_vague_names() {
        for name in [
            "get_data",
            "search",
            "process",
            "handle",
            "run_task",
            "doStuff",
            "api.query",
        ] {
            let f = with(|s| s.name = name.into());
            assert!(has(&f, "TW001"), "{name}");
            let v = f.iter().find(|x| x.rule == "TW001").unwrap();
            assert_eq!(v.severity, Severity::Error);
            assert!(v.fix.contains('`'));
        }
        for name in ["get_weather", "search_orders", "process_refund"] {
            assert!(!has(&with(|s| s.name = name.into()), "TW001"), "{name}");
        }
    }

    #[test]
    fn tw002_verb_noun() {
        for name in ["weather", "weather_report", "calculate", "math.factorial"] {
            assert!(has(&with(|s| s.name = name.into()), "TW002"), "{name}");
        }
        for name in [
            "get_weather",
            "convert_currency",
            "triangle.calculate_area",
            "readFile",
        ] {
            assert!(!has(&with(|s| s.name = name.into()), "TW002"), "{name}");
        }
    }

    #[test]
    fn tw003_to_tw005_descriptions() {
        let f = with(|s| {
            s.description = "Get the current weather for a city, with wind and humidity.".into()
        });
        assert!(has(&f, "TW003"));
        assert!(!has(&f, "TW004"));
        let f = with(|s| s.description = "Weather. Use this when asked.".into());
        assert!(has(&f, "TW004"));
        assert!(!has(&f, "TW003"));
        let f = with(|s| s.description = String::new());
        let e = f.iter().find(|x| x.rule == "TW004").unwrap();
        assert_eq!(e.severity, Severity::Error);
        assert!(!has(&f, "TW003"));
        let f = with(|s| s.description = format!("{GOOD_DESC} {}", "More detail. ".repeat(100)));
        assert!(has(&f, "TW005"));
    }

    #[test]
    fn tw006_undocumented_parameters_with_pointers() {
        let f = with(|s| {
            s.parameters["properties"]["city"]
                .as_object_mut()
                .unwrap()
                .remove("description");
            s.parameters["properties"]["where"] = json!({"type": "object", "description": "Place.",
                "properties": {"zip": {"type": "string"}}});
            s.parameters["properties"]["stops"] = json!({"type": "array", "description": "Stops.",
                "items": {"type": "object", "properties": {"name": {"type": "string"}}}});
        });
        let pointers: Vec<_> = f
            .iter()
            .filter(|x| x.rule == "TW006")
            .map(|x| x.pointer.clone().unwrap())
            .collect();
        assert_eq!(
            pointers,
            [
                "/properties/city",
                "/properties/where/properties/zip",
                "/properties/stops/items/properties/name"
            ]
        );
    }

    #[test]
    fn tw006_sees_descriptions_through_refs() {
        let f = with(|s| {
            s.parameters["properties"]["unit"] = json!({"$ref": "#/$defs/Unit"});
            s.parameters["$defs"] =
                json!({"Unit": {"type": "string", "enum": ["c", "f"], "description": "Unit."}});
        });
        assert!(!has(&f, "TW006"), "{f:?}");
    }

    #[test]
    fn tw007_closed_sets() {
        for d in [
            "Temperature unit: 'celsius' or 'fahrenheit'.",
            "One of: celsius, fahrenheit, kelvin.",
            "The unit, either \"metric\" or \"imperial\".",
            "Sort order (asc|desc).",
            "Possible values are `asc`, `desc`.",
        ] {
            let f = with(|s| s.parameters["properties"]["city"]["description"] = json!(d));
            let x = f.iter().find(|x| x.rule == "TW007");
            assert!(x.is_some(), "{d}");
            assert!(x.unwrap().fix.contains("\"enum\": ["), "{d}");
        }
        for d in [
            "City name, e.g. 'Paris' or 'London'.",
            "The user's name.",
            "Free text, such as \"hello\" or \"hi\".",
            "A city or a region.",
        ] {
            let f = with(|s| s.parameters["properties"]["city"]["description"] = json!(d));
            assert!(!has(&f, "TW007"), "{d}");
        }
        assert_eq!(
            closed_set("One of: celsius, fahrenheit or kelvin."),
            Some(vec!["celsius".into(), "fahrenheit".into(), "kelvin".into()])
        );
    }

    #[test]
    fn tw008_numeric_bounds() {
        let f = with(|s| {
            s.parameters["properties"]["days"] = json!({"type": "integer", "description": "Days."})
        });
        assert_eq!(
            f.iter()
                .find(|x| x.rule == "TW008")
                .unwrap()
                .pointer
                .as_deref(),
            Some("/properties/days")
        );
        let f = with(|s| {
            s.parameters["properties"]["days"] =
                json!({"type": ["number", "null"], "exclusiveMinimum": 0, "description": "Days."})
        });
        assert!(!has(&f, "TW008"));
    }

    #[test]
    fn tw009_overlapping_tools() {
        let mut a = good();
        a.name = "get_weather_report".into();
        let b = good();
        let f = lint(&[a.clone(), b], &LintOptions::default());
        let x = f.iter().find(|x| x.rule == "TW009").unwrap();
        assert!(x.message.contains("get_weather_report") && x.message.contains("`get_weather`"));
        assert!(x.message.contains("similarity"));
        let mut c = good();
        c.name = "convert_currency".into();
        c.description = "Convert an amount of money between two currencies at a dated rate. Use this when the user asks for an exchange.".into();
        assert!(!rules_of(&[a, c]).contains(&"TW009"));
    }

    #[test]
    fn tw010_too_many_tools() {
        let many: Vec<ToolSpec> = (0..21)
            .map(|i| {
                let mut s = good();
                s.name = format!("get_thing{i}");
                s.description = format!("Get thing number {i} of the warehouse {}. Use this when the user asks about item {i}.", "x".repeat(i));
                s
            })
            .collect();
        assert!(
            lint(&many, &LintOptions::default())
                .iter()
                .any(|f| f.rule == "TW010" && f.tool.is_none())
        );
        let routed = LintOptions {
            routing: true,
            ..LintOptions::default()
        };
        assert!(!lint(&many, &routed).iter().any(|f| f.rule == "TW010"));
        assert!(
            !lint(&many[..20], &LintOptions::default())
                .iter()
                .any(|f| f.rule == "TW010")
        );
    }

    #[test]
    fn tw011_destructive_without_confirmation() {
        let f = with(|s| {
            s.name = "delete_file".into();
            s.meta.side_effects = SideEffects::Write;
            s.meta.idempotent = true;
        });
        assert_eq!(
            f.iter().find(|x| x.rule == "TW011").unwrap().severity,
            Severity::Error
        );
        let f = with(|s| {
            s.description = format!("{GOOD_DESC} Permanently erases history.");
            s.meta.side_effects = SideEffects::Write;
            s.meta.idempotent = true;
        });
        assert!(has(&f, "TW011"));
        let f = with(|s| {
            s.name = "delete_file".into();
            s.meta.side_effects = SideEffects::Destructive;
            s.meta.idempotent = true;
        });
        assert!(!has(&f, "TW011"));
        let f = with(|s| {
            s.name = "delete_file".into();
            s.meta.requires_confirmation = true;
            s.meta.side_effects = SideEffects::Write;
            s.meta.idempotent = true;
        });
        assert!(!has(&f, "TW011"));
    }

    #[test]
    fn tw012_side_effects_without_idempotency() {
        assert!(has(
            &with(|s| s.meta.side_effects = SideEffects::Write),
            "TW012"
        ));
        assert!(!has(
            &with(|s| {
                s.meta.side_effects = SideEffects::Write;
                s.meta.idempotent = true
            }),
            "TW012"
        ));
        let external = LintOptions {
            declared_side_effects: false,
            ..LintOptions::default()
        };
        let mut s = good();
        s.meta.side_effects = SideEffects::Write;
        assert!(!lint(&[s], &external).iter().any(|f| f.rule == "TW012"));
    }

    #[test]
    fn tw013_and_tw014_broken_definitions() {
        assert!(has(
            &with(|s| s.parameters = json!({"type": "string"})),
            "TW013"
        ));
        assert!(has(&with(|s| s.parameters = json!(3)), "TW013"));
        assert!(has(
            &with(|s| s.parameters["required"] = json!(["city", "nope"])),
            "TW013"
        ));
        assert!(has(
            &with(|s| s.parameters["properties"]["x"] =
                json!({"$ref": "#/$defs/Missing", "description": "x"})),
            "TW013"
        ));
        assert!(has(
            &with(|s| s.parameters["properties"]["x"] = json!({"type": 12, "description": "x"})),
            "TW013"
        ));
        assert!(has(&with(|s| s.name = "get weather!".into()), "TW014"));
        let dup = lint(&[good(), good()], &LintOptions::default());
        assert_eq!(dup.iter().filter(|f| f.rule == "TW014").count(), 1);
    }

    #[test]
    fn huge_inputs_stay_fast() {
        let t = std::time::Instant::now();
        let mut s = good();
        s.description = "‘x ".repeat(50_000);
        s.parameters["properties"]["city"]["description"] = json!("“a ".repeat(50_000));
        s.name = "x".repeat(100_000);
        let f = lint(&[s.clone(), s], &LintOptions::default());
        assert!(!f.is_empty());
        assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    }

    #[test]
    fn rules_table_is_complete() {
        for i in 1..=14 {
            let id = format!("TW{i:03}");
            assert!(RULES.iter().any(|r| r.id == id), "{id}");
        }
        assert!(has_errors(&with(|s| s.name = "get_data".into())));
        assert!(!has_errors(&[]));
    }

    /// The pruned index finds exactly the pairs a comparison of every pair finds.
    #[test]
    fn overlap_pairs_match_the_quadratic_comparison() {
        let words: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let specs: Vec<ToolSpec> = (0..300)
            .map(|i| {
                let n = 3 + next() % 6;
                let desc: Vec<&str> = (0..n)
                    .map(|_| {
                        words
                            .get((next() % 40).min(next() % 40))
                            .map_or("x", String::as_str)
                    })
                    .collect();
                ToolSpec::new(
                    format!("tool_{i}"),
                    format!("Get {} data. Use this when asked.", desc.join(" ")),
                    json!({"type": "object"}),
                )
            })
            .collect();
        let vectors = tfidf(&specs);
        for threshold in [0.2f32, 0.35, 0.5, 0.6, 0.8] {
            let mut brute = Vec::new();
            for i in 0..vectors.len() {
                for j in i + 1..vectors.len() {
                    let (a, b) = (&vectors[i], &vectors[j]);
                    let sim: f32 = a
                        .iter()
                        .map(|(t, w)| b.iter().find(|(u, _)| u == t).map_or(0.0, |(_, x)| w * x))
                        .sum();
                    if sim >= threshold {
                        brute.push((i, j));
                    }
                }
            }
            let fast: Vec<(usize, usize)> = overlap_pairs(&specs, threshold)
                .into_iter()
                .map(|(i, j, _)| (i, j))
                .collect();
            assert!(threshold > 0.2 || brute.len() > 10, "{}", brute.len());
            assert_eq!(fast, brute, "threshold {threshold}");
        }
    }
}
