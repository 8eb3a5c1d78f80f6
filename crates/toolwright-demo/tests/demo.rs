//! Behaviour of the demo tools through the runtime, and the no-panic property over any JSON.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::OnceLock;
use toolwright::{ErrorCode, Outcome, Status, ToolCall};
use toolwright_demo::DemoConfig;
use toolwright_runtime::{CallOptions, Runtime};

/// One sandbox shared by the tests of this file.
fn setup() -> &'static (Runtime, std::path::PathBuf) {
    static S: OnceLock<(Runtime, std::path::PathBuf)> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/report-2026.txt"), "quarterly numbers").unwrap();
        std::fs::write(dir.join("notes.md"), "hello").unwrap();
        let outside = tempfile::tempdir().unwrap().keep();
        std::fs::write(outside.join("secret.txt"), "top secret").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.join("secret.txt"), dir.join("escape.txt")).unwrap();
        let reg = toolwright_demo::registry(DemoConfig { root: dir.clone() }).unwrap();
        (Runtime::new(Arc::new(reg)), outside)
    })
}

async fn call(name: &str, args: Value, approved: bool) -> Outcome {
    let opts = CallOptions {
        approved,
        ..CallOptions::default()
    };
    setup()
        .0
        .invoke(ToolCall::new("c", name, args), &opts)
        .await
}

/// The sandbox root of the shared registry (its `FilesState`).
fn sandbox_root() -> std::path::PathBuf {
    setup()
        .0
        .registry()
        .state::<toolwright_demo::files::FilesState>()
        .unwrap()
        .root()
        .to_path_buf()
}

fn code(o: &Outcome) -> Option<ErrorCode> {
    o.error_code()
}

