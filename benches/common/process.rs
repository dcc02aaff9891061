//! CPU time of child processes, for the benches that time the `arbiter`
//! binary as a whole process (included with `#[path]` where needed).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// CPU time (user + system) of the children reaped so far.
pub fn children_cpu() -> Duration {
    // Safety: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// CPU time of the calling thread so far: what an in-process job costs,
/// unlike its wall time not stretched when other work takes the core.
#[allow(dead_code, reason = "the benches that time only processes leave it unused")]
pub fn thread_cpu() -> Duration {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // Safety: clock_gettime writes the struct it is given and nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

/// The median of `values` (the upper one of an even count).
#[allow(dead_code, reason = "the benches that take no medians of rates leave it unused")]
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The shared test data: `ARBITER_TEST_DATA`, else `../shared/data` beside
/// the workspace when it is there.
#[allow(dead_code, reason = "the benches without the shared data leave it unused")]
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ARBITER_TEST_DATA") {
        return Some(PathBuf::from(dir));
    }
    let fallback = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    fallback.is_dir().then_some(fallback)
}
