#!/usr/bin/env node
// Records an MCP session with any stdio server as a transcript (X4).
//
// Usage: node scripts/record.mjs -o out.jsonl [--note "what it shows"] -- <command> [args...]
//
// It stands between a client and the server: the client launches this script as
// its "server"; the script launches the real one and forwards every line both
// ways untouched, noting each with its direction. When the client ends the
// session, it writes the transcript:
//   line 1: {"transcript":1,"server":{name,version},"transport":"stdio",
//            "revision":"<negotiated>","date":"YYYY-MM-DD","command":[...],"note":...}
//   then:   {"dir":"c2s"|"s2c","msg":<the JSON-RPC message>} per message, in order.
// Non-JSON lines on the server's stdout are kept as {"dir":"s2c","raw":"..."}.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep < 0 || sep === argv.length - 1) {
  process.stderr.write("usage: record.mjs -o out.jsonl [--note text] -- <command> [args...]\n");
  process.exit(2);
}
const opts = argv.slice(0, sep);
const command = argv.slice(sep + 1);
const out = opts[opts.indexOf("-o") + 1];
const note = opts.includes("--note") ? opts[opts.indexOf("--note") + 1] : undefined;
if (!opts.includes("-o") || !out) {
  process.stderr.write("record.mjs: -o <file> is required\n");
  process.exit(2);
}

const lines = [];
let serverInfo = null;
let revision = null;
let initId;

function note_(dir, text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    lines.push({ dir, raw: text });
    return;
  }
  if (dir === "c2s" && msg.method === "initialize") initId = msg.id;
  if (dir === "s2c" && initId !== undefined && msg.id === initId && msg.result) {
    serverInfo = msg.result.serverInfo ?? null;
    revision = msg.result.protocolVersion ?? null;
  }
  lines.push({ dir, msg });
}

function splitLines(stream, onLine) {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    rest += chunk;
    let i;
    while ((i = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, i).replace(/\r$/, "");
      rest = rest.slice(i + 1);
      if (line) onLine(line);
    }
  });
}

const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
splitLines(process.stdin, (line) => {
  note_("c2s", line);
  child.stdin.write(line + "\n");
});
splitLines(child.stdout, (line) => {
  note_("s2c", line);
  process.stdout.write(line + "\n");
});

let written = false;
function finish(code) {
  if (written) return;
  written = true;
  const header = {
    transcript: 1,
    server: serverInfo,
    transport: "stdio",
    revision,
    date: new Date().toISOString().slice(0, 10),
    command: command.map((c) => c.replace(/^.*node_modules\//, "node_modules/")),
  };
  if (note) header.note = note;
  writeFileSync(out, [header, ...lines].map((l) => JSON.stringify(l)).join("\n") + "\n");
  process.exit(code);
}
process.stdin.on("end", () => child.stdin.end());
child.on("exit", (code) => finish(code ?? 0));
process.on("SIGTERM", () => {
  child.kill("SIGTERM");
});
