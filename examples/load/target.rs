//! The server under test: one this tool starts (`--spawn`) and stops, or one
//! already running (`--addr`), and its CPU time (from the process's CPU-time
//! clock) and memory (from `/proc`) when its process id is known.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::Error;

/// How long a spawned server may take to answer SERVING.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a spawned server may take to exit after SIGTERM: its default
/// drain period is 10 s, and our connections are closed by then.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// The server's resident memory, in KiB.
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    pub rss_kib: u64,
    pub hwm_kib: u64,
}

/// The server under test.
pub struct Target {
    pub addr: SocketAddr,
    /// Set when the server is measured.
    pid: Option<u32>,
    /// Set when this tool started the server; it is killed if dropped.
    child: Option<Child>,
    /// The server as the report names it.
    pub description: String,
    /// Set once the measured process was found gone (said only once).
    gone: AtomicBool,
}

impl Target {
    /// A server that is already running, measured when `pid` is given.
    pub fn existing(addr: SocketAddr, pid: Option<u32>) -> Target {
        let description = match pid {
            Some(_) => addr.to_string(),
            None => format!("{addr} (not measured: no --server-pid)"),
        };
        Target { addr, pid, child: None, description, gone: AtomicBool::new(false) }
    }

    /// Starts `binary serve --listen 127.0.0.1:PORT ARGS...` on a free port
    /// and waits until its health check answers SERVING. Its metrics endpoint
    /// goes on a port of its own on 127.0.0.1 too, never the default
    /// `0.0.0.0:9090` (`--server-arg=--metrics-listen=...` still wins).
    ///
    /// # Errors
    ///
    /// When the binary cannot be started, exits, or is not SERVING in time.
    pub async fn spawn(binary: &Path, args: &[String]) -> Result<Target, Error> {
        // The port is free now; the server binds it a moment later.
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port();
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let mut child = Command::new(binary)
            .arg("serve")
            .arg("--listen")
            .arg(addr.to_string())
            .args(args)
            .env("ARBITER_METRICS_LISTEN", "127.0.0.1:0")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| format!("cannot start {}: {err}", binary.display()))?;
        let pid = child.id().ok_or("the spawned server has no process id")?;
        wait_until_serving(addr, &mut child).await?;
        let mut words = vec![binary.display().to_string(), format!("serve --listen {addr}")];
        words.extend(args.iter().cloned());
        let description = words.join(" ");
        Ok(Target {
            addr,
            pid: Some(pid),
            child: Some(child),
            description,
            gone: AtomicBool::new(false),
        })
    }

    /// The server's CPU time so far (user + system, every thread it has
    /// run), when measured. Read from the process's CPU-time clock, to the
    /// nanosecond: `/proc/PID/stat` counts in clock ticks (10 ms), which
    /// alone would move the live scenario's ratio by several percent.
    ///
    /// # Errors
    ///
    /// When the process's CPU-time clock cannot be read.
    pub fn cpu(&self) -> Result<Option<Duration>, Error> {
        let Some(pid) = self.pid else { return Ok(None) };
        match process_cpu_time(pid) {
            Ok(time) => Ok(Some(time)),
            // No such process (ESRCH), or its clock went with it (EINVAL).
            Err(err) if matches!(err.raw_os_error(), Some(libc::ESRCH | libc::EINVAL)) => {
                self.found_gone(pid);
                Ok(None)
            }
            Err(err) => Err(format!("the CPU-time clock of process {pid}: {err}").into()),
        }
    }

    /// The server's resident memory now and at its peak, when measured.
    ///
    /// # Errors
    ///
    /// When `/proc/PID/status` cannot be read or understood.
    pub fn memory(&self) -> Result<Option<Memory>, Error> {
        self.read_proc("status")?.map(memory).transpose()
    }

    /// Whether the server's CPU time and memory are measured.
    pub fn measured(&self) -> bool {
        self.pid.is_some()
    }

    /// `/proc/PID/FILE` of a measured server; `None` when not measured, or
    /// when the process has gone (a chaos run may kill it: the load goes on).
    fn read_proc(&self, file: &str) -> Result<Option<(String, String)>, Error> {
        let Some(pid) = self.pid else { return Ok(None) };
        let path = format!("/proc/{pid}/{file}");
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some((path, text))),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                self.found_gone(pid);
                Ok(None)
            }
            Err(err) => Err(format!("{path}: {err}").into()),
        }
    }

    /// Says once that the measured process `pid` has gone.
    fn found_gone(&self, pid: u32) {
        if !self.gone.swap(true, Ordering::Relaxed) {
            eprintln!("load: server process {pid} has gone: not measured from here on");
        }
    }

    /// Stops a server this tool started: SIGTERM, then wait for it to drain
    /// and exit. A server this tool did not start is left alone.
    ///
    /// # Errors
    ///
    /// When the server does not exit in time, or exits with a failure.
    pub async fn stop(self) -> Result<(), Error> {
        let (Some(mut child), Some(pid)) = (self.child, self.pid) else { return Ok(()) };
        let pid = libc::pid_t::try_from(pid)?;
        // Safety: kill(2) takes plain integers and touches no memory of ours;
        // the pid is our child's, which cannot be reused before we reap it.
        if unsafe { libc::kill(pid, libc::SIGTERM) } != 0 {
            return Err(format!("SIGTERM to {pid}: {}", std::io::Error::last_os_error()).into());
        }
        match tokio::time::timeout(STOP_TIMEOUT, child.wait()).await {
            Ok(status) => match status? {
                status if status.success() => Ok(()),
                status => Err(format!("the server exited with {status} after SIGTERM").into()),
            },
            Err(_) => {
                child.kill().await?;
                Err(format!("the server did not exit within {STOP_TIMEOUT:?} of SIGTERM").into())
            }
        }
    }
}

