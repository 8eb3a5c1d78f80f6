//! The first page of `toolwright ui` over loopback: what a browser fetches to show the tools
//! page (the token visit and its redirect, the HTML, the CSS, the JS and `/api/tools`), over
//! the demo toolset. Target: under 300 ms; the page weighs [`toolwright_ui::assets::total_bytes`]
//! (target: under 500 KB), printed once.
//!
//! `cargo bench -p toolwright-ui --bench first_page`
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use toolwright_agent::routing::CatalogRanker;
use toolwright_catalog::lint::{LintOptions, lint};
use toolwright_runtime::Runtime;
use toolwright_ui::{Toolbox, UiOptions, UiServer};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// Serves the demo toolset on a free loopback port from a background thread.
fn serve() -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let registry = Arc::new(toolwright_demo::registry(Default::default()).unwrap());
            let specs = registry.specs();
            let toolbox = Toolbox {
                runtime: Runtime::new(registry),
                ranker: Arc::new(CatalogRanker::new(&specs)),
                findings: lint(&specs, &LintOptions::default()),
                source: "demo toolset".into(),
                definition_only: false,
                agent: Default::default(),
                provider: Arc::new(|| Err("no provider in the bench".to_string())),
            };
            let options = UiOptions {
                addr: "127.0.0.1:0".parse().unwrap(),
                token: Some(TOKEN.into()),
            };
            let server = UiServer::bind(toolbox, options).await.unwrap();
            tx.send(server.local_addr().unwrap()).unwrap();
            server.serve(std::future::pending()).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

/// GET `path`; returns the response's size in bytes (headers included).
fn get(addr: SocketAddr, path: &str, cookie: bool) -> usize {
    let mut s = TcpStream::connect(addr).unwrap();
    let cookie = if cookie {
        format!("Cookie: toolwright_ui={TOKEN}\r\n")
    } else {
        String::new()
    };
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{cookie}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    assert!(
        out.starts_with(b"HTTP/1.1 200") || out.starts_with(b"HTTP/1.1 303"),
        "{path}: {}",
        String::from_utf8_lossy(&out[..out.len().min(80)])
    );
    out.len()
}

fn first_page(addr: SocketAddr) -> usize {
    get(addr, &format!("/?token={TOKEN}"), false)
        + get(addr, "/", true)
        + get(addr, "/assets/app.css", true)
        + get(addr, "/assets/app.js", true)
        + get(addr, "/api/tools", true)
}

fn bench(c: &mut Criterion) {
    let addr = serve();
    println!(
        "first page: {} bytes of assets, {} bytes on the wire with /api/tools",
        toolwright_ui::assets::total_bytes(),
        first_page(addr)
    );
    c.bench_function("ui_first_page_loopback", |b| b.iter(|| first_page(addr)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
