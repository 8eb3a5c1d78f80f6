//! `Runtime::invoke_json` (arguments as JSON text; a `#[tool]` that takes raw JSON deserializes
//! them with no `Value` in between) answers exactly what `Runtime::invoke` answers for the
//! parsed text (or for the text as a string when it is not JSON): every case below runs both
//! ways, on runtimes built alike, and the envelopes must serialize the same but for
//! `duration_ms`, as must the metrics and the number of times the tool ran.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolwright::schemars::JsonSchema;
use toolwright_core::{ErrorCode, Registry, Tool, ToolCall, ToolContext, ToolError};
use toolwright_runtime::{CallOptions, RetryPolicy, Runtime};

/// How fast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "toolwright::schemars")]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Fast.
    Fast,
    /// Slow.
    Slow,
}

/// A plain enum (no doc comments on its variants: schemars writes an `enum` list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "toolwright::schemars")]
pub enum Plain {
    #[allow(missing_docs)]
    A,
    #[allow(missing_docs)]
    B,
}

static RUNS: AtomicU32 = AtomicU32::new(0);

/// Echoes its arguments. Use this when testing.
///
/// # Arguments
/// * `name` - A name, 2 to 5 characters
/// * `count` - From 0 to 1000
/// * `ratio` - Between 0 and 1
/// * `enabled` - On or off
/// * `mode` - The mode
#[toolwright::tool(side_effects = "none")]
async fn small(
    #[arg(min_length = 2, max_length = 5)] name: String,
    #[arg(min = 0, max = 1000)] count: i64,
    #[arg(min = 0.0, max = 1.0)] ratio: f64,
    enabled: bool,
    mode: Mode,
) -> Result<Value, ToolError> {
    RUNS.fetch_add(1, Ordering::SeqCst);
    Ok(json!({"name": name, "count": count, "ratio": ratio, "enabled": enabled, "mode": mode}))
}

/// Echoes, with defaults. Use this when testing.
///
/// # Arguments
/// * `n` - A small number
/// * `label` - A label
/// * `plain` - A plain enum
/// * `big` - An unsigned number
#[toolwright::tool(side_effects = "none")]
async fn defaults(
    #[arg(default = 7, max = 9)] n: u32,
    #[arg(default = "x")] label: String,
    plain: Plain,
    #[arg(min = 10)] big: u64,
) -> Result<Value, ToolError> {
    Ok(json!({"n": n, "label": label, "plain": plain, "big": big}))
}

/// Reports its call id and errors on odd numbers. Use this when testing.
///
/// # Arguments
/// * `n` - A number
#[toolwright::tool(side_effects = "write")]
fn with_ctx(ctx: &ToolContext, n: i32) -> Result<Value, ToolError> {
    if n % 2 != 0 {
        return Err(ToolError::new(ErrorCode::Internal, format!("{n} is odd")));
    }
    Ok(json!({"id": ctx.call_id.as_str(), "n": n}))
}

fn flaky_seen() -> &'static Mutex<HashMap<String, u32>> {
    static SEEN: std::sync::OnceLock<Mutex<HashMap<String, u32>>> = std::sync::OnceLock::new();
    SEEN.get_or_init(Mutex::default)
}

/// Unavailable on the first attempt of each call. Use this when testing retries.
///
/// # Arguments
/// * `n` - A number
#[toolwright::tool(side_effects = "read")]
async fn flaky(ctx: &ToolContext, n: i64) -> Result<i64, ToolError> {
    let first = {
        let mut seen = flaky_seen().lock().unwrap();
        let k = seen.entry(ctx.call_id.to_string()).or_default();
        *k += 1;
        *k == 1
    };
    if first {
        return Err(ToolError::dependency_unavailable("down", "try later"));
    }
    Ok(n)
}

/// A nested argument.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "toolwright::schemars")]
pub struct Inner {
    /// A number.
    pub x: i64,
}

