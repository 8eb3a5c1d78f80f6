//! Workloads shared by the criterion benches of this crate and by `bench/peers.py` (through the
//! `bench-data` binary, which writes them to files so the Python peers run on the very same bytes).
//!
//! One call = the arguments as a JSON string (what a model writes) → parse → validate against the
//! advertised schema → invoke a no-op tool → serialize the envelope. Three sizes:
//! - small: five scalars ([`noop_small`]),
//! - medium: a nested object with 20 leaf fields ([`noop_medium`]),
//! - large: an array of 1,000 objects ([`noop_large`]).
//!
//! The baseline ([`bare_call`]) does the same work without the framework: `serde_json` parse,
//! `serde_json::from_value` into the argument struct, call the same function, serialize its result.
//!
//! Routing uses a synthetic but wordy toolset ([`routing_corpus`]) and fixed queries
//! ([`ROUTING_QUERIES`]).

pub mod counting;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;
use toolwright::{ToolError, tool};
use toolwright_core::{Registry, RegistryError, ToolCall, ToolSpec};
use toolwright_runtime::{CallOptions, Runtime};

/// How the no-op tool should work: an enum, so validation checks membership.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Fast.
    Fast,
    /// Slow.
    Slow,
}

/// A no-op tool with five scalar arguments.
///
/// Use this to measure the per-call overhead of the framework.
///
/// # Arguments
/// * `name` - A short name
/// * `count` - How many, from 0 to 1000
/// * `ratio` - A ratio between 0 and 1
/// * `enabled` - Whether it is on
/// * `mode` - The mode
#[tool(side_effects = "none")]
pub async fn noop_small(
    #[arg(max_length = 100)] name: String,
    #[arg(min = 0, max = 1000)] count: i64,
    #[arg(min = 0.0, max = 1.0)] ratio: f64,
    enabled: bool,
    mode: Mode,
) -> Result<u32, ToolError> {
    let _ = (name, count, ratio, enabled, mode);
    Ok(1)
}

/// Status of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OrderStatus {
    /// Not paid yet.
    Pending,
    /// Paid.
    Paid,
    /// On its way.
    Shipped,
}

/// How an order is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PaymentMethod {
    /// Card.
    Card,
    /// Bank transfer.
    Transfer,
    /// Voucher.
    Voucher,
}

/// A customer (5 fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Customer {
    /// Customer id.
    pub id: i64,
    /// Full name.
    pub name: String,
    /// E-mail address.
    pub email: String,
    /// Phone number.
    pub phone: String,
    /// Whether the customer is a VIP.
    pub vip: bool,
}

/// A postal address (5 fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Address {
    /// Street and number.
    pub street: String,
    /// City.
    pub city: String,
    /// Postal code.
    pub postal_code: String,
    /// ISO country code.
    pub country: String,
    /// Region or state.
    pub region: String,
}

/// A payment (4 fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Payment {
    /// How it was paid.
    pub method: PaymentMethod,
    /// Last four digits of the card or account.
    pub last4: String,
    /// Amount paid.
    pub amount: f64,
    /// Whether the payment was captured.
    pub captured: bool,
}

/// An order: 6 top-level fields and three nested objects, 20 leaf fields in all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// Order id.
    pub order_id: String,
    /// Order status.
    pub status: OrderStatus,
    /// Order total.
    pub total: f64,
    /// ISO 4217 currency code.
    pub currency: String,
    /// Express shipping.
    pub express: bool,
    /// Number of line items.
    pub items_count: i64,
    /// Who ordered.
    pub customer: Customer,
    /// Where it goes.
    pub shipping: Address,
    /// How it was paid.
    pub payment: Payment,
}

/// A no-op tool taking one nested order (20 leaf fields).
///
/// Use this to measure the per-call overhead on a medium-sized argument.
///
/// # Arguments
/// * `order` - The order
#[tool(side_effects = "none")]
pub async fn noop_medium(order: Order) -> Result<u32, ToolError> {
    let _ = order;
    Ok(1)
}

/// One line item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// Stock-keeping unit.
    pub sku: String,
    /// Quantity.
    pub quantity: i64,
    /// Unit price.
    pub price: f64,
}

/// A no-op tool taking an array of line items.
///
/// Use this to measure the per-call overhead on a large argument.
///
/// # Arguments
/// * `items` - The line items
#[tool(side_effects = "none")]
pub async fn noop_large(items: Vec<Item>) -> Result<u32, ToolError> {
    let _ = items;
    Ok(1)
}

