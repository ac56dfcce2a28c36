/**
 * Which MCP server a command talks to: `--stdio "cmd args"`, `--url` (with
 * `--header`), or `--server name` from `YADA_MCP_SERVERS` (T14). Exactly one.
 * Headers are checked (H10) before anything is launched or sent.
 *
 * @module
 */
import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ClientOptions } from "../mcp/client.js";
import { McpClient } from "../node/client.js";
import type { ClientHandlers } from "../mcp/handlers.js";
import { StdioTransport, type StdioServerParams } from "../node/stdio.js";
import type { McpReadConfig, McpServerConfig, McpWriteRoles } from "../tools/config.js";
import { mcpServersFromEnv } from "../tools/env.js";
import { readConfigFile } from "./config-file.js";
import { SERVER_NAME_PATTERN } from "../tools/names.js";
import { HttpTransport } from "../node/http.js";
import type { HttpAuth } from "../transport/http-auth.js";
import type { Transport } from "../transport/types.js";
import { parseHeader, splitCommandLine, type CliArgs } from "./args.js";
import { UsageError } from "./exit.js";
import { oneLine, safe, type Io } from "./terminal.js";

/** What every choice has. */
export interface ChoiceBase {
  /** The tool prefix in `run`. */
  name: string;
  /** Bound on connecting and on each request or call. */
  timeoutMs?: number;
  /** Reviewed read tools of a `YADA_MCP_SERVERS` entry (T3), for `run`. */
  readTools?: string[];
  /** `resources: true` of a `YADA_MCP_SERVERS` entry (T11), for `run`. */
  resources?: boolean;
  /** `--root`: absolute directories offered as roots (P4). */
  roots?: string[];
  /** The write roles of a `--config` entry (reviewed: W1, W7), used as written. */
  roles?: McpWriteRoles;
}

/** A server launched as a process speaking stdio. */
export interface StdioChoice extends ChoiceBase {
  kind: "stdio";
  command: string;
  args: string[];
  env?: Readonly<Record<string, string>>;
  /** `--cwd` (P4). */
  cwd?: string;
  /** Print the server's stderr. */
  inheritStderr: boolean;
}

/** A server over Streamable HTTP. */
export interface HttpChoice extends ChoiceBase {
  kind: "http";
  url: string;
  /** Checked by the H10 rules; values are never printed. */
  headers: Array<[string, string]>;
}

/** The server a command talks to. */
export type ServerChoice = StdioChoice | HttpChoice;

/**
 * Resolves the server flags. `--header` adds to (or replaces) the headers of an
 * HTTP `--server`; `--timeout` overrides its `timeoutMs`.
 *
 * @throws UsageError (`usage`) for none or several of --stdio / --url / --server,
 * `--header` with a stdio server, a bad `--stdio` line, an unknown server name;
 * ConfigError (`config`) for an invalid `YADA_MCP_SERVERS`, URL or header (H10).
 */
export function chooseServer(args: CliArgs, env: Readonly<Record<string, string | undefined>>): ServerChoice {
  if (args.servers.length > 1) throw new UsageError("give one --server (only yada worker serves several)");
  const [choice] = chooseServers(args, env);
  if (!choice) throw new UsageError("say which server: --stdio \"cmd args\", --url <url> or --server <name>");
  return choice;
}

/** Where `--server` names are looked up: the `--config` file when given, else `YADA_MCP_SERVERS`. */
function namedServers(args: CliArgs, env: Readonly<Record<string, string | undefined>>): { servers: McpServerConfig[]; from: string } {
  if (args.config !== undefined) return { servers: readConfigFile(args.config), from: `--config ${JSON.stringify(oneLine(args.config, 200))}` };
  return { servers: mcpServersFromEnv(env), from: "YADA_MCP_SERVERS" };
}

/** The choice of one configuration of `--config` or `YADA_MCP_SERVERS`, with `--header` merged and `--name` applied. */
function fromConfig(found: McpServerConfig, args: CliArgs, headers: Array<[string, string]>, name: string | undefined): ServerChoice {
  let choice: ServerChoice;
  if (found.url !== undefined) {
    const merged = new Map<string, [string, string]>();
    for (const [n, v] of [...Object.entries(found.headers ?? {}), ...headers]) merged.set(n.toLowerCase(), [n, v]);
    choice = { kind: "http", name: name ?? found.name, url: found.url, headers: [...merged.values()] };
  } else {
    if (headers.length > 0) throw new UsageError(`--header applies to HTTP servers; ${found.name} is a stdio server`);
    choice = {
      kind: "stdio",
      name: name ?? found.name,
      command: found.command,
      args: [...(found.args ?? [])],
      inheritStderr: args.verbose || found.stderr === "inherit",
      ...(found.env ? { env: found.env } : {}),
    };
  }
  if (found.timeoutMs !== undefined) choice.timeoutMs = found.timeoutMs;
  if (found.readTools !== undefined) choice.readTools = [...found.readTools];
  if (found.resources === true) choice.resources = true;
  if (found.writeTools !== undefined || found.confirmTools !== undefined) {
    choice.roles = { ...(found.writeTools ? { writeTools: found.writeTools } : {}), ...(found.confirmTools ? { confirmTools: found.confirmTools } : {}) };
  }
  return choice;
}

