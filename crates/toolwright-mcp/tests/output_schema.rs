//! MCP `outputSchema`: a `#[tool]` whose return type is an object schema advertises the
//! envelope's schema with `data` typed, and every `structuredContent` it answers with (success,
//! validation error, pending confirmation) validates against it; tools returning a string, a
//! `Value` or an `Outcome` advertise none.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde::Serialize;
use serde_json::{Value, json};
use std::sync::Arc;
use toolwright::schemars::JsonSchema;
use toolwright::{Outcome, Registry, Tool, ToolError, tool};
use toolwright_mcp::{ClientOptions, McpConnection};

mod common;

/// Temperature unit.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// One day of a forecast.
#[derive(Debug, Serialize, JsonSchema)]
struct Day {
    /// ISO date.
    date: String,
    /// Highest temperature.
    high: f64,
}

/// A forecast.
#[derive(Debug, Serialize, JsonSchema)]
struct Forecast {
    /// The city.
    city: String,
    /// The unit of every temperature.
    unit: Unit,
    /// The days, in order.
    days: Vec<Day>,
}

/// A folder tree (refers to itself).
#[derive(Debug, Serialize, JsonSchema)]
struct Folder {
    /// The folder's name.
    name: String,
    /// Its sub-folders.
    children: Vec<Folder>,
}

/// Forecast the weather for a city. Use this when the user asks about coming weather.
///
/// # Arguments
/// * `city` - The city name
/// * `days` - How many days
#[tool(side_effects = "read")]
fn forecast(city: String, #[arg(min = 1, max = 7)] days: u32) -> Result<Forecast, ToolError> {
    Ok(Forecast {
        city,
        unit: Unit::Celsius,
        days: (1..=days)
            .map(|d| Day {
                date: format!("2026-12-{d:02}"),
                high: 3.5 + f64::from(d),
            })
            .collect(),
    })
}

/// Show a folder tree. Use this when the user asks what a folder holds.
///
/// # Arguments
/// * `root` - The folder name
#[tool(side_effects = "read")]
async fn folder_tree(root: String) -> Folder {
    Folder {
        children: vec![Folder {
            name: format!("{root}/docs"),
            children: vec![],
        }],
        name: root,
    }
}

/// Archive a project, irreversibly. Use this when the user asks to archive a project.
///
/// # Arguments
/// * `project` - The project name
#[tool(side_effects = "destructive")]
fn archive_project(project: String) -> Result<Forecast, ToolError> {
    Ok(Forecast {
        city: project,
        unit: Unit::Fahrenheit,
        days: vec![],
    })
}

/// Greet someone. Use this when the user wants a greeting.
///
/// # Arguments
/// * `name` - Who to greet
#[tool(side_effects = "none")]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Echo any JSON. Use this to test.
///
/// # Arguments
/// * `text` - The text
#[tool(side_effects = "none")]
fn echo_value(text: String) -> Value {
    json!({"text": text})
}

/// Answer with a full envelope. Use this to test.
///
/// # Arguments
/// * `text` - The text
#[tool(side_effects = "none")]
fn echo_outcome(text: String) -> Result<Outcome, ToolError> {
    Ok(Outcome::success(json!({"text": text})))
}

async fn pair(registry: Arc<Registry>) -> McpConnection {
    common::pair_with(registry, ClientOptions::default())
        .await
        .1
}

fn registry() -> Arc<Registry> {
    let reg = Registry::new();
    reg.register(ForecastTool).unwrap();
    reg.register(FolderTreeTool).unwrap();
    reg.register(ArchiveProjectTool).unwrap();
    reg.register(GreetTool).unwrap();
    reg.register(EchoValueTool).unwrap();
    reg.register(EchoOutcomeTool).unwrap();
    Arc::new(reg)
}

fn by_name<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap()
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .expect("the outputSchema compiles")
}

fn assert_conforms(v: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = v.iter_errors(instance).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?} in {instance:#}");
}

#[test]
fn the_macro_derives_an_output_schema_only_for_object_returns() {
    let out = ForecastTool.spec().output_schema.clone().unwrap();
    assert_eq!(out["type"], "object");
    assert_eq!(out["required"], json!(["city", "unit", "days"]));
    assert!(out.get("$schema").is_none());
    assert!(FolderTreeTool.spec().output_schema.is_some());
    assert!(GreetTool.spec().output_schema.is_none());
    assert!(EchoValueTool.spec().output_schema.is_none());
    assert!(EchoOutcomeTool.spec().output_schema.is_none());
}

