#!/usr/bin/env bash
# Soak test (not run in CI): one release server with the default cache, the
# live, validate and stream scenarios of the load tool running against it at
# once for a long while, and the server's resident memory sampled every few
# seconds to a CSV with the bytes its replay cache says it holds
# (arbiter_cache_bytes). At the end it prints the curve's figures and
# whether memory levelled off, the cache within --cache-bytes and the rest
# (RSS less the cache: connections, calls in flight, allocator) flat, and
# how the peak compares with the server's idle RSS plus --cache-bytes.
#
#   cargo build --release && cargo build --release --example load
#   scripts/soak.sh                       # 10 minutes
#   SOAK_DURATION=120 scripts/soak.sh     # 2 minutes
#
# Environment: SOAK_DURATION (seconds, default 600), SOAK_INTERVAL (seconds
# between samples, default 5), SOAK_CONCURRENCY (workers per scenario,
# default 16), SOAK_OUT (directory for the CSV and the logs, default
# target/soak), ARBITER_BIN and LOAD_BIN (default the release builds).
# Extra arguments go to `arbiter serve` (e.g. --cache-bytes=33554432).
# Exit status: 0 when all three held, 1 when one did not or a load tool
# failed, 2 when the run could not be made.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${SOAK_DURATION:-600}
interval=${SOAK_INTERVAL:-5}
concurrency=${SOAK_CONCURRENCY:-16}
out=${SOAK_OUT:-target/soak}
arbiter=${ARBITER_BIN:-target/release/arbiter}
load=${LOAD_BIN:-target/release/examples/load}
cache_bytes=${ARBITER_CACHE_BYTES:-$((64 << 20))} # the server's default --cache-bytes
for arg in "$@"; do
    case $arg in --cache-bytes=*) cache_bytes=${arg#--cache-bytes=} ;; esac
done

for bin in "$arbiter" "$load"; do
    [[ -x $bin ]] || { echo "soak: $bin not built (cargo build --release [--example load])" >&2; exit 2; }
done
mkdir -p "$out"
csv=$out/rss.csv

# A free port of 127.0.0.1: bound, read, released; the server takes it a
# moment later.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Metrics on a port of their own on 127.0.0.1 too, never the default
# 0.0.0.0:9090 (a --metrics-listen argument still wins over the variable).
ARBITER_METRICS_LISTEN=${ARBITER_METRICS_LISTEN:-127.0.0.1:0} \
    "$arbiter" serve --listen "127.0.0.1:$port" "$@" 2>"$out/server.log" &
server=$!
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    kill "$server" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT

for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    kill -0 "$server" 2>/dev/null || { echo "soak: the server exited; see $out/server.log" >&2; exit 2; }
    sleep 0.1
done

# The metrics address is logged at start-up.
metrics=""
for _ in $(seq 100); do
    metrics=$(sed -n 's/.*Prometheus metrics at \/metrics addr=\([0-9.:]*\).*/\1/p' "$out/server.log")
    [[ -n $metrics ]] && break
    sleep 0.1
done
[[ -n $metrics ]] || { echo "soak: no metrics address in $out/server.log" >&2; exit 2; }

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$server/status"; }
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$server/status"; }
cache_kib() {
    curl -sf "http://$metrics/metrics" | awk '$1 == "arbiter_cache_bytes" { c = int($2 / 1024) } END { print c + 0 }'
}
base=$(rss_kib)

# The three scenarios at once, each for the whole period; each load tool
# reports its own figures at the end. The server closes every connection at
# --max-connection-age (5 min) plus its grace (1 min): a call dispatched as
# its connection closes, or a ValidateGames stream still open at the end of
# the grace, fails in the client's transport and is sent again on a new
# connection, as a client of a pure service should (--retries).
for scenario in live validate stream; do
    "$load" --addr "127.0.0.1:$port" --server-pid "$server" --scenario "$scenario" \
        --concurrency "$concurrency" --warmup 0s --duration "${duration}s" \
        --retries 3 --allow-code resource-exhausted >"$out/load-$scenario.md" 2>"$out/load-$scenario.log" &
    pids+=($!)
done

echo "elapsed_s,rss_kib,hwm_kib,cache_kib" >"$csv"
echo "0,$base,$(hwm_kib),$(cache_kib)" >>"$csv"
started=$SECONDS
while ((SECONDS - started < duration)); do
    sleep "$interval"
    kill -0 "$server" 2>/dev/null || { echo "soak: the server died; see $out/server.log" >&2; exit 2; }
    echo "$((SECONDS - started)),$(rss_kib),$(hwm_kib),$(cache_kib)" >>"$csv"
done

failed=0
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed=1
done
pids=()
for scenario in live validate stream; do
    grep -E "^\| $scenario " "$out/load-$scenario.md" || true
done
((failed == 0)) || echo "soak: a load tool failed; see $out/load-*.log" >&2

# The curve: RSS at 1, 2, 5 and 10 minutes (the sample nearest each), min,
# max and last. The cache takes minutes to fill (how many depends on the
# calls/s the machine gives): RSS has levelled off when, from the first
# sample with the cache at 95% of --cache-bytes to the end (at least a
# minute of samples), it grew by less than 5% of the idle RSS plus
# --cache-bytes. The rest (RSS less the cache) must not grow by more than
# that over the last third.
awk -F, -v base="$base" -v cache_bound="$cache_bytes" -v duration="$duration" '
    BEGIN { n = 0 }
    NR == 1 { next }
    { t[n] = $1; rss[n] = $2; hwm = $3; cache[n] = $4; rest[n] = $2 - $4; n++ }
    function at(s,   i, best) {
        best = -1
        for (i = 0; i < n; i++) if (best < 0 || (t[i] - s) ^ 2 < (t[best] - s) ^ 2) best = i
        return best
    }
    function max_of(series, to,   i, m) {
        m = series[0]
        for (i = 1; i <= to; i++) if (series[i] > m) m = series[i]
        return m
    }
    function mib(kib) { return sprintf("%.1f", kib / 1024) }
    END {
        bound = base + cache_bound / 1024
        third = at(t[n - 1] * 2 / 3)
        printf "samples %d over %d s; idle RSS %s MiB, --cache-bytes %s MiB\n", n, t[n - 1], mib(base), mib(cache_bound / 1024)
        for (m = 1; m <= 10; m++) {
            if (m != 1 && m != 2 && m != 5 && m != 10) continue
            if (m * 60 > duration) break
            i = at(m * 60)
            printf "at %2d min: RSS %s MiB, cache %s MiB, rest %s MiB\n", m, mib(rss[i]), mib(cache[i]), mib(rest[i])
        }
        min = rss[0]; for (i = 1; i < n; i++) if (rss[i] < min) min = rss[i]
        printf "RSS min %s, max %s, last %s, VmHWM %s MiB\n", mib(min), mib(max_of(rss, n - 1)), mib(rss[n - 1]), mib(hwm)
        full = -1
        for (i = 0; i < n; i++) if (full < 0 && cache[i] >= 0.95 * cache_bound / 1024) full = i
        rest_grew = max_of(rest, n - 1) - max_of(rest, third)
        cache_within = max_of(cache, n - 1) <= cache_bound / 1024
        rest_flat = rest_grew <= 0.05 * bound
        if (full >= 0 && t[n - 1] - t[full] >= 60) {
            grew = max_of(rss, n - 1) - max_of(rss, full)
            levelled = grew <= 0.05 * bound
            printf "RSS levelled off: %s (%s MiB from the cache full at %d s to the end)\n", levelled ? "yes" : "no", mib(grew), t[full]
        } else {
            levelled = 0
            printf "RSS levelled off: not seen: the cache did not reach 95%% of --cache-bytes a minute before the end (run longer)\n"
        }
        printf "cache within --cache-bytes: %s (max %s MiB)\n", cache_within ? "yes" : "no", mib(max_of(cache, n - 1))
        printf "the rest flat: %s (%s MiB over the last third, max %s MiB)\n", rest_flat ? "yes" : "no", mib(rest_grew), mib(max_of(rest, n - 1))
        printf "peak RSS against idle RSS + --cache-bytes (%s MiB): %+.1f MiB\n", mib(bound), (max_of(rss, n - 1) - bound) / 1024
        exit !(levelled && cache_within && rest_flat)
    }' "$csv" || failed=1
echo "samples in $csv"
exit "$failed"
