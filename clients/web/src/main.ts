// The page: a board and a move list checked by Arbiter over gRPC-Web. Every
// change re-sends the whole game (ValidateGame), as a live game would; the
// server's answer decides what the board allows next.
import { Chessground } from "@lichess-org/chessground";
import type { Api } from "@lichess-org/chessground/api";
import type { Color as BoardColor, Key } from "@lichess-org/chessground/types";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import {
  ClaimableDrawSchema,
  Color,
  GameResultSchema,
  IllegalMoveReasonSchema,
  RulesService,
  TerminationSchema,
  ValidateGameRequestSchema,
  type ValidateGameResponse,
  Variant,
  VariantSchema,
} from "./gen/arbiter/v1/arbiter_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";

const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/** The server's address: `?server=URL`, else port 50051 of the page's host. */
function serverUrl(): string {
  const given = new URLSearchParams(location.search).get("server");
  return given ?? `${location.protocol}//${location.hostname}:50051`;
}

const baseUrl = serverUrl();
const client = createClient(RulesService, createGrpcWebTransport({ baseUrl }));

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`no #${id} in the page`);
  return found as T;
}

const movesInput = element<HTMLTextAreaElement>("moves");
const fenInput = element<HTMLInputElement>("fen");
const variantSelect = element<HTMLSelectElement>("variant");
element("server").textContent = baseUrl;

/** An enum value's proto name without its prefix, e.g. `CHECKMATE`. */
function enumName(schema: { values: { number: number; name: string }[] }, value: number, prefix: string): string {
  const name = schema.values.find((entry) => entry.number === value)?.name ?? String(value);
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** Every variant the contract has, e.g. "King of the hill" for VARIANT_KING_OF_THE_HILL. */
variantSelect.replaceChildren(
  ...VariantSchema.values
    .filter((entry) => entry.number !== Variant.UNSPECIFIED)
    .map((entry) => {
      const words = enumName(VariantSchema, entry.number, "VARIANT_").toLowerCase().replaceAll("_", " ");
      return new Option(words.charAt(0).toUpperCase() + words.slice(1), String(entry.number));
    }),
);

/** The squares a move in UCI touches: a drop (`N@f3`) only its target. */
function squaresOf(uci: string): Key[] {
  return (uci[1] === "@" ? [uci.slice(2, 4)] : [uci.slice(0, 2), uci.slice(2, 4)]) as Key[];
}

/** Move texts from what a person pastes: move numbers, results and comments go. */
export function parseMoves(text: string): string[] {
  return text
    .replace(/\{[^}]*\}/g, " ")
    .split(/\s+/)
    .map((token) => token.replace(/^\d+\.+/, ""))
    .filter((token) => token !== "" && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(token));
}

const board: Api = Chessground(element("board"), {
  fen: START_FEN,
  movable: { free: false, color: "white", showDests: true, events: { after: onBoardMove } },
  animation: { enabled: false },
});

/** The legal moves of the shown position, in UCI, from the last answer. */
let legalUci: string[] = [];

function onBoardMove(orig: Key, dest: Key): void {
  // Promotion: a queen (the only choice this small page offers).
  const uci = legalUci.includes(`${orig}${dest}q`) ? `${orig}${dest}q` : `${orig}${dest}`;
  const moves = parseMoves(movesInput.value);
  moves.push(uci);
  movesInput.value = moves.join(" ");
  void check();
}

