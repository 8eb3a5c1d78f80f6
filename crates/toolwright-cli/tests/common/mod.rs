//! What the CLI tests share: a loopback OpenAI-compatible fixture.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

/// Variables that pick a provider, an endpoint or how requests are made: the machine's values
/// never reach a test. (`TOOLWRIGHT_MODEL` is not among them: it may say where the embedded model
/// is; tests that must not see it remove it themselves.)
pub const PROVIDER_VARS: &[&str] = &[
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "TOOLWRIGHT_BASE_URL",
    "TOOLWRIGHT_PROVIDER",
    "TOOLWRIGHT_TOOL_CHOICE",
    "TOOLWRIGHT_NO_STRICT",
    "TOOLWRIGHT_HISTORY",
];

/// The `toolwright` binary with none of [`PROVIDER_VARS`] set.
pub fn toolwright() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("toolwright").unwrap();
    for k in PROVIDER_VARS {
        c.env_remove(k);
    }
    c
}

/// Serves `bodies` (Chat Completions JSON) to successive POSTs on 127.0.0.1; returns the base
/// URL and a handle giving the request bodies received.
pub fn fixture(bodies: Vec<Value>) -> (String, std::thread::JoinHandle<Vec<Value>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for body in bodies {
            let Ok((mut stream, _)) = listener.accept() else {
                return seen;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut buf = vec![0u8; len];
            let _ = reader.read_exact(&mut buf);
            seen.push(serde_json::from_slice(&buf).unwrap_or(Value::Null));
            let text = body.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
        }
        seen
    });
    (format!("http://{addr}/v1"), handle)
}

pub fn completion(message: Value) -> Value {
    json!({"choices": [{"index": 0, "message": message}], "usage": {"prompt_tokens": 10, "completion_tokens": 3}})
}

/// Reads `child`'s stderr until a line holds an `http://127.0.0.1:…` URL (what `serve --http`
/// prints when it listens); that URL. Panics after 60 s.
pub fn url_from_stderr(child: &mut std::process::Child) -> String {
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(i) = line.find("http://127.0.0.1:") {
                let url = line[i..].split_whitespace().next().unwrap().to_string();
                let _ = tx.send(url);
            }
        }
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the server did not print its URL")
}

/// A `serve --http` process and its `host:port`; killed when dropped.
pub struct HttpServer {
    pub child: std::process::Child,
    pub addr: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns `cmd` (a `serve --http 127.0.0.1:0 …` command line) with stderr captured and waits
/// for the URL it prints.
pub fn spawn_http_server(cmd: &mut std::process::Command) -> HttpServer {
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let url = url_from_stderr(&mut child);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    HttpServer { child, addr }
}
