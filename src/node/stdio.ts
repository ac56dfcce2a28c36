/**
 * The stdio transport: spawns the server as a child process and speaks
 * newline-delimited JSON over its stdin / stdout (S1–S8).
 *
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { ConnectionClosedError, LimitError, TransportError } from "../errors.js";
import { decodeJson, encodeMessage, type JsonRpcMessage } from "../jsonrpc/messages.js";
import {
  CLOSE_SIGTERM_GRACE_MS,
  CLOSE_STDIN_GRACE_MS,
  EXIT_DRAIN_GRACE_MS,
  MAX_LINE_BYTES,
  MAX_STDIN_QUEUED_BYTES,
  SKIPPED_LINE_CHARS,
  SKIPPED_LINES_KEPT,
  STDERR_TAIL_BYTES,
} from "../limits.js";
import { silentLogger, type Logger } from "../log.js";
import { createLineSplitter, peekMessageId } from "../transport/ndjson.js";
import { HANDED_OVER, type SendOptions, type Transport, type TransportSink } from "../transport/types.js";
import { checkOptions } from "../util/options.js";

/** How to launch a stdio server. */
export interface StdioServerParams {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Variables added to the minimal inherited environment (S1). */
  env?: Readonly<Record<string, string>>;
  /** Working directory of the process. */
  cwd?: string;
  /** `"inherit"` prints the server's stderr; by default it is read, logged at debug and kept (S3). */
  stderr?: "pipe" | "inherit";
  /**
   * Receives the server's stderr as decoded text, chunk by chunk, when it is piped
   * (it is still kept for errors). The text is untrusted: filter it before it
   * reaches a terminal.
   */
  onStderr?: (text: string) => void;
  /** Longest stdout line accepted, in bytes (S8); default `MAX_LINE_BYTES`. */
  maxLineBytes?: number;
  /** Names the server in messages; defaults to the command. */
  name?: string;
  /** Diagnostics sink. */
  logger?: Logger;
  /**
   * Starts the server in a process group of its own (POSIX; `detached`), so a
   * Ctrl-C at the terminal reaches this process and not the server: a host that
   * finishes the call in hand before it stops keeps its server until then. The
   * server still ends when the transport closes or this process exits.
   */
  ownProcessGroup?: boolean;
}

// S1: the variables a server commonly needs to run at all, inherited from our own
// environment; everything else must be passed explicitly, so secrets of the host
// process do not leak into every server it launches.
const INHERITED_ENV =
  process.platform === "win32"
    ? ["APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR"];

/** The environment a stdio server is started with: the minimal inherited set plus `extra` (S1). */
export function serverEnvironment(extra?: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    // Exported shell functions ("() {...") are a known injection vector; skip them.
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return { ...env, ...extra };
}

// S7: a process that exits on its own is not killed twice; one that outlives us is
// ended when our process exits. One listener for all children, never one each.
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  liveChildren.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const c of liveChildren) c.kill("SIGKILL");
    });
  }
}

/** Keeps the last `max` bytes written to it. */
class Tail {
  #chunks: Uint8Array[] = [];
  #size = 0;
  constructor(readonly max: number) {}
  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#chunks.length > 1 && this.#size - (this.#chunks[0]?.length ?? 0) >= this.max) {
      this.#size -= this.#chunks.shift()?.length ?? 0;
    }
  }
  text(): string {
    const all = Buffer.concat(this.#chunks);
    return new TextDecoder().decode(all.subarray(Math.max(0, all.length - this.max))).trim();
  }
}

/**
 * A {@link Transport} to a server launched as a child process.
 *
 * stderr is drained continuously whatever its encoding, so a server that logs
 * heavily never blocks (S3); its last `STDERR_TAIL_BYTES` are kept for the error
 * that reports the exit (S4). A stdout line that is not JSON is skipped and logged
 * at warn (S2); a line over `maxLineBytes` is dropped with a `limit` error (S8).
 */
