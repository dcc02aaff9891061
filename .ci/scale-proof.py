#!/usr/bin/env python3
"""Horizontal scale and failure tolerance, proved on 127.0.0.1.

Three `arbiter serve` replicas behind nginx as a gRPC proxy (`grpc_pass` to an
upstream of the three, `grpc_next_upstream` retries), and the repository's
load tool (`examples/load`) sending ValidateGame at steady concurrency, every
answer checked against an in-process replay (`--verify`).

1. Scale: calls/s through the proxy with 1, 2 and 3 replicas (and straight to
   one replica, for the proxy's own cost), with each party's CPU share.
2. Failures: during one bounded run, SIGKILL replica 0, then SIGTERM
   replica 1, then restart both. It holds when:
   - the load tool saw no failed call and no wrong answer;
   - replica 1 exited 0 within its drain and no attempt routed to it failed
     (nginx's log of every attempt: upstreams, status, grpc-status);
   - every failed attempt in nginx's log went to replica 0 and was cut off
     at the kill; the load tool (--retries) retried no more calls than nginx
     saw fail, and no more than were in flight on replica 0 at the kill
     (counted from the same log);
   - both replicas served calls again after their restart.
3. Cache affinity (when the server exports arbiter_cache_hits_total): live
   games re-sent after every move with an x-game-id header, hit rate with
   round robin and with `hash $http_x_game_id consistent`.

Usage: scale-proof.py --arbiter BIN --load BIN [--nginx nginx] [--keep DIR]
Needs grpcio, grpcio-health-checking and grpcio-tools
(clients/python/requirements.txt).
Exit status 0 when every check holds; each failure is printed.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVICE = "arbiter.v1.RulesService"
GAME_ID_HEADER = "x-game-id"
STARTUP_TIMEOUT_S = 30
DRAIN = "10s"
DRAIN_S = 10
WARMUP_S = 1


def log(message):
    print(f"scale-proof: {message}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serving(address, service=SERVICE, timeout=1.0):
    try:
        with grpc.insecure_channel(address) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout)
            return reply.status == health_pb2.HealthCheckResponse.SERVING
    except grpc.RpcError:
        return False


def wait_until(predicate, what, timeout=STARTUP_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Replica:
    """One `arbiter serve` on fixed loopback ports, restartable on the same ones."""

    def __init__(self, index, binary, work, metrics):
        self.index = index
        self.binary = binary
        self.work = work
        self.port = free_port()
        self.metrics_port = free_port() if metrics else None
        self.address = f"127.0.0.1:{self.port}"
        self.proc = None
        self.starts = 0

    def start(self):
        self.starts += 1
        args = [self.binary, "serve", "--listen", self.address, "--drain", DRAIN]
        if self.metrics_port:
            args += ["--metrics-listen", f"127.0.0.1:{self.metrics_port}"]
        # Only the flags given here: no ARBITER_* settings from outside.
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
        logfile = open(os.path.join(self.work, f"replica{self.index}.{self.starts}.log"), "wb")
        self.proc = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL,
                                     stdout=logfile, stderr=subprocess.STDOUT)
        logfile.close()
        wait_until(lambda: self.proc.poll() is None and serving(self.address),
                   f"replica {self.index} SERVING")
        return time.time()

    def signal(self, sig):
        at = time.time()
        self.proc.send_signal(sig)
        return at

    def wait(self, timeout):
        return self.proc.wait(timeout=timeout)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def metric(self, name):
        """Sum of a counter over its label sets, from /metrics."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as r:
            text = r.read().decode()
        values = [float(m.group(1)) for m in
                  re.finditer(rf"^{re.escape(name)}(?:{{[^}}]*}})? (\S+)$", text, re.M)]
        return sum(values) if values else None


# One line per attempt the client made: when it ended, how long it took, the
# status sent to the client, the upstreams tried (comma-separated) with their
# statuses, and the grpc-status the upstream sent in headers (an error) or
# trailers (a finished call).
LOG_FORMAT = ('$msec $request_time $status "$upstream_addr" "$upstream_status" '
              '"$upstream_http_grpc_status" "$upstream_trailer_grpc_status" "$http_x_game_id"')
