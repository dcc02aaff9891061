#!/usr/bin/env bash
# Offline checks of deploy/: hadolint on the Dockerfile (built and served by
# the image stage, .ci/image-check.sh), yamllint on every YAML file, then each kustomize
# directory (the base and every overlay) rendered with `kubectl kustomize`
# and validated with `kubernetes-validate --strict` against each version in
# K8S_VERSIONS, and with .ci/check-manifests.py (selectors, ports, probes,
# grace period, security settings, the ServiceMonitor's target).
#
# Needs (paths or names on PATH): HADOLINT, YAMLLINT, KUBERNETES_VALIDATE,
# KUBECTL (any kubectl with kustomize v5), PYTHON with PyYAML.
set -euo pipefail
cd "$(dirname "$0")/.."

HADOLINT="${HADOLINT:-hadolint}"
YAMLLINT="${YAMLLINT:-yamllint}"
KUBERNETES_VALIDATE="${KUBERNETES_VALIDATE:-kubernetes-validate}"
KUBECTL="${KUBECTL:-kubectl}"
PYTHON="${PYTHON:-python3}"
# The oldest version the manifests support (the preStop `sleep` action is on
# by default from 1.30) and the newest kubernetes-validate knows.
K8S_VERSIONS="${K8S_VERSIONS:-1.30.0 1.33.0 1.37.0}"
EXPECTED_NO_SCHEMA="Couldn't find schema for kind ServiceMonitor with api version monitoring.coreos.com/v1 "

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "hadolint: $("$HADOLINT" --version)"
"$HADOLINT" deploy/Dockerfile
echo "hadolint deploy/Dockerfile: no findings"

"$YAMLLINT" --version
"$YAMLLINT" --strict -c deploy/.yamllint.yaml deploy
echo "yamllint deploy: no findings"

echo "kubectl: $("$KUBECTL" version --client 2>&1 | tr '\n' ' ')"
rendered=()
while IFS= read -r kustomization; do
    dir="$(dirname "$kustomization")"
    out="$work/$(echo "$dir" | tr / _).yaml"
    "$KUBECTL" kustomize "$dir" >"$out"
    echo "rendered $dir: $(grep -c '^kind:' "$out") objects ($(grep '^kind:' "$out" | sort | uniq -c | awk '{printf "%s%s×%s", sep, $3, $1; sep=", "}'))"
    rendered+=("$out")
    for version in $K8S_VERSIONS; do
        # --quiet prints only failures and warnings. An invalid object fails
        # the command; an object with no schema is only a warning, which
        # would let a mistyped apiVersion through: fail on any warning but
        # the one expected for the ServiceMonitor CRD (.ci/check-manifests.py
        # checks that one).
        "$KUBERNETES_VALIDATE" --strict --quiet -k "$version" "$out" 2>&1 | tee "$work/validate.log"
        if grep -v "$EXPECTED_NO_SCHEMA" "$work/validate.log" | grep -q .; then
            echo "deploy-lint: kubernetes-validate warned about $dir (above)" >&2
            exit 1
        fi
        echo "kubernetes-validate --strict -k $version $dir: OK"
    done
done < <(find deploy/k8s -name kustomization.yaml | sort)
((${#rendered[@]} >= 2)) || { echo "deploy-lint: expected a base and an overlay" >&2; exit 1; }

"$PYTHON" .ci/check-manifests.py "${rendered[@]}"
echo "deploy-lint: OK"