#[tokio::test]
async fn lists_the_seven_tools() {
    let names = setup().0.registry().names();
    for n in [
        "convert_currency",
        "get_weather",
        "search_files",
        "read_file",
        "calculate",
        "query_users",
        "delete_file",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
}

#[tokio::test]
async fn currency_conversion_says_the_rates_date() {
    let o = call(
        "convert_currency",
        json!({"amount": 100, "from_currency": "USD", "to_currency": "EUR"}),
        false,
    )
    .await;
    let d = o.data.unwrap();
    assert_eq!(
        d["rates_date"],
        json!(toolwright_demo::finance::rates_date())
    );
    let converted = d["converted"].as_f64().unwrap();
    assert!((converted - 100.0 / 1.0412).abs() < 0.01, "{converted}");
    let o = call(
        "convert_currency",
        json!({"amount": 1, "from_currency": "usd", "to_currency": "BTC"}),
        false,
    )
    .await;
    let e = o.error().unwrap();
    assert_eq!(
        e.fields.len(),
        1,
        "usd is coerced, BTC is not a currency: {e:?}"
    );
    assert_eq!(e.fields[0].path, "/to_currency");
}

#[tokio::test]
async fn weather_not_found_suggests_close_cities() {
    let o = call("get_weather", json!({"city": "paris"}), false).await;
    assert_eq!(o.data.unwrap()["city"], json!("Paris"));
    let o = call("get_weather", json!({"city": "Pariss"}), false).await;
    assert_eq!(code(&o), Some(ErrorCode::NotFound));
    assert!(o.error().unwrap().suggestion.contains("Paris"));
    let o = call(
        "get_weather",
        json!({"city": "Tokyo", "units": "fahrenheit"}),
        false,
    )
    .await;
    assert_eq!(o.data.unwrap()["units"], json!("fahrenheit"));
}

#[tokio::test]
async fn sandbox_refuses_escapes() {
    let outside = setup().1.join("secret.txt");
    for path in [
        "../../etc/passwd",
        "/etc/passwd",
        "docs/../../x",
        "escape.txt",
        outside.to_str().unwrap(),
    ] {
        let o = call("read_file", json!({"path": path}), false).await;
        assert_eq!(code(&o), Some(ErrorCode::PermissionDenied), "{path}: {o:?}");
        assert!(!serde_json::to_string(&o).unwrap().contains("top secret"));
    }
    let o = call("read_file", json!({"path": "docs/../notes.md"}), false).await;
    assert_eq!(o.data.unwrap()["content"], json!("hello"));
    let o = call("read_file", json!({"path": "missing.txt"}), false).await;
    assert_eq!(code(&o), Some(ErrorCode::NotFound));
}

#[tokio::test]
async fn search_files_and_its_custom_validator() {
    let o = call("search_files", json!({"query": "report"}), false).await;
    assert_eq!(o.data.unwrap()["paths"], json!(["docs/report-2026.txt"]));
    let o = call("search_files", json!({"query": "anything"}), false).await;
    let e = o.error().unwrap();
    assert_eq!(e.code, ErrorCode::Validation);
    assert_eq!(e.fields[0].path, "/query");
    assert!(e.suggestion.contains("part of a file name"));
}

#[tokio::test]
async fn calculate_and_its_errors() {
    let o = call("calculate", json!({"expression": "17 * 23"}), false).await;
    assert_eq!(o.data, Some(json!(391)));
    let o = call("calculate", json!({"expression": "1/(2-2)"}), false).await;
    let e = o.error().unwrap();
    assert_eq!(e.code, ErrorCode::Validation);
    assert!(e.message.contains("Division by zero"));
}

#[tokio::test]
async fn query_users_filters() {
    let o = call(
        "query_users",
        json!({"role": "admin", "department": "engineering"}),
        false,
    )
    .await;
    let d = o.data.unwrap();
    assert!(d["count"].as_u64().unwrap() >= 2);
    for u in d["users"].as_array().unwrap() {
        assert_eq!(u["role"], json!("admin"));
        assert_eq!(u["department"], json!("engineering"));
    }
    let o = call("query_users", json!({"limit": "2"}), false).await;
    assert_eq!(o.data.unwrap()["count"], json!(2));
    assert_eq!(
        o.meta.coerced.len(),
        1,
        "the string limit was coerced and recorded"
    );
}

#[tokio::test]
async fn delete_needs_confirmation_then_deletes() {
    let root = sandbox_root();
    std::fs::write(root.join("doomed.txt"), "bye").unwrap();
    let o = call("delete_file", json!({"path": "doomed.txt"}), false).await;
    assert_eq!(o.status(), Status::NeedsConfirmation);
    assert!(o.meta.approval_id.is_some());
    assert_eq!(o.data.as_ref().unwrap()["exists"], json!(true));
    assert!(root.join("doomed.txt").exists());
    let o = call(
        "delete_file",
        json!({"path": "doomed.txt", "confirm": true}),
        false,
    )
    .await;
    assert_ne!(o.status(), Status::Success);
    assert!(
        root.join("doomed.txt").exists(),
        "a model-side confirm must not delete"
    );
    let o = call("delete_file", json!({"path": "doomed.txt"}), true).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert!(!root.join("doomed.txt").exists());
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::String),
        prop_oneof![
            Just("USD"),
            Just("Paris"),
            Just("admin"),
            Just("../x"),
            Just("2*(3+4)"),
            Just("5")
        ]
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("amount".to_string()),
                    Just("from_currency".to_string()),
                    Just("city".to_string()),
                    Just("expression".to_string()),
                    Just("role".to_string()),
                    Just("limit".to_string()),
                    Just("path".to_string()),
                    Just("query".to_string()),
                    "[a-z]{1,8}".prop_map(String::from)
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn any_json_yields_an_envelope(tool in prop_oneof![
        Just("convert_currency"), Just("get_weather"), Just("search_files"), Just("read_file"),
        Just("calculate"), Just("query_users"), Just("delete_file"), Just("nonexistent")
    ], args in any_json()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let out = rt.block_on(call(tool, args, false));
        // Every answer is a well-formed envelope: error iff status error, never INTERNAL.
        prop_assert_eq!(out.error().is_some(), out.status() == Status::Error);
        prop_assert_ne!(code(&out), Some(ErrorCode::Internal));
        let wire = serde_json::to_value(&out).unwrap();
        prop_assert!(wire.get("status").is_some() && wire.get("meta").is_some());
    }
}

#[test]
fn demo_schemas_snapshot() {
    let specs: Vec<Value> = setup()
        .0
        .registry()
        .specs()
        .into_iter()
        .filter(|s| {
            [
                "convert_currency",
                "get_weather",
                "search_files",
                "read_file",
                "calculate",
                "query_users",
                "delete_file",
            ]
            .contains(&s.name.as_str())
        })
        .map(|s| serde_json::to_value(s).unwrap())
        .collect();
    insta::assert_json_snapshot!("demo_specs", specs);
}

