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
#   go        Debian's Go 1.19 and gRPC-Go; runs clients/go/README.md's commands as
#             written: stubs, GOPATH, `go vet` and `go test` of clients/go
#             against ARBITER_BIN
#   java      Debian's JDK 17 and grpc-java; runs clients/java/README.md's command as
#             written: clients/java/build.sh test, JUnit 5 against ARBITER_BIN
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
GO_VERSION='2:1.19~1'                        # golang-go
GRPC_GO_VERSION='1.33.3-2*'                  # golang-google-grpc-dev
GO_PROTOBUF_VERSION='1.5.2-3*'               # golang-github-golang-protobuf-1-5-dev
GENPROTO_VERSION='0.0~git20200413.b5235f6-3*' # golang-google-genproto-dev: errdetails
JDK_VERSION='2:1.17-74*'                     # default-jdk-headless: OpenJDK 17
GRPC_JAVA_VERSION='1.41.3+ds-1*'             # libgrpc-java, protobuf-compiler-grpc-java-plugin
NETTY_VERSION='1:4.1.48-7+deb12u*'           # libnetty-java
COMMON_PROTOS_JAVA_VERSION='1.16.0+ds-2*'    # libgoogle-common-protos-java: google.rpc.Status
ANNOTATION_JAVA_VERSION='1.3-1*'             # libgeronimo-annotation-1.3-spec-java
PERFMARK_VERSION='0.21.0+ds-3*'              # libperfmark-java: grpc-core calls PerfMark
JUNIT5_VERSION='5.9.2-1*'

install() {
    apt_install chromium "protobuf-compiler=$PROTOC_VERSION" "libprotobuf-java=$PROTOC_VERSION" \
        "protobuf-compiler-grpc=$GRPC_PLUGINS_VERSION" "protoc-gen-go=$PROTOC_GEN_GO_VERSION" \
        "protoc-gen-go-grpc=$PROTOC_GEN_GO_GRPC_VERSION"
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

apt_install() {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# readme_block FILE HEADING: the first ```sh block after the line HEADING of
# the Markdown file FILE.
readme_block() {
    awk -v heading="$2" '
        $0 == heading { found = 1; next }
        found && /^```sh$/ { inside = 1; next }
        inside && /^```$/ { exit }
        inside { print }
    ' "$1"
}

# run_readme_block FILE HEADING: runs that block with bash, as a reader would
# paste it, in a subshell at the repository root; fails on its first error.
run_readme_block() {
    local block
    block="$(readme_block "$1" "$2")"
    [[ -n "$block" ]] || { echo "$1: no sh block under '$2'" >&2; exit 1; }
    echo "$1, $2:"
    printf '%s\n' "$block" | sed 's/^/    /'
    bash -euo pipefail -c "$block"
}

go_tests() {
    apt_install "golang-go=$GO_VERSION" "protobuf-compiler=$PROTOC_VERSION" \
        "protoc-gen-go=$PROTOC_GEN_GO_VERSION" "protoc-gen-go-grpc=$PROTOC_GEN_GO_GRPC_VERSION" \
        "golang-google-grpc-dev=$GRPC_GO_VERSION" \
        "golang-github-golang-protobuf-1-5-dev=$GO_PROTOBUF_VERSION" \
        "golang-google-genproto-dev=$GENPROTO_VERSION"
    go version
    local unformatted
    unformatted="$(gofmt -l clients/go)"
    [[ -z "$unformatted" ]] || { echo "gofmt: not formatted: $unformatted" >&2; exit 1; }
    ARBITER_BIN="$(realpath "$ARBITER_BIN")" run_readme_block clients/go/README.md "## Build and test"
}

java_tests() {
    apt_install "default-jdk-headless=$JDK_VERSION" "protobuf-compiler=$PROTOC_VERSION" \
        "protobuf-compiler-grpc-java-plugin=$GRPC_JAVA_VERSION" "libgrpc-java=$GRPC_JAVA_VERSION" \
        "libnetty-java=$NETTY_VERSION" "libprotobuf-java=$PROTOC_VERSION" \
        "libgoogle-common-protos-java=$COMMON_PROTOS_JAVA_VERSION" \
        "libgeronimo-annotation-1.3-spec-java=$ANNOTATION_JAVA_VERSION" \
        "libperfmark-java=$PERFMARK_VERSION" "junit5=$JUNIT5_VERSION"
    javac -version
    run_readme_block clients/java/README.md "## Build and test"
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
    go) go_tests ;;
    java) java_tests ;;
    all) install && contract && node_tests && web_tests && go_tests && java_tests ;;
    *) echo "usage: $0 [install|contract|node|web|go|java|all]" >&2; exit 2 ;;
esac
