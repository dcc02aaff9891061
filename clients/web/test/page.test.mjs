// The page in headless Chromium (Debian's, driven by playwright-core): served
// from its own origin, it calls Arbiter on another origin over gRPC-Web,
// which the server's CORS grant for that origin allows. A person's session is
// replayed: moves clicked on the board and stepped through with the arrow
// keys, pasted games with an illegal move, a claimable draw and a fallen flag,
// a PGN file loaded with its clock record (each side's remaining time and the
// move-time charts), a bad FEN, a crazyhouse game with a drop; what each game
// was (its opening's ECO code and name, where its middlegame and endgame
// start); games ruled on over the board (FIDE 2023 with a clock, FIDE 2009
// without: each ruling in the move list, the clock and the charts following
// the shifted indices) and the default stopping at the first illegal move; a
// page on an origin the server does not list cannot call it. What the page
// says is read as a player reads it: numbered moves and words, the contract's
// names beside.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { chromium } from "playwright-core";

import { freePort, REPO, startArbiter } from "../../harness/arbiter.mjs";
import { serve } from "../serve.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
// Headless on a machine with no outside network: no sandbox as root, no GPU,
// and none of the background connections that would be refused.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const SCREENSHOT = join(REPO, "target", "web-client.png");
// Written when ARBITER_WEB_SCREENSHOT is set: the README's picture.
const README_SCREENSHOT = process.env.ARBITER_WEB_SCREENSHOT;

let arbiter;
let page;
let browser;
let pageOrigin;
let pageServer;
let otherServer;
let otherOrigin;

before(async () => {
  const pagePort = await freePort();
  const otherPort = await freePort();
  pageOrigin = `http://127.0.0.1:${pagePort}`;
  otherOrigin = `http://127.0.0.1:${otherPort}`;
  pageServer = await serve(pagePort);
  otherServer = await serve(otherPort);
  arbiter = await startArbiter(["--grpc-web-cors-origins", pageOrigin]);
  // A new empty profile per launch (playwright's default).
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
  page.on("pageerror", (err) => console.error("page error:", err));
});

after(async () => {
  await browser?.close();
  pageServer?.close();
  otherServer?.close();
  if (arbiter !== undefined) assert.equal(await arbiter.stop(), 0);
});

/** Waits until the page has shown the answer to its last request. */
async function settled(page) {
  await page.waitForFunction(() => document.body.dataset.state === "idle");
}

async function open(page, origin) {
  await page.goto(`${origin}/?server=${encodeURIComponent(arbiter.baseUrl)}`);
  await settled(page);
}

const text = (page, testid) => page.getByTestId(testid).innerText();
const plies = (page) => page.getByTestId("ply").allInnerTexts();
/** The move list's rows as a player reads them, e.g. "1. e4 e5". */
const rows = async (page) => (await page.getByTestId("move").allInnerTexts()).map((row) => row.replace(/\s+/g, " ").trim());

/** Pastes a game (and a clock record) and waits for the answer. */
async function paste(page, moves, timeControl = "", moveTimes = "") {
  await page.getByTestId("moves-input").fill(moves);
  await page.getByTestId("time-control").fill(timeControl);
  await page.getByTestId("move-times").fill(moveTimes);
  await page.getByTestId("check").click();
  await settled(page);
}

/** Waits until the board shows `n` squares marked in check (chessground
 * hides a square it no longer needs rather than removing it). */
async function checkSquares(page, n) {
  await page.waitForFunction(
    (count) => [...document.querySelectorAll("cg-board square.check")].filter((sq) => sq.style.display !== "none").length === count,
    n,
  );
}

/** A key pressed with nothing typed into: the move list's keys. */
async function press(page, key) {
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press(key);
}

