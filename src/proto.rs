//! The generated `arbiter.v1` types and service, and the descriptor set that
//! server reflection publishes. Without the `service` feature, the types
//! alone (see build.rs).

#![allow(missing_docs, clippy::all, clippy::pedantic)]

// `tonic::include_proto!` without tonic: the messages need only prost.
include!(concat!(env!("OUT_DIR"), "/arbiter.v1.rs"));

/// The encoded `FileDescriptorSet` of `proto/`, for reflection.
#[cfg(feature = "service")]
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("arbiter_descriptor");

// The server, generated apart from the contract's types (see build.rs): it
// decodes the game requests as `api::wire`'s messages.
#[cfg(feature = "service")]
tonic::include_proto!("arbiter.v1.RulesService");

/// The rules service's paths, from the contract (see build.rs).
#[cfg(feature = "service")]
pub mod routes {
    include!(concat!(env!("OUT_DIR"), "/rules_routes.rs"));
}
