//! The schemas `#[tool]` generates, as snapshots, and the behaviour of the generated tools.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;
use toolwright::{
    Outcome, Problem, Registry, SideEffects, Status, Tool, ToolCall, ToolContext, ToolError, tool,
};
use toolwright_runtime::{CallOptions, Runtime};

/// A currency.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq)]
#[allow(clippy::upper_case_acronyms)]
enum Currency {
    USD,
    EUR,
}

/// Convert an amount between currencies using the dated rates table.
///
/// Use this tool when the user asks to convert money or compare prices across currencies.
/// Do NOT use it for stock prices or crypto.
///
/// # Arguments
/// * `amount` - Amount to convert, e.g. 100 or 12.5
/// * `from_currency` - ISO 4217 code of the source currency
/// * `to_currency` - ISO 4217 code of the target currency
#[tool(
    display_label = "Converting currency",
    timeout_ms = 2000,
    side_effects = "none",
    category = "finance"
)]
async fn convert_currency(
    amount: f64,
    from_currency: Currency,
    to_currency: Currency,
) -> Result<Value, ToolError> {
    Ok(json!({"amount": amount, "from": from_currency, "to": to_currency}))
}

/// A line item.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Item {
    /// Product SKU.
    sku: String,
    /// How many.
    #[schemars(range(min = 1))]
    quantity: u32,
}

fn not_generic(s: &str) -> Result<(), ToolError> {
    if ["anything", "everything", "stuff"].contains(&s.trim().to_lowercase().as_str()) {
        return Err(ToolError::validation(
            format!("`{s}` is too generic."),
            "Describe the user's situation, e.g. `a developer debugging a failing build`.",
        ));
    }
    Ok(())
}

/// Place an order for a customer.
///
/// Use this when the user wants to buy items.
///
/// # Arguments
/// * `customer_id` - The customer's id, like "C-123"
/// * `items` - Items to order
/// * `note` - Free text for the warehouse
/// * `priority` - Shipping priority from 1 (low) to 5 (urgent)
/// * `user_context` - Who the user is and what they need
#[tool(
    name = "place_order",
    side_effects = "write",
    idempotent,
    max_retries = 2,
    fallback = "queue_order",
    requires_confirmation,
    version = "2.1.0",
    owner = "orders-team",
    sla_ms = 300,
    atomic,
    examples = [r#"{"customer_id": "C-1", "items": [{"sku": "A", "quantity": 1}], "user_context": "buyer"}"#],
    dependencies = ["orders-db"]
)]
fn order(
    #[arg(pattern = r"^C-\d+$")] customer_id: String,
    #[arg(min_length = 1)] items: Vec<Item>,
    #[arg(max_length = 200)] note: Option<String>,
    #[arg(default = 3, min = 1, max = 5)] priority: u8,
    #[arg(validate = not_generic)] user_context: String,
) -> Result<Value, ToolError> {
    Ok(
        json!({"customer": customer_id, "lines": items.len(), "note": note, "priority": priority, "ctx": user_context}),
    )
}

/// Create a user account.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct NewUser {
    /// Login name, lowercase.
    login: String,
    /// Display name.
    display_name: Option<String>,
}

/// Create a user account from the given fields.
///
/// Use this when an admin asks to add a user.
#[tool(side_effects = "write")]
async fn create_user(input: NewUser) -> Result<Value, ToolError> {
    Ok(json!({"created": input.login, "display": input.display_name}))
}

/// Describe the call context. Use this to test context injection.
///
/// # Arguments
/// * `label` - Any label
#[tool(side_effects = "none")]
fn whoami(label: String, ctx: &ToolContext) -> Outcome {
    Outcome::partial(json!({"label": label, "call_id": ctx.call_id}), "only part")
        .with_instruction("say hi")
}

/// Panic on purpose. Use this to test panic handling.
#[tool(side_effects = "none")]
async fn explode() -> Result<Value, ToolError> {
    let v: Vec<u8> = Vec::new();
    #[allow(clippy::indexing_slicing)]
    Ok(json!(v[3]))
}

/// Panic on purpose in a blocking tool. Use this to test panic handling.
#[tool(side_effects = "none")]
fn explode_sync() -> Result<Value, ToolError> {
    panic!("secret internal detail /home/user/db.rs:42")
}

/// Return a big list. Use this to test the output budget.
///
/// # Arguments
/// * `n` - How many items
#[tool(side_effects = "none", output_limit_bytes = 1024)]
fn big_list(n: u32) -> Vec<u32> {
    (0..n).collect()
}

