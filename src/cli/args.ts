/**
 * The CLI's command line: the commands, their flags (one table, from which the
 * help text is written too), the parser, and the shell-like split of `--stdio`.
 *
 * @module
 */
import { MAX_COMMAND_LINE_CHARS } from "../limits.js";
import { UsageError } from "./exit.js";

/** A `--call <tool> [json]` of `record`. */
export interface CallSpec {
  tool: string;
  /** The JSON arguments as given (an object); absent means `{}`. */
  json?: string;
}

/** The parsed command line. */
export interface CliArgs {
  /** The command (first positional), if any. */
  command?: string;
  /** The positionals after the command. */
  positionals: string[];
  /** Every flag given, by long name (to reject flags that do not apply). */
  given: Set<string>;
  help: boolean;
  version: boolean;
  json: boolean;
  verbose: boolean;
  stdio?: string;
  url?: string;
  /** `--server NAME`, in order: one for most commands, several for `worker`. */
  servers: string[];
  /** `--config FILE`: a reviewed file of server configurations for `--server` (write mappings allowed). */
  config?: string;
  name?: string;
  headers: string[];
  /** `--env KEY=VALUE` of a stdio server, in order (P4). */
  env: Array<[string, string]>;
  /** `--cwd DIR` of a stdio server (P4). */
  cwd?: string;
  /** `--root DIR`: directories offered to the server as roots (P4, V6). */
  roots: string[];
  timeoutMs?: number;
  output?: string;
  note?: string;
  calls: CallSpec[];
  provider?: string;
  model?: string;
  script?: string;
  system?: string;
  actor?: string;
  tenant?: string;
  maxSteps?: number;
  readTools?: string[];
  confirmTools?: string[];
  resources: boolean;
  /** run: decide every proposed call without asking (W8). */
  approve?: "all" | "none";
  /** run, actions: the file action store (W9). */
  store?: string;
  /** `--elicit`: answer the server's elicitations (on a terminal; declined without one) (V6). */
  elicit: boolean;
  /** `--sampling`: answer the server's sampling requests with the run provider (V6). */
  sampling: boolean;
  /** worker: one pass, then exit (U6). */
  once: boolean;
  /** call: call a tool not marked read-only without asking (P4). */
  yes: boolean;
  /** actions resolve: the operator's verdict on an action whose outcome is unknown (W14). */
  outcome?: "succeeded" | "failed";
  /** approvals: the loopback port (U6); 0 or absent: one the system picks. */
  port?: number;
  /** login: the workload's platform JWT file (A7 workload identity). */
  workloadTokenFile?: string;
  /** login: the ID token file the host's single sign-on tool wrote (A7 enterprise sign-in). */
  idTokenFile?: string;
  /** login: the enterprise identity provider's issuer (A7). */
  idpIssuer?: string;
  /** login: the identity provider's token endpoint, instead of its metadata's (A7). */
  idpTokenEndpoint?: string;
  /** login: this host's client at the identity provider (A7). */
  idpClientId?: string;
  /** login: this host's client at the MCP server's authorization server (A7). */
  clientId?: string;
}

/** Which help section a flag is listed under. */
export type FlagGroup = "server" | "host" | "output" | "call" | "record" | "login" | "run" | "actions" | "worker" | "approvals" | "general";

/** One flag: its arity, where it applies, and its help line. */
export interface FlagSpec {
  name: string;
  short?: string;
  /** `boolean` takes no value; `value` takes one; `call` takes a tool and an optional JSON object. */
  kind: "boolean" | "value" | "call";
  /** Placeholder of the value in help. */
  value?: string;
  group: FlagGroup;
  help: string;
  set(args: CliArgs, value: string, extra?: string): void;
}

function positiveInt(flag: string, value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) <= 0 || Number(value) > 2_147_483_647) {
    throw new UsageError(`--${flag} needs a positive integer (got ${JSON.stringify(value.slice(0, 40))})`);
  }
  return Number(value);
}

