//! The `arbiter` binary: parses the command line and hands over to [`arbiter::cli`].

use std::process::ExitCode;

use clap::Parser;

/// Every call decodes and encodes hundreds of small strings; glibc's malloc
/// and free took about a fifth of the server's CPU under load (perf), and
/// mimalloc's thread-local free lists cut that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    arbiter::cli::run(arbiter::cli::Cli::parse())
}
