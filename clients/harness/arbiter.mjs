// Test harness shared by the Node and web clients' tests: starts the real
// `arbiter` binary on free ports of 127.0.0.1 and stops it with SIGTERM, as
// an operator would. The binary is $ARBITER_BIN (relative to the repository
// root), else target/release/arbiter.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));
const STARTUP_MS = 30_000;
const SHUTDOWN_MS = 20_000;

/** A port of 127.0.0.1 that nothing listens on right now. */
export async function freePort() {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function accepts(port) {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/** Starts `arbiter serve` with `flags` and waits until it accepts connections. */
export async function startArbiter(flags = []) {
  const bin = resolve(REPO, process.env.ARBITER_BIN ?? "target/release/arbiter");
  const port = await freePort();
  const metrics = await freePort();
  const args = ["serve", "--listen", `127.0.0.1:${port}`, "--metrics-listen", `127.0.0.1:${metrics}`, ...flags];
  const child = spawn(bin, args, { stdio: ["ignore", "inherit", "inherit"] });
  const exited = once(child, "exit").then(([code]) => code);
  const deadline = Date.now() + STARTUP_MS;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`${bin} exited with ${child.exitCode} at start-up`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${bin} did not listen on ${port} within ${STARTUP_MS} ms`);
    }
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), SHUTDOWN_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
