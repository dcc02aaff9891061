// End-to-end tests of the Node client against the real server, over gRPC
// (HTTP/2) and gRPC-Web (HTTP/1.1): every RPC, an illegal move, a bad
// request's details, a stream and deadlines.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { create, type MessageInitShape } from "@bufbuild/protobuf";

import {
  Code,
  createArbiterClient,
  GameResult,
  IllegalMoveReason,
  requestError,
  Termination,
  ValidateGameRequestSchema,
  type ArbiterClient,
  ValidateGamesRequestSchema,
} from "../src/client.js";
import { startArbiter, type Arbiter } from "../../harness/arbiter.mjs";

const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const SCHOLARS_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
const TIMEOUT_MS = 10_000;

let server: Arbiter;

before(async () => {
  server = await startArbiter();
});

after(async () => {
  assert.equal(await server.stop(), 0, "the server drains and exits 0 on SIGTERM");
});

for (const protocol of ["grpc", "grpc-web"] as const) {
  describe(`over ${protocol}`, () => {
    let client: ArbiterClient;
    before(() => {
      client = createArbiterClient(server.baseUrl, protocol);
    });

    it("ValidateGame answers move by move with canonical SAN and the outcome", async () => {
      // Long algebraic, UCI and a missing `#` are accepted and normalised.
      const moves = ["e2-e4", "e7e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7"];
      const reply = await client.validateGame({ moves, includeFens: true }, { timeoutMs: TIMEOUT_MS });
      assert.deepEqual(
        reply.plies.map((ply) => ply.san),
        SCHOLARS_MATE,
      );
      assert.deepEqual(
        reply.plies.map((ply) => ply.uci),
        ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"],
      );
      assert.deepEqual(
        reply.plies.map((ply) => ply.canonicalInput),
        [false, true, true, true, true, true, false],
      );
      assert.equal(reply.plies[0]?.fenAfter, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
      assert.equal(reply.illegalMove, undefined);
      assert.equal(reply.outcome?.result, GameResult.WHITE_WINS);
      assert.equal(reply.outcome?.termination, Termination.CHECKMATE);
      assert.equal(reply.outcome?.pgnResult, "1-0");
      assert.equal(reply.position?.inCheck, true);
      assert.deepEqual(reply.position?.legalMoves, []);
    });

    it("an illegal move is an answer with the legal prefix and the reason", async () => {
      const reply = await client.validateGame({ moves: ["e4", "e5", "e1e3", "d4"] }, { timeoutMs: TIMEOUT_MS });
      assert.deepEqual(
        reply.plies.map((ply) => ply.san),
        ["e4", "e5"],
      );
      assert.equal(reply.illegalMove?.index, 2);
      assert.equal(reply.illegalMove?.move, "e1e3");
      assert.equal(reply.illegalMove?.reason, IllegalMoveReason.CANNOT_MOVE_THAT_WAY);
      assert.equal(reply.illegalMove?.message, "a king cannot move from e1 to e3");
      // The position is the one before the bad move, white to move.
      assert.equal(reply.position?.fen, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2");
      assert.equal(reply.outcome?.result, GameResult.ONGOING);
      // A move after mate is refused as such.
      const over = await client.validateGame({ moves: [...SCHOLARS_MATE, "a6"] }, { timeoutMs: TIMEOUT_MS });
      assert.equal(over.illegalMove?.reason, IllegalMoveReason.GAME_OVER);
      assert.equal(over.illegalMove?.index, 7);
    });

    it("LegalMoves lists the moves of a position, optionally from one square", async () => {
      const all = await client.legalMoves({ fen: START_FEN }, { timeoutMs: TIMEOUT_MS });
      assert.equal(all.position?.legalMoves.length, 20);
      const knight = await client.legalMoves({ moves: ["e4"], fromSquare: "g8" }, { timeoutMs: TIMEOUT_MS });
      assert.deepEqual(
        knight.position?.legalMoves.map(({ uci, san }) => [uci, san]).sort(),
        [
          ["g8f6", "Nf6"],
          ["g8h6", "Nh6"],
        ],
      );
      assert.equal(knight.outcome?.result, GameResult.ONGOING);
    });

    it("Perft counts the move tree, with divide", async () => {
      const reply = await client.perft({ depth: 3, divide: true }, { timeoutMs: TIMEOUT_MS });
      assert.equal(reply.nodes, 8902n);
      assert.equal(reply.divide.length, 20);
      assert.equal(
        reply.divide.reduce((sum, entry) => sum + entry.nodes, 0n),
        8902n,
      );
      assert.equal(reply.divide.find((entry) => entry.uci === "e2e4")?.nodes, 600n);
    });

    it("a bad request is INVALID_ARGUMENT with BadRequest and ErrorInfo decoded", async () => {
      const bad = create(ValidateGameRequestSchema, { fen: "not a fen", moves: ["e4"] });
      const err = await client.validateGame(bad, { timeoutMs: TIMEOUT_MS }).then(
        () => assert.fail("an invalid FEN was accepted"),
        (error: unknown) => requestError(error),
      );
      assert.equal(err.code, Code.InvalidArgument);
      assert.equal(err.reason, "INVALID_FEN");
      assert.equal(err.domain, "arbiter.v1");
      assert.deepEqual(
        err.violations.map((violation) => violation.field),
        ["fen"],
      );
      assert.equal(err.violations[0]?.description, err.message);
      // No king: a syntactically valid FEN of an illegal position.
      const empty = await client.legalMoves({ fen: "8/8/8/8/8/8/8/8 w - - 0 1" }, { timeoutMs: TIMEOUT_MS }).then(
        () => assert.fail("a position without kings was accepted"),
        (error: unknown) => requestError(error),
      );
      assert.equal(empty.reason, "ILLEGAL_POSITION");
    });

    it("a call past its deadline is DEADLINE_EXCEEDED and the server goes on", async () => {
      // Perft to depth 6 from the start (119,060,324 nodes) takes far longer
      // than 50 ms.
      const err = await client.perft({ depth: 6 }, { timeoutMs: 50 }).then(
        () => assert.fail("perft 6 finished within 50 ms"),
        (error: unknown) => requestError(error),
      );
      assert.equal(err.code, Code.DeadlineExceeded);
      const reply = await client.perft({ depth: 2 }, { timeoutMs: TIMEOUT_MS });
      assert.equal(reply.nodes, 400n);
    });
  });
}

describe("ValidateGames over grpc (a bidirectional stream)", () => {
  it("answers each game in request order, a bad game with a per-game error", async () => {
    const client = createArbiterClient(server.baseUrl, "grpc");
    async function* games(): AsyncIterable<MessageInitShape<typeof ValidateGamesRequestSchema>> {
      yield { id: "mate", game: { moves: SCHOLARS_MATE } };
      yield { id: "bad-fen", game: { fen: "8/8/8 w - - 0 1" } };
      yield { id: "illegal", game: { moves: ["e4", "e4"] } };
      for (let i = 0; i < 20; i++) yield { id: `short-${i}`, game: { moves: ["d4", "d5"] } };
    }
    const answers = [];
    for await (const answer of client.validateGames(games(), { timeoutMs: TIMEOUT_MS })) answers.push(answer);
    assert.deepEqual(
      answers.map((answer) => answer.id),
      ["mate", "bad-fen", "illegal", ...Array.from({ length: 20 }, (_, i) => `short-${i}`)],
    );
    const [mate, badFen, illegal] = answers;
    assert.equal(mate?.result.case, "game");
    assert.equal(mate?.result.case === "game" && mate.result.value.outcome?.termination, Termination.CHECKMATE);
    assert.equal(badFen?.result.case, "error");
    if (badFen?.result.case === "error") {
      assert.equal(badFen.result.value.code, "INVALID_ARGUMENT");
      assert.equal(badFen.result.value.field, "game.fen");
      assert.equal(badFen.result.value.reason, "INVALID_FEN");
    }
    assert.equal(illegal?.result.case === "game" && illegal.result.value.illegalMove?.index, 1);
  });
});
