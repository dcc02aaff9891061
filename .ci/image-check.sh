#!/usr/bin/env bash
# Checks the server image that scripts/image.sh built, without running a
# container (this sandbox refuses `podman run`): its configuration (user,
# entrypoint, ports, labels), its size and contents (one static binary, no
# shell); then it mounts the image (`buildah mount`), runs its entrypoint
# under `chroot` as the image's user on 127.0.0.1, and checks health SERVING,
# a ValidateGame, the metrics endpoint, and a drain: a ValidateGames stream
# open across SIGTERM still gets its answers, and the server exits 0.
#
# Needs: buildah, root (chroot), IMAGE (default localhost/arbiter:latest),
# GRPCURL (grpcurl 1.8), PYTHON (python3).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${IMAGE:-localhost/arbiter:latest}"
GRPCURL="${GRPCURL:-grpcurl}"
PYTHON="${PYTHON:-python3}"
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
MAX_IMAGE_BYTES=$((25 * 1000 * 1000))
NAME=image-check
# shellcheck source=.ci/server-lib.sh
source .ci/server-lib.sh

work="$(mktemp -d)"
container=""
mounted=()
server_pid=""
stream_pid=""
cleanup() {
    local pid
    for pid in "$server_pid" "$stream_pid"; do
        if [[ -n "$pid" ]] && alive "$pid"; then
            kill -KILL "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    exec 3>&- 2>/dev/null || true
    local path
    for path in "${mounted[@]}"; do umount "$path" || true; done
    if [[ -n "$container" ]]; then
        buildah umount "$container" >/dev/null || true
        buildah rm "$container" >/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# 1. Configuration and size (uncompressed).
buildah inspect --type image "$IMAGE" >"$work/inspect.json"
"$PYTHON" - "$work/inspect.json" "$VERSION" "$MAX_IMAGE_BYTES" <<'PY' || fail "image configuration"
import json, sys
inspect = json.load(open(sys.argv[1]))
image = inspect["OCIv1"]
config = image["config"]
version, max_bytes = sys.argv[2], int(sys.argv[3])
print(json.dumps(config, indent=2, sort_keys=True))
assert config["User"] == "65532:65532", config["User"]
assert config["Entrypoint"] == ["/arbiter", "serve"], config["Entrypoint"]
assert not config.get("Cmd"), config.get("Cmd")
assert set(config["ExposedPorts"]) == {"50051/tcp", "9090/tcp"}, config["ExposedPorts"]
assert config["StopSignal"] == "SIGTERM", config.get("StopSignal")
labels = config["Labels"]
assert labels["org.opencontainers.image.version"] == version, labels
assert labels["org.opencontainers.image.licenses"] == "MIT OR Apache-2.0", labels
assert labels["org.opencontainers.image.source"], labels
assert len(image["rootfs"]["diff_ids"]) == 1, image["rootfs"]
# The layers (uncompressed tar here) and the configuration, as a registry
# counts them.
manifest = json.loads(inspect["Manifest"])
size = manifest["config"]["size"] + sum(layer["size"] for layer in manifest["layers"])
print(f"image size: {size} bytes ({size / 1e6:.1f} MB; at most {max_bytes / 1e6:.0f} MB)")
assert size <= max_bytes, size
PY
echo "check: user 65532:65532, entrypoint /arbiter serve, ports 50051 and 9090, labels, one layer"
# The Kubernetes base runs this image, as its user.
grep -qx "          image: localhost/arbiter:$VERSION" deploy/k8s/base/deployment.yaml \
    || fail "deploy/k8s/base/deployment.yaml does not name localhost/arbiter:$VERSION"
grep -qx "        runAsUser: 65532" deploy/k8s/base/deployment.yaml \
    || fail "deploy/k8s/base/deployment.yaml does not run as the image's user 65532"
echo "check: deploy/k8s/base runs localhost/arbiter:$VERSION as user 65532"

# 2. Contents: the binary alone, statically linked.
container="$(buildah from "$IMAGE")"
root="$(buildah mount "$container")"
find "$root" -mindepth 1 | sed "s|^$root||" | sort | tee "$work/files.txt"
[[ "$(cat "$work/files.txt")" == /arbiter ]] || fail "the image holds more than /arbiter"
readelf --program-headers "$root/arbiter" | grep -q INTERP && fail "/arbiter is dynamically linked"
echo "check: /arbiter alone, statically linked, no shell"

# 3. Serve from the mounted image: its entrypoint, as its user, on loopback,
# with the devices every OCI runtime gives a container (the runtime spec's
# default devices); the server reads /dev/urandom, where a static binary's
# getrandom falls back.
mkdir -p "$root/dev"
for device in null zero full random urandom; do
    touch "$root/dev/$device"
    mount --bind "/dev/$device" "$root/dev/$device"
    mounted+=("$root/dev/$device")
done
port="$(free_port)"
metrics_port="$(free_port)"
address="127.0.0.1:$port"
# A long drain: the stream below ends the drain, not the clock.
chroot --userspec=65532:65532 "$root" /arbiter serve --listen "$address" \
    --metrics-listen "127.0.0.1:$metrics_port" --drain 60s </dev/null >"$work/server.log" 2>&1 &
server_pid=$!
echo "server: pid $server_pid on $address (chroot $root, uid 65532)"
await_serving "$address" "$server_pid" "$work/server.log"

"$GRPCURL" -plaintext -d '{"moves":["e4","e5","Qh5","Nc6","Bc4","Nf6","Qxf7"],"skipLegalMoves":true}' \
    "$address" arbiter.v1.RulesService/ValidateGame >"$work/validate.json"
"$PYTHON" - "$work/validate.json" <<'PY' || fail "unexpected ValidateGame answer"
import json, sys
reply = json.load(open(sys.argv[1]))
sans = [p["san"] for p in reply["plies"]]
assert sans == ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"], sans
assert reply["outcome"]["termination"] == "TERMINATION_CHECKMATE", reply["outcome"]
assert reply["outcome"]["pgnResult"] == "1-0", reply["outcome"]
PY
echo "check: ValidateGame answers Qxf7# TERMINATION_CHECKMATE 1-0"

"$PYTHON" - "http://127.0.0.1:$metrics_port/metrics" <<'PY' || fail "metrics endpoint"
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
assert "arbiter_" in text, text[:500]
PY
echo "check: Prometheus metrics on the metrics port"

# 4. Drain: a stream open across SIGTERM is answered to its end.
mkfifo "$work/stream.in"
"$GRPCURL" -plaintext -d @ "$address" arbiter.v1.RulesService/ValidateGames \
    <"$work/stream.in" >"$work/stream.out" 2>&1 &
stream_pid=$!
exec 3>"$work/stream.in"
# await_line FILE TEXT: until FILE holds TEXT (the stream's answer, the
# server's log line), for at most STARTUP_TIMEOUT_S.
await_line() {
    local deadline=$((SECONDS + STARTUP_TIMEOUT_S))
    until grep -qF "$2" "$1"; do
        ((SECONDS <= deadline)) || { cat "$1" >&2; fail "no '$2' in $1"; }
        sleep 0.05
    done
}
echo '{"id":"before","game":{"moves":["e4"]}}' >&3
await_line "$work/stream.out" '"id": "before"'
kill -TERM "$server_pid"
await_line "$work/server.log" "shutting down"
echo '{"id":"after","game":{"moves":["f3","e5","g4","Qh4"]}}' >&3
exec 3>&-
stream_status=0
wait "$stream_pid" || stream_status=$?
stream_pid=""
cat "$work/stream.out"
((stream_status == 0)) || fail "the stream open across SIGTERM failed (grpcurl exit status $stream_status)"
grep -qF '"id": "after"' "$work/stream.out" || fail "no answer after SIGTERM"
grep -qF '"san": "Qh4#"' "$work/stream.out" || fail "the answer after SIGTERM lacks Qh4#"
echo "check: a ValidateGames stream open across SIGTERM got its answers"
await_exit "$server_pid" "$work/server.log"
server_pid=""
echo "image-check: OK"