function show(reply: ValidateGameResponse): void {
  const position = reply.position;
  const fen = position?.fen ?? START_FEN;
  const turn: BoardColor = position?.turn === Color.BLACK ? "black" : "white";
  legalUci = position?.legalMoves.map((move) => move.uci) ?? [];
  const dests = new Map<Key, Key[]>();
  for (const uci of legalUci) {
    const [from, to] = squaresOf(uci);
    // A drop moves from no square: drops are pasted (the board shows no pockets).
    if (from === undefined || to === undefined) continue;
    dests.set(from, [...(dests.get(from) ?? []), to]);
  }
  const last = reply.plies.at(-1)?.uci;
  board.set({
    fen,
    turnColor: turn,
    check: position?.inCheck ? turn : false,
    lastMove: last === undefined ? undefined : squaresOf(last),
    movable: { color: turn, dests },
  });
  element("turn").textContent = `${turn === "white" ? "White" : "Black"} to move · ${fen}`;

  const inputs = parseMoves(movesInput.value);
  const plies = element("plies");
  plies.replaceChildren(
    ...reply.plies.map((ply, index) => {
      const item = document.createElement("li");
      item.textContent = ply.san;
      item.title = `UCI ${ply.uci}`;
      item.dataset.testid = "ply";
      if (!ply.canonicalInput) {
        item.classList.add("normalised");
        item.title += ` · written ${inputs[index] ?? "?"}`;
      }
      return item;
    }),
  );

  const illegal = element("illegal");
  const bad = reply.illegalMove;
  illegal.hidden = bad === undefined;
  illegal.textContent =
    bad === undefined
      ? ""
      : `Move ${bad.index + 1} "${bad.move}" is illegal: ${enumName(IllegalMoveReasonSchema, bad.reason, "ILLEGAL_MOVE_REASON_")} — ${bad.message}`;

  const outcome = reply.outcome;
  const parts = outcome === undefined ? [] : [outcome.pgnResult, enumName(GameResultSchema, outcome.result, "GAME_RESULT_")];
  if (outcome !== undefined && outcome.termination !== 0) parts.push(enumName(TerminationSchema, outcome.termination, "TERMINATION_"));
  for (const draw of outcome?.claimableDraws ?? []) parts.push(`${enumName(ClaimableDrawSchema, draw, "CLAIMABLE_DRAW_")} claimable`);
  element("outcome").textContent = parts.join(" · ");

  const sans = position?.legalMoves.map((move) => move.san) ?? [];
  element("legal-count").textContent = `(${sans.length})`;
  element("legal").textContent = sans.join(" ");
}

/** A status code as gRPC names it, e.g. `INVALID_ARGUMENT`. */
function grpcCodeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

function showError(err: unknown): void {
  const error = ConnectError.from(err);
  const [info] = error.findDetails(ErrorInfoSchema);
  const fields = error.findDetails(BadRequestSchema).flatMap((bad) => bad.fieldViolations.map((v) => v.field));
  const where = fields.length > 0 ? ` (field ${fields.join(", ")})` : "";
  const reason = info === undefined ? "" : ` ${info.reason}`;
  const text =
    error.code === Code.Unavailable || error.code === Code.Unknown
      ? `Cannot reach the server at ${baseUrl}: ${error.rawMessage}`
      : `${grpcCodeName(error.code)}${reason}${where}: ${error.rawMessage}`;
  const box = element("error");
  box.textContent = text;
  box.hidden = false;
}

/** Sends the game as it stands and shows the answer. */
async function check(): Promise<void> {
  const request = create(ValidateGameRequestSchema, {
    fen: fenInput.value.trim(),
    moves: parseMoves(movesInput.value),
    variant: Number(variantSelect.value),
  });
  document.body.dataset.state = "checking";
  try {
    const reply = await client.validateGame(request, { timeoutMs: 10_000 });
    element("error").hidden = true;
    show(reply);
  } catch (err) {
    showError(err);
  } finally {
    document.body.dataset.state = "idle";
  }
}

element("paste").addEventListener("submit", (event) => {
  event.preventDefault();
  void check();
});
variantSelect.addEventListener("change", () => void check());
element("undo").addEventListener("click", () => {
  movesInput.value = parseMoves(movesInput.value).slice(0, -1).join(" ");
  void check();
});
element("reset").addEventListener("click", () => {
  movesInput.value = "";
  void check();
});
void check();