LOG_LINE = re.compile(r'^(\S+) (\S+) (\d+) "([^"]*)" "([^"]*)" "([^"]*)" "([^"]*)" "([^"]*)"$')

NGINX_CONF = """\
daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    log_format attempts '{log_format}';
    access_log {prefix}/access.log attempts buffer=256k flush=1s;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    # Clients keep their HTTP/2 connection (nginx's default of 1000 requests
    # closes it under load).
    keepalive_requests 1000000;
    http2_max_concurrent_streams 1024;

    upstream arbiter {{
{balance}{servers}
        keepalive 128;
        # The same toward the replicas.
        keepalive_requests 1000000;
        keepalive_timeout 60s;
    }}

    server {{
        listen 127.0.0.1:{port} http2;
        location / {{
            grpc_pass grpc://arbiter;
            # A replica that refuses the connection or fails before answering
            # is skipped (`unavailable` is no valid value in nginx 1.22).
            grpc_next_upstream error timeout http_502 http_503 http_504 non_idempotent;
            grpc_next_upstream_tries 3;
            grpc_connect_timeout 1s;
            grpc_read_timeout 30s;
            grpc_send_timeout 30s;
        }}
    }}
}}
"""


class Nginx:
    """nginx in the foreground with its own prefix; never the system service."""

    def __init__(self, binary, work, replicas, hash_header=False):
        self.binary = binary
        self.prefix = tempfile.mkdtemp(prefix="nginx.", dir=work)
        os.makedirs(os.path.join(self.prefix, "tmp"))
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        servers = "\n".join(f"        server {r.address} max_fails=1 fail_timeout=1s;"
                            for r in replicas)
        balance = "        hash $http_x_game_id consistent;\n" if hash_header else ""
        conf = NGINX_CONF.format(prefix=self.prefix, port=self.port, servers=servers,
                                 balance=balance, log_format=LOG_FORMAT)
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [self.binary, "-p", self.prefix, "-c", self.conf, "-e", f"{self.prefix}/error.log"],
            stdin=subprocess.DEVNULL)
        wait_until(lambda: self.proc.poll() is None and serving(self.address), "nginx proxying")
        return self

    def stop(self):
        """Graceful stop (flushes the access log)."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def attempts(self):
        """The access log, one dict per attempt (health checks left out)."""
        out = []
        with open(os.path.join(self.prefix, "access.log")) as f:
            for line in f:
                m = LOG_LINE.match(line.rstrip("\n"))
                if not m:
                    raise RuntimeError(f"unexpected nginx log line: {line!r}")
                end, took, status, addrs, ups, head_grpc, trail_grpc, game = m.groups()
                out.append({
                    "end": float(end), "start": float(end) - float(took), "status": int(status),
                    "upstreams": [a.strip() for a in addrs.split(",") if a.strip() not in ("", "-")],
                    "upstream_status": ups, "grpc_status": trail_grpc if trail_grpc != "-" else head_grpc,
                    "game": game,
                })
        return out

    def errors(self):
        with open(os.path.join(self.prefix, "error.log")) as f:
            return f.read()


def ok(attempt):
    return attempt["status"] == 200 and attempt["grpc_status"] == "0"


class LoadTool:
    """examples/load: ValidateGame at steady concurrency, answers verified."""

    def __init__(self, binary, work, concurrency, connections):
        self.binary = binary
        self.work = work
        self.concurrency = concurrency
        self.connections = connections
        self.runs = 0

    def start(self, address, duration, warmup, retries, extra=()):
        self.runs += 1
        out = os.path.join(self.work, f"load{self.runs}.json")
        args = [self.binary, "--addr", address, "--scenario", "validate", "--verify",
                "--concurrency", str(self.concurrency), "--connections", str(self.connections),
                "--duration", duration, "--warmup", warmup, "--retries", str(retries),
                "--json", out, *extra]
        log("$ " + " ".join(args))
        return subprocess.Popen(args, stdin=subprocess.DEVNULL), out

    def run(self, *a, **kw):
        proc, out = self.start(*a, **kw)
        return self.finish(proc, out)

    @staticmethod
    def finish(proc, out):
        status = proc.wait(timeout=600)
        with open(out) as f:
            report = json.load(f)
        return status, scenario_figures(report)


def scenario_figures(report):
    """calls/s, calls, failures, wrong answers, retried calls and latency of
    the `validate` scenario in the load tool's JSON report."""
    [s] = [s for s in report["scenarios"] if s["scenario"] == "validate"]
    return {
        "calls_per_s": s["calls_per_s"],
        "calls": s["calls"],
        "failures": s["failed"],
        "wrong": s["wrong_answers"],
        "retried": s["retried"],
        "codes": s.get("codes", {}),
        "p50_ms": s["latency_us"]["p50"] / 1000,
        "p99_ms": s["latency_us"]["p99"] / 1000,
    }


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, message):
        if condition:
            self.passed += 1
            log(f"ok: {message}")
        else:
            self.failed += 1
            log(f"FAILED: {message}")
        return condition


