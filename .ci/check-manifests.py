#!/usr/bin/env python3
"""Consistency checks over rendered Kubernetes manifests (kustomize output).

Schema validation (kubernetes-validate --strict) says each object is well
formed; this says the objects fit together and keep the promises of
deploy/README.md: selectors that select the pods, probes and ports that match
the server's settings, a grace period longer than preStop + drain, the
security settings, a rolling update that never drops below capacity, and a
ServiceMonitor (a CRD that kubernetes-validate has no schema for) that points
at a real Service port.

Usage: check-manifests.py RENDERED.yaml...   (needs PyYAML)
Exit status 0 when every file passes; each failure is printed.
"""

import re
import sys

import yaml

SERVICE_NAME = "arbiter.v1.RulesService"
# Variables the server reads besides its own ARBITER_* settings.
OTHER_ENV = re.compile(r"^(RUST_LOG|OTEL_[A-Z0-9_]+)$")
GRACE_MARGIN_S = 5


class Problems:
    def __init__(self, name):
        self.name = name
        self.found = []

    def check(self, ok, message):
        if not ok:
            self.found.append(message)
        return ok


def duration_s(text):
    """Seconds in a humantime duration such as `10s`, `5m`, `1m30s`, `500ms`."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+)\s*(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text.replace(" ", ""):
        raise ValueError(f"unsupported duration {text!r}")
    return sum(int(n) * units[u] for n, u in parts)


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def selects(selector, labels):
    """Whether a matchLabels selector (no expressions here) selects labels."""
    match = selector.get("matchLabels", selector)
    return bool(match) and all(labels.get(k) == v for k, v in match.items())


def check_file(path):
    with open(path, encoding="utf-8") as f:
        objects = [o for o in yaml.safe_load_all(f) if o]
    p = Problems(path)
    by_kind = {}
    for o in objects:
        by_kind.setdefault(o["kind"], []).append(o)

    deployments = by_kind.get("Deployment", [])
    if not p.check(len(deployments) == 1, "expected exactly one Deployment"):
        return p
    deploy = deployments[0]
    spec = deploy["spec"]
    pod = spec["template"]["spec"]
    pod_labels = spec["template"]["metadata"]["labels"]
    p.check(selects(spec["selector"], pod_labels), "Deployment selector misses its pods")
    p.check(spec.get("replicas", 1) >= 3, "replicas < 3")
    rolling = spec.get("strategy", {}).get("rollingUpdate", {})
    p.check(
        spec.get("strategy", {}).get("type") == "RollingUpdate"
        and str(rolling.get("maxUnavailable")) in ("0", "0%")
        and str(rolling.get("maxSurge", "0")) not in ("0", "0%"),
        "rolling update must have maxUnavailable 0 and maxSurge > 0",
    )

    # Pod and container security.
    p.check(pod.get("automountServiceAccountToken") is False, "service-account token mounted")
    psc = pod.get("securityContext", {})
    p.check(psc.get("runAsNonRoot") is True, "pod not runAsNonRoot")
    p.check(psc.get("runAsUser", 0) != 0, "pod runs as uid 0")
    p.check(psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "no seccomp RuntimeDefault")
    spread = pod.get("topologySpreadConstraints", [])
    p.check(
        any(c["topologyKey"] == "kubernetes.io/hostname" and selects(c["labelSelector"], pod_labels)
            for c in spread),
        "no topology spread across nodes selecting the pods",
    )
    containers = pod["containers"]
    p.check(len(containers) == 1, "expected one container")
    c = containers[0]
    csc = c.get("securityContext", {})
    p.check(csc.get("readOnlyRootFilesystem") is True, "root filesystem writable")
    p.check(csc.get("allowPrivilegeEscalation") is False, "privilege escalation allowed")
    p.check(csc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities not all dropped")

    ports = {cp["name"]: cp["containerPort"] for cp in c.get("ports", [])}
    p.check({"grpc", "metrics"} <= ports.keys(), "container ports grpc and metrics missing")

    # Settings: the ConfigMap the container reads, and what follows from it.
    env = {}
    for source in c.get("envFrom", []):
        name = source.get("configMapRef", {}).get("name")
        maps = [m for m in by_kind.get("ConfigMap", []) if m["metadata"]["name"] == name]
        if p.check(len(maps) == 1, f"envFrom ConfigMap {name} not in the manifests"):
            env.update(maps[0].get("data", {}))
    for key in env:
        p.check(key.startswith("ARBITER_") or OTHER_ENV.match(key), f"unexpected variable {key}")
    p.check(port_of(env.get("ARBITER_LISTEN", "0.0.0.0:50051")) == ports.get("grpc"),
            "ARBITER_LISTEN port differs from containerPort grpc")
    p.check(port_of(env.get("ARBITER_METRICS_LISTEN", "0.0.0.0:9090")) == ports.get("metrics"),
            "ARBITER_METRICS_LISTEN port differs from containerPort metrics")
    drain = duration_s(env.get("ARBITER_DRAIN", "10s"))
    pre_stop = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    grace = pod.get("terminationGracePeriodSeconds", 30)
    p.check(grace >= pre_stop + drain + GRACE_MARGIN_S,
            f"terminationGracePeriodSeconds {grace} < preStop {pre_stop} + drain {drain} "
            f"+ {GRACE_MARGIN_S}")

    # Probes: native gRPC on the gRPC port; readiness on the rules service.
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = c.get(kind)
        if p.check(probe and "grpc" in probe, f"{kind} missing or not a grpc probe"):
            p.check(probe["grpc"]["port"] == ports.get("grpc"), f"{kind} not on the gRPC port")
    if c.get("readinessProbe", {}).get("grpc"):
        p.check(c["readinessProbe"]["grpc"].get("service") == SERVICE_NAME,
                f"readinessProbe does not ask for {SERVICE_NAME}")

    workers = [e for e in c.get("env", []) if e["name"] == "TOKIO_WORKER_THREADS"]
    p.check(len(workers) == 1 and workers[0].get("valueFrom", {}).get("resourceFieldRef", {})
            .get("resource") == "requests.cpu",
            "TOKIO_WORKER_THREADS not bound to the CPU request (one worker per node CPU otherwise)")

    resources = c.get("resources", {})
    requests, limits = resources.get("requests", {}), resources.get("limits", {})
    p.check({"cpu", "memory"} <= requests.keys(), "cpu and memory requests missing")
    p.check("memory" in limits, "memory limit missing")
    cache = int(env.get("ARBITER_CACHE_BYTES", 64 << 20))
    if "memory" in limits:
        p.check(mebibytes(limits["memory"]) * (1 << 20) > cache,
                "memory limit not above ARBITER_CACHE_BYTES")

    # Services: one headless, one with a cluster IP, both selecting the pods
    # on named container ports.
    services = by_kind.get("Service", [])
    headless = [s for s in services if s["spec"].get("clusterIP") == "None"]
    p.check(len(headless) == 1 and len(services) == 2, "expected one headless and one ClusterIP Service")
    for s in services:
        name = s["metadata"]["name"]
        p.check(selects(s["spec"]["selector"], pod_labels), f"Service {name} misses the pods")
        for sp in s["spec"]["ports"]:
            p.check(sp.get("targetPort") in ports, f"Service {name} port {sp['name']} targets no named port")

    for hpa in by_kind.get("HorizontalPodAutoscaler", []):
        hs = hpa["spec"]
        p.check(hpa["apiVersion"] == "autoscaling/v2", "HPA is not autoscaling/v2")
        p.check(hs["scaleTargetRef"]["name"] == deploy["metadata"]["name"], "HPA targets another object")
        p.check(hs.get("minReplicas", 1) >= 3, "HPA minReplicas < 3")
        p.check(any(m.get("resource", {}).get("name") == "cpu" for m in hs.get("metrics", [])),
                "HPA does not scale on CPU")
        window = hs.get("behavior", {}).get("scaleDown", {}).get("stabilizationWindowSeconds", 0)
        p.check(window > 0, "HPA has no scale-down stabilisation window")
    p.check(len(by_kind.get("HorizontalPodAutoscaler", [])) == 1, "expected one HPA")

    pdbs = by_kind.get("PodDisruptionBudget", [])
    p.check(len(pdbs) == 1 and selects(pdbs[0]["spec"]["selector"], pod_labels),
            "expected one PodDisruptionBudget selecting the pods")

    policies = by_kind.get("NetworkPolicy", [])
    if p.check(len(policies) == 1, "expected one NetworkPolicy"):
        np = policies[0]["spec"]
        p.check(selects(np["podSelector"], pod_labels), "NetworkPolicy misses the pods")
        p.check(np.get("policyTypes") == ["Ingress"], "NetworkPolicy must restrict ingress")
        admitted = {port["port"] for rule in np.get("ingress", []) for port in rule.get("ports", [])}
        p.check(admitted == {ports.get("grpc"), ports.get("metrics")},
                f"NetworkPolicy admits ports {sorted(admitted)}, not just gRPC and metrics")

    for monitor in by_kind.get("ServiceMonitor", []):
        ms = monitor["spec"]
        targets = [s for s in services if selects(ms["selector"], s["metadata"].get("labels", {}))]
        for endpoint in ms["endpoints"]:
            p.check(any(sp["name"] == endpoint["port"] for s in targets for sp in s["spec"]["ports"]),
                    f"ServiceMonitor port {endpoint['port']} is on no selected Service")
    return p


def mebibytes(quantity):
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024}
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi)", str(quantity))
    if not m:
        raise ValueError(f"write memory quantities in Ki, Mi or Gi: {quantity!r}")
    return int(m.group(1)) * units[m.group(2)]


def main(paths):
    failed = 0
    for path in paths:
        problems = check_file(path)
        for message in problems.found:
            print(f"check-manifests: {path}: {message}")
        if problems.found:
            failed += 1
        else:
            print(f"check-manifests: {path}: OK")
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
