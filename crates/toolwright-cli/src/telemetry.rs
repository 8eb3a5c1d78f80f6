//! The process's tracing subscriber: the log on stderr (`RUST_LOG`, `-v`/`-q`, colour only on a
//! terminal), and with the `otel` feature the export of the spans over OTLP/HTTP when an
//! endpoint is configured.
//!
//! The libraries emit their spans with `tracing` only (`invoke_agent`, `chat {model}`,
//! `execute_tool {tool}`, after the OpenTelemetry GenAI semantic conventions); this module is
//! the one place that decides where they go.

use crate::Global;
use std::io::IsTerminal;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// What must happen before the process exits: the exporter's flush.
#[derive(Default)]
#[must_use = "call shutdown() before exiting, or spans still buffered are lost"]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Telemetry {
    /// Sends the spans still buffered and stops the exporter (bounded: a collector that does not
    /// answer delays the exit by a few seconds at most). Call it once, outside the async runtime.
    pub fn shutdown(self) {
        #[cfg(feature = "otel")]
        if let Some(provider) = self.provider
            && let Err(e) = provider.shutdown_with_timeout(otel::SHUTDOWN_TIMEOUT)
        {
            eprintln!("toolwright: the OTLP exporter did not flush its spans: {e}");
        }
    }
}

/// The log level when neither `RUST_LOG` nor `TOOLWRIGHT_LOG` is set: `warn`, `-q` errors only,
/// `-v` info, `-vv` debug, `-vvv` trace.
fn default_level(global: &Global) -> &'static str {
    if global.quiet {
        return "error";
    }
    match global.verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    }
}

/// The stderr log's filter: `TOOLWRIGHT_LOG`, else `RUST_LOG` (both in `EnvFilter` syntax, e.g.
/// `toolwright_runtime=debug,warn`), else the level of the flags. A variable that does not parse
/// is reported and the flags' level used.
fn log_filter(global: &Global) -> EnvFilter {
    for var in ["TOOLWRIGHT_LOG", "RUST_LOG"] {
        match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => match EnvFilter::try_new(&v) {
                Ok(f) => return f,
                Err(e) => eprintln!("toolwright: {var}={v:?} is not a log filter ({e}); ignored"),
            },
            _ => {}
        }
    }
    EnvFilter::new(default_level(global))
}

/// Colour codes only on a terminal, and never with `NO_COLOR` set (non-empty).
fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Installs the global subscriber. Call once, before the async runtime starts (the OTLP exporter
/// builds its blocking HTTP client here).
pub fn init(global: &Global) -> Telemetry {
    let log = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(colour())
        .with_filter(log_filter(global))
        .boxed();
    let layers: Vec<Box<dyn Layer<Registry> + Send + Sync>>;
    let telemetry;
    #[cfg(feature = "otel")]
    {
        let exporter = otel::layer(global);
        telemetry = Telemetry {
            provider: exporter.as_ref().map(|(_, p)| p.clone()),
        };
        layers = std::iter::once(log)
            .chain(exporter.map(|(l, _)| l))
            .collect();
    }
    #[cfg(not(feature = "otel"))]
    {
        if let Some(endpoint) = global.otlp_endpoint.as_deref() {
            eprintln!(
                "toolwright: --otlp-endpoint {endpoint} ignored: this build has no `otel` \
                 feature (cargo install toolwright-cli --features otel)"
            );
        }
        telemetry = Telemetry::default();
        layers = vec![log];
    }
    // A second init (tests) keeps the first subscriber.
    let _ = tracing_subscriber::registry().with(layers).try_init();
    telemetry
}

#[cfg(feature = "otel")]
mod otel {
    //! OTLP/HTTP (protobuf) export of the toolwright spans.

    use crate::Global;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::{SpanExporter, WithExportConfig};
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use std::time::Duration;
    use tracing::level_filters::LevelFilter;
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::{Layer, Registry};

    /// How long the exit waits for the last spans to be sent.
    pub(super) const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

    /// The variables that turn the export on (the OpenTelemetry SDK's own names).
    const ENDPOINT_VARS: [&str; 2] = [
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
    ];

    /// The traces URL of `--otlp-endpoint`: a base URL like `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// (`/v1/traces` appended), or already the traces URL.
    pub(super) fn traces_url(base: &str) -> String {
        let base = base.trim().trim_end_matches('/');
        if base.ends_with("/v1/traces") {
            base.to_string()
        } else {
            format!("{base}/v1/traces")
        }
    }

    /// Whether the export is configured: the flag, or one of the SDK's variables (non-empty),
    /// unless `OTEL_SDK_DISABLED=true`.
    fn configured(global: &Global) -> bool {
        let disabled =
            std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let from_env = ENDPOINT_VARS
            .iter()
            .any(|v| std::env::var(v).is_ok_and(|s| !s.trim().is_empty()));
        !disabled && (global.otlp_endpoint.is_some() || from_env)
    }

    /// The OpenTelemetry layer and its provider, when the export is configured; a configuration
    /// the exporter refuses (a malformed URL) is reported on stderr and the export left off.
    pub(super) fn layer(
        global: &Global,
    ) -> Option<(Box<dyn Layer<Registry> + Send + Sync>, SdkTracerProvider)> {
        if !configured(global) {
            return None;
        }
        // reqwest is built without a default TLS backend: ring, never aws-lc-rs.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = SpanExporter::builder().with_http();
        if let Some(base) = global.otlp_endpoint.as_deref() {
            builder = builder.with_endpoint(traces_url(base));
        }
        let exporter = match builder.build() {
            Ok(e) => e,
            Err(e) => {
                eprintln!("toolwright: OTLP export is off: {e}");
                return None;
            }
        };
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource())
            .build();
        let tracer = provider.tracer("toolwright");
        // Only toolwright's spans: no HTTP-stack internals, and never the exporter's own
        // diagnostics (they would feed back into the export).
        let filter = Targets::new().with_target("toolwright", LevelFilter::INFO);
        let layer = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(filter)
            .boxed();
        Some((layer, provider))
    }

    /// `service.name` `toolwright` unless `OTEL_SERVICE_NAME` says otherwise, the version, and
    /// what `OTEL_RESOURCE_ATTRIBUTES` adds.
    fn resource() -> Resource {
        let mut b = Resource::builder().with_attribute(opentelemetry::KeyValue::new(
            "service.version",
            env!("CARGO_PKG_VERSION"),
        ));
        if std::env::var("OTEL_SERVICE_NAME").is_ok_and(|s| !s.trim().is_empty()) {
            return b.build();
        }
        b = b.with_service_name("toolwright");
        b.build()
    }

    #[cfg(test)]
    mod tests {
        use super::traces_url;

        #[test]
        fn the_flag_is_a_base_url_or_the_traces_url() {
            assert_eq!(
                traces_url("http://127.0.0.1:4318"),
                "http://127.0.0.1:4318/v1/traces"
            );
            assert_eq!(
                traces_url("http://collector:4318/"),
                "http://collector:4318/v1/traces"
            );
            assert_eq!(
                traces_url("https://c.example/otlp/v1/traces"),
                "https://c.example/otlp/v1/traces"
            );
        }
    }
}
