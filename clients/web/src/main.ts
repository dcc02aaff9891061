// The page: a board and a move list checked by Arbiter over gRPC-Web. Every
// change re-sends the whole game (ValidateGame), as a live game would; the
// server's answer decides what the board allows next. The page reads like
// chess: numbered moves, words for the outcome and the illegal move (the
// contract's names stay in tooltips and a details line), each side's clock
// and a move-time chart when a clock record comes with the game, what the
// game was (its opening's ECO code and name, where its middlegame and
// endgame start: the answer's `analysis`, asked for with `includeAnalysis`),
// and the arrow keys step through the moves. Over the board (the "Illegal
// moves" select: FIDE's Laws of 2023 or 2009) a completed illegal move is
// ruled on and the game goes on: each ruling stands in the move list where
// it was made, in words.
import { Chessground } from "@lichess-org/chessground";
import type { Api } from "@lichess-org/chessground/api";
import type { Color as BoardColor, Key } from "@lichess-org/chessground/types";
import { create } from "@bufbuild/protobuf";
import { type Duration, DurationSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import {
  ClaimableDraw,
  ClaimableDrawSchema,
  Color,
  type GameAnalysis,
  GameClockSchema,
  GameResult,
  GameResultSchema,
  type IllegalMove,
  IllegalMoveReason,
  IllegalMoveReasonSchema,
  IllegalMoves,
  OpeningFamilySchema,
  type Outcome,
  type Ply,
  RulesService,
  type Ruling,
  RulingAction,
  RulingActionSchema,
  Termination,
  TerminationSchema,
  TimeControlSchema,
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
const illegalMovesSelect = element<HTMLSelectElement>("illegal-moves");
const timeControlInput = element<HTMLInputElement>("time-control");
const moveTimesInput = element<HTMLInputElement>("move-times");
element("server").textContent = baseUrl;

type EnumSchema = { values: { number: number; name: string }[] };

/** An enum value's full proto name, e.g. `TERMINATION_CHECKMATE`. */
function protoName(schema: EnumSchema, value: number): string {
  return schema.values.find((entry) => entry.number === value)?.name ?? String(value);
}

/** An enum value's proto name without its prefix, e.g. `CHECKMATE`. */
function enumName(schema: EnumSchema, value: number, prefix: string): string {
  const name = protoName(schema, value);
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

/** What the replay does with a completed illegal move: stop at the first
 * (the default, as online servers refuse it) or rule on it as an arbiter does. */
const ILLEGAL_MOVES_WORDS: [IllegalMoves, string][] = [
  [IllegalMoves.STOP, "Stop at the first (as online servers do)"],
  [IllegalMoves.FIDE, "Rule on them: FIDE 2023 (the second loses)"],
  [IllegalMoves.FIDE_2009, "Rule on them: FIDE 2009 (the third loses)"],
];
illegalMovesSelect.replaceChildren(...ILLEGAL_MOVES_WORDS.map(([value, words]) => new Option(words, String(value))));
illegalMovesSelect.value = String(IllegalMoves.STOP);

// ---- words for the contract's names -------------------------------------

/** How a game ended, as a player says it after "White wins" or "Draw". */
const WIN_WORDS: Partial<Record<Termination, string>> = {
  [Termination.CHECKMATE]: "by checkmate",
  [Termination.TIMEOUT]: "on time",
  [Termination.EXPLOSION]: "by explosion",
  [Termination.KING_OF_THE_HILL]: "by reaching the centre (king of the hill)",
  [Termination.THIRD_CHECK]: "by the third check",
  [Termination.RACE]: "by reaching the eighth rank",
  [Termination.VARIANT_WIN]: "by the variant's rule (no pieces or no moves left)",
  [Termination.ILLEGAL_MOVES]: "on the opponent's illegal moves (the count that loses was reached)",
};

const DRAW_WORDS: Partial<Record<Termination, string>> = {
  [Termination.STALEMATE]: "Draw by stalemate",
  [Termination.INSUFFICIENT_MATERIAL]: "Draw: insufficient material",
  [Termination.SEVENTY_FIVE_MOVE_RULE]: "Draw by the 75-move rule",
  [Termination.FIVEFOLD_REPETITION]: "Draw by fivefold repetition",
  [Termination.DEAD_POSITION]: "Draw: dead position (neither side can checkmate)",
  [Termination.TIMEOUT_VS_UNWINNABLE]: "Draw: time ran out, but the opponent cannot checkmate",
  [Termination.RACE]: "Draw: both kings reached the eighth rank",
  [Termination.ILLEGAL_MOVES_VS_UNWINNABLE]: "Draw: illegal moves reached the count that loses, but the opponent cannot checkmate",
};

/** A termination in a few words, e.g. "checkmate", for "the game is already over (…)". */
const TERMINATION_NOUN: Partial<Record<Termination, string>> = {
  [Termination.CHECKMATE]: "checkmate",
  [Termination.STALEMATE]: "stalemate",
  [Termination.INSUFFICIENT_MATERIAL]: "insufficient material",
  [Termination.SEVENTY_FIVE_MOVE_RULE]: "75-move rule",
  [Termination.FIVEFOLD_REPETITION]: "fivefold repetition",
  [Termination.DEAD_POSITION]: "dead position",
  [Termination.TIMEOUT]: "time ran out",
  [Termination.TIMEOUT_VS_UNWINNABLE]: "time ran out",
  [Termination.EXPLOSION]: "explosion",
  [Termination.KING_OF_THE_HILL]: "king of the hill",
  [Termination.THIRD_CHECK]: "third check",
  [Termination.RACE]: "race",
  [Termination.VARIANT_WIN]: "variant win",
  [Termination.ILLEGAL_MOVES]: "illegal moves",
  [Termination.ILLEGAL_MOVES_VS_UNWINNABLE]: "illegal moves",
};

const CLAIM_WORDS: Record<ClaimableDraw, string> = {
  [ClaimableDraw.UNSPECIFIED]: "a draw",
  [ClaimableDraw.FIFTY_MOVE_RULE]: "the fifty-move rule",
  [ClaimableDraw.THREEFOLD_REPETITION]: "threefold repetition",
};

/** The outcome as a player reads it: "White wins by checkmate", "Draw by stalemate". */
export function outcomeWords(outcome: Outcome | undefined): string {
  if (outcome === undefined) return "";
  const { result, termination } = outcome;
  if (result === GameResult.WHITE_WINS || result === GameResult.BLACK_WINS) {
    const side = result === GameResult.WHITE_WINS ? "White" : "Black";
    const how = WIN_WORDS[termination];
    const unproven = outcome.unproven ? " (no draw could be proven)" : "";
    return `${side} wins${how === undefined ? "" : ` ${how}`}${unproven}`;
  }
  if (result === GameResult.DRAW) return DRAW_WORDS[termination] ?? "Draw";
  const claims = outcome.claimableDraws.map((draw) => `Draw: ${CLAIM_WORDS[draw]} can be claimed`);
  return claims.length > 0 ? claims.join("; ") : "Game in progress";
}

/** The outcome in the contract's names, for developers. */
function outcomeNames(outcome: Outcome | undefined): string {
  if (outcome === undefined) return "";
  const parts = [outcome.pgnResult, protoName(GameResultSchema, outcome.result)];
  if (outcome.termination !== Termination.UNSPECIFIED) parts.push(protoName(TerminationSchema, outcome.termination));
  for (const draw of outcome.claimableDraws) parts.push(protoName(ClaimableDrawSchema, draw));
  return parts.join(" · ");
}

const REASON_WORDS: Record<IllegalMoveReason, string> = {
  [IllegalMoveReason.UNSPECIFIED]: "not a legal move",
  [IllegalMoveReason.UNPARSEABLE]: "not a move that can be read",
  [IllegalMoveReason.NO_PIECE]: "no such piece can make that move",
  [IllegalMoveReason.CANNOT_MOVE_THAT_WAY]: "the piece does not move that way",
  [IllegalMoveReason.PATH_BLOCKED]: "a piece stands in the way",
  [IllegalMoveReason.CAPTURE_OWN_PIECE]: "it captures a piece of its own side",
  [IllegalMoveReason.KING_IN_CHECK]: "it leaves the king in check",
  [IllegalMoveReason.PINNED_PIECE]: "the piece is pinned to its king",
  [IllegalMoveReason.KING_INTO_CHECK]: "the king would step into check",
  [IllegalMoveReason.CASTLING_WITHOUT_RIGHT]: "castling is no longer allowed",
  [IllegalMoveReason.CASTLING_BLOCKED]: "a piece stands between king and rook",
  [IllegalMoveReason.CASTLING_OUT_OF_CHECK]: "the king cannot castle out of check",
  [IllegalMoveReason.CASTLING_THROUGH_CHECK]: "the king cannot castle through an attacked square",
  [IllegalMoveReason.CASTLING_INTO_CHECK]: "the king cannot castle into check",
  [IllegalMoveReason.EN_PASSANT_UNAVAILABLE]: "en passant is not available",
  [IllegalMoveReason.PROMOTION_MISSING]: "a pawn on the last rank must promote",
  [IllegalMoveReason.INVALID_PROMOTION]: "a pawn promotes to a queen, rook, bishop or knight only",
  [IllegalMoveReason.UNEXPECTED_PROMOTION]: "only a pawn reaching the last rank promotes",
  [IllegalMoveReason.AMBIGUOUS_SAN]: "the move fits more than one piece",
  [IllegalMoveReason.NON_CANONICAL]: "not written as canonical SAN",
  [IllegalMoveReason.GAME_OVER]: "the game is already over",
  [IllegalMoveReason.FLAG_FELL]: "it was made after the flag fell",
  [IllegalMoveReason.INVALID_DROP]: "that piece cannot be dropped there",
  [IllegalMoveReason.CAPTURE_REQUIRED]: "a capture is compulsory",
  [IllegalMoveReason.EXPLODES_OWN_KING]: "it would explode its own king",
  [IllegalMoveReason.GIVES_CHECK]: "no move may give check in racing kings",
};

/** The illegal move as a player reads it: "Illegal: the game is already over (checkmate)". */
export function illegalWords(bad: IllegalMove, outcome: Outcome | undefined): string {
  const words = REASON_WORDS[bad.reason] ?? "not a legal move";
  if (bad.reason === IllegalMoveReason.GAME_OVER) {
    const noun = outcome === undefined ? undefined : TERMINATION_NOUN[outcome.termination];
    return `Illegal: ${words}${noun === undefined ? "" : ` (${noun})`}`;
  }
  return `Illegal: ${words}${bad.message === "" ? "" : ` — ${bad.message}`}`;
}

const ORDINALS = ["first", "second", "third"];

function sideName(side: Color): string {
  return side === Color.BLACK ? "Black" : "White";
}

/** Who made a completed illegal move and how many they have made, e.g.
 * "White's first illegal move". */
export function rulingWho(ruling: Ruling): string {
  const nth = ORDINALS[ruling.count - 1] ?? `${ruling.count}th`;
  return `${sideName(ruling.side)}'s ${nth} illegal move`;
}

/** What the arbiter did, e.g. "2:00 added to Black's clock", "White loses
 * the game", "drawn: Black cannot checkmate". */
export function rulingAction(ruling: Ruling): string {
  const opponent = sideName(ruling.side === Color.BLACK ? Color.WHITE : Color.BLACK);
  switch (ruling.action) {
    case RulingAction.TIME_ADDED:
      return `${formatClock(durationMs(ruling.timeAdded) ?? 0)} added to ${opponent}'s clock`;
    case RulingAction.GAME_LOST:
      return `${sideName(ruling.side)} loses the game`;
    case RulingAction.GAME_DRAWN:
      return `drawn: ${opponent} cannot checkmate`;
    default:
      return protoName(RulingActionSchema, ruling.action);
  }
}

/** Why it was illegal and the contract's names, for the ruling's tooltip. */
function rulingDetail(ruling: Ruling): string {
  const why = REASON_WORDS[ruling.reason] ?? "not a legal move";
  const message = ruling.message === "" ? "" : ` — ${ruling.message}`;
  const names = [`move ${ruling.index + 1}`, protoName(IllegalMoveReasonSchema, ruling.reason), protoName(RulingActionSchema, ruling.action)];
  return `Illegal: ${why}${message} (${names.join(" · ")})`;
}

/** What a sent move became: the `ply`-th move played, the `ruling`-th
 * ruling, or (`kind` "other") the request's illegal move or a move after it
 * (-1 for the index it does not have); `white`: its mover; `plyBefore`: the
 * last ply played before it (-1: the start). */
export type SentMove = { kind: "ply" | "ruling" | "other"; ply: number; ruling: number; white: boolean; plyBefore: number };

/** Each of the `count` sent moves in order: a ruling's index is its place in
 * the sent list and the plies are the other moves, in order, so that once a
 * ruling fell ply i is no longer sent move i. A ruling keeps the turn (the
 * same side's next move replaces it); the moves after the last ply alternate. */
export function sentMoves(count: number, plies: number, rulings: Ruling[], firstBlack: boolean): SentMove[] {
  const ruled = new Map(rulings.map((ruling, at) => [ruling.index, at]));
  const out: SentMove[] = [];
  let ply = 0;
  let white = !firstBlack;
  for (let index = 0; index < count; index += 1) {
    const ruling = ruled.get(index);
    if (ruling !== undefined) {
      out.push({ kind: "ruling", ply: -1, ruling, white, plyBefore: ply - 1 });
      continue;
    }
    out.push({ kind: ply < plies ? "ply" : "other", ply: ply < plies ? ply : -1, ruling: -1, white, plyBefore: ply - 1 });
    if (ply < plies) ply += 1;
    white = !white;
  }
  return out;
}

// ---- moves and clock records from what a person pastes --------------------

/** Move texts from what a person pastes: tags, move numbers, results, comments and NAGs go. */
export function parseMoves(text: string): string[] {
  return text
    .replace(/^\s*\[[^\]]*\]\s*$/gm, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/;[^\n]*/g, " ")
    .split(/\s+/)
    .map((token) => token.replace(/^\d+\.+/, ""))
    .filter((token) => token !== "" && !/^\$\d+$/.test(token) && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(token));
}

/** `h:mm:ss(.f)`, `m:ss` or seconds as whole milliseconds; NaN when it is none of them. */
export function parseSeconds(text: string): number {
  const parts = text.trim().split(":");
  if (parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) return Number.NaN;
  const seconds = parts.reduce((sum, part) => sum * 60 + Number(part), 0);
  return Math.round(seconds * 1000);
}

/** A clock record in a PGN: the TimeControl tag and the move times, from
 * `[%emt]` comments, else from `[%clk]` readings with a `base+increment`
 * control. Undefined when the text carries none for every move. */
export function clockFromPgn(text: string): { timeControl: string; moveTimesMs: number[] } | undefined {
  const tag = /^\s*\[TimeControl\s+"([^"]*)"\]/m.exec(text)?.[1];
  if (tag === undefined) return undefined;
  const movetext = text.replace(/^\s*\[[^\]]*\]\s*$/gm, " ");
  const emt: (number | undefined)[] = [];
  const clk: (number | undefined)[] = [];
  let moves = 0;
  for (const match of movetext.matchAll(/\{([^}]*)\}|([^\s{]+)/g)) {
    const [, comment, token] = match;
    if (comment !== undefined) {
      const e = /\[%emt\s+([\d:.]+)\]/.exec(comment)?.[1];
      const c = /\[%clk\s+([\d:.]+)\]/.exec(comment)?.[1];
      if (moves > 0 && e !== undefined) emt[moves - 1] = parseSeconds(e);
      if (moves > 0 && c !== undefined) clk[moves - 1] = parseSeconds(c);
    } else if (token !== undefined && parseMoves(token).length > 0) {
      moves += 1;
    }
  }
  const full = (list: (number | undefined)[]): list is number[] =>
    moves > 0 && list.length === moves && list.every((ms) => ms !== undefined && !Number.isNaN(ms));
  if (full(emt)) return { timeControl: tag, moveTimesMs: emt };
  const simple = /^(\d+)(?:\+(\d+))?$/.exec(tag);
  if (simple === null || !full(clk)) return undefined;
  const base = Number(simple[1]) * 1000;
  const increment = Number(simple[2] ?? 0) * 1000;
  const before = [base, base];
  const times = clk.map((reading, ply) => {
    const side = ply % 2;
    const taken = Math.max(0, (before[side] ?? base) - reading + increment);
    before[side] = reading;
    return taken;
  });
  return { timeControl: tag, moveTimesMs: times };
}

