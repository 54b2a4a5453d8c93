// Bundles the web client into services/paiju/web/static (or the directory given as the first
// argument): index.html, app.css and one app.js. The output depends only on the sources and the
// pinned packages (no timestamps, no content hashes), so a test can rebuild it and compare.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(process.argv[2] ?? join(web, "..", "services", "paiju", "web", "static"));

mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(web, "src", "app.tsx")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  charset: "utf8",
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
for (const name of ["index.html", "app.css", "favicon.svg"]) copyFileSync(join(web, "src", name), join(out, name));