#[test]
fn convert_currency_schema() {
    let spec = ConvertCurrencyTool.spec();
    assert_eq!(spec.name, "convert_currency");
    assert!(spec.description.starts_with("Convert an amount"));
    assert!(spec.description.contains("\n\nUse this tool when"));
    assert_eq!(
        spec.meta.display_label.as_deref(),
        Some("Converting currency")
    );
    assert_eq!(spec.meta.timeout_ms, Some(2000));
    assert_eq!(spec.meta.side_effects, SideEffects::None);
    insta::assert_json_snapshot!("convert_currency", spec.parameters);
}

#[test]
fn order_schema_and_metadata() {
    let spec = OrderTool.spec();
    assert_eq!(spec.name, "place_order");
    let m = &spec.meta;
    assert!(m.idempotent && m.requires_confirmation && m.atomic);
    assert_eq!(m.max_retries, Some(2));
    assert_eq!(m.fallback.as_deref(), Some("queue_order"));
    assert_eq!(m.version.as_deref(), Some("2.1.0"));
    assert_eq!(m.owner.as_deref(), Some("orders-team"));
    assert_eq!(m.sla_ms, Some(300));
    assert_eq!(m.examples.len(), 1);
    assert_eq!(m.dependencies, vec!["orders-db".to_string()]);
    let p = &spec.parameters;
    assert_eq!(
        p["required"],
        json!(["customer_id", "items", "user_context"])
    );
    assert_eq!(p["properties"]["priority"]["default"], json!(3));
    assert_eq!(p["properties"]["priority"]["maximum"], json!(5));
    assert_eq!(p["properties"]["customer_id"]["pattern"], json!(r"^C-\d+$"));
    assert_eq!(p["properties"]["items"]["minItems"], json!(1));
    insta::assert_json_snapshot!("place_order", p);
}

#[test]
fn single_struct_parameter_is_flattened() {
    let spec = CreateUserTool.spec();
    let p = &spec.parameters;
    assert_eq!(
        p["properties"]["login"]["description"],
        json!("Login name, lowercase.")
    );
    assert_eq!(p["required"], json!(["login"]));
    assert_eq!(p["additionalProperties"], json!(false));
    insta::assert_json_snapshot!("create_user", p);
}

fn runtime() -> Runtime {
    let r = Registry::new();
    r.register(ConvertCurrencyTool).unwrap();
    r.register(OrderTool).unwrap();
    r.register(CreateUserTool).unwrap();
    r.register(WhoamiTool).unwrap();
    r.register(ExplodeTool).unwrap();
    r.register(ExplodeSyncTool).unwrap();
    r.register(BigListTool).unwrap();
    Runtime::new(Arc::new(r))
}

async fn call(r: &Runtime, name: &str, args: Value) -> Outcome {
    let opts = CallOptions {
        approved: true,
        ..CallOptions::default()
    };
    r.invoke(ToolCall::new("t1", name, args), &opts).await
}

#[tokio::test]
async fn generated_tools_run() {
    let r = runtime();
    let out = call(
        &r,
        "convert_currency",
        json!({"amount": 5, "from_currency": "USD", "to_currency": "EUR"}),
    )
    .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert_eq!(
        out.data,
        Some(json!({"amount": 5.0, "from": "USD", "to": "EUR"}))
    );

    let out = call(&r, "create_user", json!({"login": "ada"})).await;
    assert_eq!(out.data, Some(json!({"created": "ada", "display": null})));
    let out = call(&r, "create_user", json!({"login": "ada", "extra": 1})).await;
    assert_eq!(
        out.error().unwrap().fields[0].problem,
        Problem::UnknownField
    );

    let out = call(&r, "whoami", json!({"label": "x"})).await;
    assert_eq!(out.status(), Status::Partial);
    assert_eq!(out.data.unwrap()["call_id"], json!("t1"));
    assert_eq!(out.instruction.as_deref(), Some("say hi"));
}

