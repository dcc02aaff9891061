// Types of arbiter.mjs for the TypeScript tests.

/** The repository root. */
export declare const REPO: string;

/** A port of 127.0.0.1 that nothing listens on right now. */
export declare function freePort(): Promise<number>;

/** A running `arbiter serve`. */
export interface Arbiter {
  port: number;
  /** `http://127.0.0.1:PORT`. */
  baseUrl: string;
  /** SIGTERM, then the exit code (the server drains and exits 0). */
  stop(): Promise<number | null>;
}

/** Starts `arbiter serve` with `flags` and waits until it accepts connections. */
export declare function startArbiter(flags?: string[]): Promise<Arbiter>;