def cpu_s(pid):
    """User + system CPU seconds of a live process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid):
    """Pids of a process's children (nginx's workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except OSError:
                pass
    return found


def measured_run(load, address, duration, replicas, proxy):
    """One load run, with the CPU time each party spent during it: the load
    tool (a waited-for child: its rusage), nginx and the replicas (/proc)."""
    import resource

    def parties():
        nginx = [proxy.proc.pid, *children(proxy.proc.pid)] if proxy else []
        return {"nginx": sum(map(cpu_s, nginx)), "replicas": sum(cpu_s(r.proc.pid) for r in replicas)}

    def own_children():
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before, load_before, started = parties(), own_children(), time.monotonic()
    status, figures = load.run(address, duration, f"{WARMUP_S}s", 0)
    after, load_after, wall = parties(), own_children(), time.monotonic() - started
    cores = os.cpu_count()
    figures["cpu_share"] = {"load tool": (load_after - load_before) / wall / cores,
                            **{k: (after[k] - before[k]) / wall / cores for k in after}}
    # Calls go on at the measured rate through the warm-up too.
    calls = figures["calls_per_s"] * (WARMUP_S + float(duration.rstrip("s")))
    figures["replica_cpu_us_per_call"] = (after["replicas"] - before["replicas"]) * 1e6 / max(1.0, calls)
    return status, figures


def scale(args, replicas, load, checks):
    rows = []
    status, direct = measured_run(load, replicas[0].address, args.scale_duration, replicas[:1], None)
    checks.check(status == 0 and direct["failures"] == 0 and direct["wrong"] == 0,
                 f"direct to one replica: {direct['calls']} calls, no failure, no wrong answer")
    rows.append(("1, no proxy", direct))
    for n in (1, 2, 3):
        proxy = Nginx(args.nginx, args.work, replicas[:n]).start()
        try:
            status, figures = measured_run(load, proxy.address, args.scale_duration, replicas[:n], proxy)
        finally:
            proxy.stop()
        checks.check(status == 0 and figures["failures"] == 0 and figures["wrong"] == 0,
                     f"{n} replica(s) behind nginx: {figures['calls']} calls, no failure, no wrong answer")
        used = {a["upstreams"][-1] for a in proxy.attempts() if a["upstreams"]}
        checks.check(used == {r.address for r in replicas[:n]},
                     f"nginx spread the calls over all {n} replica(s)")
        rows.append((f"{n} behind nginx", figures))
    log(f"ValidateGame with --verify, {load.concurrency} calls in flight over {load.connections} "
        f"connections, 1 s warm-up + {args.scale_duration}, on {os.cpu_count()} cores shared by all "
        "(CPU shares are of all cores, over the whole run):")
    print("| replicas | calls/s | p50 ms | p99 ms | CPU: load tool | nginx | replicas "
          "| replica CPU µs/call |\n|---|--:|--:|--:|--:|--:|--:|--:|")
    for name, f in rows:
        share = f["cpu_share"]
        print(f"| {name} | {f['calls_per_s']:.0f} | {f['p50_ms']:.2f} | {f['p99_ms']:.2f} "
              f"| {share['load tool']:.0%} | {share['nginx']:.0%} | {share['replicas']:.0%} "
              f"| {f['replica_cpu_us_per_call']:.0f} |")
    return rows


