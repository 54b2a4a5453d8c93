// Generates the TypeScript messages and service descriptors of protos/paiju/v1 into src/gen
// (or the directory given as the first argument) with protoc from grpcio-tools and
// @bufbuild/protoc-gen-es, and those of the google.rpc error details a refusal carries (from
// web/protos: a part of googleapis, kept here so that the output depends on nothing installed).
// PYTHON names the interpreter that has grpcio-tools (default: the repository's .venv).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(web, "..");
const out = resolve(process.argv[2] ?? join(web, "src", "gen"));
const python = process.env.PYTHON ?? join(repo, ".venv", "bin", "python");
const protos = join(repo, "protos");
const vendored = join(web, "protos");
const files = readdirSync(join(protos, "paiju", "v1"))
  .filter((name) => name.endsWith(".proto"))
  .sort()
  .map((name) => `paiju/v1/${name}`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
execFileSync(
  python,
  [
    "-m", "grpc_tools.protoc",
    `--plugin=protoc-gen-es=${join(web, "node_modules", ".bin", "protoc-gen-es")}`,
    `--es_out=${out}`,
    "--es_opt=target=ts,import_extension=none",
    `-I${protos}`,
    `-I${vendored}`,
    ...files,
    "google/rpc/error_details.proto",
  ],
  { stdio: "inherit" },
);