/// The argument size classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Five scalars.
    Small,
    /// Nested object, 20 fields.
    Medium,
    /// Array of 1,000 items.
    Large,
}

impl Size {
    /// All sizes, small first.
    pub const ALL: [Size; 3] = [Size::Small, Size::Medium, Size::Large];

    /// `small`, `medium` or `large`.
    pub fn as_str(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
        }
    }

    /// The tool that takes arguments of this size.
    pub fn tool_name(self) -> &'static str {
        match self {
            Size::Small => "noop_small",
            Size::Medium => "noop_medium",
            Size::Large => "noop_large",
        }
    }

    /// The arguments as a model would write them (compact JSON).
    pub fn args_json(self) -> String {
        let v = match self {
            Size::Small => small_args(),
            Size::Medium => medium_args(),
            Size::Large => large_args(),
        };
        v.to_string()
    }
}

fn small_args() -> Value {
    json!({"name": "Paris", "count": 3, "ratio": 0.5, "enabled": true, "mode": "fast"})
}

fn medium_args() -> Value {
    json!({
        "order_id": "ORD-2026-000123",
        "status": "paid",
        "total": 149.9,
        "currency": "EUR",
        "express": false,
        "items_count": 3,
        "customer": {"id": 42, "name": "Ada Lovelace", "email": "ada@example.com",
                     "phone": "+44 20 7946 0000", "vip": true},
        "shipping": {"street": "12 Analytical Row", "city": "London", "postal_code": "NW1 2DB",
                     "country": "GB", "region": "Greater London"},
        "payment": {"method": "card", "last4": "4242", "amount": 149.9, "captured": true}
    })
}

fn large_args() -> Value {
    let items: Vec<Value> = (0..1000u32)
        .map(|i| {
            json!({
                "sku": format!("SKU-{i:05}"),
                "quantity": i64::from(i % 7 + 1),
                "price": f64::from(i % 100) + 0.99,
            })
        })
        .collect();
    json!({ "items": items })
}

/// A registry holding the three no-op tools.
///
/// # Errors
/// Only if a tool's schema did not compile (a bug).
pub fn registry() -> Result<Registry, RegistryError> {
    let reg = Registry::new();
    reg.register(NoopSmallTool)?;
    reg.register(NoopMediumTool)?;
    reg.register(NoopLargeTool)?;
    Ok(reg)
}

/// The full path from the arguments' JSON text through [`Runtime::invoke_json`] (the runtime's
/// policies included): parse, validate, invoke, the envelope's JSON. A `#[tool]` that takes raw
/// JSON (`noop_small`) deserializes its arguments from the text with no `Value` in between.
pub async fn runtime_call(rt: &Runtime, tool: &str, args: &str, opts: &CallOptions) -> String {
    let out = rt.invoke_json("c1", tool, args, opts).await;
    out.to_json_string().unwrap_or_default()
}

/// The same path through [`Runtime::invoke`]: the text parsed into a `Value` first (what
/// [`runtime_call`] measured before [`Runtime::invoke_json`]).
pub async fn runtime_value_call(
    rt: &Runtime,
    tool: &str,
    args: &str,
    opts: &CallOptions,
) -> String {
    let arguments: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    let out = rt.invoke(ToolCall::new("c1", tool, arguments), opts).await;
    out.to_json_string().unwrap_or_default()
}

/// A runtime over [`registry`].
///
/// # Errors
/// As [`registry`].
pub fn runtime() -> Result<Runtime, RegistryError> {
    Ok(Runtime::new(Arc::new(registry()?)))
}