/** `KEY=VALUE` of `--env`: a portable variable name, a value without NUL. */
function envPair(value: string): [string, string] {
  const eq = value.indexOf("=");
  const key = eq < 0 ? "" : value.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(key)) throw new UsageError("--env needs KEY=VALUE with a variable name of letters, digits and _");
  const v = value.slice(eq + 1);
  if (v.includes("\0")) throw new UsageError(`--env ${key}: the value holds a NUL character`);
  return [key, v];
}

function nameList(flag: string, value: string): string[] {
  const names = value.split(",").map((n) => n.trim());
  if (names.some((n) => n === "")) throw new UsageError(`--${flag} needs comma-separated tool names`);
  return names;
}

function outcomeOf(value: string): "succeeded" | "failed" {
  if (value !== "succeeded" && value !== "failed") throw new UsageError("--outcome takes succeeded or failed");
  return value;
}

function portOf(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw new UsageError(`--port needs a port from 0 to 65535 (got ${JSON.stringify(value.slice(0, 40))})`);
  return Number(value);
}

function approveMode(value: string): "all" | "none" {
  if (value !== "all" && value !== "none") throw new UsageError("--approve takes all or none");
  return value;
}

/** Every flag of every command. */
export const FLAGS: readonly FlagSpec[] = [
  { name: "stdio", kind: "value", value: '"cmd args"', group: "server", help: "launch the server and speak stdio (split like a shell: quotes, backslashes)", set: (a, v) => (a.stdio = v) },
  { name: "url", kind: "value", value: "url", group: "server", help: "an MCP endpoint over Streamable HTTP", set: (a, v) => (a.url = v) },
  { name: "server", kind: "value", value: "name", group: "server", help: "a server from --config, else from YADA_MCP_SERVERS (worker: repeatable)", set: (a, v) => a.servers.push(v) },
  { name: "config", kind: "value", value: "file", group: "server", help: "a reviewed JSON array of server configs for --server; write mappings allowed; refused if others may write it", set: (a, v) => (a.config = v) },
  { name: "header", kind: "value", value: '"Name: value"', group: "server", help: "HTTP header on every request (repeatable; values never printed)", set: (a, v) => a.headers.push(v) },
  { name: "env", kind: "value", value: "KEY=VALUE", group: "server", help: "stdio: a variable for the server, added to the minimal inherited set (repeatable)", set: (a, v) => a.env.push(envPair(v)) },
  { name: "cwd", kind: "value", value: "dir", group: "server", help: "stdio: the server's working directory (default: yada's)", set: (a, v) => (a.cwd = v) },
  { name: "root", kind: "value", value: "dir", group: "server", help: "offer this directory to the server as a root (repeatable; roots/list)", set: (a, v) => a.roots.push(v) },
  { name: "timeout", kind: "value", value: "ms", group: "server", help: "bound on the whole command: yada ends within it plus CLI_TIMEOUT_GRACE_MS (exit 3)", set: (a, v) => (a.timeoutMs = positiveInt("timeout", v)) },
  { name: "name", kind: "value", value: "prefix", group: "server", help: "server name: the tool prefix in run (default: --server name, else mcp)", set: (a, v) => (a.name = v) },
  { name: "verbose", short: "v", kind: "boolean", group: "server", help: "show the server's stderr and yada's diagnostics on stderr", set: (a) => (a.verbose = true) },
  { name: "elicit", kind: "boolean", group: "host", help: "answer the server's elicitations: asked field by field on a terminal (URLs shown, never opened); declined without one", set: (a) => (a.elicit = true) },
  { name: "sampling", kind: "boolean", group: "host", help: "answer the server's sampling requests with the model run would use (--provider, --model, --script, or the environment)", set: (a) => (a.sampling = true) },
  { name: "json", kind: "boolean", group: "output", help: "machine output on stdout: one JSON document (run: one event per line)", set: (a) => (a.json = true) },
  { name: "output", short: "o", kind: "value", value: "file", group: "output", help: "record: the transcript file; read: write the content's bytes there", set: (a, v) => (a.output = v) },
  { name: "yes", kind: "boolean", group: "call", help: "call: call a tool that is not marked read-only without asking (a direct call bypasses approvals)", set: (a) => (a.yes = true) },
  { name: "call", kind: "call", value: "tool [json]", group: "record", help: "record: also call this tool (repeatable; json must start with {)", set: (a, v, extra) => a.calls.push(extra === undefined ? { tool: v } : { tool: v, json: extra }) },
  { name: "note", kind: "value", value: "text", group: "record", help: "record: a note kept in the transcript header; actions resolve: what you checked on the server", set: (a, v) => (a.note = v) },
  {
    name: "workload-token-file",
    kind: "value",
    value: "path",
    group: "login",
    help: "log in as a workload: the file holding its platform JWT (read again whenever a token is needed; no browser)",
    set: (a, v) => (a.workloadTokenFile = v),
  },
  {
    name: "id-token-file",
    kind: "value",
    value: "path",
    group: "login",
    help: "enterprise sign-in: the file your single sign-on tool wrote the ID token to (read again whenever a token is needed; no browser)",
    set: (a, v) => (a.idTokenFile = v),
  },
  { name: "idp-issuer", kind: "value", value: "url", group: "login", help: "enterprise sign-in: the identity provider's issuer (the ID token's iss)", set: (a, v) => (a.idpIssuer = v) },
  { name: "idp-token-endpoint", kind: "value", value: "url", group: "login", help: "enterprise sign-in: its token endpoint (default: from its metadata)", set: (a, v) => (a.idpTokenEndpoint = v) },
  { name: "idp-client-id", kind: "value", value: "id", group: "login", help: "enterprise sign-in: this host's client at the identity provider (the ID token's aud)", set: (a, v) => (a.idpClientId = v) },
  { name: "client-id", kind: "value", value: "id", group: "login", help: "enterprise sign-in: this host's client at the server's authorization server", set: (a, v) => (a.clientId = v) },
  { name: "provider", kind: "value", value: "anthropic|openai|scripted", group: "run", help: "the model provider (default: from the API key in the environment)", set: (a, v) => (a.provider = v) },
  { name: "model", kind: "value", value: "id", group: "run", help: "the model (default: YADA_MODEL, else the provider's default)", set: (a, v) => (a.model = v) },
  { name: "script", kind: "value", value: "plan.json", group: "run", help: "scripted provider: a JSON array of steps {text?, toolCalls?: [{name, arguments}]}", set: (a, v) => (a.script = v) },
  { name: "system", kind: "value", value: "text", group: "run", help: "the system prompt", set: (a, v) => (a.system = v) },
  { name: "actor", kind: "value", value: "id", group: "run", help: 'identity of the caller (default "cli")', set: (a, v) => (a.actor = v) },
  { name: "tenant", kind: "value", value: "id", group: "run", help: 'tenant of the caller (default "local")', set: (a, v) => (a.tenant = v) },
  { name: "max-steps", kind: "value", value: "n", group: "run", help: "model calls at most (default 20)", set: (a, v) => (a.maxSteps = positiveInt("max-steps", v)) },
  { name: "read-tools", kind: "value", value: "a,b", group: "run", help: "tools the model may run directly (default: those annotated readOnlyHint)", set: (a, v) => (a.readTools = nameList("read-tools", v)) },
  { name: "confirm-tools", kind: "value", value: "a,b|*", group: "run", help: "other tools offered behind approval (default *: every other tool not marked read-only)", set: (a, v) => (a.confirmTools = v.trim() === "*" ? ["*"] : nameList("confirm-tools", v)) },
  { name: "resources", kind: "boolean", group: "run", help: "also give the model <name>__list_resources and <name>__read_resource", set: (a) => (a.resources = true) },
  { name: "approve", kind: "value", value: "all|none", group: "run", help: "approve or reject every proposed call without asking (default: ask on a terminal)", set: (a, v) => (a.approve = approveMode(v)) },
  { name: "store", kind: "value", value: "path", group: "actions", help: "the file action store (default .yada/actions.jsonl)", set: (a, v) => (a.store = v) },
  { name: "outcome", kind: "value", value: "succeeded|failed", group: "actions", help: "actions resolve: what you found the call did, for an action whose outcome is unknown", set: (a, v) => (a.outcome = outcomeOf(v)) },
  { name: "port", kind: "value", value: "n", group: "approvals", help: "the port on 127.0.0.1 (default: one the system picks)", set: (a, v) => (a.port = portOf(v)) },
  { name: "once", kind: "boolean", group: "worker", help: "one pass over the store (every action due now), then exit", set: (a) => (a.once = true) },
  { name: "help", short: "h", kind: "boolean", group: "general", help: "this help", set: (a) => (a.help = true) },
  { name: "version", kind: "boolean", group: "general", help: "the version", set: (a) => (a.version = true) },
];