def failures(args, replicas, load, checks):
    killed, drained = replicas[0], replicas[1]
    proxy = Nginx(args.nginx, args.work, replicas).start()
    events = {}
    try:
        # No warm-up: every call of the run is counted.
        proc, out = load.start(proxy.address, args.failure_duration, "0s", args.retries)
        t0 = time.time()
        time.sleep(4)
        events["kill"] = killed.signal(signal.SIGKILL)
        log(f"SIGKILL replica 0 ({killed.address}, pid {killed.proc.pid})")
        time.sleep(2)
        events["term"] = drained.signal(signal.SIGTERM)
        log(f"SIGTERM replica 1 ({drained.address}, pid {drained.proc.pid})")
        exit_status = drained.wait(timeout=DRAIN_S + 5)
        events["drained"] = time.time()
        log(f"replica 1 exited with status {exit_status} "
            f"{events['drained'] - events['term']:.2f}s after SIGTERM")
        checks.check(exit_status == 0, "the SIGTERMed replica exited 0")
        checks.check(events["drained"] - events["term"] < DRAIN_S,
                     "the SIGTERMed replica drained within its drain period")
        killed.wait(timeout=5)
        time.sleep(max(0.0, events["term"] + 2 - time.time()))
        events["restart1"] = drained.start()
        log("replica 1 restarted")
        time.sleep(2)
        events["restart0"] = killed.start()
        log("replica 0 restarted")
        status, figures = load.finish(proc, out)
        events["end"] = time.time()
    finally:
        proxy.stop()
    attempts = proxy.attempts()
    log(f"load tool: exit {status}, {figures['calls']} calls, {figures['calls_per_s']:.0f} calls/s, "
        f"{figures['failures']} failed, {figures['wrong']} wrong, {figures['retried']} retried; "
        f"nginx logged {len(attempts)} attempts; events at "
        + ", ".join(f"{k} +{v - t0:.2f}s" for k, v in events.items()))

    failed = [a for a in attempts if not ok(a)]
    for a in failed:
        log(f"failed attempt: HTTP {a['status']}, grpc-status {a['grpc_status'] or '(none)'}, "
            f"upstreams {a['upstreams']} ({a['upstream_status']}), "
            f"{a['start'] - t0:.3f}s..{a['end'] - t0:.3f}s")
    # nginx logs times in milliseconds (from a clock it updates once per
    # event-loop turn). In flight on the killed replica at the kill: an
    # attempt nginx had sent there whose span, give or take that
    # resolution, covers the instant of the kill, and every attempt that
    # failed there (it was cut off by the kill, whatever its timestamps say).
    kill, resolution, near = events["kill"], 0.002, 0.050
    failed_at_kill = [a for a in failed if a["upstreams"] and a["upstreams"][-1] == killed.address
                      and kill - resolution <= a["end"] and a["start"] <= kill + near]
    in_flight = {id(a): a for a in attempts if killed.address in a["upstreams"]
                 and a["start"] - resolution <= kill <= a["end"] + resolution}
    in_flight.update((id(a), a) for a in failed_at_kill)
    for name, replica in (("SIGKILLed replica 0", killed), ("SIGTERMed replica 1", drained)):
        moved = [a for a in attempts if len(a["upstreams"]) > 1 and replica.address in a["upstreams"][:-1]]
        log(f"nginx moved {len(moved)} attempts from the {name} to another replica "
            "(connection refused or reset before any answer), unseen by the client")
    checks.check(status == 0 and figures["failures"] == 0,
                 "no call lost: every call ended OK at the client (after retries)")
    checks.check(figures["wrong"] == 0, "no wrong answer: every answer equals the in-process replay")
    checks.check(len(failed_at_kill) == len(failed),
                 f"each of the {len(failed)} failed attempts went to the SIGKILLed replica and was "
                 f"cut off at the kill (within {near * 1000:.0f} ms)")
    checks.check(not [a for a in failed if drained.address in a["upstreams"]],
                 "no attempt routed to the SIGTERMed replica failed")
    checks.check(figures["retried"] <= len(failed),
                 f"retried calls ({figures['retried']}) <= failed attempts seen by nginx ({len(failed)})")
    checks.check(figures["retried"] <= min(len(in_flight), load.concurrency),
                 f"retried calls ({figures['retried']}) <= calls in flight on the SIGKILLed replica "
                 f"at the kill ({len(in_flight)}, from nginx's log; concurrency {load.concurrency})")
    for name, replica, at in (("0", killed, "restart0"), ("1", drained, "restart1")):
        served = sum(1 for a in attempts if ok(a) and a["upstreams"][-1] == replica.address
                     and a["start"] > events[at])
        checks.check(served > 0, f"replica {name} served {served} calls after its restart")
    return figures, len(failed), len(in_flight)


