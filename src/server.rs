//! The gRPC server: the rules service with health, reflection and gRPC-Web,
//! limits, and a graceful drain that ends in a hard cut-off.

use std::future::Future;
use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::transport::Server;
use tonic_health::ServingStatus;

use crate::admission::AdmissionLayer;
use crate::api::service::Handlers;
use crate::cache::ReplayCache;
use crate::config::{CorsOrigins, ServeConfig};
use crate::proto::rules_service_server::RulesServiceServer;
use crate::telemetry::{self, RpcLayer, TelemetryError};

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The reflection service could not be built from the descriptors.
    #[error("reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// The transport failed.
    #[error("transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The metrics address could not be bound.
    #[error("cannot listen on {addr} for metrics: {source}")]
    MetricsListen { addr: SocketAddr, source: std::io::Error },
    /// The metrics recorder could not be installed.
    #[error("metrics: {0}")]
    Telemetry(#[from] TelemetryError),
    /// The configuration cannot serve, e.g. a TLS file changed since the
    /// start-up checks.
    #[error("configuration: {0}")]
    Config(#[from] crate::config::ConfigError),
}

/// The name health checks use for the rules service.
pub const SERVICE_NAME: &str = crate::proto::routes::RULES_SERVICE;

/// Serves gRPC on `listener` and Prometheus metrics on
/// `config.metrics_listen` until `shutdown` completes, then drains (see
/// [`serve`]).
///
/// # Errors
///
/// [`ServerError::MetricsListen`] if the metrics address cannot be bound,
/// else as [`serve`].
pub async fn run(
    listener: TcpListener,
    config: ServeConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let addr = config.metrics_listen;
    let metrics = TcpListener::bind(addr)
        .await
        .map_err(|source| ServerError::MetricsListen { addr, source })?;
    serve(listener, metrics, config, shutdown).await
}

/// Serves gRPC on `listener` and `GET /metrics` on `metrics` until
/// `shutdown` completes, then drains: health turns NOT_SERVING, no new
/// connections are taken, in-flight calls have `config.drain` to finish, and
/// whatever is still open then is cut off. The metrics endpoint answers until
/// the end of the drain. Every call passes through [`RpcLayer`], outside the
/// service, so shed and failed calls are counted too.
///
/// # Errors
///
/// A [`ServerError`] if the metrics recorder cannot be installed, reflection
/// cannot be built or the transport fails.
pub async fn serve(
    listener: TcpListener,
    metrics: TcpListener,
    config: ServeConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let handle = telemetry::prometheus::install()?;
    telemetry::rpc::register_at_zero();
    if let Ok(addr) = metrics.local_addr() {
        tracing::info!(%addr, "Prometheus metrics at /metrics");
    }
    let rules = Handlers::new(config.limits(), ReplayCache::new(config.cache_bytes));
    let cache = rules.cache().cloned();
    let before_scrape = move || cache.iter().for_each(|cache| cache.publish_size());
    let metrics_limits = config.metrics_limits();
    tokio::select! {
        result = serve_grpc(listener, config, rules, shutdown) => result,
        never = crate::metrics_endpoint::serve(
            metrics,
            metrics_limits,
            handle,
            before_scrape,
        ) => match never {},
    }
}

async fn serve_grpc(
    listener: TcpListener,
    config: ServeConfig,
    rules: Handlers,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let (health, health_service) = tonic_health::server::health_reporter();
    for name in ["", SERVICE_NAME] {
        health.set_service_status(name, ServingStatus::Serving).await;
    }
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
    let rules =
        RulesServiceServer::new(rules).max_decoding_message_size(config.max_message_bytes as usize);
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    let admission = AdmissionLayer::new(
        SERVICE_NAME,
        &crate::proto::routes::RULES_STREAMING_PATHS,
        config.admission(workers),
    );
    // Ends by itself once the server, and with it the layer, is gone.
    tokio::spawn(admission.watch_stalls());

    let cors = cors_layer(&config.cors_origins()?);
    let tls = config.tls()?;
    let (cut_frames, under_tls) = (tls.is_none(), tls.is_some());
    let builder = match tls {
        // tonic sets no bound of its own on the TLS handshake.
        Some(tls) => Server::builder().tls_config(tls.timeout(config.handshake_timeout))?,
        None => Server::builder(),
    };
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let server = builder
        .accept_http1(true)
        .max_concurrent_streams(config.max_streams_per_connection)
        .http2_keepalive_interval(Some(config.keepalive_interval))
        .http2_keepalive_timeout(Some(config.keepalive_timeout))
        .max_connection_age(config.max_connection_age)
        .max_connection_age_grace(config.max_connection_age_grace)
        // Outermost, so that every call holds its connection open.
        .layer(crate::listener::StreamsLayer)
        .layer(tower::util::MapResponseLayer::new(crate::listener::ShortFrames::responses(
            cut_frames,
        )))
        // Outside gRPC-Web: a preflight (OPTIONS) is answered here, and the
        // grant is added to the gRPC-Web answers, trailers-only ones too.
        .layer(tower::util::option_layer(cors))
        .layer(tonic_web::GrpcWebLayer::new())
        // Inside gRPC-Web, so that it sees native trailers; outside the size
        // rewrite, so that it counts the status the caller gets.
        .layer(RpcLayer)
        .layer(tower::util::MapResponseLayer::new(crate::api::size_limit_response))
        // Innermost, so that the layers above see and count the shed calls.
        .layer(admission)
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(rules)
        .serve_with_incoming_shutdown(
            crate::listener::incoming(
                listener,
                config.connection_limits(),
                crate::listener::Port::Grpc { tls: under_tls },
            ),
            async {
                let _ = stop_rx.await;
            },
        );
    tokio::pin!(server);
    tokio::select! {
        result = &mut server => return Ok(result?),
        () = shutdown => {}
    }
    tracing::info!(drain = ?config.drain, "shutting down: health NOT_SERVING, draining calls");
    for name in ["", SERVICE_NAME] {
        health.set_service_status(name, ServingStatus::NotServing).await;
    }
    let _ = stop_tx.send(());
    match tokio::time::timeout(config.drain, server).await {
        Ok(result) => Ok(result?),
        Err(_) => {
            tracing::warn!("drain period over: closing the connections still open");
            Ok(())
        }
    }
}

/// Request headers a gRPC-Web client sends (besides the CORS-safelisted
/// ones), which a preflight must allow.
const GRPC_WEB_REQUEST_HEADERS: [&str; 4] =
    ["content-type", "x-grpc-web", "x-user-agent", "grpc-timeout"];

/// Response headers a gRPC-Web client must read: a trailers-only answer (an
/// error) carries its status and details in the headers, which a browser
/// hides from the page unless exposed.
const GRPC_WEB_RESPONSE_HEADERS: [&str; 3] =
    ["grpc-status", "grpc-message", "grpc-status-details-bin"];

/// How long a browser may cache a preflight's answer.
const CORS_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// The CORS layer for gRPC-Web callers on the listed origins, or none at all
/// (no cross-origin access) for an empty list. A preflight from an origin
/// not listed gets an answer without any `Access-Control-Allow-*` grant, so
/// the browser refuses the call.
fn cors_layer(origins: &CorsOrigins) -> Option<tower_http::cors::CorsLayer> {
    use tonic::codegen::http::{HeaderName, HeaderValue, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let allow_origin = match origins {
        CorsOrigins::None => return None,
        CorsOrigins::Any => AllowOrigin::any(),
        CorsOrigins::List(list) => AllowOrigin::list(
            // Checked at start-up (`config::parse_origin`): plain ASCII.
            list.iter().filter_map(|origin| HeaderValue::from_str(origin).ok()),
        ),
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow_origin)
            .allow_methods([Method::POST])
            .allow_headers(GRPC_WEB_REQUEST_HEADERS.map(HeaderName::from_static))
            .expose_headers(GRPC_WEB_RESPONSE_HEADERS.map(HeaderName::from_static))
            .max_age(CORS_MAX_AGE),
    )
}

/// Completes on SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
