// Removes one check at a time from the built tree and runs the tests that must
// notice: each mutant must make at least one of them fail. The build tree is
// restored after each mutant (and on exit). Run after a build:
//   node scripts/build.mjs && node scripts/mutants.mjs [name-filter]
import { readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
process.chdir(root);

// [name, built file, text to replace, replacement, test files that must fail]
const MUTANTS = [
  ["stdio close() skips SIGKILL", "build/src/node/stdio.js", 'child.kill("SIGKILL")', "void 0", ["hostile/checks"]],
  ["a string id answers a numeric request (stdio)", "build/src/jsonrpc/session.js", "const pending = this.#pending.get(m.id);", "const pending = this.#pending.get(m.id) ?? this.#pending.get(Number(m.id));", ["hostile/checks"]],
  ["a string id answers a numeric request (SSE)", "build/src/transport/http-answer.js", "v.id === id", "v.id == id", ["hostile/checks"]],
  ["any Mcp-Session-Id is accepted", "build/src/transport/http.js", "if (sid.length > MAX_SESSION_ID_CHARS || !SESSION_ID.test(sid)) {", "if (false) {", ["hostile/checks"]],
  ["Mcp-Session-Id length unchecked", "build/src/transport/http.js", "sid.length > MAX_SESSION_ID_CHARS ||", "", ["hostile/checks"]],
  ["a thrown tool error reaches the model uncut", "build/src/agent/tool-results.js", "return toolError(kind, message, MAX_AGENT_TOOL_ERROR_CHARS);", "return toolError(kind, message, Infinity);", ["hostile/model-view"]],
  ["no cap on server requests in flight", "build/src/jsonrpc/session.js", "if (this.#serverRequests >= MAX_SERVER_REQUESTS_IN_FLIGHT) {", "if (false) {", ["hostile/server-requests"]],
  ["replies sent without a bound", "build/src/jsonrpc/session.js", "while (this.#sending < MAX_REPLY_SENDS_IN_FLIGHT && ", "while (", ["hostile/server-requests"]],
  ["host handlers unbounded", "build/src/mcp/handler-limits.js", "if (running < max) {", "if (true) {", ["hostile/server-requests"]],
  ["SSE bound counts no field bytes", "build/src/transport/sse.js", "if (eventBytes > maxEventBytes) overLimit();", "", ["hostile/streams"]],
  ["URLs reach the model", "build/src/tools/model-text.js", 'message.replace(URL_IN_TEXT, "<url>")', "message", ["hostile/model-view"]],
  ["stdin queue unbounded", "build/src/node/stdio.js", "stdin.writableLength + line.length > MAX_STDIN_QUEUED_BYTES", "false", ["hostile/server-requests"]],
  ["pending requests unbounded", "build/src/jsonrpc/session.js", "if (this.#pending.size >= MAX_PENDING_REQUESTS) {", "if (false) {", ["hostile/checks"]],
  ["list cursors unbounded", "build/src/mcp/client.js", "if (next && next.length > MAX_CURSOR_CHARS) {", "if (false) {", ["hostile/checks"]],
  ["JSON-RPC error messages uncut", "build/src/jsonrpc/session.js", "truncate(e.message, MAX_RPC_ERROR_MESSAGE_CHARS)", "e.message", ["hostile/checks"]],
  ["yada -v prints stderr raw", "dist/cli.js", "process.stderr.write(safe(text));", "process.stderr.write(text);", ["hostile/cli-stderr"]],
];

const filter = process.argv[2];
let survived = 0;
for (const [name, file, from, to, tests] of MUTANTS) {
  if (filter && !name.includes(filter)) continue;
  const original = readFileSync(file, "utf8");
  if (!original.includes(from)) {
    console.log(`?  ${name}: the check was not found in ${file} (update this script)`);
    survived++;
    continue;
  }
  writeFileSync(file, original.replace(from, to));
  const restore = () => writeFileSync(file, original);
  process.once("exit", restore);
  try {
    const r = spawnSync(process.execPath, ["scripts/test.mjs", ...tests], { encoding: "utf8", timeout: 300_000 });
    const failed = r.status !== 0;
    if (!failed) survived++;
    console.log(`${failed ? "killed  " : "SURVIVED"} ${name} (${tests.join(", ")})`);
  } finally {
    restore();
    process.removeListener("exit", restore);
  }
}
console.log(survived === 0 ? "every mutant was noticed" : `${survived} mutant(s) not noticed`);
process.exit(survived === 0 ? 0 : 1);
