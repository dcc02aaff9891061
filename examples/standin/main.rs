//! The stand-in service that `ValidateGame`'s throughput is measured
//! against (issue 36): what a platform would otherwise run, a plain tonic
//! server (prost's codec, tonic's generated-style unary handling) answering
//! `arbiter.v1.RulesService/ValidateGame` with shakmaty 0.30.1. It reads the
//! moves (UCI when the text is UCI syntax, else SAN), writes each move's SAN
//! and UCI, stops at the first illegal one, lists the final position's legal
//! moves with their SAN, and ends games on mate, stalemate, insufficient
//! material, fivefold repetition and the 75-move rule (threefold and the
//! fifty-move rule as claimable). It does less than arbiter: no dead
//! positions beyond insufficient material, no claims per legal move, no
//! reasons for illegal moves, no clocks, variants or other calls (those
//! answer `UNIMPLEMENTED`). `tests/server/standin.rs` serves `service.rs`
//! beside arbiter and checks that both answer the same where they claim to.
//!
//! It takes arbiter's command line as far as the load tool uses it, so that
//! the tool can start it:
//!
//! ```text
//! cargo build --release --example standin --example load
//! target/release/examples/load --spawn target/release/examples/standin --scenario validate
//! target/release/examples/load --spawn target/release/arbiter --scenario validate
//! ```

use std::net::SocketAddr;

use tonic::server::NamedService;

mod service;

use service::StandIn;

/// The address from `serve --listen ADDR` (other arguments are ignored).
fn listen_address() -> Result<SocketAddr, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let at =
        args.iter().position(|a| a == "--listen").ok_or("usage: standin serve --listen ADDR")?;
    let addr = args.get(at + 1).ok_or("--listen needs an address")?;
    addr.parse().map_err(|e| format!("{addr}: {e}"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = listen_address()?;
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter.set_service_status("", tonic_health::ServingStatus::Serving).await;
    reporter.set_service_status(StandIn::NAME, tonic_health::ServingStatus::Serving).await;
    let shutdown = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    };
    tonic::transport::Server::builder()
        .add_service(health)
        .add_service(StandIn)
        .serve_with_shutdown(addr, shutdown)
        .await?;
    Ok(())
}
