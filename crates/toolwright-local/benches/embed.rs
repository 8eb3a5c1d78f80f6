//! The local embedder's speed: one short query, and a batch of 64 tool-like texts (tools/s), on
//! one thread and on two. Before the benchmarks it prints the load time and the resident memory
//! that loading the model adds (VmRSS, and the peak VmHWM).
//!
//! Needs the fetched model (`toolwright model fetch`, or `TOOLWRIGHT_EMBEDDER`):
//! `cargo bench -p toolwright-local --no-default-features --features embed --bench embed`.
//! all-mpnet-base-v2, the optional second embedder, is measured the same way when it is installed
//! (`toolwright model fetch --embedder mpnet`), in f32 and with 8-bit layers
//! ([`Precision::Q8`], how the router holds it); the bench says so when it is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::time::Instant;
use toolwright_catalog::Embedder;
use toolwright_local::embed::{self, LocalEmbedder, Precision};

/// A `/proc/self/status` field in kB (0 where there is none).
fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// CPU time of this process (all threads), in seconds, from `/proc/self/stat` (10 ms ticks).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            // After the comm field: state is 0, utime is 11, stime is 12.
            let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(0.0)
}

/// Wall and CPU milliseconds per call of `f`, over `n` calls (CPU time does not grow when other
/// processes share the cores, so it is the steadier number on a busy machine).
fn per_call(n: u32, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let (w, c) = (Instant::now(), cpu_seconds());
    for _ in 0..n {
        f();
    }
    let n = f64::from(n);
    (
        w.elapsed().as_secs_f64() * 1e3 / n,
        (cpu_seconds() - c) * 1e3 / n,
    )
}