/// Takes a nested struct. Use this when testing.
///
/// # Arguments
/// * `inner` - The nested value
/// * `tag` - A tag
#[toolwright::tool(side_effects = "none")]
async fn nested(inner: Inner, tag: String) -> Result<i64, ToolError> {
    Ok(inner.x + tag.len() as i64)
}

/// Takes a patterned string. Use this when testing.
///
/// # Arguments
/// * `code` - An upper-case code
#[toolwright::tool(side_effects = "none")]
async fn patterned(#[arg(pattern = "^[A-Z]+$")] code: String) -> Result<String, ToolError> {
    Ok(code)
}

/// Needs approval. Use this when testing.
///
/// # Arguments
/// * `path` - A path
#[toolwright::tool(side_effects = "destructive")]
async fn delete(path: String) -> Result<String, ToolError> {
    Ok(path)
}

fn registry() -> Registry {
    let reg = Registry::new();
    reg.register(SmallTool).unwrap();
    reg.register(DefaultsTool).unwrap();
    reg.register(WithCtxTool).unwrap();
    reg.register(FlakyTool).unwrap();
    reg.register(NestedTool).unwrap();
    reg.register(PatternedTool).unwrap();
    reg.register(DeleteTool).unwrap();
    reg
}

fn retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
    }
}

/// The runtimes a case runs on: default policies, policies off, tools on their own tasks (no
/// direct path).
fn runtimes() -> Vec<Runtime> {
    let make = |policies: bool, isolate: bool| {
        Runtime::builder(Arc::new(registry()))
            .retry_policy(retry())
            .policies(policies)
            .isolate_tools(isolate)
            .build()
    };
    vec![make(true, false), make(false, false), make(true, true)]
}

fn block<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// The envelope as JSON, without its wall time.
fn comparable(out: &toolwright_core::Outcome) -> Value {
    let mut v: Value = serde_json::from_str(&out.to_json_string().unwrap()).unwrap();
    v["meta"].as_object_mut().unwrap().remove("duration_ms");
    v
}

