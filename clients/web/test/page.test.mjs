// The page in headless Chromium (Debian's, driven by playwright-core): served
// from its own origin, it calls Arbiter on another origin over gRPC-Web,
// which the server's CORS grant for that origin allows. A person's session is
// replayed: moves clicked on the board, a pasted game with an illegal move, a
// bad FEN, a crazyhouse game with a drop; a page on an origin the server does
// not list cannot call it.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
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
    assert.match(await text(page, "outcome"), /^\* · ONGOING$/);
    assert.equal(await page.getByTestId("error").isHidden(), true);
  });

  it("plays a game clicked on the board up to mate", async () => {
    for (const uci of ["f2f3", "e7e5", "g2g4", "d8h4"]) await clickMove(page, uci);
    assert.deepEqual(await plies(page), ["f3", "e5", "g4", "Qh4#"]);
    assert.equal(await text(page, "outcome"), "0-1 · BLACK_WINS · CHECKMATE");
    assert.equal(await text(page, "legal-count"), "(0)");
    assert.equal(await page.getByTestId("moves-input").inputValue(), "f2f3 e7e5 g2g4 d8h4");
    // The mated king's square is marked in check.
    assert.equal(await page.locator("cg-board square.check").count(), 1);
  });

  it("shows a pasted game's canonical SAN, its illegal move with the reason, and the legal moves", async () => {
    await page.getByTestId("moves-input").fill("1. e4 e5 2. Ng1f3 Nc6 3. Ke3 Bc5");
    await page.getByTestId("check").click();
    await settled(page);
    assert.deepEqual(await plies(page), ["e4", "e5", "Nf3", "Nc6"]);
    // Ng1f3 was accepted and shown in canonical form, marked as normalised.
    assert.equal(await page.locator("[data-testid=ply].normalised").allInnerTexts().then((t) => t.join()), "Nf3");
    assert.match(await text(page, "illegal"), /^Move 5 "Ke3" is illegal: NO_PIECE — no white king can move to e3$/);
    assert.equal(await text(page, "outcome"), "* · ONGOING");
    const legal = (await text(page, "legal")).split(" ");
    assert.ok(legal.includes("Bb5") && legal.includes("O-O") === false && legal.includes("Ke2"), legal.join(" "));
    mkdirSync(join(REPO, "target"), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });

  it("shows a bad request's reason and field from the error details", async () => {
    await page.getByTestId("fen-input").fill("not a fen");
    await page.getByTestId("check").click();
    await settled(page);
    assert.match(await text(page, "error"), /^INVALID_ARGUMENT INVALID_FEN \(field fen\): /);
    await page.getByTestId("fen-input").fill("");
  });

  it("plays a crazyhouse game with a drop once the variant is chosen", async () => {
    await page.getByTestId("variant").selectOption({ label: "Crazyhouse" });
    await settled(page);
    await page.getByTestId("moves-input").fill("1. e4 e5 2. Nf3 Nc6 3. Nxe5 Nxe5 4. d4 N@f3+");
    await page.getByTestId("check").click();
    await settled(page);
    assert.deepEqual((await plies(page)).slice(-2), ["d4", "N@f3+"]);
    // White's pocket holds the pawn it took.
    assert.match(await text(page, "turn"), /^White to move · r1bqkbnr\/pppp1ppp\/8\/4n3\/3PP3\/5n2\/PPP2PPP\/RNBQKB1R\[P\] w /);
    assert.equal(await text(page, "outcome"), "* · ONGOING");
    const legal = (await text(page, "legal")).split(" ");
    assert.ok(legal.includes("gxf3") && legal.includes("Qxf3") && !legal.includes("Nc3"), legal.join(" "));
    await page.getByTestId("variant").selectOption({ label: "Standard" });
    await settled(page);
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
