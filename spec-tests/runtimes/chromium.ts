// The browser of the runtime matrix (X2, P2): headless Chromium from the
// @sparticuz/chromium dev dependency, so `npm ci && npm test` is enough on a machine
// with no browser installed. The package ships the headless shell as one brotli file;
// it is unpacked once into node_modules/.cache (written beside, then renamed, so two
// test processes never run a half-written binary). Only the binary is used: the
// package's launcher flags are not (they turn web security off, which the CORS leg
// checks, and `--dump-dom` never returns with this build; a page that reports over
// fetch does).
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, chmodSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { join } from "node:path";
import { repoPath } from "../helpers/paths.js";

const packageDir = repoPath("node_modules", "@sparticuz", "chromium");

/** The unpacked headless Chromium; unpacks it on first use. Throws when the dev dependency is missing. */
export async function chromiumBinary(): Promise<string> {
  const manifest = join(packageDir, "package.json");
  if (!existsSync(manifest)) throw new Error(`${packageDir} is missing: node scripts/test-deps.mjs (run by npm test) installs it`);
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  // Unpacked beside the other test-only dependencies (test-deps/), not in the top node_modules.
  const dir = repoPath("test-deps", "node_modules", ".cache", `yada-chromium-${version}`);
  const binary = join(dir, "chromium");
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  await pipeline(createReadStream(join(packageDir, "bin", "chromium.br")), createBrotliDecompress(), createWriteStream(partial));
  chmodSync(partial, 0o755);
  renameSync(partial, binary);
  return binary;
}

/** The flags every headless run of the tests starts Chromium with (a quiet, fresh, offline-minded browser), before its own. */
export const HEADLESS_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--no-default-browser-check",
];