/**
 * The servers of the command line: one `--stdio` or `--url`, or each `--server`
 * name (several only for `yada worker`), looked up in the `--config` file when
 * given, else in `YADA_MCP_SERVERS`. An empty list when none is given.
 *
 * @throws as {@link chooseServer}; ConfigError (`config`) for a `--config` file
 * that is unsafe or invalid.
 */
export function chooseServers(args: CliArgs, env: Readonly<Record<string, string | undefined>>): ServerChoice[] {
  const given = [args.stdio !== undefined && "--stdio", args.url !== undefined && "--url", args.servers.length > 0 && "--server"].filter(Boolean);
  if (given.length === 0) {
    if (args.config !== undefined) throw new UsageError("--config needs --server <name>: the config file's server to use");
    return [];
  }
  if (given.length > 1) throw new UsageError(`give one server, not ${given.join(" and ")}`);
  if (args.config !== undefined && args.servers.length === 0) throw new UsageError("--config applies to --server <name>, not to --stdio or --url");
  const headers = args.headers.map(parseHeader);
  const name = args.name;
  if (name !== undefined && !SERVER_NAME_PATTERN.test(name)) throw new UsageError("--name must be letters, digits, _ or -");

  let choices: ServerChoice[];
  if (args.stdio !== undefined) {
    if (headers.length > 0) throw new UsageError("--header applies to HTTP servers (--url), not --stdio");
    const [command = "", ...rest] = splitCommandLine(args.stdio);
    choices = [{ kind: "stdio", name: name ?? "mcp", command, args: rest, inheritStderr: args.verbose }];
  } else if (args.url !== undefined) {
    choices = [{ kind: "http", name: name ?? "mcp", url: args.url, headers }];
  } else {
    if (name !== undefined && args.servers.length > 1) throw new UsageError("--name renames one server; with several --server, each keeps its own name");
    const { servers, from } = namedServers(args, env);
    const seen = new Set<string>();
    choices = args.servers.map((wanted) => {
      if (seen.has(wanted)) throw new UsageError(`--server ${JSON.stringify(oneLine(wanted, 80))} is given twice`);
      seen.add(wanted);
      const found = servers.find((s) => s.name === wanted);
      if (!found) {
        const known = servers.map((s) => s.name).join(", ") || `none (${from === "YADA_MCP_SERVERS" ? "YADA_MCP_SERVERS is unset or empty; write mappings go in a file given with --config" : "the file lists no server"})`;
        throw new UsageError(`no server named ${JSON.stringify(oneLine(wanted, 80))} in ${from}; known: ${known}`);
      }
      return fromConfig(found, args, headers, name);
    });
  }
  for (const choice of choices) {
    if (choice.kind === "http" && (args.env.length > 0 || args.cwd !== undefined)) {
      throw new UsageError(`--${args.env.length > 0 ? "env" : "cwd"} applies to stdio servers, not HTTP ones`);
    }
    if (choice.kind === "stdio") {
      if (args.env.length > 0) choice.env = { ...choice.env, ...Object.fromEntries(args.env) };
      if (args.cwd !== undefined) choice.cwd = directory("--cwd", args.cwd);
    }
    if (args.roots.length > 0) choice.roots = args.roots.map((r) => directory("--root", r));
    if (args.timeoutMs !== undefined) choice.timeoutMs = args.timeoutMs;
    // H10 is checked now, before a process is launched or a request sent.
    if (choice.kind === "http") new HttpTransport(choice.url, { headers: choice.headers });
  }
  return choices;
}

/** `dir` resolved to an absolute path. @throws UsageError (`usage`) when it is not a directory. */
function directory(flag: string, dir: string): string {
  const path = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // missing or unreadable: reported below
  }
  if (!isDir) throw new UsageError(`${flag} ${JSON.stringify(oneLine(dir, 200))} is not a directory`);
  return path;
}

/**
 * The transport for a choice. HTTP headers ride on every request (H10); a stdio
 * server's stderr is kept for errors (S3), or printed with `--verbose`.
 *
 * @throws ConfigError (`config`) for an invalid URL or header.
 */
