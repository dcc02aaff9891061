//! The figures of a run: one record per scenario, printed as a Markdown
//! table for people and written as JSON (`--json`) for scripts.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use crate::drive::Tally;
use crate::live::{EARLY, LATE, LiveResult, Span};
use crate::target::Memory;

/// A whole run.
#[derive(Serialize)]
pub struct Report {
    pub target: String,
    pub games: String,
    pub concurrency: usize,
    /// Open loop: calls per second sent; `None` for a closed loop.
    pub rate: Option<f64>,
    pub connections: usize,
    pub warmup_s: f64,
    pub duration_s: f64,
    /// The rules core replaying the same games in the load tool, on one
    /// thread: plies per second.
    pub in_process_plies_per_s: Option<f64>,
    pub scenarios: Vec<ScenarioReport>,
}

/// Latency percentiles of the calls answered OK, in µs.
#[derive(Serialize)]
pub struct Latency {
    pub p50: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

/// One scenario's figures.
#[derive(Serialize)]
pub struct ScenarioReport {
    pub scenario: &'static str,
    /// Time until the last measured call ended.
    pub seconds: f64,
    /// Calls answered OK, and per second.
    pub calls: u64,
    pub calls_per_s: f64,
    /// Calls shed by the server (RESOURCE_EXHAUSTED) per second.
    pub shed_per_s: f64,
    /// Games and plies carried by OK calls, per second (where it means something).
    pub games_per_s: Option<f64>,
    pub plies_per_s: Option<f64>,
    pub latency_us: Latency,
    /// Calls by final status code.
    pub codes: BTreeMap<&'static str, u64>,
    pub retried: u64,
    pub failed: u64,
    pub wrong_answers: u64,
    /// Server CPU time over the measured period, and per call (any status).
    pub server_cpu_s: Option<f64>,
    pub server_cpu_us_per_call: Option<f64>,
    /// Plies answered per second of server CPU time (games scenarios).
    pub plies_per_server_cpu_s: Option<f64>,
    /// Server memory at the end of the scenario.
    pub server_vm_rss_kib: Option<u64>,
    pub server_vm_hwm_kib: Option<u64>,
    pub live: Option<LiveReport>,
}

/// The live scenario's server CPU by ply range.
#[derive(Serialize)]
pub struct LiveReport {
    pub passes: u32,
    pub early_rounds: String,
    pub late_rounds: String,
    pub early_cpu_us_per_call: Option<f64>,
    pub late_cpu_us_per_call: Option<f64>,
    pub whole_cpu_us_per_call: Option<f64>,
    /// Late over early: near 1 when extending a game costs only its new moves.
    pub late_to_early: Option<f64>,
}

/// What a scenario measured, to be turned into its report.
pub struct Measured<'a> {
    pub tally: &'a Tally,
    pub elapsed: Duration,
    pub server_cpu: Option<Duration>,
    pub memory: Option<Memory>,
    /// Whether games and plies per second mean something here.
    pub carries_games: bool,
}

impl ScenarioReport {
    pub fn new(scenario: &'static str, measured: &Measured<'_>) -> ScenarioReport {
        let Measured { tally, elapsed, server_cpu, memory, carries_games } = *measured;
        let seconds = elapsed.as_secs_f64().max(1e-9);
        let per_second = |n: u64| n as f64 / seconds;
        let calls = tally.calls();
        let quantile = |q: f64| tally.latency.value_at_quantile(q);
        ScenarioReport {
            scenario,
            seconds,
            calls: tally.answered(),
            calls_per_s: per_second(tally.answered()),
            shed_per_s: per_second(tally.codes.get("RESOURCE_EXHAUSTED").copied().unwrap_or(0)),
            games_per_s: carries_games.then(|| per_second(tally.games)),
            plies_per_s: carries_games.then(|| per_second(tally.plies)),
            latency_us: Latency {
                p50: quantile(0.5),
                p99: quantile(0.99),
                p999: quantile(0.999),
                max: tally.latency.max(),
            },
            codes: tally.codes.clone(),
            retried: tally.retried,
            failed: tally.failed,
            wrong_answers: tally.mismatches,
            server_cpu_s: server_cpu.map(|cpu| cpu.as_secs_f64()),
            server_cpu_us_per_call: server_cpu
                .filter(|_| calls > 0)
                .map(|cpu| cpu.as_secs_f64() * 1e6 / calls as f64),
            plies_per_server_cpu_s: server_cpu
                .filter(|cpu| carries_games && !cpu.is_zero())
                .map(|cpu| tally.plies as f64 / cpu.as_secs_f64()),
            server_vm_rss_kib: memory.map(|m| m.rss_kib),
            server_vm_hwm_kib: memory.map(|m| m.hwm_kib),
            live: None,
        }
    }