/// Issue 14, item 8: results keep their full f64 magnitude and precision; a result that is not a
/// finite number is an error that says so, never `success` with `data: null`.
#[tokio::test]
async fn calculate_keeps_magnitudes_and_refuses_non_finite_results() {
    for (expr, want) in [
        ("1e300", 1e300),
        ("exp(709)", 709f64.exp()),
        ("1e-13", 1e-13),
        ("2^-50", 2f64.powi(-50)),
        ("1e15+0.5", 1_000_000_000_000_000.5),
        ("0.1+0.2", 0.1 + 0.2),
        ("-1e-300", -1e-300),
    ] {
        let o = call("calculate", json!({ "expression": expr }), false).await;
        assert_eq!(o.status(), Status::Success, "{expr}: {o:?}");
        let data = o.data.as_ref().unwrap();
        assert_eq!(data.as_f64(), Some(want), "{expr}: {data}");
        // The wire form is serde_json's own f64 form, and the message shows the same number.
        assert_eq!(data, &json!(want), "{expr}");
        let shown = serde_json::to_string(&json!(want)).unwrap();
        assert!(
            o.message.ends_with(&shown),
            "{expr}: {:?} should show {shown}",
            o.message
        );
    }
    let o = call("calculate", json!({"expression": "2^10"}), false).await;
    assert_eq!(o.data, Some(json!(1024)), "integral results stay integers");
    for expr in [
        "1e308*10",
        "exp(710)",
        "1e309",
        "-(1e308*10)",
        "0*1e309",
        "2^2000",
    ] {
        let o = call("calculate", json!({ "expression": expr }), false).await;
        assert_eq!(o.status(), Status::Error, "{expr}: {o:?}");
        assert!(o.data.is_none(), "{expr}: {o:?}");
        let e = o.error().unwrap();
        assert_eq!(e.code, ErrorCode::Validation, "{expr}");
        assert!(
            e.message.contains("not a finite number"),
            "{expr}: {}",
            e.message
        );
        assert!(
            e.suggestion.contains("1.8e308"),
            "{expr}: the suggestion names the limit: {}",
            e.suggestion
        );
    }
    let o = call("calculate", json!({"expression": "0/0"}), false).await;
    assert_eq!(code(&o), Some(ErrorCode::Validation));
}

/// Issue 14, item 9: `%`, `_` and `\` in `name` are literal characters, not LIKE wildcards;
/// ordinary names still match as case-insensitive substrings.
#[tokio::test]
async fn query_users_name_has_no_wildcards() {
    for name in ["%", "_", "\\", "%%", "a%e", "_race", "\\%", "\\_"] {
        let o = call("query_users", json!({"name": name, "limit": 100}), false).await;
        assert_eq!(o.status(), Status::Success, "{name}: {o:?}");
        assert_eq!(
            o.data.unwrap()["count"],
            json!(0),
            "no seeded name contains {name:?} literally"
        );
    }
    let o = call("query_users", json!({"name": " GRACE "}), false).await;
    let d = o.data.unwrap();
    assert_eq!(d["count"], json!(1));
    assert_eq!(d["users"][0]["name"], json!("Grace Hopper"));
    let o = call("query_users", json!({"name": "berners-lee"}), false).await;
    assert_eq!(
        o.data.unwrap()["users"][0]["name"],
        json!("Tim Berners-Lee")
    );
    let o = call("query_users", json!({"name": "an", "limit": 100}), false).await;
    assert!(
        o.data.unwrap()["count"].as_u64().unwrap() >= 5,
        "substring match kept"
    );
}

/// Issue 14, item 6: deleting a symbolic link removes the link the person approved, never its
/// target, and the preview says so; nothing outside the root is ever touched.
#[cfg(unix)]
#[tokio::test]
async fn delete_file_removes_a_symlink_not_its_target() {
    use std::os::unix::fs::symlink;
    let root = sandbox_root();
    let outside = &setup().1;
    let gone = |p: &std::path::Path| std::fs::symlink_metadata(p).is_err();

    // A link to a file inside the sandbox.
    std::fs::write(root.join("target.txt"), "keep me").unwrap();
    symlink("target.txt", root.join("alias")).unwrap();
    let o = call("delete_file", json!({"path": "alias"}), false).await;
    assert_eq!(o.status(), Status::NeedsConfirmation, "{o:?}");
    let preview = o.data.unwrap();
    let effect = preview["effect"].as_str().unwrap();
    assert!(
        effect.contains("symbolic link `alias`")
            && effect.contains("pointing to `target.txt`")
            && effect.contains("`target.txt` is kept"),
        "{preview}"
    );
    assert_eq!(preview["kind"], json!("symbolic link"));
    let o = call("delete_file", json!({"path": "alias"}), true).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert!(gone(&root.join("alias")), "the approved link is removed");
    assert_eq!(
        std::fs::read_to_string(root.join("target.txt")).unwrap(),
        "keep me",
        "the target survives"
    );

    // A link that leaves the sandbox: only the link inside the root goes; the preview does not
    // name the outside path.
    std::fs::write(outside.join("kept-outside.txt"), "outside data").unwrap();
    symlink(outside.join("kept-outside.txt"), root.join("out-alias")).unwrap();
    let o = call("delete_file", json!({"path": "out-alias"}), false).await;
    assert_eq!(o.status(), Status::NeedsConfirmation, "{o:?}");
    let preview = o.data.unwrap().to_string();
    assert!(preview.contains("outside the sandbox"), "{preview}");
    assert!(!preview.contains(outside.to_str().unwrap()), "{preview}");
    let o = call("delete_file", json!({"path": "out-alias"}), true).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert!(gone(&root.join("out-alias")));
    assert_eq!(
        std::fs::read_to_string(outside.join("kept-outside.txt")).unwrap(),
        "outside data"
    );

    // A link to a directory is a link, not a directory: it can go, the directory stays.
    symlink("docs", root.join("docs-alias")).unwrap();
    let o = call("delete_file", json!({"path": "docs-alias"}), true).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert!(gone(&root.join("docs-alias")));
    assert!(root.join("docs/report-2026.txt").exists());

    // A dangling link can be deleted too.
    symlink("nowhere.txt", root.join("dangling")).unwrap();
    let o = call("delete_file", json!({"path": "dangling"}), false).await;
    assert_eq!(o.data.as_ref().unwrap()["exists"], json!(true), "{o:?}");
    let o = call("delete_file", json!({"path": "dangling"}), true).await;
    assert_eq!(o.status(), Status::Success, "{o:?}");
    assert!(gone(&root.join("dangling")));

    // Through a linked directory that leaves the sandbox: refused, the outside file stays.
    symlink(outside, root.join("out-dir")).unwrap();
    let o = call(
        "delete_file",
        json!({"path": "out-dir/kept-outside.txt"}),
        true,
    )
    .await;
    assert_eq!(code(&o), Some(ErrorCode::PermissionDenied), "{o:?}");
    assert!(outside.join("kept-outside.txt").exists());
    // Climbing out lexically is still refused.
    let o = call("delete_file", json!({"path": "../x"}), true).await;
    assert_eq!(code(&o), Some(ErrorCode::PermissionDenied), "{o:?}");
    let o = call("delete_file", json!({"path": "docs"}), true).await;
    assert_eq!(
        code(&o),
        Some(ErrorCode::Validation),
        "directories are not deleted"
    );
}