function durationMs(duration: Duration | undefined): number | undefined {
  return duration === undefined ? undefined : Number(duration.seconds) * 1000 + Math.round(duration.nanos / 1e6);
}

function duration(ms: number): Duration {
  return create(DurationSchema, { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });
}

/** A clock reading: `1:02:03`, `4:05` or `4:05.5` (tenths only when not whole seconds). */
export function formatClock(ms: number): string {
  const tenths = Math.floor((ms % 1000) / 100);
  const total = Math.floor(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const ss = String(s).padStart(2, "0");
  const head = h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
  return ms % 1000 === 0 ? head : `${head}.${tenths}`;
}

/** A move time in seconds: `12 s`, `1.5 s`. */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The clock record from the two inputs: undefined when there is none. */
function clockRecord(): { timeControl: string; moveTimesMs: number[] } | undefined {
  const timeControl = timeControlInput.value.trim();
  const text = moveTimesInput.value.trim();
  if (timeControl === "" && text === "") return undefined;
  const moveTimesMs = text === "" ? [] : text.split(/[\s,]+/).map(parseSeconds);
  return { timeControl, moveTimesMs };
}

// ---- what the game was ----------------------------------------------------

/** A ply as a player names it, e.g. `10. Nf3` or `10... Nf6`: the
 * `index`-th (from 0) of the game from `startFen`. */
export function plyLabel(startFen: string, index: number, san: string): string {
  const fields = startFen.split(" ");
  const counted = index + (fields[1] === "b" ? 1 : 0);
  const number = (Number(fields[5] ?? "1") || 1) + Math.floor(counted / 2);
  return counted % 2 === 0 ? `${number}. ${san}` : `${number}... ${san}`;
}

/** The opening in words: its ECO code and name, e.g. "C60 Ruy Lopez". */
export function openingWords(analysis: GameAnalysis | undefined, fromStandardStart: boolean): string {
  const opening = analysis?.opening;
  if (opening !== undefined) return `${opening.eco} ${opening.name}`;
  return fromStandardStart ? "No named opening" : "No named opening (the game does not start from the standard position)";
}

/** The phases in words, e.g. "Middlegame from ply 19 (after 10. e5), endgame
 * from ply 61 (after 31. Rxd8)": each starts at the position after that ply
 * (ply 0: the start). */
export function phasesWords(analysis: GameAnalysis | undefined, startFen: string, sans: string[]): string {
  const at = (ply: number): string =>
    ply === 0 ? "the start" : `ply ${ply} (after ${plyLabel(startFen, ply - 1, sans[ply - 1] ?? "?")})`;
  const middle = analysis?.phases?.middlegamePly;
  const end = analysis?.phases?.endgamePly;
  if (middle === undefined && end === undefined) return "Opening throughout: no middlegame or endgame reached";
  if (middle === undefined) return `Endgame from ${at(end ?? 0)}`;
  if (end === undefined) return `Middlegame from ${at(middle)}; no endgame reached`;
  return `Middlegame from ${at(middle)}, endgame from ${at(end)}`;
}

/** The opening's and the phases' contract names and numbers, for developers. */
function analysisNames(analysis: GameAnalysis | undefined): string {
  const opening = analysis?.opening;
  const phases = analysis?.phases;
  const parts =
    opening === undefined
      ? ["no opening"]
      : [opening.eco, protoName(OpeningFamilySchema, opening.family), `named at ply ${opening.ply}`];
  parts.push(`middlegamePly ${phases?.middlegamePly ?? "-"}`, `endgamePly ${phases?.endgamePly ?? "-"}`);
  return parts.join(" · ");
}

// ---- the board ------------------------------------------------------------

/** The squares a move in UCI touches: a drop (`N@f3`) only its target. */
function squaresOf(uci: string): Key[] {
  return (uci[1] === "@" ? [uci.slice(2, 4)] : [uci.slice(0, 2), uci.slice(2, 4)]) as Key[];
}

const board: Api = Chessground(element("board"), {
  fen: START_FEN,
  movable: { free: false, color: "white", showDests: true, events: { after: onBoardMove } },
  animation: { enabled: false },
});

/** The last answer, the start position's FEN and the ply the board shows
 * (-1: the start, `plies.length - 1`: the end, where moves can be played). */
let shown: { reply: ValidateGameResponse; startFen: string } | undefined;
let cursor = -1;

function onBoardMove(orig: Key, dest: Key): void {
  const legal = shown?.reply.position?.legalMoves.map((move) => move.uci) ?? [];
  // Promotion: a queen (the only choice this small page offers).
  const uci = legal.includes(`${orig}${dest}q`) ? `${orig}${dest}q` : `${orig}${dest}`;
  const moves = parseMoves(movesInput.value);
  moves.push(uci);
  movesInput.value = moves.join(" ");
  void check();
}

function turnOf(fen: string): BoardColor {
  return fen.split(" ")[1] === "b" ? "black" : "white";
}

/** Puts the position after ply `at` (-1: the start) on the board; only the
 * last position takes moves. */
function showPly(at: number): void {
  if (shown === undefined) return;
  const { reply, startFen } = shown;
  cursor = Math.max(-1, Math.min(at, reply.plies.length - 1));
  const atEnd = cursor === reply.plies.length - 1;
  const ply = cursor >= 0 ? reply.plies[cursor] : undefined;
  const position = reply.position;
  const fen = atEnd ? (position?.fen ?? startFen) : (ply?.fenAfter ?? startFen);
  const turn = turnOf(fen);
  const inCheck = atEnd ? (position?.inCheck ?? false) : /[+#]$/.test(ply?.san ?? "");
  const dests = new Map<Key, Key[]>();
  if (atEnd) {
    for (const move of position?.legalMoves ?? []) {
      const [from, to] = squaresOf(move.uci);
      // A drop moves from no square: drops are pasted (the board shows no pockets).
      if (from === undefined || to === undefined) continue;
      dests.set(from, [...(dests.get(from) ?? []), to]);
    }
  }
  board.set({
    fen,
    turnColor: turn,
    check: inCheck ? turn : false,
    lastMove: ply === undefined ? undefined : squaresOf(ply.uci),
    movable: { color: atEnd ? turn : undefined, dests },
  });
  element("turn").textContent = `${turn === "white" ? "White" : "Black"} to move · ${fen}`;
  for (const item of document.querySelectorAll<HTMLElement>("#move-list .ply")) {
    const current = Number(item.dataset.index) === cursor;
    item.classList.toggle("current", current);
    if (current) item.setAttribute("aria-current", "step");
    else item.removeAttribute("aria-current");
  }
  document.body.dataset.cursor = String(cursor);
}

// ---- the move list, the outcome, the clock --------------------------------

function span(className: string, text: string, testid?: string): HTMLSpanElement {
  const item = document.createElement("span");
  item.className = className;
  item.textContent = text;
  if (testid !== undefined) item.dataset.testid = testid;
  return item;
}

/** The move list as a player reads it: `1. e4 e5 2. Nf3`, `1... e5` from a
 * position with Black to move, each ruling on a completed illegal move on a
 * row of its own where it was made (the move sent, struck through, who made
 * it, the count and what the arbiter did; why in its tooltip; the moves go on
 * after it as `2... Nc6`), the illegal move in its place, then the result. */
function renderMoves(reply: ValidateGameResponse, startFen: string, inputs: string[], sent: SentMove[]): void {
  const fields = startFen.split(" ");
  let number = Number(fields[5] ?? "1") || 1;
  let black = fields[1] === "b";
  const rows: HTMLLIElement[] = [];
  let row: HTMLLIElement | undefined;
  const newRow = (): HTMLLIElement => {
    const opened = document.createElement("li");
    opened.dataset.testid = "move";
    opened.append(span("number", black ? `${number}...` : `${number}.`));
    rows.push(opened);
    return opened;
  };
  const place = (item: HTMLElement): void => {
    if (row === undefined || !black) row = newRow();
    row.append(" ", item);
    if (black) number += 1;
    black = !black;
  };
  // The text sent for each played ply: the sent moves that are no ruling.
  const inputOf = sent.flatMap((move, index) => (move.kind === "ply" ? [index] : []));
  const plyItem = (ply: Ply, index: number): HTMLElement => {
    const item = span("ply", "");
    item.dataset.index = String(index);
    item.title = `UCI ${ply.uci}`;
    item.append(span("san", ply.san, "ply"));
    if (!ply.canonicalInput) {
      item.classList.add("normalised");
      item.title += ` · written ${inputs[inputOf[index] ?? -1] ?? "?"}`;
    }
    const left = durationMs(ply.clock);
    if (left !== undefined) {
      item.append(" ", span("clk", formatClock(left), "ply-clock"));
      item.title += ` · ${formatClock(left)} left`;
    }
    item.addEventListener("click", () => showPly(index));
    return item;
  };
  const rulingRow = (ruling: Ruling, plyBefore: number): void => {
    const opened = newRow();
    opened.classList.add("ruling");
    opened.title = rulingDetail(ruling);
    const move = span("ply illegal-move", inputs[ruling.index] ?? "?", "ruling-move");
    const words = span("ruling-words", `${rulingWho(ruling)}: ${rulingAction(ruling)}`, "ruling-words");
    opened.append(" ", move, " ", words);
    // The position it was made in.
    opened.addEventListener("click", () => showPly(plyBefore));
    // The same side's next move follows on a row of its own.
    row = undefined;
  };
  for (const move of sent) {
    const ruling = reply.rulings[move.ruling];
    const ply = reply.plies[move.ply];
    if (ruling !== undefined) rulingRow(ruling, move.plyBefore);
    else if (ply !== undefined) place(plyItem(ply, move.ply));
  }
  // The end where the game ended: a move made after it (the game was
  // over, or the flag had fallen) follows it.
  const outcome = reply.outcome;
  if (outcome !== undefined && outcome.result !== GameResult.ONGOING) {
    const end = span("result", outcome.pgnResult, "move-end");
    end.title = outcomeWords(outcome);
    const last = rows.at(-1) ?? document.createElement("li");
    if (rows.length === 0) rows.push(last);
    last.append(" ", end);
  }
  const bad = reply.illegalMove;
  if (bad !== undefined) {
    const item = span("ply illegal-move", bad.move, "illegal-ply");
    item.title = `${protoName(IllegalMoveReasonSchema, bad.reason)}: ${bad.message}`;
    place(item);
  }
  const list = element("move-list");
  list.replaceChildren(...rows);
  // With the clocks a row is wider: one column.
  list.classList.toggle("timed", reply.plies.some((ply) => ply.clock !== undefined));
}

const SVG = "http://www.w3.org/2000/svg";
const CHART = { width: 260, height: 80, pad: 6, left: 34 };

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/** A sent move's time on a chart: `index` in the sent list, `to` the ply
 * the board shows for it, `illegal` for an illegal move (ruled on, or the
 * request's illegal move). */
type TimePoint = { index: number; ms: number; label: string; to: number; illegal: boolean };

/** One side's move times as points on a line (y grows with the time; one
 * scale for both sides, so that the two charts compare). */
function chart(side: "white" | "black", times: TimePoint[], maxMs: number): SVGSVGElement {
  const { width, height, pad, left } = CHART;
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", class: `chart ${side}` });
  root.dataset.testid = `chart-${side}`;
  root.setAttribute("aria-label", `${side === "white" ? "White" : "Black"}'s move times`);
  const plotW = width - left - pad;
  const plotH = height - 2 * pad;
  const scale = maxMs > 0 ? plotH / maxMs : 0;
  const x = (i: number): number => left + (times.length > 1 ? (i * plotW) / (times.length - 1) : plotW / 2);
  const y = (ms: number): number => height - pad - ms * scale;
  root.append(svg("line", { x1: left, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }));
  root.append(svg("line", { x1: left, y1: pad, x2: left, y2: height - pad, class: "axis" }));
  const top = svg("text", { x: left - 4, y: pad + 8, "text-anchor": "end", class: "label" });
  top.textContent = formatSeconds(maxMs).replace(" ", "");
  root.append(top);
  const bottom = svg("text", { x: left - 4, y: height - pad, "text-anchor": "end", class: "label" });
  bottom.textContent = "0";
  root.append(bottom);
  root.append(svg("polyline", { points: times.map((t, i) => `${x(i)},${y(t.ms)}`).join(" "), class: "line" }));
  times.forEach((t, i) => {
    const point = svg("circle", {
      cx: x(i),
      cy: y(t.ms),
      r: t.illegal ? 3.5 : 2.5,
      class: t.illegal ? "point illegal" : "point",
      "data-ms": t.ms,
      "data-index": t.index,
      "data-ply": t.to,
    });
    const title = svg("title", {});
    title.textContent = `${t.label}: ${formatSeconds(t.ms)}`;
    point.append(title);
    point.addEventListener("click", () => showPly(t.to));
    root.append(point);
  });
  return root;
}

/** Each side's remaining time and the two move-time charts, from the clock
 * record sent (one time per sent move, a ruled illegal move's included: its
 * mover's, the turn unchanged) and the answer's clocks; hidden without a record. */
function renderClock(reply: ValidateGameResponse, startFen: string, sentMs: number[] | undefined, sent: SentMove[], moves: string[]): void {
  const section = element("clock");
  section.hidden = sentMs === undefined;
  if (sentMs === undefined) return;
  const clocks = reply.position?.clocks;
  const white = durationMs(clocks?.white);
  const black = durationMs(clocks?.black);
  element("clocks").textContent =
    white === undefined || black === undefined ? "No clock runs for this time control" : `White ${formatClock(white)} · Black ${formatClock(black)}`;
  const sides: Record<"white" | "black", TimePoint[]> = { white: [], black: [] };
  const last = reply.plies.length - 1;
  sentMs.forEach((ms, index) => {
    const move = sent[index];
    if (move === undefined) return;
    const ply = reply.plies[move.ply];
    const ruling = reply.rulings[move.ruling];
    const text = index === reply.illegalMove?.index ? reply.illegalMove.move : (moves[index] ?? "?");
    const label =
      ply !== undefined
        ? plyLabel(startFen, move.ply, ply.san)
        : ruling !== undefined
          ? `${text} (${rulingWho(ruling)})`
          : `${text} (not played)`;
    const to = ply !== undefined ? move.ply : ruling !== undefined ? move.plyBefore : last;
    const illegal = ruling !== undefined || index === reply.illegalMove?.index;
    sides[move.white ? "white" : "black"].push({ index, ms, label, to, illegal });
  });
  const maxMs = Math.max(0, ...sentMs);
  element("charts").replaceChildren(
    ...(["white", "black"] as const).map((side) => {
      const figure = document.createElement("figure");
      const caption = document.createElement("figcaption");
      caption.textContent = `${side === "white" ? "White" : "Black"}: move times`;
      figure.append(chart(side, sides[side], maxMs), caption);
      return figure;
    }),
  );
}

/** Shows the answer to the game sent: `moves` and `sentMs` as the request carried them. */
function show(reply: ValidateGameResponse, startFen: string, moves: string[], sentMs: number[] | undefined): void {
  shown = { reply, startFen };
  const firstBlack = startFen.split(" ")[1] === "b";
  const sent = sentMoves(Math.max(moves.length, sentMs?.length ?? 0), reply.plies.length, reply.rulings, firstBlack);
  renderMoves(reply, startFen, moves, sent);

  const illegal = element("illegal");
  const illegalNames = element("illegal-names");
  const bad = reply.illegalMove;
  illegal.hidden = illegalNames.hidden = bad === undefined;
  illegal.textContent = bad === undefined ? "" : illegalWords(bad, reply.outcome);
  illegalNames.textContent =
    bad === undefined ? "" : `move ${bad.index + 1} "${bad.move}" · ${protoName(IllegalMoveReasonSchema, bad.reason)} · ${bad.message}`;

  const outcome = element("outcome");
  outcome.textContent = outcomeWords(reply.outcome);
  outcome.title = outcomeNames(reply.outcome);
  element("outcome-names").textContent = outcomeNames(reply.outcome);

  renderClock(reply, startFen, sentMs, sent, moves);

  const standardStart = startFen === START_FEN && Number(variantSelect.value) === Variant.STANDARD;
  const opening = element("opening");
  opening.textContent = openingWords(reply.analysis, standardStart);
  const family = reply.analysis?.opening?.family;
  opening.title = family === undefined ? "" : enumName(OpeningFamilySchema, family, "OPENING_FAMILY_").toLowerCase().replaceAll("_", " ");
  element("phases").textContent = phasesWords(reply.analysis, startFen, reply.plies.map((ply) => ply.san));
  element("analysis-names").textContent = analysisNames(reply.analysis);

  const sans = reply.position?.legalMoves.map((move) => move.san) ?? [];
  element("legal-count").textContent = `(${sans.length})`;
  element("legal").textContent = sans.join(" ");
  showPly(reply.plies.length - 1);
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

/** Sends the game as it stands (and its start position, for the board's
 * first step and the move numbers) and shows the answer. A PGN pasted with
 * a clock record fills the clock inputs when they are empty. */
async function check(): Promise<void> {
  if (timeControlInput.value.trim() === "" && moveTimesInput.value.trim() === "") {
    const found = clockFromPgn(movesInput.value);
    if (found !== undefined) {
      timeControlInput.value = found.timeControl;
      moveTimesInput.value = found.moveTimesMs.map((ms) => ms / 1000).join(" ");
    }
  }
  const record = clockRecord();
  const base = { fen: fenInput.value.trim(), variant: Number(variantSelect.value) };
  const moves = parseMoves(movesInput.value);
  const request = create(ValidateGameRequestSchema, {
    ...base,
    moves,
    includeFens: true,
    includeAnalysis: true,
    illegalMoves: Number(illegalMovesSelect.value) as IllegalMoves,
    clock:
      record === undefined
        ? undefined
        : create(GameClockSchema, {
            timeControl: create(TimeControlSchema, { tag: record.timeControl }),
            moveTimes: record.moveTimesMs.map((ms) => duration(Number.isNaN(ms) ? -1 : ms)),
          }),
  });
  const start = create(ValidateGameRequestSchema, { ...base, skipLegalMoves: true });
  document.body.dataset.state = "checking";
  try {
    if (record?.moveTimesMs.some((ms) => Number.isNaN(ms))) {
      throw new ConnectError("move times: seconds (1.5) or m:ss, separated by spaces or commas", Code.InvalidArgument);
    }
    const [reply, first] = await Promise.all([
      client.validateGame(request, { timeoutMs: 10_000 }),
      client.validateGame(start, { timeoutMs: 10_000 }),
    ]);
    element("error").hidden = true;
    show(reply, first.position?.fen ?? START_FEN, moves, record?.moveTimesMs);
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
illegalMovesSelect.addEventListener("change", () => void check());
element("undo").addEventListener("click", () => {
  movesInput.value = parseMoves(movesInput.value).slice(0, -1).join(" ");
  void check();
});
element("reset").addEventListener("click", () => {
  movesInput.value = "";
  timeControlInput.value = "";
  moveTimesInput.value = "";
  void check();
});
/** A PGN file: its moves into the box, its clock record into the clock inputs. */
element<HTMLInputElement>("load").addEventListener("change", async (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file === undefined) return;
  const text = await file.text();
  movesInput.value = text;
  timeControlInput.value = "";
  moveTimesInput.value = "";
  void check();
});
/** The arrow keys step through the moves (Home and End jump), unless typing. */
document.addEventListener("keydown", (event) => {
  const target = event.target as HTMLElement | null;
  if (target !== null && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
  const last = (shown?.reply.plies.length ?? 0) - 1;
  const to = { ArrowLeft: cursor - 1, ArrowRight: cursor + 1, Home: -1, End: last }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  showPly(to);
});
void check();