/** Clicks a move on the board (white at the bottom): from, then to. */
async function clickMove(page, uci) {
  const box = await page.locator("cg-board").boundingBox();
  assert.ok(box, "the board is drawn");
  const size = box.width / 8;
  const before = (await plies(page)).length;
  for (const square of [uci.slice(0, 2), uci.slice(2, 4)]) {
    const file = square.charCodeAt(0) - "a".charCodeAt(0);
    const rank = Number(square[1]);
    await page.mouse.click(box.x + (file + 0.5) * size, box.y + (8 - rank + 0.5) * size);
  }
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=ply]").length === n, before + 1);
  await settled(page);
}

describe("the page, served from its own origin, checks games over gRPC-Web", () => {
  it("starts from the standard position with its 20 legal moves", async () => {
    await open(page, pageOrigin);
    assert.equal(await text(page, "legal-count"), "(20)");
    assert.equal(await text(page, "outcome"), "Game in progress");
    assert.equal(await text(page, "outcome-names"), "* · GAME_RESULT_ONGOING");
    assert.equal(await page.getByTestId("error").isHidden(), true);
    assert.equal(await page.getByTestId("clock").isHidden(), true);
    assert.equal(await text(page, "opening"), "No named opening");
    assert.equal(await text(page, "phases"), "Opening throughout: no middlegame or endgame reached");
  });

  it("plays a game clicked on the board up to mate, numbered by moves, in words", async () => {
    for (const uci of ["f2f3", "e7e5", "g2g4", "d8h4"]) await clickMove(page, uci);
    assert.deepEqual(await plies(page), ["f3", "e5", "g4", "Qh4#"]);
    assert.deepEqual(await rows(page), ["1. f3 e5", "2. g4 Qh4# 0-1"]);
    assert.equal(await text(page, "outcome"), "Black wins by checkmate");
    // The contract's names stay, for developers: a details line and a tooltip.
    assert.equal(await text(page, "outcome-names"), "0-1 · GAME_RESULT_BLACK_WINS · TERMINATION_CHECKMATE");
    assert.equal(await page.getByTestId("outcome").getAttribute("title"), "0-1 · GAME_RESULT_BLACK_WINS · TERMINATION_CHECKMATE");
    assert.equal(await text(page, "legal-count"), "(0)");
    assert.equal(await page.getByTestId("moves-input").inputValue(), "f2f3 e7e5 g2g4 d8h4");
    // The mated king's square is marked in check.
    await checkSquares(page, 1);
    // lichess's table names the line itself (a00: "1. f3 e5 2. g4 Qh4#"),
    // reached at ply 4; A00 is the irregular openings' family.
    assert.equal(await text(page, "opening"), "A00 Barnes Opening: Fool's Mate");
    assert.equal(await page.getByTestId("opening").getAttribute("title"), "irregular opening");
    assert.equal(await text(page, "phases"), "Opening throughout: no middlegame or endgame reached");
    assert.equal(
      await text(page, "analysis-names"),
      "A00 · OPENING_FAMILY_IRREGULAR_OPENING · named at ply 4 · middlegamePly - · endgamePly -",
    );
  });

  it("steps through the moves with the arrow keys, the board following", async () => {
    const current = () => page.locator("#move-list .ply.current [data-testid=ply]").allInnerTexts();
    assert.deepEqual(await current(), ["Qh4#"]);
    await press(page, "ArrowLeft");
    assert.deepEqual(await current(), ["g4"]);
    assert.match(await text(page, "turn"), /^Black to move · rnbqkbnr\/pppp1ppp\/8\/4p3\/6P1\/5P2\/PPPPP2P\/RNBQKBNR b /);
    await checkSquares(page, 0);
    await press(page, "ArrowLeft");
    await press(page, "ArrowLeft");
    await press(page, "ArrowLeft");
    assert.deepEqual(await current(), []);
    assert.match(await text(page, "turn"), /^White to move · rnbqkbnr\/pppppppp\/8\/8\/8\/8\/PPPPPPPP\/RNBQKBNR w /);
    // Past the start nothing moves.
    await press(page, "ArrowLeft");
    assert.match(await text(page, "turn"), /^White to move · rnbqkbnr\/pppppppp\//);
    await press(page, "ArrowRight");
    assert.deepEqual(await current(), ["f3"]);
    await press(page, "End");
    assert.deepEqual(await current(), ["Qh4#"]);
    await checkSquares(page, 1);
    await press(page, "Home");
    assert.deepEqual(await current(), []);
    await press(page, "End");
  });

  it("a move after the mate: the game is already over, the end in its place", async () => {
    await paste(page, "f3 e5 g4 Qh4# Nc3");
    assert.deepEqual(await rows(page), ["1. f3 e5", "2. g4 Qh4# 0-1", "3. Nc3"]);
    assert.deepEqual(await page.getByTestId("illegal-ply").allInnerTexts(), ["Nc3"]);
    assert.equal(await text(page, "illegal"), "Illegal: the game is already over (checkmate)");
    assert.match(await text(page, "illegal-names"), /^move 5 "Nc3" · ILLEGAL_MOVE_REASON_GAME_OVER · /);
    assert.equal(await text(page, "outcome"), "Black wins by checkmate");
  });

  it("shows a pasted game's canonical SAN, its illegal move with the reason, and the legal moves", async () => {
    // Illegal moves stop the replay unless the user asks for rulings.
    const rules = await page.getByTestId("illegal-moves").evaluate((select) => select.selectedOptions[0].text);
    assert.equal(rules, "Stop at the first (as online servers do)");
    await paste(page, "1. e4 e5 2. Ng1f3 Nc6 3. Ke3 Bc5");
    assert.deepEqual(await plies(page), ["e4", "e5", "Nf3", "Nc6"]);
    assert.deepEqual(await rows(page), ["1. e4 e5", "2. Nf3 Nc6", "3. Ke3"]);
    // Ng1f3 was accepted and shown in canonical form, marked as normalised.
    assert.equal(await page.locator(".normalised [data-testid=ply]").allInnerTexts().then((t) => t.join()), "Nf3");
    assert.equal(await text(page, "illegal"), "Illegal: no such piece can make that move — no white king can move to e3");
    assert.equal(await text(page, "illegal-names"), 'move 5 "Ke3" · ILLEGAL_MOVE_REASON_NO_PIECE · no white king can move to e3');
    assert.equal(await text(page, "outcome"), "Game in progress");
    const legal = (await text(page, "legal")).split(" ");
    assert.ok(legal.includes("Bb5") && legal.includes("O-O") === false && legal.includes("Ke2"), legal.join(" "));
  });

  it("numbers a game from a position with Black to move as 1... and says a claimable draw in words", async () => {
    await page.getByTestId("fen-input").fill("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    await paste(page, "e5 Nf3");
    assert.deepEqual(await rows(page), ["1... e5", "2. Nf3"]);
    await page.getByTestId("fen-input").fill("");
    await paste(page, "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8");
    assert.equal(await text(page, "outcome"), "Draw: threefold repetition can be claimed");
    assert.equal(await text(page, "outcome-names"), "* · GAME_RESULT_ONGOING · CLAIMABLE_DRAW_THREEFOLD_REPETITION");
  });

  it("a move made after the flag fell: illegal, and the game lost on time", async () => {
    await paste(page, "1. e4 e5 2. Nf3 Nc6", "60", "10 20 55 5");
    assert.match(await text(page, "illegal"), /^Illegal: it was made after the flag fell — /);
    assert.match(await text(page, "illegal-names"), /^move 3 "Nf3" · ILLEGAL_MOVE_REASON_FLAG_FELL · /);
    assert.equal(await text(page, "outcome"), "Black wins on time");
    assert.deepEqual(await page.getByTestId("ply-clock").allInnerTexts(), ["0:50", "0:40"]);
  });

  it("loads a PGN file with its clock: remaining times after each move and a move-time chart per side", async () => {
    // Scholar's mate at 180+2 with lichess's [%clk] readings: White took
    // 2, 4.2, 6.8 and 1.1 s, Black 1.5, 3 and 12.4 s.
    const pgn = [
      '[Event "Casual blitz"]',
      '[White "W"]',
      '[Black "B"]',
      '[Result "1-0"]',
      '[TimeControl "180+2"]',
      "",
      "1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00.5] } 2. Bc4 { [%clk 0:02:57.8] } 2... Nc6 { [%clk 0:02:59.5] }",
      "3. Qh5 { [%clk 0:02:53] } 3... Nf6 { [%clk 0:02:49.1] } 4. Qxf7# { [%clk 0:02:53.9] } 1-0",
      "",
    ].join("\n");
    await page.getByTestId("reset").click();
    await settled(page);
    await page.getByTestId("load").setInputFiles({ name: "scholar.pgn", mimeType: "application/x-chess-pgn", buffer: Buffer.from(pgn) });
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=ply]").length === 7);
    await settled(page);
    assert.equal(await page.getByTestId("time-control").inputValue(), "180+2");
    assert.equal(await page.getByTestId("move-times").inputValue(), "2 1.5 4.2 3 6.8 12.4 1.1");
    assert.deepEqual(await plies(page), ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    // Each mover's remaining time after the move, as the server ran the clock.
    assert.deepEqual(await page.getByTestId("ply-clock").allInnerTexts(), ["3:00", "3:00.5", "2:57.8", "2:59.5", "2:53", "2:49.1", "2:53.9"]);
    assert.deepEqual(await rows(page), ["1. e4 3:00 e5 3:00.5", "2. Bc4 2:57.8 Nc6 2:59.5", "3. Qh5 2:53 Nf6 2:49.1", "4. Qxf7# 2:53.9 1-0"]);
    assert.equal(await text(page, "outcome"), "White wins by checkmate");
    // The last named position is after 2. Bc4 (c23: "1. e4 e5 2. Bc4").
    assert.equal(await text(page, "opening"), "C23 Bishop's Opening");
    assert.equal(await page.getByTestId("opening").getAttribute("title"), "open game");
    assert.equal(await text(page, "clocks"), "White 2:53.9 · Black 2:49.1");
    // The charts' points are the move times: one point per move of the
    // side, its height proportional to the time on one scale for both.
    const points = (side) =>
      page.locator(`[data-testid=chart-${side}] circle.point`).evaluateAll((circles) =>
        circles.map((c) => ({ ms: Number(c.dataset.ms), cx: Number(c.getAttribute("cx")), cy: Number(c.getAttribute("cy")) })),
      );
    const white = await points("white");
    const black = await points("black");
    assert.deepEqual(white.map((p) => p.ms), [2000, 4200, 6800, 1100]);
    assert.deepEqual(black.map((p) => p.ms), [1500, 3000, 12400]);
    const { bottom, top } = await page.locator("[data-testid=chart-black]").evaluate((svg) => {
      const axis = svg.querySelector("line.axis");
      return { bottom: Number(axis.getAttribute("y1")), top: Number(svg.querySelectorAll("line.axis")[1].getAttribute("y1")) };
    });
    const perMs = (bottom - top) / 12400;
    for (const p of [...white, ...black]) assert.ok(Math.abs(bottom - p.cy - p.ms * perMs) < 1e-6, JSON.stringify(p));
    for (const side of [white, black]) {
      for (let i = 1; i < side.length; i += 1) assert.ok(side[i].cx > side[i - 1].cx, "points left to right in move order");
    }
    // The polyline joins the same points.
    const line = await page.locator("[data-testid=chart-white] polyline").getAttribute("points");
    assert.equal(line, white.map((p) => `${p.cx},${p.cy}`).join(" "));
  });

  it("says where a game's middlegame and endgame start, the plies named as moves", async () => {
    // Pieces other than kings and pawns (14 at the start): Bxa3, bxa3,
    // Rxh4 and Nxh6 leave 10 after 6... Nxh6 (ply 12), the middlegame's
    // first rule; Rxh6, Rxh6, Rxh3 and gxh3 leave 6 after 9. gxh3 (ply 17),
    // the endgame's. (python-chess and crates/arbiter-chess/tests/data/
    // analysis.py, lichess's Divider, say the same.)
    await paste(page, "1. h4 h6 2. Na3 e5 3. d3 Bxa3 4. bxa3 Qxh4 5. Rxh4 f5 6. Bxh6 Nxh6 7. Rxh6 Rxh6 8. Nh3 Rxh3 9. gxh3");
    assert.equal(await text(page, "opening"), "A00 Kádas Opening");
    assert.equal(await text(page, "phases"), "Middlegame from ply 12 (after 6... Nxh6), endgame from ply 17 (after 9. gxh3)");
    assert.equal(
      await text(page, "analysis-names"),
      "A00 · OPENING_FAMILY_IRREGULAR_OPENING · named at ply 1 · middlegamePly 12 · endgamePly 17",
    );
    // From a set-up position: no opening; eight pieces other than kings and
    // pawns are a middlegame from the start, and two captures make six.
    await page.getByTestId("fen-input").fill("r3k2r/8/8/3nb3/3NB3/8/8/R3K2R w KQkq - 0 1");
    await paste(page, "1. Bxd5 Bxd4");
    assert.equal(await text(page, "opening"), "No named opening (the game does not start from the standard position)");
    assert.equal(await text(page, "phases"), "Middlegame from the start, endgame from ply 2 (after 1... Bxd4)");
    assert.equal(await text(page, "analysis-names"), "no opening · middlegamePly 0 · endgamePly 2");
    await page.getByTestId("fen-input").fill("");
  });

  it("shows a bad request's reason and field from the error details", async () => {
    await page.getByTestId("reset").click();
    await settled(page);
    await page.getByTestId("fen-input").fill("not a fen");
    await page.getByTestId("check").click();
    await settled(page);
    assert.match(await text(page, "error"), /^INVALID_ARGUMENT INVALID_FEN \(field fen\): /);
    await page.getByTestId("fen-input").fill("");
  });

  it("plays a crazyhouse game with a drop once the variant is chosen", async () => {
    await page.getByTestId("variant").selectOption({ label: "Crazyhouse" });
    await settled(page);
    await paste(page, "1. e4 e5 2. Nf3 Nc6 3. Nxe5 Nxe5 4. d4 N@f3+");
    assert.deepEqual((await plies(page)).slice(-2), ["d4", "N@f3+"]);
    // White's pocket holds the pawn it took.
    assert.match(await text(page, "turn"), /^White to move · r1bqkbnr\/pppp1ppp\/8\/4n3\/3PP3\/5n2\/PPP2PPP\/RNBQKB1R\[P\] w /);
    assert.equal(await text(page, "outcome"), "Game in progress");
    const legal = (await text(page, "legal")).split(" ");
    assert.ok(legal.includes("gxf3") && legal.includes("Qxf3") && !legal.includes("Nc3"), legal.join(" "));
    await page.getByTestId("variant").selectOption({ label: "Standard" });
    await settled(page);
    await page.getByTestId("reset").click();
    await settled(page);
  });

  it("over the board (FIDE 2023, blitz): each ruling where it was made, the clock following it, the second illegal move loses", async () => {
    await page.getByTestId("illegal-moves").selectOption({ label: "Rule on them: FIDE 2023 (the second loses)" });
    await settled(page);
    // Sent: e4 e5 Ke3 Ng1f3 Nc6 Ke1e3 at 180+2, taking 1 to 6 s. By the
    // rules (docs/rules.md, "Over the board"): Ke3 (sent move 3) is White's
    // first completed illegal move; 180 s + 60 × 2 s = 300 s ≤ 3,599 is
    // blitz, so Black gets 60 s. Ke1e3 (sent move 6) is White's second:
    // White loses (Black still has all the pieces it needs to mate).
    // Remaining times, increment after each played move, none after an
    // illegal one: White 180 − 1 + 2 = 181 (e4), 181 − 3 = 178 (Ke3),
    // 178 − 4 + 2 = 176 (Nf3), 176 − 6 = 170 (Ke1e3); Black 180 − 2 + 2 =
    // 180 (e5), + 60 = 240 (the ruling), 240 − 5 + 2 = 237 (Nc6).
    await paste(page, "e4 e5 Ke3 Ng1f3 Nc6 Ke1e3", "180+2", "1 2 3 4 5 6");
    assert.deepEqual(await plies(page), ["e4", "e5", "Nf3", "Nc6"]);
    assert.deepEqual(await page.getByTestId("ply-clock").allInnerTexts(), ["3:01", "3:00", "2:56", "3:57"]);
    // A ruling keeps the turn: White's next move follows it as "2.".
    assert.deepEqual(await rows(page), [
      "1. e4 3:01 e5 3:00",
      "2. Ke3 White's first illegal move: 1:00 added to Black's clock",
      "2. Nf3 2:56 Nc6 3:57",
      "3. Ke1e3 White's second illegal move: White loses the game 0-1",
    ]);
    assert.deepEqual(await page.getByTestId("ruling-move").allInnerTexts(), ["Ke3", "Ke1e3"]);
    const struck = await page.getByTestId("ruling-move").first().evaluate((item) => getComputedStyle(item).textDecorationLine);
    assert.equal(struck, "line-through");
    // Why, in the row's tooltip, with the contract's names.
    const ruling = page.locator("#move-list li.ruling");
    assert.equal(
      await ruling.first().getAttribute("title"),
      "Illegal: no such piece can make that move — no white king can move to e3 (move 3 · ILLEGAL_MOVE_REASON_NO_PIECE · RULING_ACTION_TIME_ADDED)",
    );
    assert.match(await ruling.nth(1).getAttribute("title"), /\(move 6 · ILLEGAL_MOVE_REASON_NO_PIECE · RULING_ACTION_GAME_LOST\)$/);
    // Nf3 (ply 3) was written Ng1f3, the 4th move sent, not Ke3 (the 3rd).
    assert.match(await page.locator("#move-list .normalised").getAttribute("title"), / · written Ng1f3 · /);
    // The illegal move is no request's illegal move: it was ruled on.
    assert.equal(await page.getByTestId("illegal").isHidden(), true);
    assert.equal(await text(page, "outcome"), "Black wins on the opponent's illegal moves (the count that loses was reached)");
    assert.equal(await text(page, "outcome-names"), "0-1 · GAME_RESULT_BLACK_WINS · TERMINATION_ILLEGAL_MOVES");
    assert.equal(await text(page, "clocks"), "White 2:50 · Black 3:57");
    assert.equal(await text(page, "legal-count"), "(0)");
    // One time per sent move, each on its mover's chart: White made sent
    // moves 1, 3, 4 and 6 (two of them illegal), Black 2 and 5.
    const points = (side) =>
      page.locator(`[data-testid=chart-${side}] circle.point`).evaluateAll((circles) =>
        circles.map((c) => `${c.querySelector("title").textContent}${c.classList.contains("illegal") ? " ✗" : ""}`),
      );
    assert.deepEqual(await points("white"), [
      "1. e4: 1 s",
      "Ke3 (White's first illegal move): 3 s ✗",
      "2. Nf3: 4 s",
      "Ke1e3 (White's second illegal move): 6 s ✗",
    ]);
    assert.deepEqual(await points("black"), ["1... e5: 2 s", "2... Nc6: 5 s"]);
    // A ruling's row shows the position it was made in: after 1... e5.
    await ruling.first().click();
    assert.deepEqual(await page.locator("#move-list .ply.current [data-testid=ply]").allInnerTexts(), ["e5"]);
    assert.match(await text(page, "turn"), /^White to move · rnbqkbnr\/pppp1ppp\/8\/4p3\/4P3\/8\/PPPP1PPP\/RNBQKBNR w /);
    mkdirSync(join(REPO, "target"), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    if (README_SCREENSHOT !== undefined) copyFileSync(SCREENSHOT, README_SCREENSHOT);
    await press(page, "End");
  });

  it("over the board (FIDE 2009, no clock): two minutes each time, the third against a bare king is a draw", async () => {
    await page.getByTestId("illegal-moves").selectOption({ label: "Rule on them: FIDE 2009 (the third loses)" });
    await settled(page);
    await page.getByTestId("fen-input").fill("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    // Kf3: no white king reaches f3 (White's first); Kd7: into the
    // queen's file (Black's first); d2h7: no queen's line (White's second);
    // each gives the opponent 120 s (the Laws of 2009; no time control
    // anyway). O-O: White has no castling right, White's third: the game
    // ends, but Black's bare king cannot checkmate, so it is drawn. Kd3
    // comes after the end.
    await paste(page, "Kf3 Qd2 Kd7 Kf7 d2h7 Ke2 Kg6 O-O Kd3");
    assert.deepEqual(await plies(page), ["Qd2", "Kf7", "Ke2", "Kg6"]);
    assert.deepEqual(await rows(page), [
      "1. Kf3 White's first illegal move: 2:00 added to Black's clock",
      "1. Qd2",
      "1... Kd7 Black's first illegal move: 2:00 added to White's clock",
      "1... Kf7",
      "2. d2h7 White's second illegal move: 2:00 added to Black's clock",
      "2. Ke2 Kg6",
      "3. O-O White's third illegal move: drawn: Black cannot checkmate 1/2-1/2",
      "3. Kd3",
    ]);
    assert.match(await page.locator("#move-list li.ruling").nth(1).getAttribute("title"), /^Illegal: the king would step into check — /);
    assert.deepEqual(await page.getByTestId("illegal-ply").allInnerTexts(), ["Kd3"]);
    assert.equal(await text(page, "illegal"), "Illegal: the game is already over (illegal moves)");
    assert.match(await text(page, "illegal-names"), /^move 9 "Kd3" · ILLEGAL_MOVE_REASON_GAME_OVER · /);
    assert.equal(await text(page, "outcome"), "Draw: illegal moves reached the count that loses, but the opponent cannot checkmate");
    assert.equal(await text(page, "outcome-names"), "1/2-1/2 · GAME_RESULT_DRAW · TERMINATION_ILLEGAL_MOVES_VS_UNWINNABLE");
  });

  it("stops at the first illegal move again once the default is chosen back", async () => {
    await page.getByTestId("illegal-moves").selectOption({ label: "Stop at the first (as online servers do)" });
    await settled(page);
    assert.deepEqual(await rows(page), ["1. Kf3"]);
    assert.deepEqual(await page.getByTestId("illegal-ply").allInnerTexts(), ["Kf3"]);
    assert.equal(await page.getByTestId("ruling-move").count(), 0);
    assert.equal(await text(page, "illegal"), "Illegal: no such piece can make that move — no white king can move to f3");
    assert.equal(await text(page, "outcome"), "Game in progress");
    await page.getByTestId("fen-input").fill("");
    await page.getByTestId("reset").click();
    await settled(page);
  });

  it("a page on an origin the server does not list gets no grant", async () => {
    const other = await browser.newPage();
    await open(other, otherOrigin);
    assert.match(await text(other, "error"), /^Cannot reach the server at /);
    assert.deepEqual(await plies(other), []);
    assert.equal(await text(other, "legal-count"), "");
    await other.close();
  });
});
