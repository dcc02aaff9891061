#!/usr/bin/env bash
# The contract as a package and the clients as their users work, in steps
# that .ci/run times one by one (each is also runnable alone):
#   install   Debian's Chromium, protoc and the Go/Python gRPC generators;
#             `npm ci` in clients/node and clients/web (npm cache in target/)
#   contract  buf breaking against proto-release/ (the contract as last
#             released); `buf generate` for every language (buf.gen.yaml),
#             the Java stubs compiled and the Python ones imported
#   node      clients/node's tests against ARBITER_BIN over gRPC and gRPC-Web
#   web       clients/web's page in headless Chromium against ARBITER_BIN,
#             screenshot in target/web-client.png
#
# Needs: PYTHON (a venv with clients/python/requirements.txt), ARBITER_BIN
# (default target/release/arbiter). Run as root for `install` (apt-get).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
export ARBITER_BIN="${ARBITER_BIN:-target/release/arbiter}"
NPM_CACHE="$PWD/target/ci-npm-cache"
# Debian 12's packages, any security update. Chromium is not pinned: Debian
# replaces it with each security release and drops the old one.
PROTOC_VERSION='3.21.12-3+deb12u*'          # protobuf-compiler, libprotobuf-java
GRPC_PLUGINS_VERSION='1.51.1-3*'            # protobuf-compiler-grpc: grpc_python_plugin
PROTOC_GEN_GO_VERSION='1.28.1-3*'
PROTOC_GEN_GO_GRPC_VERSION='1.33.3-2*'
BUF=clients/node/node_modules/.bin/buf     # @bufbuild/buf, pinned in clients/node

install() {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        chromium "protobuf-compiler=$PROTOC_VERSION" "libprotobuf-java=$PROTOC_VERSION" \
        "protobuf-compiler-grpc=$GRPC_PLUGINS_VERSION" "protoc-gen-go=$PROTOC_GEN_GO_VERSION" \
        "protoc-gen-go-grpc=$PROTOC_GEN_GO_GRPC_VERSION" >/dev/null
    /usr/bin/chromium --version
    protoc --version
    local dir
    for dir in clients/node clients/web; do
        (cd "$dir" && npm ci --no-audit --no-fund --no-update-notifier --cache "$NPM_CACHE")
    done
}

contract() {
    "$BUF" --version
    "$BUF" breaking proto --against proto-release/arbiter-v1.image.json
    echo "buf breaking: no change breaks the contract as released (proto-release/)"
    # Every generator of buf.gen.yaml: Python through the venv's grpcio-tools,
    # TypeScript through clients/node's protoc-gen-es.
    PATH="$(dirname "$PYTHON"):$PWD/clients/node/node_modules/.bin:$PATH" "$BUF" generate
    find gen -type f | sort
    rm -rf target/ci-gen-java
    javac -nowarn -encoding UTF-8 -cp /usr/share/java/protobuf.jar -d target/ci-gen-java \
        $(find gen/java -name '*.java')
    echo "Java stubs compile: $(find target/ci-gen-java -name '*.class' | wc -l) classes"
    PYTHONPATH=gen/python "$PYTHON" -c '
from arbiter.v1 import arbiter_pb2 as pb, arbiter_pb2_grpc as rpc
assert rpc.RulesServiceStub and pb.ValidateGameRequest(moves=["e4"]).moves == ["e4"]
print("Python stubs import")'
}

node_tests() {
    (cd clients/node && npm test)
}

web_tests() {
    (cd clients/web && npm test)
    ls -l target/web-client.png
}

case "${1:-all}" in
    install) install ;;
    contract) contract ;;
    node) node_tests ;;
    web) web_tests ;;
    all) install && contract && node_tests && web_tests ;;
    *) echo "usage: $0 [install|contract|node|web|all]" >&2; exit 2 ;;
esac