/** One command: its positionals, what it does, and the flag groups that apply. */
export interface CommandSpec {
  name: string;
  usage: string;
  summary: string;
  groups: readonly FlagGroup[];
  /** Single flags that apply besides the groups. */
  flags?: readonly string[];
}

/** The provider flags, which apply with `--sampling` besides `run`. */
const SAMPLING_PROVIDER_FLAGS = ["provider", "model", "script"] as const;

/** Every command, in help order. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: "tools", usage: "tools", summary: "list the server's tools", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "call", usage: "call <tool> [json|-]", summary: "call a tool with JSON arguments (- reads them from stdin)", groups: ["server", "output", "host", "call"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "resources", usage: "resources", summary: "list the server's resources and resource templates", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "read", usage: "read <uri>", summary: "read a resource", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "prompts", usage: "prompts", summary: "list the server's prompts", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "prompt", usage: "prompt <name> [json]", summary: "render a prompt with string arguments", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "record", usage: "record -o <file>", summary: "record a session (tools/list and each --call) as a JSONL transcript", groups: ["server", "output", "record"] },
  { name: "login", usage: "login --url <url>", summary: "log in to an OAuth-protected HTTP server; later commands use and refresh the stored tokens", groups: ["server", "login"] },
  { name: "run", usage: 'run "<prompt>"', summary: "run the agent against the server's tools; writes wait for approval, then run once", groups: ["server", "output", "run"], flags: ["store"] },
  { name: "ping", usage: "ping", summary: "check the server answers and print the round-trip time", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "info", usage: "info", summary: "the server's name, protocol era and revision, capabilities and instructions", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "complete", usage: "complete <prompt|template-uri> <argument> [value] [context-json]", summary: "the server's completions for a prompt argument or a resource-template variable", groups: ["server", "output", "host"], flags: SAMPLING_PROVIDER_FLAGS },
  { name: "actions", usage: "actions list|show|approve|reject|resolve [id] [reason]", summary: "the actions of a file action store: list, show, approve or reject one, settle an unknown outcome", groups: ["output", "actions"], flags: ["actor", "tenant", "note"] },
  { name: "approvals", usage: "approvals", summary: "serve the approval inbox of a file action store on 127.0.0.1 with a random access token (the URL is printed once)", groups: ["output", "approvals"], flags: ["store", "actor", "tenant"] },
  { name: "worker", usage: "worker --server name...", summary: "execute the approved actions of every run in a file action store; SIGINT / SIGTERM finish the action in hand", groups: ["server", "output", "worker"], flags: ["store"] },
];

const BY_LONG = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORT = new Map(FLAGS.flatMap((f) => (f.short ? [[f.short, f] as const] : [])));

function emptyArgs(): CliArgs {
  return { positionals: [], given: new Set(), help: false, version: false, json: false, verbose: false, servers: [], headers: [], env: [], roots: [], calls: [], resources: false, elicit: false, sampling: false, once: false, yes: false };
}

/**
 * Parses the command line (without `node` and the script): flags anywhere,
 * `--flag value` or `--flag=value`, `-o file`, `--` ends the flags. The first
 * positional is the command. Flags that do not apply to the command are refused.
 *
 * @throws UsageError (`usage`) for an unknown flag or command, a missing value,
 * a flag that does not apply, or an invalid number.
 *
 * @example
 * ```ts
 * parseCommandLine(["call", "lookup", '{"sku":"ABC-123"}', "--stdio", "node server.mjs"]);
 * ```
 */
