//! The `arbiter` command line: argument parsing and the subcommands that
//! run without a server.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::chess::{Position, perft};

/// Arbiter: the Laws of Chess as a service.
#[derive(Debug, Parser)]
#[command(name = "arbiter", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// What to run.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the legal move tree to DEPTH (perft).
    ///
    /// The last line of output is the node count; with --divide a
    /// `<uci>: <nodes>` line per legal move comes first.
    Perft(PerftArgs),
}

/// Arguments of `arbiter perft`.
#[derive(Debug, clap::Args)]
pub struct PerftArgs {
    /// Start position as FEN (default: the standard starting position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Print the count below each legal move first.
    #[arg(long)]
    pub divide: bool,
    /// Depth in plies.
    #[arg(value_parser = clap::value_parser!(u32).range(0..=20))]
    pub depth: u32,
}

/// Runs the parsed command line, writing to standard output and error.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Perft(args) => run_perft(&args, &mut io::stdout().lock()),
    }
}

fn run_perft(args: &PerftArgs, out: &mut impl Write) -> ExitCode {
    let pos = match args.fen.as_deref().map(str::parse::<Position>) {
        None => Position::default(),
        Some(Ok(pos)) => pos,
        Some(Err(err)) => {
            eprintln!("arbiter: {err}");
            return ExitCode::from(2);
        }
    };
    let total = if args.divide {
        let split = perft::divide(&pos, args.depth);
        for (m, nodes) in &split {
            if writeln!(out, "{m}: {nodes}").is_err() {
                return ExitCode::FAILURE;
            }
        }
        if args.depth == 0 { 1 } else { split.iter().map(|(_, n)| n).sum() }
    } else {
        perft::perft(&pos, args.depth)
    };
    match writeln!(out, "{total}") {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}