/// Issue 14, item 1: a FIFO (or socket, or device) in the sandbox is refused from its metadata,
/// before anything opens it: the call answers at once instead of blocking a thread forever.
#[cfg(unix)]
#[tokio::test]
async fn read_file_refuses_a_fifo_without_opening_it() {
    let root = sandbox_root();
    let fifo = root.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let started = std::time::Instant::now();
    let o = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        call("read_file", json!({"path": "pipe"}), false),
    )
    .await
    .expect("read_file blocked on a FIFO");
    assert_eq!(code(&o), Some(ErrorCode::PermissionDenied), "{o:?}");
    assert!(
        o.error()
            .as_ref()
            .unwrap()
            .message
            .contains("not a regular file"),
        "{o:?}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    // The device files are refused the same way (through an absolute path outside the root:
    // refused even earlier; through a symlink inside it: refused as outside the root).
    let o = call("read_file", json!({"path": "/dev/zero"}), false).await;
    assert_eq!(code(&o), Some(ErrorCode::PermissionDenied), "{o:?}");
}

/// Issue 14, item 2: `max_bytes` bounds what is read, not only what is shown. A 64 GiB sparse
/// file answers at once with 10 bytes (the old code read all of it and timed out or ran out of
/// memory).
#[tokio::test]
async fn read_file_reads_only_max_bytes() {
    let root = sandbox_root();
    let path = root.join("huge.txt");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(64 << 30).unwrap();
    drop(f);
    let o = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        call(
            "read_file",
            json!({"path": "huge.txt", "max_bytes": 10}),
            false,
        ),
    )
    .await
    .expect("read_file read the whole file");
    assert_eq!(o.status(), Status::Success, "{o:?}");
    let data = o.data.unwrap();
    assert_eq!(data["content"].as_str().unwrap().len(), 10);
    assert_eq!(data["size_bytes"], json!(64u64 << 30));
    assert_eq!(data["truncated"], json!(true));
    std::fs::remove_file(&path).unwrap();
    // A window that ends inside a multi-byte character shows the text before it.
    std::fs::write(root.join("accents.txt"), "aé").unwrap();
    let o = call(
        "read_file",
        json!({"path": "accents.txt", "max_bytes": 2}),
        false,
    )
    .await;
    assert_eq!(o.data.unwrap()["content"], json!("a"));
}

/// Issue 14, item 12: a hard link inside the root to a file outside it is the outside file
/// itself; the strict sandbox (the default) refuses files with more than one link.
#[cfg(unix)]
#[tokio::test]
async fn read_file_refuses_hard_links_in_the_strict_sandbox() {
    let root = sandbox_root();
    let outside = &setup().1;
    std::fs::write(outside.join("linked-secret.txt"), "outside secret").unwrap();
    std::fs::hard_link(outside.join("linked-secret.txt"), root.join("hard.txt")).unwrap();
    let o = call("read_file", json!({"path": "hard.txt"}), false).await;
    assert_eq!(code(&o), Some(ErrorCode::PermissionDenied), "{o:?}");
    assert!(!format!("{o:?}").contains("outside secret"));
    assert!(o.error().unwrap().message.contains("hard links"), "{o:?}");
}