export function parseCommandLine(argv: readonly string[]): CliArgs {
  const args = emptyArgs();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? "";
    if (token === "--") {
      rest.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      rest.push(token);
      continue;
    }
    let spec: FlagSpec | undefined;
    let inline: string | undefined;
    if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const name = eq < 0 ? token.slice(2) : token.slice(2, eq);
      if (eq >= 0) inline = token.slice(eq + 1);
      spec = BY_LONG.get(name);
    } else if (token.length === 2) spec = BY_SHORT.get(token.slice(1));
    if (!spec) throw new UsageError(`unknown flag ${JSON.stringify(token.slice(0, 40))}`);
    args.given.add(spec.name);
    if (spec.kind === "boolean") {
      if (inline !== undefined) throw new UsageError(`--${spec.name} takes no value`);
      spec.set(args, "");
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`--${spec.name} needs a value (${spec.value ?? "value"})`);
      value = argv[++i] ?? "";
    }
    if (spec.kind === "call") {
      // --call <tool> [json]: the JSON is the next token when it looks like an object.
      const next = argv[i + 1];
      if (next !== undefined && next.trimStart().startsWith("{")) {
        spec.set(args, value, next);
        i++;
      } else spec.set(args, value);
      continue;
    }
    spec.set(args, value);
  }
  const [command, ...positionals] = rest;
  if (command !== undefined) args.command = command;
  args.positionals = positionals;
  if (command !== undefined && !args.help) {
    const cmd = COMMANDS.find((c) => c.name === command);
    if (!cmd) throw new UsageError(`unknown command ${JSON.stringify(command.slice(0, 40))}`);
    for (const name of args.given) {
      const flag = BY_LONG.get(name);
      if (!flag || flag.group === "general") continue;
      if (!cmd.groups.includes(flag.group) && !(cmd.flags ?? []).includes(name)) {
        throw new UsageError(`--${name} does not apply to ${command}`);
      }
      // The provider flags apply outside run only to answer sampling requests (V6).
      if ((SAMPLING_PROVIDER_FLAGS as readonly string[]).includes(name) && !cmd.groups.includes("run") && !args.sampling) {
        throw new UsageError(`--${name} does not apply to ${command} without --sampling`);
      }
    }
  }
  return args;
}