/// Polls the health service until it answers SERVING.
async fn wait_until_serving(addr: SocketAddr, child: &mut Child) -> Result<(), Error> {
    let started = Instant::now();
    let mut last = String::from("no answer yet");
    while started.elapsed() < START_TIMEOUT {
        if let Some(status) = child.try_wait()? {
            return Err(format!("the server exited with {status} before serving").into());
        }
        match health_status(addr).await {
            Ok(ServingStatus::Serving) => return Ok(()),
            Ok(other) => last = format!("health {other:?}"),
            Err(err) => last = err.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("the server at {addr} was not SERVING within {START_TIMEOUT:?} ({last})").into())
}

async fn health_status(addr: SocketAddr) -> Result<ServingStatus, Error> {
    let channel = Channel::from_shared(format!("http://{addr}"))?.connect().await?;
    let mut health = HealthClient::new(channel);
    let request = HealthCheckRequest { service: String::new() };
    let answer = health.check(request).await?.into_inner();
    Ok(ServingStatus::try_from(answer.status).unwrap_or(ServingStatus::Unknown))
}

/// The CPU time process `pid` has used so far, from its CPU-time clock.
fn process_cpu_time(pid: u32) -> std::io::Result<Duration> {
    let pid =
        libc::pid_t::try_from(pid).map_err(|_| std::io::Error::from_raw_os_error(libc::ESRCH))?;
    let mut clock: libc::clockid_t = 0;
    // Safety: clock_getcpuclockid(3) writes one clockid_t to the pointer,
    // which points at a local of that type.
    let failed = unsafe { libc::clock_getcpuclockid(pid, &raw mut clock) };
    if failed != 0 {
        return Err(std::io::Error::from_raw_os_error(failed));
    }
    clock_time(clock)
}

/// The CPU time the calling thread has used so far: what the in-process
/// reference is timed by, as the server is by its CPU time, so that
/// neither figure counts the time others' work took the cores.
pub fn thread_cpu_time() -> std::io::Result<Duration> {
    clock_time(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// The time of `clock`.
fn clock_time(clock: libc::clockid_t) -> std::io::Result<Duration> {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // Safety: clock_gettime(2) writes one timespec to the pointer, which
    // points at a local of that type.
    if unsafe { libc::clock_gettime(clock, &raw mut time) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let secs = u64::try_from(time.tv_sec).unwrap_or(0);
    let nanos = u32::try_from(time.tv_nsec).unwrap_or(0);
    Ok(Duration::new(secs, nanos))
}

/// `VmRSS` and `VmHWM` from the text of `/proc/PID/status` at `path`.
fn memory((path, status): (String, String)) -> Result<Memory, Error> {
    let kib = |name: &str| -> Result<u64, Error> {
        let line = status
            .lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
            .ok_or_else(|| format!("{path}: no {name}"))?;
        let value = line.trim().trim_end_matches("kB").trim();
        Ok(value.parse().map_err(|err| format!("{path}: {name} {value:?}: {err}"))?)
    };
    Ok(Memory { rss_kib: kib("VmRSS")?, hwm_kib: kib("VmHWM")? })
}