export class StdioTransport implements Transport {
  readonly description: string;
  readonly kind = "stdio";
  readonly serverKey: string;
  readonly #params: StdioServerParams;
  readonly #log: Logger;
  readonly #tail = new Tail(STDERR_TAIL_BYTES);
  readonly #skipped: string[] = [];
  #child: ChildProcess | undefined;
  #sink: TransportSink | undefined;
  #exited: Promise<void> | undefined;
  #closing = false;
  #ended = false;

  constructor(params: StdioServerParams) {
    checkOptions("StdioTransport", params, "env:o maxLineBytes:n logger");
    this.#params = params;
    this.#log = params.logger ?? silentLogger;
    this.description = `stdio server '${params.name ?? params.command}'`;
    this.serverKey = `stdio:${JSON.stringify([params.command, ...(params.args ?? []), params.cwd ?? ""])}`;
  }

  /** The child's process id, once started. */
  /** The last `STDERR_TAIL_BYTES` the server wrote to stderr, as text ("" when none): what a handshake timeout reports (S3). */
  get stderrTail(): string {
    return this.#tail.text();
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * Spawns the process.
   *
   * @throws TransportError (`transport`) when the process cannot be started.
   */
  start(sink: TransportSink): Promise<void> {
    if (this.#child) return Promise.reject(new TransportError(`${this.description}: already started`));
    this.#sink = sink;
    const p = this.#params;
    let env: Record<string, string>;
    try {
      env = serverEnvironment(p.env);
    } catch (e) {
      // A runtime may refuse to read the environment (Deno without --allow-env).
      return Promise.reject(new TransportError(`${this.description} could not be started: the environment cannot be read (${(e as Error).message})`, { cause: e }));
    }
    let child: ChildProcess;
    try {
      child = spawn(p.command, [...(p.args ?? [])], {
        env,
        cwd: p.cwd,
        stdio: ["pipe", "pipe", p.stderr === "inherit" ? "inherit" : "pipe"],
        windowsHide: true,
        ...(p.ownProcessGroup === true && process.platform !== "win32" ? { detached: true } : {}),
      });
    } catch (e) {
      // Node refuses some launches synchronously (a NUL byte in the command, an
      // argument or an env value; a cwd that is not a string).
      return Promise.reject(new TransportError(`${this.description} could not be started: ${(e as Error).message}`, { cause: e }));
    }
    this.#child = child;
    track(child);

    const splitter = createLineSplitter(p.maxLineBytes ?? MAX_LINE_BYTES, {
      line: (text) => this.#onLine(text),
      overflow: (head, length) => this.#onOverflow(head, length),
    });
    child.stdout?.on("data", (chunk: Uint8Array) => splitter.push(chunk));
    child.stdout?.on("end", () => splitter.end());
    const onStderr = p.onStderr;
    const stderrText = onStderr && new TextDecoder();
    child.stderr?.on("data", (chunk: Uint8Array) => {
      this.#tail.push(chunk);
      this.#log("debug", "server stderr", { server: this.description, text: new TextDecoder().decode(chunk) });
      if (onStderr && stderrText) onStderr(stderrText.decode(chunk, { stream: true }));
    });
    // EPIPE and friends surface through send(); the exit reports the rest.
    child.stdin?.on("error", (e) => this.#log("debug", "stdin error", { server: this.description, error: String(e) }));

    this.#exited = new Promise<void>((resolve) => {
      // "close" waits for stdout and stderr to close, which a grandchild that
      // inherited them can put off forever: once the server itself has exited,
      // its pipes get EXIT_DRAIN_GRACE_MS to drain and are then let go (S4, S7).
      let drain: ReturnType<typeof setTimeout> | undefined;
      child.once("exit", () => {
        drain = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, EXIT_DRAIN_GRACE_MS);
      });
      child.once("close", (code, signal) => {
        clearTimeout(drain);
        liveChildren.delete(child);
        this.#finish(code, signal);
        resolve();
      });
    });

    return new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (e) => {
        const error = new TransportError(`${this.description} could not be started: ${(e as Error).message}`, { cause: e });
        liveChildren.delete(child);
        this.#ended = true;
        sink.closed(error);
        reject(error);
      });
    });
  }

  #onLine(text: string): void {
    let value: unknown;
    try {
      value = decodeJson(text);
    } catch {
      // S2: banners and debug prints are skipped, and remembered for the exit error.
      const shown = text.length > SKIPPED_LINE_CHARS ? text.slice(0, SKIPPED_LINE_CHARS) + "…" : text;
      this.#skipped.push(shown);
      if (this.#skipped.length > SKIPPED_LINES_KEPT) this.#skipped.shift();
      this.#log("warn", "skipped a stdout line that is not JSON", { server: this.description, line: shown });
      return;
    }
    this.#sink?.message(value);
  }

  #onOverflow(head: Uint8Array, length: number): void {
    const max = this.#params.maxLineBytes ?? MAX_LINE_BYTES;
    const error = new LimitError("MAX_LINE_BYTES", max, `${this.description} sent a line of ${length} bytes, over the bound of ${max}`);
    const id = peekMessageId(head);
    this.#log("warn", "dropped an over-long stdout line", { server: this.description, bytes: length });
    if (id !== undefined) this.#sink?.requestError(id, error);
  }

  #finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#ended) return;
    this.#ended = true;
    const stderrTail = this.#tail.text();
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    let message = this.#closing ? `${this.description} was closed` : `${this.description} ${how}`;
    if (!this.#closing) {
      if (this.#skipped.length) message += `; it printed non-JSON on stdout: ${this.#skipped.join(" | ")}`;
      if (stderrTail) message += `; last stderr: ${stderrTail}`;
    }
    const info = { exitCode: code, signal, stderrTail, skippedLines: [...this.#skipped] };
    this.#sink?.closed(new ConnectionClosedError(message, info));
  }

  /**
   * Writes one message as one line.
   *
   * @throws ConnectionClosedError (`connection_closed`) after the process ended, or once
   * stdin is closed: nothing was written, and the error says `notSent` (W5).
   * @throws LimitError (`limit`, `MAX_STDIN_QUEUED_BYTES`) when the server has not read that much already written.
   * @throws TransportError (`transport`) when the pipe refuses the write.
   */
  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#ended || this.#closing || stdin.destroyed || stdin.writableEnded) {
      // W5: the process is gone or its stdin closed before this line was handed over: nothing left.
      return Promise.reject(new ConnectionClosedError(`${this.description} is not running`, {}, { notSent: true }));
    }
    const line = encodeMessage(message) + "\n";
    // Y2: a server that does not read its stdin gets no more than this queued for it.
    if (stdin.writableLength + line.length > MAX_STDIN_QUEUED_BYTES) {
      return Promise.reject(
        new LimitError("MAX_STDIN_QUEUED_BYTES", MAX_STDIN_QUEUED_BYTES, `${this.description} has not read ${stdin.writableLength} bytes already written to it`),
      );
    }
    if ("id" in message && "method" in message) {
      // A request needs no write callback: if the pipe breaks, the process exit
      // fails the pending request with its status and stderr (S4). Measured: the
      // callback cost a third of the round-trip throughput.
      stdin.write(line);
      return HANDED_OVER;
    }
    // Notifications and replies have nothing else to fail: wait for the write (S5).
    return new Promise<void>((resolve, reject) => {
      stdin.write(line, (e) => {
        if (e) reject(new TransportError(`${this.description}: write failed: ${e.message}`, { cause: e }));
        else resolve();
      });
    });
  }

  /**
   * Ends the process (S7): close stdin, wait `CLOSE_STDIN_GRACE_MS`, SIGTERM, wait
   * `CLOSE_SIGTERM_GRACE_MS`, SIGKILL. Resolves once it has exited. Idempotent.
   */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#exited) return;
    this.#closing = true;
    const exited = this.#exited;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      if (!(await settlesWithin(exited, CLOSE_STDIN_GRACE_MS))) {
        child.kill("SIGTERM");
        if (!(await settlesWithin(exited, CLOSE_SIGTERM_GRACE_MS))) child.kill("SIGKILL");
      }
    }
    await exited;
    child.stdout?.removeAllListeners();
    child.stderr?.removeAllListeners();
    child.stdin?.removeAllListeners();
  }

  /** {@link close}, for `await using`: leaving the block ends the process. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    p.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
