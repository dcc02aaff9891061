# shellcheck shell=bash
# Helpers for the CI scripts that start an arbiter server, talk to it with
# grpcurl and stop it by PID; sourced, not run. The caller sets NAME (its
# name in messages), GRPCURL and PYTHON, and traps EXIT to kill a server
# still alive.

STARTUP_TIMEOUT_S=30
SHUTDOWN_TIMEOUT_S=20

fail() {
    echo "$NAME: FAILED: $*" >&2
    exit 1
}

free_port() {
    "$PYTHON" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Whether a child process still runs (a zombie, exited but not yet reaped,
# still answers `kill -0`).
alive() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    stat="${stat##*) }"
    [[ "${stat:0:1}" != Z ]]
}

# await_serving ADDRESS PID LOG: until the health service says
# arbiter.v1.RulesService is SERVING; fails if the server exits first or
# takes longer than STARTUP_TIMEOUT_S.
await_serving() {
    local address="$1" pid="$2" log="$3" deadline=$((SECONDS + STARTUP_TIMEOUT_S))
    until "$GRPCURL" -plaintext -max-time 2 -d '{"service":"arbiter.v1.RulesService"}' \
        "$address" grpc.health.v1.Health/Check 2>/dev/null | grep -q '"SERVING"'; do
        if ! alive "$pid"; then
            cat "$log" >&2
            fail "server exited before serving"
        fi
        if ((SECONDS > deadline)); then
            cat "$log" >&2
            fail "server not SERVING after ${STARTUP_TIMEOUT_S}s"
        fi
        sleep 0.1
    done
    echo "server: SERVING"
}

# await_exit PID LOG: waits for a server that was sent SIGTERM; fails unless
# it exits 0 within SHUTDOWN_TIMEOUT_S (it is killed after that).
await_exit() {
    local pid="$1" log="$2" started=$SECONDS exit_status=0
    while alive "$pid" && ((SECONDS - started < SHUTDOWN_TIMEOUT_S)); do sleep 0.05; done
    if alive "$pid"; then
        kill -KILL "$pid"
        wait "$pid" 2>/dev/null || true
        fail "server still running ${SHUTDOWN_TIMEOUT_S}s after SIGTERM (killed)"
    fi
    wait "$pid" || exit_status=$?
    ((exit_status == 0)) || { cat "$log" >&2; fail "server exited with $exit_status after SIGTERM"; }
    echo "server: exited 0 $((SECONDS - started))s after SIGTERM"
}