    /// The live scenario's report, with its ply ranges.
    pub fn live(result: &LiveResult, memory: Option<Memory>) -> ScenarioReport {
        let measured = Measured {
            tally: &result.tally,
            elapsed: result.elapsed,
            server_cpu: result.whole.map(|span| span.cpu),
            memory,
            carries_games: false,
        };
        let per_call = |span: Option<Span>| span.and_then(|s| s.micros_per_call());
        let (early, late) = (per_call(result.early), per_call(result.late));
        ScenarioReport {
            live: Some(LiveReport {
                passes: result.passes,
                early_rounds: format!("{}-{}", EARLY.start(), EARLY.end()),
                late_rounds: format!("{}-{}", LATE.start(), LATE.end()),
                early_cpu_us_per_call: early,
                late_cpu_us_per_call: late,
                whole_cpu_us_per_call: per_call(result.whole),
                late_to_early: early.zip(late).filter(|&(e, _)| e > 0.0).map(|(e, l)| l / e),
            }),
            ..ScenarioReport::new("live", &measured)
        }
    }
}

fn number(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.decimals$}"))
}

fn mib(kib: Option<u64>) -> String {
    number(kib.map(|k| k as f64 / 1024.0), 1)
}

impl Report {
    /// The run as Markdown: a line on the setup, the table, the live ranges.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let looped = match self.rate {
            Some(rate) => format!("open loop at {rate} calls/s, "),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "Server: {}. Games: {}. {looped}Concurrency {} over {} connections; warm-up {} s, {} s measured.\n",
            self.target,
            self.games,
            self.concurrency,
            self.connections,
            self.warmup_s,
            self.duration_s
        );
        out.push_str(
            "| scenario | calls/s | shed/s | games/s | plies/s | p50 µs | p99 µs | p999 µs | codes | \
             retried | failed | wrong | server CPU s | CPU µs/call | VmRSS MiB | VmHWM MiB |\n",
        );
        out.push_str("|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for s in &self.scenarios {
            let codes: Vec<String> =
                s.codes.iter().map(|(code, n)| format!("{code} {n}")).collect();
            let _ = writeln!(
                out,
                "| {} | {:.0} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.scenario,
                s.calls_per_s,
                s.shed_per_s,
                number(s.games_per_s, 0),
                number(s.plies_per_s, 0),
                s.latency_us.p50,
                s.latency_us.p99,
                s.latency_us.p999,
                codes.join(", "),
                s.retried,
                s.failed,
                s.wrong_answers,
                number(s.server_cpu_s, 2),
                number(s.server_cpu_us_per_call, 1),
                mib(s.server_vm_rss_kib),
                mib(s.server_vm_hwm_kib),
            );
        }
        if let Some(reference) = self.in_process_plies_per_s {
            let _ = write!(
                out,
                "\nIn process, one thread, the same games replayed as the server replays them \
                 (final legal moves included): {:.2} M plies/s.",
                reference / 1e6
            );
            for s in &self.scenarios {
                if let Some(plies) = s.plies_per_server_cpu_s {
                    let _ = write!(
                        out,
                        " {}: {:.2} M plies per server CPU-second ({:.2} of in process).",
                        s.scenario,
                        plies / 1e6,
                        plies / reference
                    );
                }
            }
            out.push('\n');
        }
        for live in self.scenarios.iter().filter_map(|s| s.live.as_ref()) {
            let _ = writeln!(
                out,
                "\nlive (passes: {}): server CPU µs per request, rounds {}: {}; rounds {}: {}; \
                 whole pattern: {}; ratio late/early: {}",
                live.passes,
                live.early_rounds,
                number(live.early_cpu_us_per_call, 1),
                live.late_rounds,
                number(live.late_cpu_us_per_call, 1),
                number(live.whole_cpu_us_per_call, 1),
                number(live.late_to_early, 2),
            );
        }
        out
    }
}