/// What `invoke` is given for the text.
fn as_invoke(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// Runs `tool` with `text` both ways on a fresh pair of runtimes of each kind, with `opts`;
/// panics with the case on any difference.
fn same(tool: &str, text: &str, opts: &CallOptions) {
    // One case at a time: the run counter and the flaky tool's memory are shared.
    static ONE: Mutex<()> = Mutex::new(());
    let _one = ONE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let pairs = runtimes().into_iter().zip(runtimes());
    for (k, (raw_rt, value_rt)) in pairs.enumerate() {
        let (raw, value) = block(async {
            flaky_seen().lock().unwrap().clear();
            let before = RUNS.load(Ordering::SeqCst);
            let raw = raw_rt.invoke_json("c1", tool, text, opts).await;
            let raw_runs = RUNS.load(Ordering::SeqCst) - before;
            flaky_seen().lock().unwrap().clear();
            let before = RUNS.load(Ordering::SeqCst);
            let call = ToolCall::new("c1", tool, as_invoke(text));
            let value = value_rt.invoke(call, opts).await;
            let value_runs = RUNS.load(Ordering::SeqCst) - before;
            assert_eq!(raw_runs, value_runs, "runs of {tool} {text} on runtime {k}");
            (raw, value)
        });
        assert_eq!(
            comparable(&raw),
            comparable(&value),
            "{tool} {text:?} (strict {}) on runtime {k}",
            opts.strict
        );
        let counts = |rt: &Runtime| {
            rt.metrics()
                .tools
                .into_iter()
                .map(|(k, m)| (k, m.calls, m.errors, m.retries, m.timeouts))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            counts(&raw_rt),
            counts(&value_rt),
            "metrics of {tool} {text}"
        );
        assert_eq!(raw_rt.calls_in_flight(), 0);
    }
}

fn both(tool: &str, text: &str) {
    same(tool, text, &CallOptions::default());
    same(
        tool,
        text,
        &CallOptions {
            strict: true,
            ..CallOptions::default()
        },
    );
}

const VALID: &str = r#"{"name": "Ada", "count": 3, "ratio": 0.5, "enabled": true, "mode": "fast"}"#;

#[test]
fn which_tools_take_raw_json() {
    assert!(SmallTool.takes_json());
    assert!(DefaultsTool.takes_json());
    assert!(WithCtxTool.takes_json());
    assert!(FlakyTool.takes_json());
    // A nested struct, a pattern: the validated path only.
    assert!(!NestedTool.takes_json());
    assert!(!PatternedTool.takes_json());
    let ctx = || ToolContext::new("c1", "nested");
    assert!(
        NestedTool
            .call_json(r#"{"inner": {"x": 1}, "tag": "a"}"#, ctx())
            .is_none()
    );
    // The typed path takes what it checks, and declines the rest.
    assert!(SmallTool.call_json(VALID, ctx()).is_some());
    let long = VALID.replace("\"Ada\"", "\"Adelaide\"");
    assert!(SmallTool.call_json(&long, ctx()).is_none());
    assert!(
        SmallTool
            .call_json(r#"["Ada", 3, 0.5, true, "fast"]"#, ctx())
            .is_none()
    );
}

#[test]
fn valid_calls_are_the_same() {
    both("small", VALID);
    both("small", &format!("  \n{VALID}\n "));
    both(
        "small",
        r#"{"mode": "slow", "enabled": false, "ratio": 1, "count": 1000, "name": "ééééé"}"#,
    );
    both(
        "small",
        r#"{"name": "a\u0062", "count": 0, "ratio": 0.0, "enabled": true, "mode": "fast"}"#,
    );
    both("defaults", r#"{"plain": "A", "big": 18446744073709551615}"#);
    both(
        "defaults",
        r#"{"n": 9, "label": "y", "plain": "B", "big": 10}"#,
    );
    both("with_ctx", r#"{"n": 4}"#);
    both("with_ctx", r#"{"n": 3}"#);
    both("flaky", r#"{"n": 5}"#);
    both("nested", r#"{"inner": {"x": 1}, "tag": "ab"}"#);
    both("patterned", r#"{"code": "AB"}"#);
}

#[test]
fn invalid_calls_are_the_same() {
    let cases = [
        // Wrong types, strings for numbers (coerced when lenient), null.
        r#"{"name": 5, "count": 3, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": "3", "ratio": "0.5", "enabled": "true", "mode": "fast"}"#,
        r#"{"name": null, "count": 3, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        // Missing and unknown fields.
        r#"{"name": "Ada", "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": 3, "ratio": 0.5, "enabled": true, "mode": "fast", "x": 1}"#,
        // Out of bounds, too long and too short in code points (multi-byte), not in the enum.
        r#"{"name": "Ada", "count": 1001, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": -1, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": 3, "ratio": 1.0000000000000002, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "éééééé", "count": 3, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "é", "count": 3, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": 3, "ratio": 0.5, "enabled": true, "mode": "Fast"}"#,
        r#"{"name": "Ada", "count": 3, "ratio": 0.5, "enabled": true, "mode": 1}"#,
        // 3.0 and -0 for an integer (JSON Schema's integers; serde declines them).
        r#"{"name": "Ada", "count": 3.0, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": -0, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": 1e2, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        // Duplicate keys (the last wins in a `Value`).
        r#"{"name": "Ada", "count": 3, "count": 4, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        r#"{"name": "Ada", "count": 3000, "count": 4, "ratio": 0.5, "enabled": true, "mode": "fast"}"#,
        // Not an object, not JSON, empty.
        r#"["Ada", 3, 0.5, true, "fast"]"#,
        "null",
        "5",
        r#""text""#,
        r#"{"name": "Ada", "count": 3"#,
        r#"{"name": "Ada"} trailing"#,
        "",
        "   ",
        "{}",
    ];
    for text in cases {
        both("small", text);
    }
    both("defaults", r#"{"plain": "C", "big": 10}"#);
    both("defaults", r#"{"plain": "A", "big": 9}"#);
    both("defaults", r#"{"plain": "A", "big": 18446744073709551616}"#);
    both("defaults", r#"{"n": 10, "plain": "A", "big": 10}"#);
    both("defaults", r#"{"n": -1, "plain": "A", "big": 10}"#);
    both("with_ctx", r#"{"n": 2147483648}"#);
    both("nested", r#"{"inner": {"x": "1"}, "tag": "ab"}"#);
    both("patterned", r#"{"code": "ab"}"#);
}

#[test]
fn unknown_tools_and_gated_calls_are_the_same() {
    both("no_such_tool", VALID);
    both("no_such_tool", "not json");
    both("delete", r#"{"path": "a.txt"}"#);
    same(
        "delete",
        r#"{"path": "a.txt"}"#,
        &CallOptions {
            approved: true,
            ..CallOptions::default()
        },
    );
    same(
        "small",
        VALID,
        &CallOptions {
            session_id: Some("s1".into()),
            step: 2,
            ..CallOptions::default()
        },
    );
}

#[test]
fn a_cancelled_host_is_the_same() {
    let token = tokio_util::sync::CancellationToken::new();
    token.cancel();
    let opts = CallOptions {
        cancel: Some(token),
        ..CallOptions::default()
    };
    same("small", VALID, &opts);
    same("small", r#"{"name": 1}"#, &opts);
}

/// A JSON text for a value: numbers as given (so `3.0`, `-0`, `1e2` stay as written).
#[derive(Debug, Clone)]
enum Lit {
    Raw(&'static str),
    Str(String),
}

impl Lit {
    fn text(&self) -> String {
        match self {
            Lit::Raw(r) => (*r).to_string(),
            Lit::Str(s) => Value::String(s.clone()).to_string(),
        }
    }
}

fn lit() -> impl Strategy<Value = Lit> {
    prop_oneof![
        prop::sample::select(vec![
            "0",
            "-0",
            "3",
            "1000",
            "1001",
            "-1",
            "3.0",
            "1e2",
            "0.5",
            "1",
            "1.0",
            "1.0000000000000002",
            "-0.0",
            "9007199254740993",
            "18446744073709551616",
            "-9223372036854775809",
            "1e400",
            "true",
            "false",
            "null",
            "[]",
            "{}",
            "\"fast\"",
            "\"slow\"",
            "\"FAST\"",
            "\"3\"",
            "\"0.5\"",
            "\"true\"",
        ])
        .prop_map(Lit::Raw),
        "[a-zé€😀]{0,7}".prop_map(Lit::Str),
        "[a-zé€😀]{4,7}".prop_map(Lit::Str),
    ]
}

const KEYS: [&str; 6] = ["name", "count", "ratio", "enabled", "mode", "extra"];

fn base() -> Vec<(String, String)> {
    vec![
        ("name".into(), "\"Ada\"".into()),
        ("count".into(), "3".into()),
        ("ratio".into(), "0.5".into()),
        ("enabled".into(), "true".into()),
        ("mode".into(), "\"fast\"".into()),
    ]
}

/// One change to an argument object: drop, replace or add (possibly a duplicate) a key.
fn edit() -> impl Strategy<Value = (u8, usize, Lit)> {
    (0u8..3, 0usize..KEYS.len(), lit())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn near_valid_objects_are_the_same(edits in prop::collection::vec(edit(), 0..3), strict: bool) {
        let mut fields = base();
        for (how, key, with) in edits {
            let key = KEYS[key].to_string();
            match how {
                0 => fields.retain(|(k, _)| *k != key),
                1 => match fields.iter_mut().find(|(k, _)| *k == key) {
                    Some(f) => f.1 = with.text(),
                    None => fields.push((key, with.text())),
                },
                _ => fields.push((key, with.text())),
            }
        }
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}: {v}", Value::String(k.clone())))
            .collect();
        let text = format!("{{{}}}", body.join(", "));
        same("small", &text, &CallOptions { strict, ..CallOptions::default() });
    }
}
