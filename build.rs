//! Protobuf code generation for the `arbiter.v1` contract, with no system
//! `protoc`: protox compiles `proto/`, tonic-prost-build writes the Rust
//! types and the client, and the descriptor set is kept for server
//! reflection. The server is generated apart, with tonic-build's manual
//! service built from the descriptor's methods: the same routes, but its
//! game requests and answers are the hand-written messages of `api::wire`
//! (move texts decoded into one buffer, answers encoded straight from the
//! replay). The service's paths are written out as constants
//! (`proto::routes`) for the layers that label or admit calls by path.
//!
//! Without the `service` feature (the Python wheel's build) only the
//! messages are written: no client, no server, nothing that needs tonic.

use std::path::PathBuf;

use prost::Message;
use tonic_build::manual::{Method, Service};

/// The codec of every method: prost's, with malformed requests answered
/// INVALID_ARGUMENT.
const CODEC: &str = "crate::api::codec::ArbiterCodec";

const PACKAGE: &str = "arbiter.v1";
const SERVICE: &str = "RulesService";

/// The messages the server reads or writes by hand (`api::wire`), by their
/// contract name; the others are the generated types.
const HAND_WRITTEN: [(&str, &str); 5] = [
    ("ValidateGameRequest", "crate::api::wire::ValidateGameRequest"),
    ("ValidateGameResponse", "crate::api::wire::GameAnswer"),
    ("ValidateGamesRequest", "crate::api::wire::ValidateGamesRequest"),
    ("ValidateGamesResponse", "crate::api::wire::StreamAnswer"),
    ("LegalMovesRequest", "crate::api::wire::LegalMovesRequest"),
];

/// The Rust type the server uses for a message named `.arbiter.v1.Name`.
fn rust_type(full_name: &str) -> String {
    let name = full_name.rsplit('.').next().unwrap_or(full_name);
    HAND_WRITTEN
        .iter()
        .find(|(message, _)| *message == name)
        .map_or_else(|| format!("crate::proto::{name}"), |(_, path)| (*path).to_owned())
}

/// `ValidateGame` as `validate_game`.
fn snake_case(name: &str) -> String {
    let mut snake = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

/// The source of `proto::routes`: the service's paths, as constants.
fn routes_source(paths: &[String], streaming: &[String]) -> String {
    let list =
        |paths: &[String]| paths.iter().map(|path| format!("    {path:?},\n")).collect::<String>();
    format!(
        "/// The rules service's name, as its paths and health checks use it.\n\
         pub const RULES_SERVICE: &str = \"{PACKAGE}.{SERVICE}\";\n\
         /// The gRPC path of every method of the rules service.\n\
         pub const RULES_PATHS: [&str; {}] = [\n{}];\n\
         /// The paths of its methods whose requests or answers stream.\n\
         pub const RULES_STREAMING_PATHS: [&str; {}] = [\n{}];\n",
        paths.len(),
        list(paths),
        streaming.len(),
        list(streaming),
    )
}

fn method(
    name: &str,
    route: &str,
    input: &str,
    output: &str,
) -> tonic_build::manual::MethodBuilder {
    Method::builder()
        .name(name)
        .route_name(route)
        .input_type(input)
        .output_type(output)
        .codec_path(CODEC)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let descriptors = protox::compile(["arbiter/v1/arbiter.proto"], ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("arbiter_descriptor.bin"), descriptors.encode_to_vec())?;
    let service = std::env::var_os("CARGO_FEATURE_SERVICE").is_some();
    tonic_prost_build::configure()
        .build_client(service)
        .build_server(false)
        // Malformed requests are INVALID_ARGUMENT, not prost's INTERNAL.
        .codec_path(CODEC)
        .compile_fds(descriptors.clone())?;
    if !service {
        return Ok(());
    }
    // The server's routes and the list of paths the rest of the crate uses
    // both come from the contract's descriptor: a new RPC is one edit of
    // the proto (and its handler).
    let file = descriptors
        .file
        .iter()
        .find(|file| file.package() == PACKAGE)
        .ok_or("no file declares package arbiter.v1")?;
    let service = file
        .service
        .iter()
        .find(|service| service.name() == SERVICE)
        .ok_or("arbiter.v1 declares no RulesService")?;
    let mut rules = Service::builder().name(SERVICE).package(PACKAGE);
    let mut paths = Vec::new();
    let mut streaming = Vec::new();
    for rpc in &service.method {
        let mut builder = method(
            &snake_case(rpc.name()),
            rpc.name(),
            &rust_type(rpc.input_type()),
            &rust_type(rpc.output_type()),
        );
        if rpc.client_streaming() {
            builder = builder.client_streaming();
        }
        if rpc.server_streaming() {
            builder = builder.server_streaming();
        }
        rules = rules.method(builder.build());
        let path = format!("/{PACKAGE}.{SERVICE}/{}", rpc.name());
        if rpc.client_streaming() || rpc.server_streaming() {
            streaming.push(path.clone());
        }
        paths.push(path);
    }
    std::fs::write(out.join("rules_routes.rs"), routes_source(&paths, &streaming))?;
    let rules = rules.build();
    tonic_build::manual::Builder::new().build_client(false).compile(&[rules]);
    Ok(())
}
