//! Protobuf code generation for the `arbiter.v1` contract, with no system
//! `protoc`: protox compiles `proto/`, tonic-prost-build writes the Rust
//! types and service, and the descriptor set is kept for server reflection.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let descriptors = protox::compile(["arbiter/v1/arbiter.proto"], ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("arbiter_descriptor.bin"), descriptors.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        // Malformed requests are INVALID_ARGUMENT, not prost's INTERNAL.
        .codec_path("crate::api::codec::ArbiterCodec")
        .compile_fds(descriptors)?;
    Ok(())
}
