//! Protobuf code generation for the `arbiter.v1` contract, with no system
//! `protoc`: protox compiles `proto/`, tonic-prost-build writes the Rust
//! types and the client, and the descriptor set is kept for server
//! reflection. The server is generated apart, with tonic-build's manual
//! service: the same routes, but its game requests and answers are the
//! hand-written messages of `api::wire` (move texts decoded into one
//! buffer, answers encoded straight from the replay).

use std::path::PathBuf;

use prost::Message;
use tonic_build::manual::{Method, Service};

/// The codec of every method: prost's, with malformed requests answered
/// INVALID_ARGUMENT.
const CODEC: &str = "crate::api::codec::ArbiterCodec";

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
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(false)
        // Malformed requests are INVALID_ARGUMENT, not prost's INTERNAL.
        .codec_path(CODEC)
        .compile_fds(descriptors)?;
    // The routes are the contract's (tests/service.rs calls each through the
    // generated client).
    let rules = Service::builder()
        .name("RulesService")
        .package("arbiter.v1")
        .method(
            method(
                "validate_game",
                "ValidateGame",
                "crate::api::wire::ValidateGameRequest",
                "crate::api::wire::ValidateGameResponse",
            )
            .build(),
        )
        .method(
            method(
                "validate_games",
                "ValidateGames",
                "crate::api::wire::ValidateGamesRequest",
                "crate::api::wire::ValidateGamesResponse",
            )
            .client_streaming()
            .server_streaming()
            .build(),
        )
        .method(
            method(
                "legal_moves",
                "LegalMoves",
                "crate::api::wire::LegalMovesRequest",
                "crate::proto::LegalMovesResponse",
            )
            .build(),
        )
        .method(
            method("perft", "Perft", "crate::proto::PerftRequest", "crate::proto::PerftResponse")
                .build(),
        )
        .build();
    tonic_build::manual::Builder::new().build_client(false).compile(&[rules]);
    Ok(())
}
