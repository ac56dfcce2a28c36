/**
 * Root confinement of the Node built-in tools (R5): every path the model names
 * must lie inside one of the host's allowed roots, both as written (so `..`
 * cannot climb out) and after every symlink is resolved (so a link cannot point
 * out). Paths shown to the model are the lexical ones; a link's target is never
 * revealed.
 *
 * @module
 */
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ConfigError } from "../../errors.js";
import { MAX_BUILTIN_ARGUMENT_CHARS } from "../../limits.js";

/** A path the model may use: `real` to open, `shown` to print. */
export interface AllowedPath {
  /** The path with every symlink resolved; inside a root. */
  real: string;
  /** The path as the model wrote it, made absolute (no symlink resolved). */
  shown: string;
  /** Whether it is a directory. */
  isDirectory: boolean;
}

/** A refusal the tool reports to the model as an error result. */
export class PathRefused extends Error {}

/** Is `target` equal to `root` or below it? Both absolute and normalised. */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Checks the roots a host allows: a non-empty list of paths, made absolute. */
export function checkRoots(roots: unknown, who = "nodeReadTools"): string[] {
  const out: string[] = [];
  // An index loop, not every(): a hole in a sparse array must be refused, not skipped.
  for (let i = 0; Array.isArray(roots) && i < roots.length; i++) {
    const r: unknown = roots[i];
    if (typeof r !== "string" || r === "" || r.includes("\u0000")) break;
    out.push(resolve(r));
  }
  if (!Array.isArray(roots) || out.length === 0 || out.length !== roots.length) {
    throw new ConfigError(`${who}: roots must be a non-empty array of directory paths`);
  }
  return out;
}

/** Confines model-supplied paths to `roots` (absolute). The first root is the base of relative paths. */
export class RootGuard {
  readonly #roots: readonly string[];

  constructor(roots: readonly string[]) {
    this.#roots = roots;
  }

  /** The roots, as configured. */
  get roots(): readonly string[] {
    return this.#roots;
  }

  /** The roots with their links resolved (a root may itself be a link); those that do not exist are left out. */
  async realRoots(): Promise<string[]> {
    const out: string[] = [];
    for (const r of this.#roots) {
      const real = await realpath(r).catch(() => undefined);
      if (real !== undefined) out.push(real);
    }
    return out;
  }

  /**
   * Resolves a model-supplied path inside the roots.
   *
   * @throws PathRefused when the argument is not a usable path, lies outside every
   * root as written or once links are resolved, or does not exist.
   */
  async resolve(input: unknown): Promise<AllowedPath> {
    if (typeof input !== "string" || input === "" || input.length > MAX_BUILTIN_ARGUMENT_CHARS || input.includes("\u0000")) {
      throw new PathRefused(`path must be a non-empty string of at most ${MAX_BUILTIN_ARGUMENT_CHARS} characters`);
    }
    const base = this.#roots[0] ?? "/";
    const shown = resolve(base, input);
    const lexicalRoot = this.#roots.find((r) => isInside(r, shown));
    if (lexicalRoot === undefined) throw new PathRefused(`${input} is outside the allowed roots (${this.#roots.join(", ")})`);
    let real: string;
    try {
      real = await realpath(shown);
    } catch {
      throw new PathRefused(`${input} does not exist`);
    }
    // The target after links must be inside a root too (resolved the same way, since a root may itself be a link).
    const realRoots = await Promise.all(this.#roots.map((r) => realpath(r).catch(() => undefined)));
    if (!realRoots.some((r) => r !== undefined && isInside(r, real))) {
      throw new PathRefused(`${input} leads outside the allowed roots through a symbolic link`);
    }
    const info = await stat(real);
    // Only regular files and directories: opening a FIFO or a device blocks a
    // thread of the pool forever, whatever the run's signal says.
    if (!info.isDirectory() && !info.isFile()) throw new PathRefused(`${input} is neither a regular file nor a directory`);
    return { real, shown, isDirectory: info.isDirectory() };
  }
}