#[tokio::test]
async fn listed_output_schema_types_the_envelope_and_results_conform() {
    let conn = pair(registry()).await;
    let tools = conn.list_tools().await.unwrap();

    for untyped in ["greet", "echo_value", "echo_outcome"] {
        assert!(
            by_name(&tools, untyped).get("outputSchema").is_none(),
            "{untyped} has no typed result"
        );
    }
    let schema = by_name(&tools, "forecast")["outputSchema"].clone();
    assert_eq!(schema["type"], "object", "MCP wants an object schema");
    // The return type's definitions (Day, Unit) moved to the root, where `#/$defs/…` resolves.
    assert!(schema["$defs"].get("Day").is_some(), "{schema:#}");
    let v = validator(&schema);

    let ok = conn
        .call_raw("forecast", json!({"city": "Oslo", "days": 2}))
        .await
        .unwrap();
    assert_eq!(ok["isError"], false);
    let sc = &ok["structuredContent"];
    assert_eq!(sc["status"], "success", "{sc:#}");
    assert_eq!(sc["data"]["days"][1]["high"], 5.5);
    assert_eq!(sc["data"]["unit"], "celsius");
    assert_conforms(&v, sc);

    // A validation error is an envelope too, and conforms.
    let bad = conn
        .call_raw("forecast", json!({"city": "Oslo", "days": 30}))
        .await
        .unwrap();
    assert_eq!(bad["isError"], true);
    assert_eq!(
        bad["structuredContent"]["error"]["code"],
        "VALIDATION_ERROR"
    );
    assert_conforms(&v, &bad["structuredContent"]);

    // The schema is not vacuous: a success whose data breaks the return type is rejected.
    let mut wrong = sc.clone();
    wrong["data"]["unit"] = json!("kelvin");
    assert!(!v.is_valid(&wrong));
    let mut missing = sc.clone();
    missing["data"].as_object_mut().unwrap().remove("days");
    assert!(!v.is_valid(&missing));
    let mut no_data = sc.clone();
    no_data.as_object_mut().unwrap().remove("data");
    assert!(!v.is_valid(&no_data));
    let mut no_status = sc.clone();
    no_status.as_object_mut().unwrap().remove("status");
    assert!(!v.is_valid(&no_status));
}

#[tokio::test]
async fn recursive_return_types_and_pending_confirmations_conform() {
    let conn = pair(registry()).await;
    let tools = conn.list_tools().await.unwrap();

    let tree_schema = validator(&by_name(&tools, "folder_tree")["outputSchema"]);
    let tree = conn
        .call_raw("folder_tree", json!({"root": "home"}))
        .await
        .unwrap();
    let sc = &tree["structuredContent"];
    assert_eq!(sc["data"]["children"][0]["name"], "home/docs");
    assert_conforms(&tree_schema, sc);
    let mut wrong = sc.clone();
    wrong["data"]["children"][0]["children"] = json!([{"name": 1, "children": []}]);
    assert!(
        !tree_schema.is_valid(&wrong),
        "the self-reference is checked"
    );

    // Destructive without approval: `needs_confirmation` carries a preview, not a Forecast.
    let archive_schema = validator(&by_name(&tools, "archive_project")["outputSchema"]);
    let pending = conn
        .call_raw("archive_project", json!({"project": "apollo"}))
        .await
        .unwrap();
    let sc = &pending["structuredContent"];
    assert_eq!(sc["status"], "needs_confirmation", "{sc:#}");
    assert_conforms(&archive_schema, sc);
}

#[tokio::test]
async fn imported_tools_keep_the_remote_output_schema_and_results_are_checked_against_it() {
    let conn = pair(registry()).await;
    let local = Arc::new(Registry::new());
    conn.import(&local).await.unwrap();

    // The `data` schema comes back out of the remote envelope's schema, definitions included.
    let spec = local.get("forecast").unwrap().spec().clone();
    let data = spec
        .output_schema
        .clone()
        .expect("forecast keeps its outputSchema");
    assert_eq!(
        data["required"],
        json!(["city", "unit", "days"]),
        "{data:#}"
    );
    assert!(data["$defs"].get("Day").is_some(), "{data:#}");
    assert!(
        local
            .get("folder_tree")
            .unwrap()
            .spec()
            .output_schema
            .is_some()
    );
    assert!(local.get("greet").unwrap().spec().output_schema.is_none());

    // Served again, the imported tool advertises the same envelope schema as the original.
    let relisted = toolwright_mcp::tool_json(&spec)["outputSchema"].clone();
    let original = by_name(&conn.list_tools().await.unwrap(), "forecast")["outputSchema"].clone();
    assert_eq!(relisted, original);

    // Real results pass the client-side check, recursive ones included.
    let rt = toolwright_runtime::Runtime::new(local);
    let opts = toolwright_runtime::CallOptions::default();
    let call = |id: &str, name: &str, args: Value| toolwright::ToolCall::new(id, name, args);
    let out = rt
        .invoke(
            call("c1", "forecast", json!({"city": "Oslo", "days": 2})),
            &opts,
        )
        .await;
    assert_eq!(out.status(), toolwright::Status::Success, "{out:?}");
    assert_eq!(out.data.unwrap()["city"], "Oslo");
    let out = rt
        .invoke(call("c2", "folder_tree", json!({"root": "home"})), &opts)
        .await;
    assert_eq!(out.status(), toolwright::Status::Success, "{out:?}");
}
