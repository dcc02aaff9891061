//! Traces and logs of the real binary: `arbiter serve` with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP receiver in this test
//! (the trace service of `opentelemetry-proto` on 127.0.0.1) exports a span
//! per RPC with its attributes, continuing the trace of the `traceparent`
//! the client sent, and flushes them on SIGTERM; `--log-format json` writes
//! JSON lines, and a client's bad request is not logged as an error.
//!
//! The exporter is process-wide, so the server runs as its own process; that
//! also tests the flush on shutdown.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use arbiter::proto::{self, rules_service_client::RulesServiceClient};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value::Value};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::Value as Json;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::{Code, Request, Response, Status};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// The OTLP trace service: passes every export request on to the test.
struct Receiver(mpsc::UnboundedSender<ExportTraceServiceRequest>);

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let _ = self.0.send(request.into_inner());
        Ok(Response::new(ExportTraceServiceResponse { partial_success: None }))
    }
}

/// Kills the server if the test fails before it stops it.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Value> {
    attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?.value.as_ref()
}

fn text(value: Option<&Value>) -> Option<&str> {
    match value {
        Some(Value::StringValue(s)) => Some(s),
        _ => None,
    }
}

fn int(value: Option<&Value>) -> Option<i64> {
    match value {
        Some(Value::IntValue(i)) => Some(*i),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_reach_the_otlp_receiver_with_the_callers_trace() {
    let receiver = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let receiver_addr = receiver.local_addr().unwrap();
    let (exports_tx, mut exports) = mpsc::unbounded_channel();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(Receiver(exports_tx)))
            .serve_with_incoming(TcpListenerStream::new(receiver)),
    );

    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("ARBITER_") || name.starts_with("OTEL_") {
            command.env_remove(name);
        }
    }
    let child = command
        .args(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"])
        .args(["--log-format", "json"])
        .env("RUST_LOG", "info")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{receiver_addr}"))
        // Only the flush on shutdown can deliver the spans in time.
        .env("OTEL_BSP_SCHEDULE_DELAY", "600000")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arbiter starts");
    let mut server = Server(child);
    let stderr = server.0.stderr.take().unwrap();
    let (lines_tx, lines) = std_mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let mut log = Vec::new();
    let listen = loop {
        let line =
            lines.recv_timeout(Duration::from_secs(30)).expect("the server logs its address");
        let json: Json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        log.push(json.clone());
        if json["fields"]["message"] == "serving arbiter.v1.RulesService" {
            break json["fields"]["listen"].as_str().unwrap().to_owned();
        }
    };

    let mut client = RulesServiceClient::connect(format!("http://{listen}")).await.unwrap();
    let mut mate = Request::new(proto::ValidateGameRequest {
        moves: ["f3", "e5", "g4", "Qh4#"].map(String::from).to_vec(),
        ..Default::default()
    });
    let traceparent = format!("00-{TRACE_ID}-{PARENT_ID}-01");
    mate.metadata_mut().insert("traceparent", traceparent.parse().unwrap());
    client.validate_game(mate).await.unwrap();
    let bad = proto::ValidateGameRequest {
        fen: "8/8/8/8/8/8/8/8 w - - 0 1".into(),
        ..Default::default()
    };
    assert_eq!(client.validate_game(bad).await.unwrap_err().code(), Code::InvalidArgument);

    let pid = server.0.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
    assert!(killed.success());
    let status = tokio::task::spawn_blocking(move || {
        let status = server.0.wait();
        (server, status)
    });
    let (_server, status) = tokio::time::timeout(Duration::from_secs(30), status)
        .await
        .expect("the server exits after SIGTERM")
        .unwrap();
    assert!(status.unwrap().success());
    reader.join().unwrap();
    for line in lines.try_iter() {
        log.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")));
    }
    // A client's mistake is not a server error.
    let errors: Vec<&Json> = log.iter().filter(|line| line["level"] == "ERROR").collect();
    assert!(errors.is_empty(), "{errors:?}");

    let mut spans = Vec::new();
    while let Ok(export) = exports.try_recv() {
        for resource_spans in export.resource_spans {
            let resource = resource_spans.resource.unwrap_or_default();
            assert_eq!(text(attribute(&resource.attributes, "service.name")), Some("arbiter"));
            for scope in resource_spans.scope_spans {
                spans.extend(scope.spans);
            }
        }
    }
    let names: Vec<&str> = spans.iter().map(|span| span.name.as_str()).collect();
    let calls: Vec<_> =
        spans.iter().filter(|span| span.name == "arbiter.v1.RulesService/ValidateGame").collect();
    assert_eq!(calls.len(), 2, "spans: {names:?}");

    let traced =
        calls.iter().find(|span| hex(&span.trace_id) == TRACE_ID).expect("the caller's trace");
    assert_eq!(hex(&traced.parent_span_id), PARENT_ID);
    assert_eq!(traced.kind, SpanKind::Server as i32);
    let attrs = &traced.attributes;
    assert_eq!(text(attribute(attrs, "rpc.system")), Some("grpc"));
    assert_eq!(text(attribute(attrs, "rpc.service")), Some("arbiter.v1.RulesService"));
    assert_eq!(text(attribute(attrs, "rpc.method")), Some("ValidateGame"));
    assert_eq!(int(attribute(attrs, "rpc.grpc.status_code")), Some(0));
    assert_eq!(int(attribute(attrs, "arbiter.moves")), Some(4), "{attrs:?}");
    assert_eq!(text(attribute(attrs, "arbiter.outcome")), Some("CHECKMATE"));
    assert!(attrs.iter().all(|kv| !format!("{:?}", kv.value).contains("Qh4")), "{attrs:?}");

    let refused = calls.iter().find(|span| hex(&span.trace_id) != TRACE_ID).unwrap();
    assert!(refused.parent_span_id.is_empty(), "no traceparent, a new trace");
    assert_eq!(int(attribute(&refused.attributes, "rpc.grpc.status_code")), Some(3));
    // INVALID_ARGUMENT is the caller's fault: not an error span.
    let status = refused.status.clone().unwrap_or_default();
    assert_ne!(status.code, StatusCode::Error as i32);
}