def live_games(address, stubs, games, plies, concurrency):
    """Plays `games` random games of up to `plies` plies through `address`,
    each the way a game platform would: after every move it re-sends the
    whole move list (`plies_from` at the newest ply) with the game's id in an
    `x-game-id` header, and picks the next move from the answer's legal
    moves. Seeded per game, so every run plays the same games. Returns
    (calls, seconds, problems)."""
    import random
    import threading

    pb, rpc = stubs
    calls, problems = [0], []
    lock = threading.Lock()
    next_game = iter(range(games))

    def worker():
        with grpc.insecure_channel(address) as channel:
            stub = rpc.RulesServiceStub(channel)
            while True:
                with lock:
                    game = next(next_game, None)
                if game is None:
                    return
                rng = random.Random(game)
                moves, metadata = [], [(GAME_ID_HEADER, f"game-{game}")]
                for ply in range(plies + 1):
                    request = pb.ValidateGameRequest(moves=moves, plies_from=max(0, ply - 1))
                    try:
                        reply = stub.ValidateGame(request, metadata=metadata, timeout=10)
                    except grpc.RpcError as e:
                        problems.append(f"game {game} ply {ply}: {e.code().name}: {e.details()}")
                        break
                    with lock:
                        calls[0] += 1
                    if ply and [p.san for p in reply.plies] != moves[-1:]:
                        problems.append(f"game {game} ply {ply}: {list(reply.plies)} for {moves[-1:]}")
                    if not reply.position.legal_moves:
                        break
                    moves.append(rng.choice(reply.position.legal_moves).san)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return calls[0], time.monotonic() - started, problems


def generated_stubs(work):
    """Python stubs of the contract, generated into `work`."""
    from grpc_tools import protoc

    proto = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proto")
    # The well-known types (google/protobuf/duration.proto) bundled with
    # grpc_tools: `python -m grpc_tools.protoc` adds them, protoc.main does not.
    well_known = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    status = protoc.main(["protoc", f"-I{proto}", f"-I{well_known}", f"--python_out={work}",
                          f"--grpc_python_out={work}", os.path.join(proto, "arbiter", "v1", "arbiter.proto")])
    if status != 0:
        raise RuntimeError("protoc failed")
    sys.path.insert(0, work)
    from arbiter.v1 import arbiter_pb2, arbiter_pb2_grpc

    return arbiter_pb2, arbiter_pb2_grpc


