#!/usr/bin/env bash
# Builds the Java client with Debian's packages alone (no Maven, no Gradle,
# no network) and, with `test`, runs its JUnit 5 suite against a real server:
#   generate  protoc with grpc-java's plugin: proto/ into target/java/gen, and
#             googleapis' google/rpc/error_details.proto from clients/proto/
#             (Debian's proto-google-common-protos 1.16 predates ErrorInfo;
#             these classes come first on the class path and shadow its own)
#   compile   javac against /usr/share/java into target/java/classes
#   test      the JUnit console launcher over the tests; ARBITER_BIN names the
#             server binary the tests start (default target/release/arbiter)
#
# Usage: clients/java/build.sh [test]
# Debian 12: apt-get install default-jdk-headless protobuf-compiler
#   protobuf-compiler-grpc-java-plugin libgrpc-java libnetty-java
#   libprotobuf-java libgoogle-common-protos-java libperfmark-java
#   libgeronimo-annotation-1.3-spec-java junit5
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT=target/java
JARS=/usr/share/java
# grpc-java 1.41 with Netty, protobuf-java 3.21, Guava, PerfMark, javax.annotation
# (the stubs' @Generated), and JUnit 5's API for the tests.
RUNTIME=(
    protobuf grpc-api grpc-context grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub
    proto-google-common-protos guava perfmark-api geronimo-annotation-1.3-spec
    netty-buffer netty-codec netty-codec-http netty-codec-http2 netty-codec-socks netty-common
    netty-handler netty-handler-proxy netty-resolver netty-transport netty-transport-native-unix-common
)
TEST=(junit-jupiter-api opentest4j apiguardian-api junit-platform-commons)
classpath="$OUT/classes"
for jar in "${RUNTIME[@]}" "${TEST[@]}"; do classpath+=":$JARS/$jar.jar"; done

rm -rf "$OUT"
mkdir -p "$OUT/gen" "$OUT/classes"
protoc -I proto --java_out="$OUT/gen" \
    --plugin=protoc-gen-grpc-java=/usr/bin/grpc_java_plugin --grpc-java_out="$OUT/gen" \
    proto/arbiter/v1/arbiter.proto
protoc -I clients/proto --java_out="$OUT/gen" google/rpc/error_details.proto
find "$OUT/gen" clients/java/src -name '*.java' >"$OUT/sources.txt"
javac -nowarn -encoding UTF-8 -cp "$classpath" -d "$OUT/classes" @"$OUT/sources.txt"
echo "java client: $(find "$OUT/classes" -name '*.class' | wc -l) classes in $OUT/classes"

if [[ "${1:-}" == test ]]; then
    ARBITER_BIN="$(realpath "${ARBITER_BIN:-target/release/arbiter}")" \
        java -jar "$JARS/junit-platform-console-standalone.jar" \
        --class-path "$classpath" --select-package invalid.example.arbiter.client \
        --details=tree --disable-banner --disable-ansi-colors --fail-if-no-tests
fi
