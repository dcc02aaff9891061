//! The `arbiter` binary: parses the command line and hands over to [`arbiter::cli`].

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    arbiter::cli::run(arbiter::cli::Cli::parse())
}