/// A runtime over [`registry`] with its policies off (`RuntimeBuilder::policies(false)`):
/// resolve, validate, confirmation gate, run, envelope. The row that stands where the bare
/// `Registry::invoke` pipeline stood before the runtime became the one call path.
///
/// # Errors
/// As [`registry`].
pub fn minimal_runtime() -> Result<Runtime, RegistryError> {
    Ok(Runtime::builder(Arc::new(registry()?))
        .policies(false)
        .build())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SmallArgs {
    name: String,
    count: i64,
    ratio: f64,
    enabled: bool,
    mode: Mode,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LargeArgs {
    items: Vec<Item>,
}

/// The baseline without the framework: parse the string into a `Value`, `serde_json::from_value`
/// into the argument struct, call the same function, serialize its result. No schema validation,
/// no envelope.
pub async fn bare_call(size: Size, args: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(args) else {
        return String::new();
    };
    let r = match size {
        Size::Small => match serde_json::from_value::<SmallArgs>(v) {
            Ok(a) => noop_small(a.name, a.count, a.ratio, a.enabled, a.mode).await,
            Err(_) => return String::new(),
        },
        Size::Medium => match serde_json::from_value::<Order>(v) {
            Ok(o) => noop_medium(o).await,
            Err(_) => return String::new(),
        },
        Size::Large => match serde_json::from_value::<LargeArgs>(v) {
            Ok(a) => noop_large(a.items).await,
            Err(_) => return String::new(),
        },
    };
    match r {
        Ok(n) => serde_json::to_string(&n).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// The baseline without a `Value`: `serde_json::from_str` straight into the argument struct,
/// call the same function, serialize its result. No schema validation, no envelope.
pub async fn bare_str_call(size: Size, args: &str) -> String {
    let r = match size {
        Size::Small => match serde_json::from_str::<SmallArgs>(args) {
            Ok(a) => noop_small(a.name, a.count, a.ratio, a.enabled, a.mode).await,
            Err(_) => return String::new(),
        },
        Size::Medium => match serde_json::from_str::<Order>(args) {
            Ok(o) => noop_medium(o).await,
            Err(_) => return String::new(),
        },
        Size::Large => match serde_json::from_str::<LargeArgs>(args) {
            Ok(a) => noop_large(a.items).await,
            Err(_) => return String::new(),
        },
    };
    match r {
        Ok(n) => serde_json::to_string(&n).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// Fixed routing queries (a mix of close and loose matches).
pub const ROUTING_QUERIES: [&str; 10] = [
    "send an email to the finance team about the overdue invoice",
    "what will the weather be in Lisbon tomorrow",
    "book a flight from Paris to Berlin next Monday",
    "convert 250 dollars to euros",
    "list the open support tickets assigned to me",
    "create a calendar event for the quarterly review",
    "find files that mention the deployment checklist",
    "cancel my hotel reservation in Rome",
    "show the stock price history for ACME",
    "add the new hire to the engineering group",
];

const VERBS: [&str; 16] = [
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "send",
    "archive",
    "export",
    "import",
    "schedule",
    "cancel",
    "approve",
    "convert",
    "summarize",
    "assign",
];
const OBJECTS: [&str; 32] = [
    "invoice",
    "user",
    "weather_forecast",
    "flight",
    "hotel_booking",
    "order",
    "ticket",
    "repository",
    "file",
    "email",
    "calendar_event",
    "stock_quote",
    "playlist",
    "contact",
    "payment",
    "shipment",
    "report",
    "dashboard",
    "alert",
    "incident",
    "document",
    "meeting",
    "expense",
    "budget",
    "employee",
    "group",
    "project",
    "task",
    "comment",
    "note",
    "product",
    "coupon",
];
const DOMAINS: [&str; 20] = [
    "crm",
    "billing",
    "travel",
    "support",
    "devops",
    "finance",
    "hr",
    "calendar",
    "mail",
    "files",
    "analytics",
    "inventory",
    "sales",
    "marketing",
    "security",
    "legal",
    "media",
    "weather",
    "shop",
    "admin",
];
const QUALIFIERS: [&str; 12] = [
    "by id",
    "for a date range",
    "for a customer",
    "in bulk",
    "with filters",
    "by name",
    "for the current user",
    "across all regions",
    "with a summary",
    "in a given currency",
    "for a team",
    "by status",
];
const PARAMS: [(&str, &str, &str); 16] = [
    ("id", "string", "The identifier of the record"),
    ("query", "string", "Free-text search query"),
    ("limit", "integer", "Maximum number of results to return"),
    ("start_date", "string", "Start of the period, ISO 8601 date"),
    ("end_date", "string", "End of the period, ISO 8601 date"),
    (
        "status",
        "string",
        "Filter by status such as open, closed or pending",
    ),
    ("owner", "string", "The user who owns the record"),
    ("currency", "string", "ISO 4217 currency code"),
    ("amount", "number", "Amount of money"),
    ("city", "string", "City name, e.g. Paris"),
    ("recipient", "string", "E-mail address of the recipient"),
    ("subject", "string", "Subject line"),
    ("priority", "string", "Priority: low, normal or high"),
    ("team", "string", "Name of the team"),
    (
        "include_archived",
        "boolean",
        "Whether archived records are included",
    ),
    ("region", "string", "Geographic region"),
];

fn pick<'a>(list: &'a [&'a str], i: usize) -> &'a str {
    list.get(i % list.len()).copied().unwrap_or_default()
}

/// A deterministic synthetic toolset of `n` tools with realistic names, descriptions and
/// documented parameters (2 to 4 each), the routing benchmark's corpus.
pub fn routing_corpus(n: usize) -> Vec<ToolSpec> {
    // A small LCG: the same corpus every run and on every machine.
    let mut state: u64 = 0x5eed_1234_abcd_0001;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(state >> 33).unwrap_or(0)
    };
    (0..n)
        .map(|i| {
            let verb = pick(&VERBS, next());
            let object = pick(&OBJECTS, next());
            let domain = pick(&DOMAINS, next());
            let q1 = pick(&QUALIFIERS, next());
            let q2 = pick(&QUALIFIERS, next());
            let name = format!("{domain}.{verb}_{object}_{i}");
            let obj_words = object.replace('_', " ");
            let description = format!(
                "{} a {obj_words} in the {domain} system {q1}. Use this tool when the user wants to \
                 {verb} a {obj_words} {q2}; it answers with the {obj_words} records it touched. Do \
                 not use it for other {domain} records.",
                capitalize(verb)
            );
            let n_params = 2 + next() % 3;
            let mut props = serde_json::Map::new();
            let mut required = Vec::new();
            for _ in 0..n_params {
                let (pname, ptype, pdesc) = PARAMS
                    .get(next() % PARAMS.len())
                    .copied()
                    .unwrap_or(("id", "string", "The identifier"));
                props.insert(
                    pname.to_string(),
                    json!({"type": ptype, "description": pdesc}),
                );
                if required.is_empty() {
                    required.push(Value::String(pname.to_string()));
                }
            }
            ToolSpec::new(
                name,
                description,
                json!({"type": "object", "properties": props, "required": required,
                       "additionalProperties": false}),
            )
        })
        .collect()
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The text a plain BM25 (the Python peer `rank_bm25`) indexes for one tool: name, description,
/// parameter names and descriptions.
pub fn document_text(spec: &ToolSpec) -> String {
    let mut text = format!(
        "{} {}",
        spec.name.replace(['.', '_'], " "),
        spec.description
    );
    if let Some(props) = spec.parameters.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            text.push(' ');
            text.push_str(&k.replace('_', " "));
            if let Some(d) = v.get("description").and_then(Value::as_str) {
                text.push(' ');
                text.push_str(d);
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn every_workload_succeeds_through_every_path() {
        let reg = registry().unwrap();
        let rt = runtime().unwrap();
        let minimal = minimal_runtime().unwrap();
        for size in Size::ALL {
            let args = size.args_json();
            for rt in [&minimal, &rt] {
                let out: Value = serde_json::from_str(&block(runtime_call(
                    rt,
                    size.tool_name(),
                    &args,
                    &CallOptions::default(),
                )))
                .unwrap();
                assert_eq!(out["status"], "success", "{size:?}: {out}");
                assert_eq!(out["data"], 1);
            }
            assert_eq!(block(bare_call(size, &args)), "1");
            let entry = reg.get(size.tool_name()).unwrap();
            assert!(
                entry
                    .validator
                    .validate(&serde_json::from_str(&args).unwrap())
                    .is_ok()
            );
            // The derived schemas are the kind the quick check models (the rows measure it).
            assert!(entry.validator.has_quick_check(), "{size:?}");
        }
    }

    /// A leaf of `v` (found by walking with `path`) replaced by `with`, a key dropped or one
    /// added: the arguments a model gets slightly wrong.
    fn mutate(v: &mut Value, path: &[usize], how: u8, with: Value) {
        let Some((&first, rest)) = path.split_first() else {
            return;
        };
        match v {
            Value::Object(m) if !m.is_empty() => {
                let key = m.keys().nth(first % m.len()).cloned().unwrap_or_default();
                let child = m.get_mut(&key).unwrap();
                if rest.is_empty() || !(child.is_object() || child.is_array()) {
                    match how % 3 {
                        0 => *child = with,
                        1 => {
                            m.shift_remove(&key);
                        }
                        _ => {
                            m.insert(format!("{key}_x"), with);
                        }
                    }
                } else {
                    mutate(child, rest, how, with);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                let n = first % a.len();
                mutate(&mut a[n], rest, how, with);
            }
            _ => *v = with,
        }
    }

    fn scalar() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-5i64..2000).prop_map(Value::from),
            prop_oneof![Just(0.5f64), Just(1.5), Just(-0.1), Just(3.0), Just(1e300)]
                .prop_map(Value::from),
            "[a-z]{0,3}|fast|slow|paid|card|x{100,101}".prop_map(Value::from),
            Just(json!({})),
            Just(json!([])),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(600))]
        /// On the workloads' own derived schemas, the runtime's validation (with its quick
        /// check) accepts exactly what jsonschema accepts.
        #[test]
        fn validation_accepts_exactly_what_jsonschema_accepts(
            path in proptest::collection::vec(0usize..12, 1..4),
            how in 0u8..3,
            with in scalar(),
            medium in proptest::bool::ANY,
        ) {
            let reg = registry().unwrap();
            let size = if medium { Size::Medium } else { Size::Small };
            let entry = reg.get(size.tool_name()).unwrap();
            let full = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&entry.spec().parameters)
                .unwrap();
            let mut args: Value = serde_json::from_str(&size.args_json()).unwrap();
            mutate(&mut args, &path, how, with);
            proptest::prop_assert_eq!(
                entry.validator.validate(&args).is_ok(),
                full.is_valid(&args),
                "{}", args
            );
        }
    }

    #[test]
    fn an_invalid_call_still_reports_every_field() {
        let rt = runtime().unwrap();
        let args = r#"{"name": 5, "count": 2000, "ratio": 0.5, "enabled": true, "mode": "fsat"}"#;
        let out: Value = serde_json::from_str(&block(runtime_call(
            &rt,
            "noop_small",
            args,
            &CallOptions {
                strict: true,
                ..CallOptions::default()
            },
        )))
        .unwrap();
        assert_eq!(out["status"], "error", "{out}");
        assert_eq!(out["error"]["code"], "VALIDATION_ERROR", "{out}");
        let paths: Vec<&str> = out["error"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["path"].as_str())
            .collect();
        for p in ["/name", "/count", "/mode"] {
            assert!(paths.contains(&p), "{p} missing: {out}");
        }
    }

    #[test]
    fn the_workloads_have_the_advertised_shape() {
        let medium: Value = serde_json::from_str(&Size::Medium.args_json()).unwrap();
        fn leaves(v: &Value) -> usize {
            match v {
                Value::Object(m) => m.values().map(leaves).sum(),
                _ => 1,
            }
        }
        assert_eq!(leaves(&medium), 20);
        let large: Value = serde_json::from_str(&Size::Large.args_json()).unwrap();
        assert_eq!(large["items"].as_array().unwrap().len(), 1000);
    }

    #[test]
    fn invalid_arguments_are_rejected_by_the_full_path() {
        for rt in [minimal_runtime().unwrap(), runtime().unwrap()] {
            let out: Value = serde_json::from_str(&block(runtime_call(
                &rt,
                "noop_small",
                r#"{"name":"x","count":5000,"ratio":0.5,"enabled":true,"mode":"warp"}"#,
                &CallOptions::default(),
            )))
            .unwrap();
            assert_eq!(out["error"]["code"], "VALIDATION_ERROR");
            assert_eq!(out["error"]["fields"].as_array().unwrap().len(), 2);
        }
    }

    #[test]
    fn the_routing_corpus_is_deterministic_and_routable() {
        let a = routing_corpus(100);
        let b = routing_corpus(100);
        assert_eq!(a.len(), 100);
        assert_eq!(a[7].name, b[7].name);
        assert_eq!(a[7].description, b[7].description);
        let reg = Registry::new();
        for s in routing_corpus(1000) {
            reg.register(toolwright_core::DefinitionOnly::new(s))
                .unwrap();
        }
        let router = toolwright_catalog::Router::new(&a);
        for q in ROUTING_QUERIES {
            assert!(!router.rank(q, 5).is_empty(), "{q}");
        }
        assert!(document_text(&a[0]).contains(&a[0].description));
    }
}
