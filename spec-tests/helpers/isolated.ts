// A copy of the repository in a temporary folder of its own, with nothing beside
// it (P5, P6): what a clone elsewhere looks like. Its node_modules folders are
// links to the repository's, so nothing is installed again.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { repoRoot } from "./paths.js";

/** A copy of the repository; `remove()` deletes it with its temporary folder. */
export interface IsolatedCopy {
  /** The copy's root: the only entry of a new temporary folder. */
  dir: string;
  remove(): void;
}

/** Copies the repository, built trees included (`withBuilt: false` leaves out build/ and dist/). */
export function isolatedCopy(options: { withBuilt?: boolean } = {}): IsolatedCopy {
  const base = mkdtempSync(join(tmpdir(), "yada-alone-"));
  const dir = join(base, "yada");
  const skip = (src: string) => {
    const rel = relative(repoRoot, src);
    if (rel.split(sep).some((part) => part === "node_modules" || part === ".git" || part === ".bench")) return true;
    return rel.endsWith(".log") || (options.withBuilt === false && (rel === "build" || rel === "dist"));
  };
  cpSync(repoRoot, dir, { recursive: true, filter: (src) => !skip(src) });
  const link = (rel: string) => {
    if (existsSync(join(repoRoot, rel, "node_modules"))) symlinkSync(join(repoRoot, rel, "node_modules"), join(dir, rel, "node_modules"), "dir");
  };
  link(".");
  for (const d of readdirSync(repoRoot, { withFileTypes: true })) if (d.isDirectory() && d.name !== "node_modules" && !d.name.startsWith(".")) link(d.name);
  return { dir, remove: () => rmSync(base, { recursive: true, force: true }) };
}
