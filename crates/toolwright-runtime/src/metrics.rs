//! Per-tool metrics: calls, errors by code, retries, timeouts, replays, fallbacks, a latency
//! histogram and calls over the tool's `sla_ms`. Read them with [`crate::Runtime::metrics`];
//! render them as Prometheus text with [`MetricsSnapshot::to_prometheus`] or as a table with
//! [`MetricsSnapshot::to_table`]. Snapshots serialize to JSON and [`MetricsSnapshot::merge`], so a
//! CLI can keep them across runs.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Mutex;
use toolwright_core::{ErrorCode, Outcome, Status};

/// Upper bounds (ms) of the latency histogram's buckets; a last bucket takes the rest.
pub const LATENCY_BUCKETS_MS: [u64; 12] =
    [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/// A latency histogram: counts per bucket of [`LATENCY_BUCKETS_MS`] plus one for larger values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram {
    /// Counts per bucket (not cumulative); the last is above the largest bound.
    pub counts: Vec<u64>,
    /// Sum of all observations, ms.
    pub sum_ms: u64,
    /// Number of observations.
    pub count: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; LATENCY_BUCKETS_MS.len() + 1],
            sum_ms: 0,
            count: 0,
        }
    }
}

impl Histogram {
    /// Adds one observation.
    pub fn observe(&mut self, ms: u64) {
        let i = LATENCY_BUCKETS_MS
            .iter()
            .position(|b| ms <= *b)
            .unwrap_or(LATENCY_BUCKETS_MS.len());
        if self.counts.len() != LATENCY_BUCKETS_MS.len() + 1 {
            self.counts.resize(LATENCY_BUCKETS_MS.len() + 1, 0);
        }
        if let Some(c) = self.counts.get_mut(i) {
            *c += 1;
        }
        self.sum_ms = self.sum_ms.saturating_add(ms);
        self.count += 1;
    }

    /// The bucket bound at or below which `q` (0..=1) of the observations fall (an upper
    /// estimate); `None` with no observations or above the largest bound.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let target = ((self.count as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                return LATENCY_BUCKETS_MS.get(i).copied();
            }
        }
        None
    }

    fn merge(&mut self, other: &Histogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.sum_ms = self.sum_ms.saturating_add(other.sum_ms);
        self.count += other.count;
    }
}

/// The counters of one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolMetrics {
    /// Calls answered (any status).
    pub calls: u64,
    /// Failed calls by error code.
    pub errors: BTreeMap<String, u64>,
    /// Automatic retries made.
    pub retries: u64,
    /// Calls that ended in `TIMEOUT`.
    pub timeouts: u64,
    /// Calls answered from the idempotency store.
    pub replays: u64,
    /// Calls a fallback answered.
    pub fallbacks: u64,
    /// Calls slower than the tool's `sla_ms`.
    pub over_sla: u64,
    /// Latency.
    pub latency_ms: Histogram,
}

impl ToolMetrics {
    /// Failed calls, all codes.
    pub fn error_total(&self) -> u64 {
        self.errors.values().sum()
    }

    fn merge(&mut self, o: &ToolMetrics) {
        self.calls += o.calls;
        for (k, v) in &o.errors {
            *self.errors.entry(k.clone()).or_default() += v;
        }
        self.retries += o.retries;
        self.timeouts += o.timeouts;
        self.replays += o.replays;
        self.fallbacks += o.fallbacks;
        self.over_sla += o.over_sla;
        self.latency_ms.merge(&o.latency_ms);
    }
}

/// Metrics of every tool, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MetricsSnapshot {
    /// Per tool.
    pub tools: BTreeMap<String, ToolMetrics>,
}

/// A counter: its name, help text and how to read it.
type Counter = (&'static str, &'static str, fn(&ToolMetrics) -> u64);

fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl MetricsSnapshot {
    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &MetricsSnapshot) {
        for (tool, m) in &other.tools {
            self.tools.entry(tool.clone()).or_default().merge(m);
        }
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Prometheus text exposition format (version 0.0.4).
    pub fn to_prometheus(&self) -> String {
        let mut s = String::new();
        let counters: [Counter; 6] = [
            ("toolwright_tool_calls_total", "Tool calls answered.", |m| {
                m.calls
            }),
            (
                "toolwright_tool_retries_total",
                "Automatic retries of transient failures.",
                |m| m.retries,
            ),
            (
                "toolwright_tool_timeouts_total",
                "Calls cancelled at their deadline.",
                |m| m.timeouts,
            ),
            (
                "toolwright_tool_replays_total",
                "Calls answered from the idempotency store.",
                |m| m.replays,
            ),
            (
                "toolwright_tool_fallbacks_total",
                "Calls answered by a fallback tool.",
                |m| m.fallbacks,
            ),
            (
                "toolwright_tool_over_sla_total",
                "Calls slower than the tool's sla_ms.",
                |m| m.over_sla,
            ),
        ];
        for (name, help, get) in counters {
            let _ = writeln!(s, "# HELP {name} {help}\n# TYPE {name} counter");
            for (tool, m) in &self.tools {
                let _ = writeln!(s, "{name}{{tool=\"{}\"}} {}", label(tool), get(m));
            }
        }
        let name = "toolwright_tool_errors_total";
        let _ = writeln!(
            s,
            "# HELP {name} Failed calls by error code.\n# TYPE {name} counter"
        );
        for (tool, m) in &self.tools {
            for (code, n) in &m.errors {
                let _ = writeln!(
                    s,
                    "{name}{{tool=\"{}\",code=\"{}\"}} {n}",
                    label(tool),
                    label(code)
                );
            }
        }
        let name = "toolwright_tool_duration_ms";
        let _ = writeln!(
            s,
            "# HELP {name} Call latency in milliseconds.\n# TYPE {name} histogram"
        );
        for (tool, m) in &self.tools {
            let t = label(tool);
            let mut cum = 0;
            for (i, bound) in LATENCY_BUCKETS_MS.iter().enumerate() {
                cum += m.latency_ms.counts.get(i).copied().unwrap_or(0);
                let _ = writeln!(s, "{name}_bucket{{tool=\"{t}\",le=\"{bound}\"}} {cum}");
            }
            let _ = writeln!(
                s,
                "{name}_bucket{{tool=\"{t}\",le=\"+Inf\"}} {}",
                m.latency_ms.count
            );
            let _ = writeln!(s, "{name}_sum{{tool=\"{t}\"}} {}", m.latency_ms.sum_ms);
            let _ = writeln!(s, "{name}_count{{tool=\"{t}\"}} {}", m.latency_ms.count);
        }
        s
    }

    /// A plain-text table, one line per tool.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let w = self.tools.keys().map(String::len).max().unwrap_or(4).max(4);
        let _ = writeln!(
            s,
            "{:<w$}  {:>6} {:>6} {:>7} {:>8} {:>7} {:>9} {:>8} {:>8} {:>8}  errors by code",
            "tool",
            "calls",
            "errors",
            "retries",
            "timeouts",
            "replays",
            "fallbacks",
            "over_sla",
            "p50_ms",
            "p95_ms"
        );
        let q = |h: &Histogram, p: f64| {
            h.quantile(p).map_or_else(
                || {
                    if h.count == 0 {
                        "-".into()
                    } else {
                        ">10000".into()
                    }
                },
                |v| format!("≤{v}"),
            )
        };
        for (tool, m) in &self.tools {
            let codes: Vec<String> = m.errors.iter().map(|(c, n)| format!("{c}={n}")).collect();
            let _ = writeln!(
                s,
                "{tool:<w$}  {:>6} {:>6} {:>7} {:>8} {:>7} {:>9} {:>8} {:>8} {:>8}  {}",
                m.calls,
                m.error_total(),
                m.retries,
                m.timeouts,
                m.replays,
                m.fallbacks,
                m.over_sla,
                q(&m.latency_ms, 0.5),
                q(&m.latency_ms, 0.95),
                codes.join(" ")
            );
        }
        s
    }
}

/// The live recorder a runtime writes to.
#[derive(Debug, Default)]
pub struct Metrics {
    inner: Mutex<MetricsSnapshot>,
}

impl Metrics {
    /// Empty metrics.
    pub fn new() -> Self {
        Metrics::default()
    }

