//! What operators see of a running server: logs through `tracing`,
//! Prometheus metrics ([`prometheus`]), a span per RPC ([`rpc`]) and, only when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set, OpenTelemetry traces over OTLP/gRPC.

pub mod prometheus;
pub mod rpc;

use std::io::{self, IsTerminal};

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithTonicConfig as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tonic::transport::ClientTlsConfig;
use tracing::Span;
use tracing::level_filters::LevelFilter;
use tracing_subscriber::Registry;
use tracing_subscriber::filter::{EnvFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, fmt};

pub use rpc::RpcLayer;

use crate::proto;
use arbiter_chess::{IllegalMove, IllegalReason, Notation, Outcome, Termination};

/// The variable that turns OTLP trace export on, as the OpenTelemetry
/// specification names it.
pub const OTLP_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The `service.name` of the exported spans unless `OTEL_SERVICE_NAME` or
/// `OTEL_RESOURCE_ATTRIBUTES` says otherwise.
pub const SERVICE_NAME: &str = "arbiter";

/// How log lines are written to standard error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (colour only on a terminal).
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Why telemetry could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// `RUST_LOG` does not parse.
    #[error("RUST_LOG: {0}")]
    LogFilter(#[from] tracing_subscriber::filter::FromEnvError),
    /// A log directive of our own does not parse.
    #[error("log directive: {0}")]
    Directive(#[from] tracing_subscriber::filter::ParseError),
    /// Another subscriber was installed first.
    #[error("cannot install the log subscriber: {0}")]
    Subscriber(#[from] tracing_subscriber::util::TryInitError),
    /// The OTLP exporter could not be built from the `OTEL_*` settings.
    #[error("OTLP exporter: {0}")]
    Otlp(#[from] opentelemetry_otlp::ExporterBuildError),
    /// Another metrics recorder was installed first.
    #[error("cannot install the metrics recorder: another one is installed")]
    Recorder,
}

/// Logging and tracing for the life of the process. Dropping it, or
/// [`Telemetry::shutdown`], flushes the spans not yet exported.
#[derive(Debug)]
pub struct Telemetry {
    tracer_provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Installs the global log subscriber: `RUST_LOG` filters it (default
    /// `info`), lines go to standard error in `format`. When
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is set, spans of `arbiter` at INFO and
    /// above are also exported over OTLP/gRPC by a batch exporter, and W3C
    /// `traceparent` headers are honoured; the other `OTEL_*` variables
    /// (headers, timeout, `OTEL_BSP_*`, sampler, resource) apply as the
    /// OpenTelemetry SDK reads them.
    ///
    /// Call it once per process, inside the Tokio runtime that will serve:
    /// the gRPC exporter's connection lives on it.
    ///
    /// # Errors
    ///
    /// A [`TelemetryError`] if `RUST_LOG` is invalid, a subscriber is already
    /// installed, or the exporter cannot be built.
    pub fn init(format: LogFormat) -> Result<Telemetry, TelemetryError> {
        // RPC spans are for the exporter, not for log lines (formatting them
        // would cost every call): without the exporter they are disabled
        // outright; log lines of a call name its method themselves.
        let no_rpc_spans = format!("{}=off", rpc::SPAN_TARGET).parse()?;
        let filter = EnvFilter::builder()
            .with_default_directive(LevelFilter::INFO.into())
            .from_env()?
            .add_directive(no_rpc_spans);
        let logs = fmt::layer().with_writer(io::stderr);
        let logs = match format {
            LogFormat::Text => logs.with_ansi(io::stderr().is_terminal()).boxed(),
            LogFormat::Json => {
                logs.with_ansi(false).json().with_current_span(true).with_span_list(false).boxed()
            }
        };
        let tracer_provider = match std::env::var_os(OTLP_ENDPOINT_ENV) {
            Some(endpoint) if !endpoint.is_empty() => Some(otlp_provider()?),
            _ => None,
        };
        // Per-layer filters: RUST_LOG=warn must not silence the exported RPC
        // spans, and exporting spans must not turn on INFO logs. A list, not
        // an `Option`: a `None` layer would enable every span and event.
        let mut layers: Vec<Box<dyn Layer<Registry> + Send + Sync>> =
            vec![logs.with_filter(filter).boxed()];
        if let Some(provider) = &tracer_provider {
            let traces = tracing_opentelemetry::layer()
                .with_tracer(provider.tracer("arbiter"))
                .with_location(false)
                .with_threads(false)
                .with_filter(Targets::new().with_target("arbiter", LevelFilter::INFO));
            layers.push(traces.boxed());
        }
        tracing_subscriber::registry().with(layers).try_init()?;
        if tracer_provider.is_some() {
            opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        }
        Ok(Telemetry { tracer_provider })
    }

    /// Whether spans are exported over OTLP.
    pub fn exports_traces(&self) -> bool {
        self.tracer_provider.is_some()
    }

    /// Exports the spans still queued and stops the exporter. Call it
    /// outside `block_on` of a current-thread runtime: it waits for the
    /// exporter, which needs the runtime's threads.
    pub fn shutdown(mut self) {
        self.flush();
    }

    fn flush(&mut self) {
        if let Some(provider) = self.tracer_provider.take()
            && let Err(err) = provider.shutdown()
        {
            eprintln!("arbiter: exporting the last spans failed: {err}");
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A tracer provider with a batch OTLP/gRPC exporter configured from the
/// `OTEL_*` variables, its `service.name` defaulting to [`SERVICE_NAME`].
/// An `https` endpoint is verified against the bundled webpki root store,
/// not the host's: the container image carries no certificates.
fn otlp_provider() -> Result<SdkTracerProvider, TelemetryError> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_tls_config(ClientTlsConfig::new().with_webpki_roots())
        .build()?;
    let detected = Resource::builder().build();
    let named = detected
        .get(&opentelemetry::Key::from_static_str("service.name"))
        .is_some_and(|name| !name.as_str().starts_with("unknown_service"));
    let resource =
        if named { detected } else { Resource::builder().with_service_name(SERVICE_NAME).build() };
    Ok(SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build())
}

/// What one replayed game came to, for the metrics and the RPC span: a few
/// words and counts, never the moves or the FEN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// The notation the request asked for.
    pub notation: Notation,
    /// The rules: standard chess, Chess960 or one of lichess's variants.
    pub variant: proto::Variant,
    /// Moves in the request.
    pub moves: usize,
    /// Moves checked: up to and including the first illegal one.
    pub checked: usize,
    /// Why the first illegal move was refused, if one was.
    pub illegal: Option<IllegalReason>,
    /// How the game ended, if its final position ends it.
    pub termination: Option<Termination>,
}

impl GameSummary {
    /// The report of a replayed game of `moves` moves read as `notation`
    /// under `variant`: its first illegal move, if any, and its outcome.
    pub fn new(
        notation: Notation,
        variant: proto::Variant,
        moves: usize,
        illegal_move: Option<&IllegalMove>,
        outcome: &Outcome,
    ) -> GameSummary {
        GameSummary {
            notation,
            variant,
            moves,
            checked: illegal_move.map_or(moves, |illegal| illegal.index + 1),
            illegal: illegal_move.map(|illegal| illegal.reason),
            termination: outcome.termination,
        }
    }

    /// Adds the game to the domain metrics.
    pub fn count(&self) {
        prometheus::count_game(self);
    }

    /// Records the game on an RPC's span: moves, outcome, illegal reason.
    pub fn annotate(&self, span: &Span) {
        // OTLP has no unsigned integers: a u64 would arrive as a string.
        span.record("arbiter.moves", i64::try_from(self.moves).unwrap_or(i64::MAX));
        span.record(
            "arbiter.outcome",
            self.termination.map_or("ONGOING", prometheus::termination_label),
        );
        if let Some(reason) = self.illegal {
            span.record("arbiter.illegal_reason", prometheus::reason_label(reason));
        }
    }
}