#[tokio::test]
async fn custom_validator_is_reported_like_a_schema_violation() {
    let r = runtime();
    let args = json!({"customer_id": "C-1", "items": [{"sku": "A", "quantity": 1}], "user_context": "anything"});
    let out = call(&r, "place_order", args).await;
    let e = out.error().expect("error");
    assert_eq!(e.code, toolwright::ErrorCode::Validation);
    assert_eq!(e.fields[0].path, "/user_context");
    assert_eq!(e.fields[0].problem, Problem::InvalidValue);
    assert_eq!(e.fields[0].received, Some(json!("anything")));
    assert!(
        e.suggestion.contains("developer debugging"),
        "{}",
        e.suggestion
    );

    let args = json!({"customer_id": "X", "items": [], "user_context": "a buyer"});
    let out = call(&r, "place_order", args).await;
    let problems: Vec<Problem> = out
        .error()
        .unwrap()
        .fields
        .iter()
        .map(|f| f.problem)
        .collect();
    assert_eq!(problems, vec![Problem::Pattern, Problem::TooFewItems]);

    let args = json!({"customer_id": "C-9", "items": [{"sku": "A", "quantity": 2}], "user_context": "a buyer"});
    let out = call(&r, "place_order", args).await;
    assert_eq!(out.data.unwrap()["priority"], json!(3), "default applied");
}

#[tokio::test]
async fn panics_become_internal_without_leaking() {
    let r = runtime();
    for name in ["explode", "explode_sync"] {
        let out = call(&r, name, json!({})).await;
        let e = out.error().expect("error");
        assert_eq!(e.code, toolwright::ErrorCode::Internal);
        let wire = serde_json::to_string(&out).unwrap();
        assert!(
            !wire.contains("secret") && !wire.contains("index out of bounds"),
            "{wire}"
        );
    }
}

#[tokio::test]
async fn output_budget_cuts_to_valid_json() {
    let r = runtime();
    let out = call(&r, "big_list", json!({"n": 5000})).await;
    assert_eq!(out.status(), Status::Partial);
    let t = out.meta.truncated.clone().expect("truncated");
    assert_eq!(t.total, 5000);
    assert!(t.showing > 0 && t.showing < 5000);
    let data = serde_json::to_string(&out.data).unwrap();
    assert!(data.len() <= 1024);
    assert!(out.instruction.unwrap().contains("Narrow"));
}

/// `call_shared` (what the runtime uses when a retry policy holds the arguments) answers like
/// `call`, whether or not someone else holds the arguments, custom validators included.
#[tokio::test]
async fn shared_arguments_give_the_same_results_as_owned_ones() {
    use std::sync::Arc;
    let cases = [
        (
            &ConvertCurrencyTool as &dyn Tool,
            json!({"amount": 5, "from_currency": "USD", "to_currency": "EUR"}),
        ),
        (
            &OrderTool as &dyn Tool,
            json!({"customer_id": "C-1", "items": [{"sku": "A", "quantity": 1}], "user_context": "anything"}),
        ),
        (
            &OrderTool as &dyn Tool,
            json!({"customer_id": "C-1", "items": [{"sku": "A", "quantity": 1}], "user_context": "a buyer"}),
        ),
        (&CreateUserTool as &dyn Tool, json!({"login": "ada"})),
        (&CreateUserTool as &dyn Tool, json!({"login": 7})),
    ];
    for (tool, args) in cases {
        let owned = tool.call(args.clone(), ToolContext::default()).await;
        let sole = tool
            .call_shared(Arc::new(args.clone()), ToolContext::default())
            .await;
        let held = Arc::new(args.clone());
        let shared = tool.call_shared(held.clone(), ToolContext::default()).await;
        assert_eq!(owned, sole, "{args}");
        assert_eq!(owned, shared, "{args}");
        assert_eq!(*held, args, "the shared arguments are left as they were");
    }
}

/// A counter shared by the state tools below.
#[derive(Debug)]
struct Hits(std::sync::atomic::AtomicU64);

/// Count a visit and say how many there were.
///
/// Use this to count visits.
///
/// # Arguments
/// * `page` - The page visited
#[tool(side_effects = "write")]
async fn visit(page: String, hits: toolwright::State<Hits>) -> Result<String, ToolError> {
    let n = hits.0.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    Ok(format!("{page}: {n}"))
}

/// Read the counter (sync, destructured in axum's manner).
///
/// Use this to read the count.
#[tool(side_effects = "none")]
fn hits(toolwright::State(h): toolwright::State<Hits>) -> u64 {
    h.0.load(std::sync::atomic::Ordering::SeqCst)
}

