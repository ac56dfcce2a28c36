// A consumer project of the packed package (P1, P8): `npm pack` of the repository,
// installed into a scratch folder with the examples/ project's files copied as they
// are (its servers/ are self-contained files), as a user's project would install
// the published tarball. Nothing there reaches back into the repository.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "./paths.js";

/** A scratch consumer with the packed package installed. */
export interface Consumer {
  dir: string;
  /** The paths inside the tarball. */
  files: string[];
  /** The tarball's package.json. */
  manifest: { scripts?: Record<string, string>; dependencies?: Record<string, string>; bin?: Record<string, string> };
  /** Runs a command in the consumer folder (bounded). */
  exec(command: string, args: readonly string[], timeoutMs?: number): SpawnSyncReturns<string>;
  remove(): void;
}

/** How long one npm or tsc step may take on a loaded machine. */
const STEP_MS = 90_000;

function exec(command: string, args: readonly string[], cwd: string, timeoutMs = STEP_MS): SpawnSyncReturns<string> {
  // npm's own variables from an enclosing `npm test` must not change how the scratch install behaves.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_")));
  return spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 16 << 20 });
}

function check(r: SpawnSyncReturns<string>, what: string): SpawnSyncReturns<string> {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Packs the built repository and installs it into a new scratch consumer holding examples/. */
export async function consumerProject(): Promise<Consumer> {
  const dir = mkdtempSync(join(tmpdir(), "yada-consumer-"));
  try {
    const packed = check(exec("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], repoPath()), "npm pack");
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    if (!info) throw new Error("npm pack printed no tarball");
    const examples = repoPath("examples");
    for (const name of readdirSync(examples)) {
      if (/\.(mjs|ts|md)$/.test(name)) cpSync(join(examples, name), join(dir, name));
    }
    cpSync(join(examples, "servers"), join(dir, "servers"), { recursive: true });
    const pkg = JSON.parse(readFileSync(join(examples, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    pkg.dependencies["yada-mcp"] = `file:./${info.filename}`;
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
    const tsconfig = JSON.parse(readFileSync(join(examples, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
    tsconfig.compilerOptions.typeRoots = [repoPath("node_modules", "@types")];
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    // --offline: the tarball has no dependencies, so the install needs no network.
    check(exec("npm", ["install", "--offline", "--no-audit", "--no-fund", "--no-package-lock"], dir), "npm install of the tarball");
    const manifest = JSON.parse(readFileSync(join(dir, "node_modules", "yada-mcp", "package.json"), "utf8")) as Consumer["manifest"];
    return {
      dir,
      files: info.files.map((f) => f.path),
      manifest,
      exec: (command, args, timeoutMs) => exec(command, args, dir, timeoutMs),
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** The repository's TypeScript compiler (a dev dependency). */
export const tscBin = repoPath("node_modules", ".bin", "tsc");