def cache_affinity(args, replicas, checks):
    """Round robin against consistent hashing on the game id, on fresh
    replicas each time, with the same live games."""
    if replicas[0].metrics_port is None or replicas[0].metric("arbiter_cache_hits_total") is None:
        log("cache affinity: skipped (no arbiter_cache_hits_total on /metrics)")
        return None
    stubs = generated_stubs(args.work)
    rows = []
    for name, hashed in (("round robin", False), ("hash $http_x_game_id consistent",
                                                   True)):
        for r in replicas:
            r.stop()
            r.start()
        proxy = Nginx(args.nginx, args.work, replicas, hash_header=hashed).start()
        cpu_before = sum(cpu_s(r.proc.pid) for r in replicas)
        try:
            calls, seconds, problems = live_games(proxy.address, stubs, args.live_games,
                                                  args.live_plies, args.live_concurrency)
        finally:
            proxy.stop()
        cpu_us = (sum(cpu_s(r.proc.pid) for r in replicas) - cpu_before) * 1e6 / max(1, calls)
        hits = sum(r.metric("arbiter_cache_hits_total") or 0 for r in replicas)
        misses = sum(r.metric("arbiter_cache_misses_total") or 0 for r in replicas)
        rate = hits / (hits + misses) if hits + misses else 0.0
        checks.check(not problems, f"{name}: {calls} live-game calls, every newest ply answered as sent"
                     + "".join(f"\n  {p}" for p in problems[:5]))
        games_seen = [len({a["game"] for a in proxy.attempts() if a["upstreams"]
                           and a["upstreams"][-1] == r.address and a["game"] not in ("", "-")})
                      for r in replicas]
        rows.append((name, calls / seconds, hits, misses, rate, games_seen, cpu_us))
    log(f"cache affinity: {args.live_games} live games of up to {args.live_plies} plies, "
        f"{args.live_concurrency} at a time, each move re-sending the whole game:")
    print("| balancing | calls/s | cache hits | misses | hit rate | games seen per replica "
          "| replica CPU µs/call |")
    print("|---|--:|--:|--:|--:|---|--:|")
    for name, cps, hits, misses, rate, seen, cpu_us in rows:
        print(f"| {name} | {cps:.0f} | {hits:.0f} | {misses:.0f} | {rate:.1%} | {seen} | {cpu_us:.0f} |")
    hashed_seen = rows[1][5]
    checks.check(sum(hashed_seen) == args.live_games,
                 "with consistent hashing every game stayed on one replica")
    checks.check(rows[1][4] >= rows[0][4], "consistent hashing kept at least round robin's hit rate")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arbiter", default="target/release/arbiter")
    parser.add_argument("--load", default="target/release/examples/load")
    parser.add_argument("--nginx", default="nginx")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--retries", type=int, default=2)
    parser.add_argument("--scale-duration", default="5s")
    parser.add_argument("--failure-duration", default="14s")
    parser.add_argument("--live-games", type=int, default=300)
    parser.add_argument("--live-plies", type=int, default=60)
    parser.add_argument("--live-concurrency", type=int, default=16)
    parser.add_argument("--keep", help="keep logs and reports in this directory")
    args = parser.parse_args()
    for path in (args.arbiter, args.load):
        if not os.access(path, os.X_OK):
            sys.exit(f"scale-proof: no executable {path}")
    args.nginx = shutil.which(args.nginx) or sys.exit(f"scale-proof: no {args.nginx}")
    args.work = args.keep or tempfile.mkdtemp(prefix="scale-proof.")
    os.makedirs(args.work, exist_ok=True)
    serve_help = subprocess.run([args.arbiter, "serve", "--help"], capture_output=True, text=True).stdout
    metrics = "--metrics-listen" in serve_help

    checks = Checks()
    replicas = [Replica(i, args.arbiter, args.work, metrics) for i in range(3)]
    load = LoadTool(args.load, args.work, args.concurrency, args.connections)
    try:
        for r in replicas:
            r.start()
        log("replicas SERVING on " + ", ".join(r.address for r in replicas))
        scale(args, replicas, load, checks)
        failures(args, replicas, load, checks)
        cache_affinity(args, replicas, checks)
    except Exception as e:  # a broken run is a failed check, with what broke
        checks.check(False, f"run broken: {type(e).__name__}: {e}")
    finally:
        for r in replicas:
            r.stop()
        if not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)
    print(f"scale-proof: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed or not checks.passed else 0


if __name__ == "__main__":
    sys.exit(main())
