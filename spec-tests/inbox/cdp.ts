// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (U8): the
// browser reads commands from its fd 3 and writes answers and events to its fd 4,
// each a JSON message ended by a NUL byte. No WebSocket and no dependency: headless
// Chromium from the @sparticuz/chromium dev dependency (../runtimes/chromium.ts),
// one page session (flattened), every command bounded in time, the browser killed
// with its process group when the client closes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { HEADLESS_FLAGS, chromiumBinary } from "../runtimes/chromium.js";

/** How long one command may take. */
const COMMAND_MS = 15_000;
/** How long one browser may live, whatever the tests do. */
const BROWSER_MS = 280_000;

type Message = { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { message: string }; sessionId?: string };

export class Browser {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #bound: NodeJS.Timeout;
  readonly #in: Writable;
  readonly #profile: string;
  #next = 1;
  #waiting = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  #listeners = new Set<(m: Message) => void>();
  #buffer = "";
  /** The page's session. */
  session = "";

  /** What the browser wrote to stderr (the end of it). */
  stderr = "";

  private constructor(child: ChildProcess, input: Writable, output: Readable, profile: string) {
    this.#child = child;
    this.#exited = new Promise((resolve) => (child.once("exit", () => resolve()), child.once("error", () => resolve())));
    this.#bound = setTimeout(() => this.#killGroup(), BROWSER_MS);
    child.stderr?.on("data", (d: Buffer) => (this.stderr = (this.stderr + d.toString("utf8")).slice(-8_000)));
    child.once("exit", () => {
      for (const w of this.#waiting.values()) w.reject(new Error(`the browser exited\n${this.stderr}`));
      this.#waiting.clear();
    });
    this.#in = input;
    this.#profile = profile;
    output.setEncoding("utf8");
    output.on("data", (chunk: string) => {
      this.#buffer += chunk;
      for (let end = this.#buffer.indexOf("\0"); end >= 0; end = this.#buffer.indexOf("\0")) {
        const text = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 1);
        const m = JSON.parse(text) as Message;
        if (m.id !== undefined) {
          const w = this.#waiting.get(m.id);
          this.#waiting.delete(m.id);
          if (m.error) w?.reject(new Error(`${m.error.message}`));
          else w?.resolve(m.result ?? {});
        } else for (const l of this.#listeners) l(m);
      }
    });
  }

  /** Starts headless Chromium with a fresh profile and opens one page of `width` × `height`. */
  static async launch(width = 1100, height = 520): Promise<Browser> {
    const binary = await chromiumBinary();
    const profile = mkdtempSync(join(tmpdir(), "yada-cdp-"));
    const child = spawn(binary, [
      ...HEADLESS_FLAGS,
      "--disable-extensions",
      "--font-render-hinting=none",
      "--hide-scrollbars",
      "--remote-debugging-pipe",
      `--user-data-dir=${profile}`,
      "about:blank",
    ], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: true });
    const input = child.stdio[3] as Writable | null;
    const output = child.stdio[4] as Readable | null;
    assert.ok(input && output, "the browser has no debugging pipes");
    const browser = new Browser(child, input, output, profile);
    const { targetId } = (await browser.send("Target.createTarget", { url: "about:blank" }, "")) as { targetId: string };
    const { sessionId } = (await browser.send("Target.attachToTarget", { targetId, flatten: true }, "")) as { sessionId: string };
    browser.session = sessionId;
    await browser.send("Page.enable");
    await browser.send("Runtime.enable");
    await browser.send("Network.enable");
    await browser.send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
    // A headless page never has the window focus; keyboard focus moves only when it is emulated.
    await browser.send("Emulation.setFocusEmulationEnabled", { enabled: true });
    await browser.send("Page.bringToFront");
    return browser;
  }

  /** Sends a command (to the page's session unless `session` says otherwise) and awaits its answer. */
  send(method: string, params: Record<string, unknown> = {}, session = this.session): Promise<Record<string, unknown>> {
    const id = this.#next++;
    const message: Message = { id, method, params, ...(session ? { sessionId: session } : {}) };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`${method} got no answer within ${COMMAND_MS} ms`));
      }, COMMAND_MS);
      this.#waiting.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.#in.write(`${JSON.stringify(message)}\0`);
    });
  }

  /** Resolves with the first event `method` of the page (whose params pass `match`), within the bound. */
  event(method: string, match: (params: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const listener = (m: Message): void => {
        if (m.method === method && m.sessionId === this.session && match(m.params ?? {})) {
          clearTimeout(timer);
          this.#listeners.delete(listener);
          resolve(m.params ?? {});
        }
      };
      const timer = setTimeout(() => (this.#listeners.delete(listener), reject(new Error(`no ${method} within ${COMMAND_MS} ms`))), COMMAND_MS);
      this.#listeners.add(listener);
    });
  }

  /** Runs `action` and waits for the page's next load (a navigation or a form's answer). */
  async loads(action: () => Promise<unknown>): Promise<void> {
    const loaded = this.event("Page.loadEventFired");
    await action();
    await loaded;
  }

  /** Navigates to `url` and waits for its load. */
  goto(url: string): Promise<void> {
    return this.loads(() => this.send("Page.navigate", { url }));
  }

  /** The value of `expression` in the page (a JSON value). */
  async eval<T = unknown>(expression: string): Promise<T> {
    const r = (await this.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true })) as { result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } };
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  }

  /** Presses a key as a keyboard does (keyDown, then keyUp). */
  async key(key: "Tab" | "Enter" | "Space", shift = false): Promise<void> {
    const codes = { Tab: 9, Enter: 13, Space: 32 } as const;
    const base = { key: key === "Space" ? " " : key, code: key, windowsVirtualKeyCode: codes[key], modifiers: shift ? 8 : 0 };
    // As a keyboard: a key that types text is a keyDown with its text, one that does not a rawKeyDown.
    const text = key === "Enter" ? "\r" : key === "Space" ? " " : undefined;
    await this.send("Input.dispatchKeyEvent", text === undefined ? { type: "rawKeyDown", ...base } : { type: "keyDown", ...base, text, unmodifiedText: text });
    await this.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
  }

  /** Types `text` into the focused element. */
  type(text: string): Promise<Record<string, unknown>> {
    return this.send("Input.insertText", { text });
  }

  /** A PNG of the whole page (at most `maxHeight` pixels of it). */
  async screenshot(maxHeight = 2_400): Promise<Buffer> {
    const { cssContentSize } = (await this.send("Page.getLayoutMetrics")) as { cssContentSize: { width: number; height: number } };
    const clip = { x: 0, y: 0, width: Math.ceil(cssContentSize.width), height: Math.min(maxHeight, Math.ceil(cssContentSize.height)), scale: 1 };
    const { data } = (await this.send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: true })) as { data: string };
    return Buffer.from(data, "base64");
  }

  #killGroup(): void {
    if (this.#child.pid === undefined) return;
    try {
      process.kill(-this.#child.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.#bound);
    this.#killGroup();
    await this.#exited;
    rmSync(this.#profile, { recursive: true, force: true });
  }
}