#[tokio::test]
async fn state_parameters_are_filled_from_the_registry_and_kept_out_of_the_schema() {
    let spec = VisitTool.spec();
    assert_eq!(spec.parameters["required"], json!(["page"]));
    assert!(spec.parameters["properties"].get("hits").is_none());
    assert_eq!(HitsTool.spec().parameters["properties"], json!({}));

    let reg = Arc::new(Registry::new());
    reg.register(VisitTool).unwrap();
    reg.register(HitsTool).unwrap();
    let rt = Runtime::new(reg.clone());
    // No state yet: an INTERNAL error naming the type, not a panic.
    let out = rt
        .invoke(
            ToolCall::new("1", "visit", json!({"page": "a"})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.error().unwrap().code, toolwright::ErrorCode::Internal);
    let ctx = ToolContext::default();
    let e = toolwright::State::<Hits>::from_context(&ctx).unwrap_err();
    assert!(
        e.detail.unwrap().contains("Hits"),
        "the log names the missing type"
    );
    // Inserted after registration: every tool sees the same value.
    reg.insert_state(Hits(std::sync::atomic::AtomicU64::new(0)));
    for page in ["a", "b"] {
        let out = rt
            .invoke(
                ToolCall::new("2", "visit", json!({"page": page})),
                &CallOptions::default(),
            )
            .await;
        assert_eq!(out.status(), Status::Success, "{out:?}");
    }
    let out = rt
        .invoke(
            ToolCall::new("3", "hits", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.data, Some(json!(2)));
}

/// A crate that re-exports toolwright under another path.
mod facade {
    pub use toolwright as tw;
}

/// Say hello.
///
/// Use this to greet.
///
/// # Arguments
/// * `who` - Whom to greet
#[tool(crate = "crate::facade::tw", side_effects = "none")]
fn greet(who: String) -> String {
    format!("hello {who}")
}

#[test]
fn the_crate_path_can_be_given() {
    assert_eq!(GreetTool.spec().name, "greet");
}

/// A typed result.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Greeting {
    /// The greeting.
    text: String,
}

/// Say hello, typed.
///
/// Use this to greet.
///
/// # Arguments
/// * `who` - Whom to greet
#[tool(crate = "crate::facade::tw", side_effects = "none")]
async fn greet_typed(who: String) -> Result<Greeting, ToolError> {
    Ok(Greeting {
        text: format!("hello {who}"),
    })
}

#[test]
fn an_object_return_type_gives_an_output_schema_through_a_crate_path() {
    let out = GreetTypedTool.spec().output_schema.clone().unwrap();
    assert_eq!(out["properties"]["text"]["type"], "string");
    assert_eq!(out["title"], "Greeting");
    assert!(
        GreetTool.spec().output_schema.is_none(),
        "a String is no object"
    );
}

/// Ask `whoami` through the context. Use this to test calls between tools.
#[tool(side_effects = "none")]
async fn relay(ctx: ToolContext) -> Result<Value, ToolError> {
    let out = ctx.call_tool("whoami", json!({"label": "x"})).await;
    Ok(json!({"inner": out.status().as_str()}))
}

#[tokio::test]
async fn only_tools_with_a_context_or_state_parameter_use_the_context() {
    assert!(!ExplodeTool.uses_context());
    assert!(WhoamiTool.uses_context());
    assert!(RelayTool.uses_context());
    assert!(VisitTool.uses_context());
    assert!(HitsTool.uses_context());
    // The runtime's direct path hands a tool that uses its context the invoker.
    let reg = Arc::new(Registry::new());
    reg.register(RelayTool).unwrap();
    reg.register(WhoamiTool).unwrap();
    let rt = Runtime::new(reg);
    let out = rt
        .invoke(
            ToolCall::new("r", "relay", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.data, Some(json!({"inner": "partial"})), "{out:?}");
}

#[tokio::test]
async fn a_tool_reads_borrowed_arguments_unless_its_validators_keep_them() {
    assert!(WhoamiTool.borrows_args());
    // Validators report the value the model sent: such a tool copies it, so it does not
    // claim to borrow.
    assert!(!OrderTool.borrows_args());
    let ctx = ToolContext::for_call("c1", "whoami", toolwright::CancelSignal::new());
    let args = json!({"label": "x"});
    let out = WhoamiTool.call_ref(&args, ctx).await.unwrap();
    let ctx = ToolContext::for_call("c2", "whoami", toolwright::CancelSignal::new());
    let owned = WhoamiTool.call(args.clone(), ctx).await.unwrap();
    assert_eq!(format!("{out:?}").replace("c1", "c2"), format!("{owned:?}"));
    assert_eq!(
        args,
        json!({"label": "x"}),
        "the caller still holds its arguments"
    );
}

/// Sleep far past the deadline. Use this to test deadlines.
#[tool(side_effects = "none", timeout_ms = 50)]
async fn snooze() -> Result<u32, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    Ok(1)
}

#[tokio::test]
async fn a_tool_without_a_context_is_still_stopped_at_its_deadline_and_by_its_host() {
    // Its signal is inert (no one could watch it): the deadline drops its future.
    assert!(!SnoozeTool.uses_context());
    let reg = Arc::new(Registry::new());
    reg.register(SnoozeTool).unwrap();
    let rt = Runtime::new(reg);
    let out = rt
        .invoke(
            ToolCall::new("s1", "snooze", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(
        out.error_code(),
        Some(toolwright::ErrorCode::Timeout),
        "{out:?}"
    );
    let host = tokio_util::sync::CancellationToken::new();
    let opts = CallOptions {
        cancel: Some(host.clone()),
        ..CallOptions::default()
    };
    let call = rt.invoke(ToolCall::new("s2", "snooze", json!({})), &opts);
    let cancel = async {
        tokio::task::yield_now().await;
        host.cancel();
    };
    let (out, ()) = tokio::join!(call, cancel);
    assert_eq!(
        out.error_code(),
        Some(toolwright::ErrorCode::Cancelled),
        "{out:?}"
    );
}

/// Takes a nested struct beside a string. Use this when testing the raw-JSON path.
///
/// # Arguments
/// * `item` - One line item
/// * `note` - A note
#[tool(side_effects = "none")]
async fn nested_item(item: Item, note: String) -> Result<String, ToolError> {
    Ok(format!("{} {note}", item.sku))
}

#[test]
fn only_tools_whose_parameters_are_checked_on_typed_values_take_raw_json() {
    // Numbers, strings, booleans, a string enumeration, a context, a state: taken.
    assert!(ConvertCurrencyTool.takes_json());
    assert!(WhoamiTool.takes_json());
    assert!(BigListTool.takes_json());
    assert!(ExplodeTool.takes_json());
    assert!(VisitTool.takes_json());
    assert!(HitsTool.takes_json());
    // A nested struct, a flattened struct, a Vec, an Option, a pattern, a validator: not.
    assert!(!NestedItemTool.takes_json());
    assert!(!CreateUserTool.takes_json());
    assert!(!OrderTool.takes_json());
    let ctx = || ToolContext::new("c1", "nested_item");
    let args = r#"{"item": {"sku": "A", "quantity": 1}, "note": "n"}"#;
    assert!(NestedItemTool.call_json(args, ctx()).is_none());
    assert!(
        ConvertCurrencyTool
            .call_json(
                r#"{"amount": 5, "from_currency": "USD", "to_currency": "EUR"}"#,
                ctx()
            )
            .is_some()
    );
    // Not a member of the enumeration: the validated path reports it.
    assert!(
        ConvertCurrencyTool
            .call_json(
                r#"{"amount": 5, "from_currency": "usd", "to_currency": "EUR"}"#,
                ctx()
            )
            .is_none()
    );
}

#[tokio::test]
async fn raw_json_reaches_the_context_and_the_state() {
    let reg = Arc::new(Registry::new());
    reg.register(VisitTool).unwrap();
    reg.register(WhoamiTool).unwrap();
    reg.insert_state(Hits(std::sync::atomic::AtomicU64::new(0)));
    let rt = Runtime::new(reg);
    let opts = CallOptions {
        session_id: Some("s9".into()),
        ..CallOptions::default()
    };
    let raw = rt
        .invoke_json("w1", "whoami", r#"{"label": "x"}"#, &opts)
        .await;
    let parsed = rt
        .invoke(ToolCall::new("w1", "whoami", json!({"label": "x"})), &opts)
        .await;
    assert_eq!(raw.status(), parsed.status());
    assert_eq!(raw.data, parsed.data);
    assert_eq!(raw.data.unwrap()["call_id"], json!("w1"));
    let first = rt
        .invoke_json("v1", "visit", r#"{"page": "a"}"#, &opts)
        .await;
    let second = rt
        .invoke(ToolCall::new("v2", "visit", json!({"page": "a"})), &opts)
        .await;
    assert_eq!(first.data, Some(json!("a: 1")), "{first:?}");
    assert_eq!(
        second.data,
        Some(json!("a: 2")),
        "both calls count on the same state"
    );
}
