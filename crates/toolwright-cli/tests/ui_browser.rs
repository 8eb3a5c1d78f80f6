//! `toolwright ui` in a real headless Chromium, driven over WebDriver (chromedriver, started by
//! the test on a loopback port; both from Debian's `chromium` and `chromium-driver`, installed by
//! `scripts/setup.sh`). The tests fail, never skip, when either is missing.
//!
//! Screenshots go to `$TOOLWRIGHT_UI_SCREENSHOTS` when set (the README's are made with
//! `TOOLWRIGHT_UI_SCREENSHOTS=docs cargo test -p toolwright-cli --test ui_browser`), else to a
//! temporary directory.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Hang guard for one wait (the agent's, on the embedded model, is longer).
const WAIT: Duration = Duration::from_secs(60);
const AGENT_WAIT: Duration = Duration::from_secs(300);

/// A child process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `toolwright ui --port 0` over a sandbox root; returns the process and the printed URL.
fn start_ui(root: &Path, stats: &Path, extra: &[&str]) -> (Proc, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .arg("--root")
        .arg(root)
        .args(["ui", "--port", "0"])
        .args(extra)
        .env("TOOLWRIGHT_STATS_FILE", stats)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("cannot start toolwright ui");
    let stdout = child.stdout.take().unwrap();
    let proc = Proc(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(WAIT).expect("toolwright ui printed no URL");
    let url = line
        .trim()
        .strip_prefix("toolwright ui: open ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_string();
    (proc, url)
}

/// The Chromium binary: `$TOOLWRIGHT_CHROMIUM`, else Debian's.
fn chromium() -> PathBuf {
    let p = std::env::var_os("TOOLWRIGHT_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        p.is_file(),
        "no Chromium at {} (scripts/setup.sh installs Debian's `chromium` and `chromium-driver`)",
        p.display()
    );
    p
}

/// chromedriver on a free loopback port, and a headless Chromium session through it.
async fn browser(profile: &Path) -> (Proc, Client) {
    let binary = chromium();
    let port = free_port();
    let driver = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start chromedriver (scripts/setup.sh installs `chromium-driver`)");
    let driver = Proc(driver);
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < WAIT, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let caps = json!({"goog:chromeOptions": {
        "binary": binary,
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,1000", format!("--user-data-dir={}", profile.display())],
    }});
    let Value::Object(caps) = caps else {
        unreachable!()
    };
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("cannot open a Chromium session");
    (driver, client)
}

/// Waits until `css` matches an element whose text contains `needle`; returns the text.
async fn wait_text(c: &Client, css: &str, needle: &str, within: Duration) -> String {
    let start = Instant::now();
    let mut last = String::new();
    loop {
        if let Ok(el) = c.find(Locator::Css(css)).await
            && let Ok(t) = el.text().await
        {
            if t.contains(needle) {
                return t;
            }
            last = t;
        }
        assert!(
            start.elapsed() < within,
            "no `{css}` containing {needle:?} (last text: {last:?})"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn exists(c: &Client, css: &str) -> bool {
    c.find(Locator::Css(css)).await.is_ok()
}

async fn screenshot(c: &Client, dir: &Path, name: &str) {
    let png = c.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    std::fs::write(dir.join(name), png).unwrap();
}

fn screenshot_dir(tmp: &Path) -> PathBuf {
    match std::env::var_os("TOOLWRIGHT_UI_SCREENSHOTS") {
        Some(d) => {
            // Relative to the repository root (tests run in the crate's directory).
            let d = PathBuf::from(d);
            let d = if d.is_relative() {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(d)
            } else {
                d
            };
            std::fs::create_dir_all(&d).unwrap();
            d
        }
        None => tmp.to_path_buf(),
    }
}

/// One raw HTTP/1.1 request to the server; returns the status line and the whole response.
fn raw_http(base: &str, request: &str) -> (String, String) {
    let addr = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    (out.lines().next().unwrap_or_default().to_string(), out)
}

/// The refusals, over raw HTTP: no token, wrong Host, cross-site Origin, non-JSON POST.
fn refusals(base: &str, token: &str) {
    let host = base.trim_start_matches("http://");
    let call = r#"{"tool":"get_weather","arguments":{"city":"Paris"}}"#;
    let post = |extra: &str, ctype: &str| {
        format!(
            "POST /api/call HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{call}",
            call.len()
        )
    };
    let cookie = format!("Cookie: toolwright_ui={token}\r\n");
    let (status, _) = raw_http(base, &post("", "application/json"));
    assert!(status.contains(" 401 "), "call without the token: {status}");
    let (status, _) = raw_http(
        base,
        &format!("GET /api/tools HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    );
    assert!(status.contains(" 401 "), "page without the token: {status}");
    let (status, _) = raw_http(
        base,
        &post(
            &format!("{cookie}Origin: http://evil.example\r\n"),
            "application/json",
        ),
    );
    assert!(status.contains(" 403 "), "cross-site call: {status}");
    let (status, _) = raw_http(base, &post(&cookie, "text/plain"));
    assert!(status.contains(" 415 "), "form-encoded call: {status}");
    let (status, _) = raw_http(
        base,
        &format!(
            "GET /api/tools HTTP/1.1\r\nHost: rebound.example:80\r\n{cookie}Connection: close\r\n\r\n"
        ),
    );
    assert!(status.contains(" 421 "), "DNS-rebound Host: {status}");
    let (status, body) = raw_http(
        base,
        &format!("GET /api/tools HTTP/1.1\r\nHost: {host}\r\n{cookie}Connection: close\r\n\r\n"),
    );
    assert!(
        status.contains(" 200 ") && body.contains("get_weather"),
        "{status}"
    );
}

/// Search, schema forms, field errors, a valid call, the approval step, metrics, refusals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_search_form_errors_and_approval_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let doomed = root.join("doomed.txt");
    std::fs::write(&doomed, "bye").unwrap();
    let (_ui, url) = start_ui(&root, &tmp.path().join("metrics.json"), &[]);
    let (base, token) = url.split_once("/?token=").unwrap();
    let shots = screenshot_dir(tmp.path());
    refusals(base, token);
    let (_driver, c) = browser(&tmp.path().join("profile")).await;

    // Without the token, the browser is refused too.
    c.goto(&format!("{base}/")).await.unwrap();
    wait_text(&c, "body", "missing or wrong token", WAIT).await;

    // The printed URL: the tools page, grouped by category.
    c.goto(&url).await.unwrap();
    assert_eq!(
        c.current_url().await.unwrap().query(),
        None,
        "token left in the URL"
    );
    wait_text(&c, "#tool-list", "get_weather", WAIT).await;
    let nav: Value = c
        .execute(
            "const n = performance.getEntriesByType('navigation')[0]; return {load_ms: n.loadEventEnd - n.startTime, bytes: performance.getEntriesByType('resource').reduce((a, r) => a + r.encodedBodySize, n.encodedBodySize)};",
            vec![],
        )
        .await
        .unwrap();
    eprintln!("first page in Chromium (not asserted): {nav}");

    // Search "weather": get_weather first, with its scores.
    let search = c.find(Locator::Css("#search")).await.unwrap();
    search.send_keys("weather").await.unwrap();
    wait_text(
        &c,
        r#"#tool-list[data-query="weather"]"#,
        "get_weather",
        WAIT,
    )
    .await;
    wait_text(&c, "#search-note", "Ranked", WAIT).await;
    let first = c.find(Locator::Css("#tool-list .tool-row")).await.unwrap();
    assert_eq!(
        first.attr("data-tool").await.unwrap().as_deref(),
        Some("get_weather")
    );
    assert!(first.text().await.unwrap().contains("score"));
    screenshot(&c, &shots, "ui-tools.png").await;

    // query_users: an invalid role through raw mode → the field error next to `role`.
    search.clear().await.unwrap();
    search.send_keys("list users with a role").await.unwrap();
    wait_text(
        &c,
        r#"#tool-list[data-query="list users with a role"]"#,
        "query_users",
        WAIT,
    )
    .await;
    click(&c, ".tool-row[data-tool=query_users] a.name").await;
    wait_text(&c, ".tool-name", "query_users", WAIT).await;
    click(&c, "#raw-toggle").await;
    let raw = c.find(Locator::Css("#raw")).await.unwrap();
    raw.clear().await.unwrap();
    raw.send_keys(r#"{"role": "superuser"}"#).await.unwrap();
    click(&c, "#submit").await;
    let note = wait_text(
        &c,
        r#".field[data-path="/role"] .field-error"#,
        "must be one of",
        WAIT,
    )
    .await;
    assert!(note.contains("superuser"), "{note}");
    assert!(note.contains("Use one of: admin"), "no suggestion: {note}");
    wait_text(&c, "#result .status", "error", WAIT).await;
    wait_text(&c, "#result .suggestion", "Use one of", WAIT).await;
    screenshot(&c, &shots, "ui-failed-call.png").await;

    // A valid form (back from raw mode, role chosen in the select): success.
    click(&c, "#raw-toggle").await;
    c.find(Locator::Css(r#".field[data-path="/role"] select"#))
        .await
        .unwrap()
        .select_by_label("admin")
        .await
        .unwrap();
    click(&c, "#submit").await;
    wait_text(&c, "#result .status", "success", WAIT).await;
    assert!(!exists(&c, ".field-error").await, "stale field error");
    wait_text(&c, "#result .data", "admin", WAIT).await;

    // delete_file: the preview and the approval step; nothing runs before the click.
    c.goto(&format!("{base}/#/tool/delete_file")).await.unwrap();
    wait_text(&c, ".tool-name", "delete_file", WAIT).await;
    type_into(&c, r#".field[data-path="/path"] input"#, "doomed.txt").await;
    click(&c, "#submit").await;
    wait_text(&c, "#result .status", "needs_confirmation", WAIT).await;
    wait_text(&c, "#approval .preview", "doomed.txt", WAIT).await;
    assert!(doomed.exists(), "deleted before the approval");
    click(&c, "#approve").await;
    wait_text(&c, "#result .status", "success", WAIT).await;
    assert!(!doomed.exists(), "approved but not deleted");

    // Metrics of this session's calls.
    c.goto(&format!("{base}/#/metrics")).await.unwrap();
    wait_text(&c, "#metrics", "query_users", WAIT).await;
    wait_text(&c, "#metrics", "VALIDATION_ERROR", WAIT).await;
    c.close().await.unwrap();
}

/// "Convert 100 USD to EUR" on the embedded model: the trace streams live (routing before the
/// answer), reaches a convert_currency call and the answer; the downloaded trace is the JSON
/// `toolwright run --json` prints. Needs `toolwright model fetch` (the README's test command
/// runs it); fails without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_live_trace_in_chromium() {
    toolwright_local::model::find_model()
        .filter(|p| p.is_file())
        .expect("no embedded model: run `toolwright model fetch` (the README's test command does)");
    let tmp = tempfile::tempdir().unwrap();
    let (_ui, url) = start_ui(tmp.path(), &tmp.path().join("metrics.json"), &[]);
    let (base, _) = url.split_once("/?token=").unwrap();
    let shots = screenshot_dir(tmp.path());
    let (_driver, c) = browser(&tmp.path().join("profile")).await;
    c.goto(&url).await.unwrap();
    wait_text(&c, "#tool-list", "convert_currency", WAIT).await;
    c.goto(&format!("{base}/#/agent")).await.unwrap();
    let q = c.find(Locator::Css("#agent-query")).await.unwrap();
    q.send_keys("Convert 100 USD to EUR").await.unwrap();
    click(&c, "#agent-run").await;

    // Live: the routing step shows while the model still works.
    wait_text(&c, "#trace .ev-routed", "convert_currency", AGENT_WAIT).await;
    assert!(!exists(&c, "#answer").await, "the trace came all at once");
    wait_text(
        &c,
        "#trace .ev-call[data-tool=convert_currency]",
        "success",
        AGENT_WAIT,
    )
    .await;
    let answer = wait_text(&c, "#answer", "EUR", AGENT_WAIT).await;
    assert!(answer.contains("96.04"), "{answer}");
    wait_text(&c, "#trace .ev-model.step", "Model step 1", WAIT).await;
    c.set_window_size(1280, 1300).await.unwrap();
    screenshot(&c, &shots, "ui-agent-trace.png").await;

    // The download is `run --json`'s JSON: it parses as a Trace and prints back identically.
    let href = c
        .find(Locator::Css("#download-trace"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    let text = c
        .execute_async(
            "const done = arguments[arguments.length - 1]; fetch(arguments[0]).then(r => r.text()).then(done, e => done('ERR ' + e));",
            vec![json!(href)],
        )
        .await
        .unwrap();
    let text = text.as_str().unwrap().to_string();
    let trace: toolwright_agent::Trace = serde_json::from_str(&text).unwrap();
    assert_eq!(
        format!("{}\n", serde_json::to_string_pretty(&trace).unwrap()),
        text
    );
    assert_eq!(trace.query, "Convert 100 USD to EUR");
    assert!(
        trace
            .calls
            .iter()
            .any(|r| r.call.name == "convert_currency")
    );
    assert_eq!(trace.answer.as_deref(), Some(answer.as_str()));
    c.close().await.unwrap();
}

/// With `--mcp`, the imported server's tools are listed, shown and called like the others (the
/// repository's own MCP server over stdio, its conformance toolset).
#[test]
fn mcp_tools_are_served_too() {
    let tmp = tempfile::tempdir().unwrap();
    let server = format!(
        "{} serve --stdio --toolset conformance",
        env!("CARGO_BIN_EXE_toolwright")
    );
    let (_ui, url) = start_ui(
        tmp.path(),
        &tmp.path().join("metrics.json"),
        &["--mcp", &server],
    );
    let (base, token) = url.split_once("/?token=").unwrap();
    let host = base.trim_start_matches("http://");
    let cookie = format!("Cookie: toolwright_ui={token}\r\n");
    let get = |path: &str| {
        raw_http(
            base,
            &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{cookie}Connection: close\r\n\r\n"),
        )
    };
    let (status, body) = get("/api/tools");
    assert!(status.contains(" 200 "), "{status}");
    // Imported tools only: the demo's load by default only when nothing brings tools.
    assert!(body.contains("test_simple_text") && !body.contains("get_weather"));
    let (status, body) = get("/api/tools/test_simple_text");
    assert!(
        status.contains(" 200 ") && body.contains("\"exports\""),
        "{status}"
    );
    let call = r#"{"tool":"test_simple_text","arguments":{}}"#;
    let (status, body) = raw_http(
        base,
        &format!(
            "POST /api/call HTTP/1.1\r\nHost: {host}\r\n{cookie}Origin: {base}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{call}",
            call.len()
        ),
    );
    assert!(status.contains(" 200 "), "{status}");
    assert!(
        body.contains(r#""status":"success""#) && body.contains("simple text response"),
        "{body}"
    );
}

/// The form generated from a schema with a nested object, an array of objects, a boolean, an
/// enum and an integer range (`--functions`: calls are validated, not run): the arguments it
/// builds are the JSON the schema describes, and an out-of-range item shows its error next to
/// that item's field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_forms_build_the_schema_s_json_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let defs = tmp.path().join("defs.json");
    let schema = json!([{"name": "create_order",
        "description": "Create an order for a customer. Use it when the user orders items.",
        "parameters": {"type": "object", "additionalProperties": false, "required": ["customer", "items"],
            "properties": {
                "customer": {"type": "object", "additionalProperties": false, "required": ["name"],
                    "properties": {"name": {"type": "string", "minLength": 1}, "vip": {"type": "boolean"}}},
                "items": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                    "required": ["sku", "qty"],
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1, "maximum": 10}}}},
                "priority": {"type": "string", "enum": ["low", "high"]}}}}]);
    std::fs::write(&defs, schema.to_string()).unwrap();
    let (_ui, url) = start_ui(
        tmp.path(),
        &tmp.path().join("metrics.json"),
        &["--functions", defs.to_str().unwrap()],
    );
    let (base, _) = url.split_once("/?token=").unwrap();
    let (_driver, c) = browser(&tmp.path().join("profile")).await;
    c.goto(&url).await.unwrap();
    wait_text(&c, "#tool-list", "create_order", WAIT).await;
    c.goto(&format!("{base}/#/tool/create_order"))
        .await
        .unwrap();
    wait_text(&c, ".tool-name", "create_order", WAIT).await;
    let field = |path: &str, tag: &str| format!(r#".field[data-path="{path}"] {tag}"#);
    type_into(&c, &field("/customer/name", "input"), "Ada").await;
    c.find(Locator::Css(&field("/customer/vip", "select")))
        .await
        .unwrap()
        .select_by_label("true")
        .await
        .unwrap();
    click(&c, r#".field[data-path="/items"] > button"#).await;
    type_into(&c, &field("/items/0/sku", "input"), "A-1").await;
    let qty = c
        .find(Locator::Css(&field("/items/0/qty", "input")))
        .await
        .unwrap();
    qty.send_keys("11").await.unwrap();
    c.find(Locator::Css(&field("/priority", "select")))
        .await
        .unwrap()
        .select_by_label("high")
        .await
        .unwrap();
    let submit = c.find(Locator::Css("#submit")).await.unwrap();
    submit.click().await.unwrap();
    wait_text(
        &c,
        r#".field[data-path="/items/0/qty"] .field-error"#,
        "qty",
        WAIT,
    )
    .await;
    wait_text(&c, "#result .status", "error", WAIT).await;

    qty.clear().await.unwrap();
    qty.send_keys("3").await.unwrap();
    submit.click().await.unwrap();
    wait_text(&c, "#result .status", "success", WAIT).await;
    let data = c
        .find(Locator::Css("#result .data"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let data: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(
        data["arguments"],
        json!({"customer": {"name": "Ada", "vip": true}, "items": [{"sku": "A-1", "qty": 3}], "priority": "high"})
    );
    c.close().await.unwrap();
}

/// Clicks the element `css` selects.
async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// Types `text` into the element `css` selects.
async fn type_into(c: &Client, css: &str, text: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .send_keys(text)
        .await
        .unwrap();
}