export function transportFor(choice: ServerChoice, logger: Logger | undefined, auth?: HttpAuth): Transport {
  if (choice.kind === "http") return new HttpTransport(choice.url, { headers: choice.headers, ...(logger ? { logger } : {}), ...(auth ? { auth } : {}) });
  const params: StdioServerParams = { command: choice.command, args: choice.args, name: stdioLabel(choice) };
  if (choice.env) params.env = choice.env;
  if (choice.cwd !== undefined) params.cwd = choice.cwd;
  if (choice.inheritStderr) params.onStderr = printServerStderr;
  if (logger) params.logger = logger;
  return new StdioTransport(params);
}

/**
 * `--verbose` prints a stdio server's stderr, through the terminal filter: its
 * escape sequences (title, clipboard, screen clear) never reach the terminal.
 */
export function printServerStderr(text: string): void {
  process.stderr.write(safe(text));
}

/** The command line of a stdio server with the command's directory dropped, bounded: names it in errors. */
function stdioLabel(choice: StdioChoice): string {
  return oneLine([basename(choice.command), ...choice.args].join(" "), 80);
}

/** A short description of the server for humans: the command line (made one safe line, bounded) or the URL (never headers). */
export function describeServer(choice: ServerChoice): string {
  if (choice.kind === "http") {
    const u = new URL(choice.url);
    return `${u.origin}${u.pathname} (HTTP)`;
  }
  return `${oneLine([choice.command, ...choice.args].join(" "), 200)} (stdio)`;
}

/** The logger of `--verbose`: diagnostics as lines on stderr (never header values, by the library's rule). */
export function verboseLogger(io: Io): Logger {
  return (level, message, data) => {
    const extra = data && Object.keys(data).length > 0 ? ` ${JSON.stringify(data)}` : "";
    io.err(`yada: ${level}: ${oneLine(message + extra)}\n`);
  };
}

/** Options of {@link connectClient}. */
export interface ConnectClientOptions {
  logger?: Logger;
  signal?: AbortSignal;
  /** OAuth for an HTTP server (A6: `yada login`, and the tokens it stored). */
  auth?: HttpAuth;
  /** Host handlers besides the roots of `--root` (V6: `--elicit`, `--sampling`). */
  handlers?: ClientHandlers;
  /** Wraps the transport (e.g. to record the session). */
  wrap?: (transport: Transport) => Transport;
}

/**
 * Connects an {@link McpClient} to the chosen server. `timeoutMs` bounds the
 * handshake, every request and every call (calls: restarted by progress, J6).
 *
 * @throws the errors of {@link McpClient.connect}: `transport`, `connection_closed`,
 * `timeout`, `protocol`, `http`, `unsupported_version`, `config`.
 */
export async function connectClient(choice: ServerChoice, options: ConnectClientOptions = {}): Promise<McpClient> {
  const transport = transportFor(choice, options.logger, options.auth);
  const clientOptions: ClientOptions = { name: choice.kind === "http" ? describeServer(choice) : `stdio server '${stdioLabel(choice)}'` };
  if (options.logger) clientOptions.logger = options.logger;
  if (options.signal) clientOptions.signal = options.signal;
  const roots = choice.roots?.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) || dir }));
  const handlers: ClientHandlers = { ...options.handlers, ...(roots ? { roots: () => roots } : {}) };
  if (Object.keys(handlers).length > 0) clientOptions.handlers = handlers;
  if (choice.timeoutMs !== undefined) {
    clientOptions.handshakeTimeoutMs = choice.timeoutMs;
    clientOptions.requestTimeoutMs = choice.timeoutMs;
    clientOptions.callTimeoutMs = choice.timeoutMs;
  }
  return McpClient.connect(options.wrap ? options.wrap(transport) : transport, clientOptions);
}

/**
 * The connectMcp configuration for a choice (T1). The read selection and
 * resources flag of `run` take precedence over those of a `YADA_MCP_SERVERS`
 * entry. It has no write roles, so connectMcp gives read tools only (W11).
 *
 * @throws ConfigError (`config`) as connectMcp would, for a name it refuses.
 */
export function serverConfig(choice: ServerChoice, roles: { readTools?: string[]; resources?: boolean }): McpReadConfig {
  const readTools = roles.readTools ?? choice.readTools;
  const common = {
    name: choice.name,
    ...(choice.timeoutMs !== undefined ? { timeoutMs: choice.timeoutMs } : {}),
    ...(readTools ? { readTools } : {}),
    ...(roles.resources || choice.resources ? { resources: true } : {}),
  };
  if (choice.kind === "http") return { ...common, url: choice.url, headers: Object.fromEntries(choice.headers) };
  if (choice.command === "") throw new ConfigError("the stdio command is empty");
  return {
    ...common,
    command: choice.command,
    args: choice.args,
    ...(choice.env ? { env: choice.env } : {}),
  };
}
