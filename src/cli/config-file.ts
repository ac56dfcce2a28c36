/**
 * `--config FILE` (P4, U6): a reviewed JSON file of MCP server configurations,
 * the same array `YADA_MCP_SERVERS` holds but with write mappings allowed
 * (`writeTools`, `confirmTools`). Because it decides what yada may execute, the
 * file is read only when no one else can change it: it must be a regular file
 * owned by the user running yada (or by root), writable by neither its group nor
 * others, in a directory others cannot rewrite (not group- or world-writable,
 * unless sticky; owned by the user or root). The checks are made on the opened
 * file, so a file swapped after the check is never the one read.
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../errors.js";
import { MAX_CLI_CONFIG_BYTES, MAX_MCP_SERVERS } from "../limits.js";
import { parseServerConfig, type McpServerConfig } from "../tools/config.js";
import { oneLine } from "./terminal.js";

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

/** The uid of this process, or `undefined` where the system has none (Windows: ownership is not checked there). */
function myUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

function ownedByUs(stats: Stats, uid: number | undefined): boolean {
  return uid === undefined || stats.uid === uid || stats.uid === 0;
}

/**
 * Refuses a file that someone else could have written: not a regular file, owned
 * by another user, group- or world-writable, or in a directory others can rewrite.
 *
 * @throws ConfigError (`config`) naming the path and what is wrong.
 */
function checkTrusted(shown: string, real: string, stats: Stats): void {
  const uid = myUid();
  if (!stats.isFile()) throw new ConfigError(`--config ${shown} is not a regular file`);
  if (!ownedByUs(stats, uid)) throw new ConfigError(`--config ${shown} is owned by another user (uid ${stats.uid}); a reviewed config must be yours`);
  if ((stats.mode & GROUP_OR_OTHER_WRITE) !== 0) {
    throw new ConfigError(`--config ${shown} is writable by its group or others (mode ${(stats.mode & 0o777).toString(8)}); run chmod go-w on it`);
  }
  if (uid === undefined) return;
  const dir = statSync(dirname(real));
  if (!ownedByUs(dir, uid)) throw new ConfigError(`--config ${shown} is in a directory owned by another user (uid ${dir.uid})`);
  if ((dir.mode & GROUP_OR_OTHER_WRITE) !== 0 && (dir.mode & STICKY) === 0) {
    throw new ConfigError(`--config ${shown} is in a directory its group or others may write (mode ${(dir.mode & 0o777).toString(8)}): they could replace the file`);
  }
}

/** Reads at most `MAX_CLI_CONFIG_BYTES` from `fd`. @throws ConfigError (`config`) for a larger file. */
function readBounded(fd: number, shown: string): string {
  const chunk = Buffer.alloc(64 * 1024);
  const parts: Buffer[] = [];
  let size = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    size += n;
    if (size > MAX_CLI_CONFIG_BYTES) throw new ConfigError(`--config ${shown} is larger than ${MAX_CLI_CONFIG_BYTES} bytes`);
    parts.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(parts).toString("utf8");
}

/**
 * Reads and validates the server configurations of a `--config` file: a JSON
 * array of connectMcp configurations (`name`, `url` with `headers` or `command`
 * with `args`, `env`, `stderr`, `timeoutMs`, `readTools`, `resources`,
 * `writeTools`, `confirmTools`), unique names, at most `MAX_MCP_SERVERS`.
 * Errors name the file, the entry and the field, never a header or env value.
 *
 * @throws ConfigError (`config`) for a file that cannot be read, that someone else
 * could have written, larger than `MAX_CLI_CONFIG_BYTES`, not JSON, not an array, or
 * with an invalid entry or a name used twice.
 *
 * @example
 * ```ts
 * const servers = readConfigFile("yada.json"); // [{ name: "catalog", command: "node", ... }]
 * ```
 */
export function readConfigFile(path: string): McpServerConfig[] {
  const shown = JSON.stringify(oneLine(path, 200));
  let fd: number;
  let real: string;
  try {
    real = realpathSync(path);
    fd = openSync(real, "r");
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    throw new ConfigError(`cannot read --config ${shown} (${typeof code === "string" ? code : "unreadable"})`);
  }
  let text: string;
  try {
    checkTrusted(shown, real, fstatSync(fd));
    text = readBounded(fd, shown);
  } finally {
    closeSync(fd);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The engine's message quotes the input, which may hold secrets: say only where.
    throw new ConfigError(`--config ${shown} is not valid JSON`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`--config ${shown} must hold a JSON array of server configurations`);
  if (parsed.length > MAX_MCP_SERVERS) throw new ConfigError(`--config ${shown} lists more than ${MAX_MCP_SERVERS} servers`);
  const names = new Set<string>();
  return parsed.map((entry: unknown, i) => {
    const config = parseServerConfig(entry, `--config ${shown}[${i}]`, true);
    if (names.has(config.name)) throw new ConfigError(`--config ${shown}[${i}]: the name ${JSON.stringify(config.name)} is used twice`);
    names.add(config.name);
    return config;
  });
}
