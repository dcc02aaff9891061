// A small TypeScript client of arbiter.v1 for Node.js: the generated
// RulesService (protoc-gen-es) over gRPC (HTTP/2) or gRPC-Web (HTTP/1.1),
// and the decoding of a bad request's google.rpc details.
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";

import { RulesService } from "./gen/arbiter/v1/arbiter_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";

export * from "./gen/arbiter/v1/arbiter_pb.js";

/** How the client talks to the server. */
export type Protocol = "grpc" | "grpc-web";

/** A RulesService client. */
export type ArbiterClient = Client<typeof RulesService>;

/**
 * A client of the server at `baseUrl` (e.g. `http://127.0.0.1:50051`).
 * gRPC needs HTTP/2; gRPC-Web is sent over HTTP/1.1, as a browser or an
 * HTTP/1 proxy would.
 */
export function createArbiterClient(baseUrl: string, protocol: Protocol = "grpc"): ArbiterClient {
  const transport =
    protocol === "grpc"
      ? createGrpcTransport({ baseUrl })
      : createGrpcWebTransport({ baseUrl, httpVersion: "1.1" });
  return createClient(RulesService, transport);
}

/** What the server said about a request it refused. */
export interface RequestError {
  code: Code;
  /** The status message. */
  message: string;
  /** `google.rpc.ErrorInfo.reason`, machine-readable (e.g. `INVALID_FEN`). */
  reason: string | undefined;
  /** `google.rpc.ErrorInfo.domain` (`arbiter.v1`). */
  domain: string | undefined;
  /** `google.rpc.BadRequest`'s field violations: the request field and why. */
  violations: { field: string; description: string }[];
}

/** Decodes a failed call's status and its google.rpc error details. */
export function requestError(err: unknown): RequestError {
  const error = ConnectError.from(err);
  const [info] = error.findDetails(ErrorInfoSchema);
  const violations = error
    .findDetails(BadRequestSchema)
    .flatMap((bad) => bad.fieldViolations)
    .map(({ field, description }) => ({ field, description }));
  return {
    code: error.code,
    message: error.rawMessage,
    reason: info?.reason,
    domain: info?.domain,
    violations,
  };
}

export { Code };