fn load(threads: usize) -> LocalEmbedder {
    let dir = embed::find().unwrap_or_else(|| {
        panic!(
            "the embedder is not installed: run `{}`",
            embed::FETCH_COMMAND
        )
    });
    LocalEmbedder::load(&dir)
        .and_then(|e| e.with_threads(threads))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// 64 tool descriptions shaped like real ones (name, then a sentence or two).
fn tool_texts() -> Vec<String> {
    let verbs = [
        ("get", "Fetches"),
        ("list", "Lists"),
        ("create", "Creates"),
        ("delete", "Deletes"),
        ("update", "Updates"),
        ("search", "Searches"),
        ("export", "Exports"),
        ("summarize", "Summarizes"),
    ];
    let things = [
        (
            "weather_forecast",
            "the weather forecast for a city, with temperature in Celsius, wind speed and the chance of rain",
        ),
        (
            "calendar_event",
            "a calendar event with a title, a start and end time, attendees and an optional video-call link",
        ),
        (
            "file",
            "a file in the workspace given its path relative to the project root; binary files are returned base64-encoded",
        ),
        (
            "github_issue",
            "an issue in a GitHub repository, including labels, assignees and the latest comments",
        ),
        (
            "invoice",
            "an invoice for a customer, with line items, taxes, currency and the payment due date",
        ),
        (
            "database_row",
            "rows of a SQL table that match a filter expression, paginated with a cursor",
        ),
        (
            "email",
            "an email message in the user's mailbox: sender, recipients, subject, body and attachments",
        ),
        (
            "stock_quote",
            "the latest stock quote for a ticker symbol, with the day's high, low and trading volume",
        ),
    ];
    verbs
        .iter()
        .flat_map(|(v, verb)| {
            things
                .iter()
                .map(move |(t, what)| format!("{v}_{t}: {verb} {what}."))
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let before = status_kb("VmRSS:");
    let t0 = Instant::now();
    let one = load(1);
    let load_ms = t0.elapsed().as_secs_f64() * 1e3;
    let after = status_kb("VmRSS:");
    let peak = status_kb("VmHWM:");
    eprintln!(
        "load: {load_ms:.0} ms; RSS +{} MB after loading (peak {} MB, process {} MB)",
        after.saturating_sub(before) / 1024,
        peak.saturating_sub(before) / 1024,
        after / 1024
    );
    let two = load(2);
    let tools = tool_texts();
    let refs: Vec<&str> = tools.iter().map(String::as_str).collect();
    assert_eq!(refs.len(), 64);

    for (name, e) in [("1 thread", &one), ("2 threads", &two)] {
        let (qw, qc) = per_call(200, || {
            black_box(e.embed(&["what's the weather in Paris tomorrow?"]).unwrap());
        });
        let (bw, bc) = per_call(5, || {
            black_box(e.embed(&refs).unwrap());
        });
        eprintln!(
            "{name}: query {qw:.1} ms wall / {qc:.1} ms CPU; 64 tools {bw:.0} ms wall / {bc:.0} ms CPU \
             = {:.0} tools/s wall ({:.0} per CPU-second)",
            64e3 / bw,
            64e3 / bc
        );
    }

    let mut g = c.benchmark_group("embed");
    g.sample_size(20);
    let query = "what's the weather in Paris tomorrow?";
    g.throughput(Throughput::Elements(1));
    g.bench_function("query/1-thread", |b| {
        b.iter(|| one.embed(black_box(&[query])).unwrap())
    });
    g.bench_function("query/2-threads", |b| {
        b.iter(|| two.embed(black_box(&[query])).unwrap())
    });
    g.throughput(Throughput::Elements(refs.len() as u64));
    g.sample_size(10);
    g.bench_function("64-tools/1-thread", |b| {
        b.iter(|| one.embed(black_box(&refs)).unwrap())
    });
    g.bench_function("64-tools/2-threads", |b| {
        b.iter(|| two.embed(black_box(&refs)).unwrap())
    });
    g.finish();
    eprintln!(
        "RSS after the benchmarks: {} MB (peak {} MB)",
        status_kb("VmRSS:") / 1024,
        status_kb("VmHWM:") / 1024
    );
}

/// all-mpnet-base-v2 on one thread: load, memory, a query and 64 tools.
fn mpnet_benches(c: &mut Criterion) {
    let Some(dir) = embed::find_source(&embed::MPNET) else {
        eprintln!(
            "all-mpnet-base-v2 is not installed ({}): not measured; run `{} --embedder mpnet`",
            embed::source_dir(&embed::MPNET).display(),
            embed::FETCH_COMMAND
        );
        return;
    };
    // 8-bit first: loading f32 first leaves freed pages the allocator keeps, which would count
    // against the second load's RSS.
    for precision in [Precision::Q8, Precision::F32] {
        mpnet_bench(c, &dir, precision);
    }
}

/// all-mpnet-base-v2 in `precision`: load time and memory, a query and 64 tool texts. Its f32
/// products run on the embedder's one thread; its 8-bit ones on candle's own pool
/// (`CANDLE_NUM_THREADS`, by default the machine's physical cores).
fn mpnet_bench(c: &mut Criterion, dir: &std::path::Path, precision: Precision) {
    let label = precision.as_str();
    let before = status_kb("VmRSS:");
    let t0 = Instant::now();
    let e = LocalEmbedder::load_with(dir, precision)
        .and_then(|e| e.with_threads(1))
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "mpnet {label} load: {:.0} ms; RSS +{} MB after loading",
        t0.elapsed().as_secs_f64() * 1e3,
        status_kb("VmRSS:").saturating_sub(before) / 1024
    );
    let tools = tool_texts();
    let refs: Vec<&str> = tools.iter().map(String::as_str).collect();
    let query = "what's the weather in Paris tomorrow?";
    let (qw, qc) = per_call(50, || {
        black_box(e.embed(&[query]).unwrap());
    });
    let (bw, _) = per_call(2, || {
        black_box(e.embed(&refs).unwrap());
    });
    eprintln!(
        "mpnet {label}: query {qw:.1} ms wall / {qc:.1} ms CPU; 64 tools {bw:.0} ms wall = {:.0} tools/s",
        64e3 / bw
    );
    let mut g = c.benchmark_group(format!("embed-mpnet-{label}"));
    g.sample_size(10);
    g.throughput(Throughput::Elements(1));
    g.bench_function("query", |b| {
        b.iter(|| e.embed(black_box(&[query])).unwrap())
    });
    g.throughput(Throughput::Elements(refs.len() as u64));
    g.bench_function("64-tools", |b| {
        b.iter(|| e.embed(black_box(&refs)).unwrap())
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    mpnet_benches(&mut c);
    c.final_summary();
}