    /// Records one finished call of `tool` (with its `sla_ms`, if any).
    pub fn record(&self, tool: &str, sla_ms: Option<u64>, out: &Outcome) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // One lookup for a tool seen before; its name is copied only the first time.
        match g.tools.get_mut(tool) {
            Some(m) => count(m, sla_ms, out),
            None => count(g.tools.entry(tool.to_string()).or_default(), sla_ms, out),
        }
    }

    /// A copy of the counters.
    pub fn snapshot(&self) -> MetricsSnapshot {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Clears the counters.
    pub fn reset(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = MetricsSnapshot::default();
    }
}

/// Adds one finished call to a tool's counters.
fn count(m: &mut ToolMetrics, sla_ms: Option<u64>, out: &Outcome) {
    m.calls += 1;
    if let Some(code) = out.error_code() {
        match m.errors.get_mut(code.as_str()) {
            Some(n) => *n += 1,
            None => {
                m.errors.insert(code.as_str().to_string(), 1);
            }
        }
        if code == ErrorCode::Timeout {
            m.timeouts += 1;
        }
    }
    m.retries += u64::from(out.meta.retries);
    if out.meta.replayed {
        m.replays += 1;
    }
    if out.meta.fallback_from.is_some() {
        m.fallbacks += 1;
    }
    if sla_ms.is_some_and(|sla| out.meta.duration_ms > sla) {
        m.over_sla += 1;
    }
    m.latency_ms.observe(out.meta.duration_ms);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolwright_core::ToolError;

    #[test]
    fn records_and_renders_prometheus() {
        let m = Metrics::new();
        let mut ok = Outcome::success(json!(1));
        ok.meta.duration_ms = 7;
        m.record("get_weather", Some(5), &ok);
        let mut to = Outcome::from_error(ToolError::timeout("slow"));
        to.meta.duration_ms = 300;
        to.meta.retries = 1;
        m.record("get_weather", Some(5), &to);
        let s = m.snapshot();
        let w = &s.tools["get_weather"];
        assert_eq!((w.calls, w.timeouts, w.retries, w.over_sla), (2, 1, 1, 2));
        assert_eq!(w.errors["TIMEOUT"], 1);
        let text = s.to_prometheus();
        assert!(
            text.contains("toolwright_tool_calls_total{tool=\"get_weather\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("toolwright_tool_errors_total{tool=\"get_weather\",code=\"TIMEOUT\"} 1")
        );
        assert!(
            text.contains("toolwright_tool_duration_ms_bucket{tool=\"get_weather\",le=\"10\"} 1")
        );
        assert!(
            text.contains("toolwright_tool_duration_ms_bucket{tool=\"get_weather\",le=\"+Inf\"} 2")
        );
        assert!(text.contains("toolwright_tool_duration_ms_sum{tool=\"get_weather\"} 307"));
        let mut merged = s.clone();
        merged.merge(&s);
        assert_eq!(merged.tools["get_weather"].calls, 4);
        let back: MetricsSnapshot =
            serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        assert!(s.to_table().contains("get_weather"));
    }

    #[test]
    fn quantiles_come_from_buckets() {
        let mut h = Histogram::default();
        for ms in [1, 2, 3, 40, 900] {
            h.observe(ms);
        }
        assert_eq!(h.quantile(0.5), Some(5));
        assert_eq!(h.quantile(1.0), Some(1000));
    }
}

/// Names of the series the runtime emits through the [`metrics`] facade when a runtime is built
/// with [`crate::RuntimeBuilder::export_metrics`]: install any `metrics` recorder (e.g.
/// `metrics-exporter-prometheus`) in the host and they join the host's own.
pub mod names {
    /// Histogram, seconds, labels `tool`, `status`: every answered call.
    pub const CALL_DURATION: &str = "toolwright_tool_call_duration_seconds";
    /// Counter, labels `tool`, `code`: failed calls by error code.
    pub const ERRORS: &str = "toolwright_tool_errors_total";
    /// Counter, label `tool`: automatic retries made.
    pub const RETRIES: &str = "toolwright_tool_retries_total";
    /// Counter, label `tool`: calls answered from the idempotency store.
    pub const REPLAYS: &str = "toolwright_idempotency_replays_total";
    /// Counter, label `tool`: calls refused with `IDEMPOTENCY_CONFLICT`.
    pub const CONFLICTS: &str = "toolwright_idempotency_conflicts_total";
    /// Counter, label `tool`: calls refused with `RATE_LIMITED` (by the tool or the limit).
    pub const RATE_LIMITED: &str = "toolwright_rate_limited_total";
    /// Counter, label `tool`: calls that answered `needs_confirmation`.
    pub const APPROVALS_REQUESTED: &str = "toolwright_approvals_requested_total";
    /// Gauge: calls running now.
    pub const IN_FLIGHT: &str = "toolwright_calls_in_flight";
    /// Histogram, seconds, labels `backend`, `op`: one store round trip.
    pub const STORE_DURATION: &str = "toolwright_store_duration_seconds";
    /// Counter, labels `backend`, `op`: store operations that failed.
    pub const STORE_ERRORS: &str = "toolwright_store_errors_total";
    /// Gauge: calls waiting for a person's approval (set by the host when it is scraped).
    pub const APPROVALS_PENDING: &str = "toolwright_approvals_pending";
}

/// The facade's handles a runtime records every call on, taken when first needed (a host
/// installs its recorder at start-up, before the first call: a handle taken before that would
/// record nowhere). Looking a series up through the facade's macros costs an allocation per
/// label and a hash of the whole key on every call; a handle is a pointer to the series. The
/// series are bounded: the registry's tool names and one series for names that are not tools.
#[derive(Default)]
pub(crate) struct Handles {
    in_flight: std::sync::OnceLock<metrics::Gauge>,
    /// Call durations by tool, then by status ([`status_index`]).
    durations: std::sync::RwLock<HashMap<String, [Option<metrics::Histogram>; 4]>>,
}

fn status_index(s: Status) -> usize {
    match s {
        Status::Success => 0,
        Status::Partial => 1,
        Status::Error => 2,
        Status::NeedsConfirmation => 3,
    }
}

impl Handles {
    /// Records one call's duration on its tool's and status's histogram.
    fn record_duration(&self, tool: &str, status: Status, seconds: f64) {
        let i = status_index(status);
        {
            let map = self.durations.read().unwrap_or_else(|e| e.into_inner());
            if let Some(h) = map
                .get(tool)
                .and_then(|by_status| by_status.get(i))
                .and_then(Option::as_ref)
            {
                h.record(seconds);
                return;
            }
        }
        let h = metrics::histogram!(names::CALL_DURATION, "tool" => tool.to_string(), "status" => status.as_str());
        h.record(seconds);
        let mut map = self.durations.write().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = map.entry(tool.to_string()).or_default().get_mut(i) {
            *slot = Some(h);
        }
    }
}

/// Emits one finished call through the `metrics` facade.
pub(crate) fn emit(handles: &Handles, tool: &str, out: &Outcome, elapsed: std::time::Duration) {
    handles.record_duration(tool, out.status(), elapsed.as_secs_f64());
    let label = || tool.to_string();
    if let Some(code) = out.error_code() {
        metrics::counter!(names::ERRORS, "tool" => label(), "code" => code.as_str()).increment(1);
        match code {
            ErrorCode::IdempotencyConflict => {
                metrics::counter!(names::CONFLICTS, "tool" => label()).increment(1);
            }
            ErrorCode::RateLimited => {
                metrics::counter!(names::RATE_LIMITED, "tool" => label()).increment(1);
            }
            _ => {}
        }
    }
    if out.meta.retries > 0 {
        metrics::counter!(names::RETRIES, "tool" => label()).increment(u64::from(out.meta.retries));
    }
    if out.meta.replayed {
        metrics::counter!(names::REPLAYS, "tool" => label()).increment(1);
    }
    if out.status() == Status::NeedsConfirmation {
        metrics::counter!(names::APPROVALS_REQUESTED, "tool" => label()).increment(1);
    }
}

/// Counts a call in flight through the `metrics` facade until dropped.
pub(crate) struct InFlight<'a>(&'a metrics::Gauge);

impl<'a> InFlight<'a> {
    pub(crate) fn start(handles: &'a Handles) -> Self {
        let gauge = handles
            .in_flight
            .get_or_init(|| metrics::gauge!(names::IN_FLIGHT));
        gauge.increment(1.0);
        InFlight(gauge)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}
