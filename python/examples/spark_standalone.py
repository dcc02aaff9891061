"""A Spark standalone cluster on this machine, from the pyspark package
alone (no Spark download): a master and N workers started with its
`bin/spark-class` on 127.0.0.1, each a process of its own session, stopped
by their ids. For trying the Spark example as a cluster runs it, and for
the test and the measurement that do (tests/test_spark.py,
benches/spark_rate.py). Needs `java` (17 or later) on PATH.

    with Standalone(Path("/tmp/spark"), workers=2) as cluster:
        subprocess.run([*cluster.submit(), "python/examples/spark_map_in_arrow.py", OUT, *FILES])
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent

# Warnings only, on standard error (each process's log file).
LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Standalone:
    """A master and `workers` workers of `cores` cores and `memory` each,
    their files (logs, work and scratch directories) under `root`."""

    def __init__(self, root: Path, workers: int = 2, cores: int = 1, memory: str = "768m",
                 startup_seconds: float = 180) -> None:
        self.root = root
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.startup_seconds = startup_seconds
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.port = free_port()
        self.ui_port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        conf = root / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        (conf / "log4j2.properties").write_text(LOG4J2)
        self.env = {
            **os.environ,
            "SPARK_HOME": str(SPARK_HOME),
            "SPARK_CONF_DIR": str(conf),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_LOCAL_DIRS": str(root / "local"),
            "SPARK_WORKER_DIR": str(root / "work"),
            "SPARK_DAEMON_MEMORY": "256m",
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
        }

    def __enter__(self) -> Standalone:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        """Starts the master and the workers; returns once every worker is
        ALIVE in the master's state, else raises RuntimeError with the logs."""
        self._spawn("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(self.port), "--webui-port", str(self.ui_port))
        for n in range(1, self.workers + 1):
            self._spawn(f"worker{n}", "org.apache.spark.deploy.worker.Worker", "--host",
                        "127.0.0.1", "--cores", str(self.cores), "--memory", self.memory,
                        "--webui-port", str(free_port()), self.url)
        deadline = time.monotonic() + self.startup_seconds
        while time.monotonic() < deadline:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited ({proc.returncode}):\n{self.logs()}")
            if self.alive_workers() == self.workers:
                return
            time.sleep(1)
        raise RuntimeError(f"workers not alive after {self.startup_seconds} s:\n{self.logs()}")

    def _spawn(self, name: str, *args: str) -> None:
        with (self.root / f"{name}.log").open("wb") as log:
            proc = subprocess.Popen([str(SPARK_HOME / "bin" / "spark-class"), *args], env=self.env,
                                    stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append((name, proc))

    def alive_workers(self) -> int:
        """The workers the master counts ALIVE (its web UI's JSON)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as r:
                state = json.load(r)
        except OSError:
            return 0
        return sum(1 for worker in state.get("workers", []) if worker.get("state") == "ALIVE")

    def submit(self, memory: str = "512m") -> list[str]:
        """`spark-submit` for this cluster, before the application's path and
        arguments: one executor of `cores` cores on each worker, this
        Python (with the wheel) on the executors, no web UI."""
        conf = {
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.driver.memory": memory,
            "spark.executor.memory": memory,
            "spark.executor.cores": str(self.cores),
            "spark.cores.max": str(self.cores * self.workers),
            "spark.ui.enabled": "false",
            "spark.pyspark.python": sys.executable,
        }
        args = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", self.url]
        for key, value in conf.items():
            args += ["--conf", f"{key}={value}"]
        return args

    def logs(self) -> str:
        """The tail of each process's log."""
        return "\n".join(
            f"--- {path.name}\n" + path.read_text(errors="replace")[-3000:]
            for path in sorted(self.root.glob("*.log"))
        )

    def stop(self) -> None:
        """Each process by its id (its session's process group), the last
        started first; SIGKILL after 30 s."""
        for _, proc in reversed(self.procs):
            if proc.poll() is None:
                _signal_group(proc, signal.SIGTERM)
        for _, proc in reversed(self.procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(timeout=30)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """`sig` to the process group that `proc` leads (it and the JVMs and
    Python workers it started); gone already is fine."""
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