/**
 * Splits a command line into words the way a POSIX shell does for simple
 * quoting, and nothing more: whitespace separates words; `'…'` is literal;
 * inside `"…"` a backslash escapes `"`, `\`, `$` and `` ` ``; outside quotes a
 * backslash escapes any character. No variables, globs, pipes or redirections:
 * those characters are kept as they are.
 *
 * @throws UsageError (`usage`) for an unterminated quote, a trailing backslash,
 * an empty command, or a line over `MAX_COMMAND_LINE_CHARS`.
 *
 * @example
 * ```ts
 * splitCommandLine(`node "my server.mjs" --name 'a b'`); // ["node", "my server.mjs", "--name", "a b"]
 * ```
 */
export function splitCommandLine(line: string): string[] {
  if (line.length > MAX_COMMAND_LINE_CHARS) throw new UsageError(`--stdio is longer than ${MAX_COMMAND_LINE_CHARS} characters`);
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError("--stdio has an unterminated ' quote");
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        const d = line[j] ?? "";
        const next = line[j + 1];
        if (d === "\\" && next !== undefined && '"\\$`'.includes(next)) {
          word += next;
          j++;
        } else word += d;
      }
      if (j >= line.length) throw new UsageError('--stdio has an unterminated " quote');
      i = j;
    } else if (c === "\\") {
      const next = line[i + 1];
      if (next === undefined) throw new UsageError("--stdio ends with a lone backslash");
      if (next !== "\n") word += next; // backslash-newline continues the line
      inWord = true;
      i++;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0 || words[0] === "") throw new UsageError("--stdio needs a command");
  return words;
}

/**
 * Splits `--header "Name: value"` at the first colon; spaces around the value are
 * dropped. The name and value are checked by the HTTP transport's rules (H10).
 *
 * @throws UsageError (`usage`) when there is no colon.
 */
export function parseHeader(text: string): [name: string, value: string] {
  const colon = text.indexOf(":");
  if (colon < 0) throw new UsageError('--header needs "Name: value"');
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}
