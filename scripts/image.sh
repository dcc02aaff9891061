#!/usr/bin/env bash
# Builds the server image (deploy/Dockerfile, FROM scratch) as
# localhost/arbiter:VERSION and localhost/arbiter:latest, with no registry:
# the release binary is built here, statically linked, and is the whole build
# context. `docker build` where a Docker engine answers, else `buildah bud`
# (Debian's buildah; no daemon, works offline).
#
# Usage: scripts/image.sh
#   ARBITER_BIN   a static binary already built (skips the cargo build), e.g.
#                 what .ci/run's release stage leaves in
#                 target/x86_64-unknown-linux-gnu/release/arbiter
#   IMAGE         the image name (default localhost/arbiter)
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=x86_64-unknown-linux-gnu
IMAGE="${IMAGE:-localhost/arbiter}"
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
CONTEXT=target/image-context

if [[ -z "${ARBITER_BIN:-}" ]]; then
    # glibc linked statically (crt-static). With --target, RUSTFLAGS reach only
    # the target's crates, not build scripts and proc macros.
    RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --target "$TARGET" --bin arbiter
    ARBITER_BIN="target/$TARGET/release/arbiter"
fi
# A dynamically linked binary would find no loader in an empty image.
if readelf --program-headers "$ARBITER_BIN" | grep -q INTERP; then
    echo "image.sh: $ARBITER_BIN is dynamically linked; build it with crt-static (see above)" >&2
    exit 1
fi

rm -rf "$CONTEXT"
mkdir -p "$CONTEXT"
cp "$ARBITER_BIN" "$CONTEXT/arbiter"
tags=(-t "$IMAGE:$VERSION" -t "$IMAGE:latest")
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    docker build -f deploy/Dockerfile --build-arg "VERSION=$VERSION" "${tags[@]}" "$CONTEXT"
elif command -v buildah >/dev/null; then
    buildah bud --isolation chroot -f deploy/Dockerfile --build-arg "VERSION=$VERSION" "${tags[@]}" "$CONTEXT"
else
    echo "image.sh: neither docker nor buildah found (Debian: apt-get install buildah)" >&2
    exit 1
fi
echo "image.sh: built $IMAGE:$VERSION and $IMAGE:latest"
