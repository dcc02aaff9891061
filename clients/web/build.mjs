// Bundles the page into dist/ with esbuild: app.js, index.html, the styles
// and chessground's board and piece styles.
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

const out = "dist";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: `${out}/app.js`,
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: true,
  logLevel: "warning",
});
const assets = "node_modules/@lichess-org/chessground/assets";
for (const name of ["chessground.base.css", "chessground.brown.css", "chessground.cburnett.css"]) {
  copyFileSync(`${assets}/${name}`, `${out}/${name}`);
}
for (const name of ["index.html", "style.css"]) copyFileSync(name, `${out}/${name}`);
console.log(`built ${out}/`);
