#!/usr/bin/env node
// Re-records the committed transcripts of real servers (X4):
//   fixtures/transcripts/everything-stdio.jsonl  server-everything over stdio, through scripts/record.mjs
//   fixtures/transcripts/everything-http.jsonl   server-everything over Streamable HTTP, through RecordingTransport
// Usage: node scripts/build.mjs && node scripts/record-transcripts.mjs
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { HttpTransport, McpClient, RecordingTransport } from "../dist/yada-node.js";
import { everythingScenario } from "../fixtures/replay/scenarios/everything.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const everything = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const note = "server-everything: list, calls of every content kind, errors, progress, cancellation, ping";

// stdio: the recorder sits between the client and the server process.
{
  const out = `${root}fixtures/transcripts/everything-stdio.jsonl`;
  const client = await McpClient.connectStdio("node", [`${root}scripts/record.mjs`, "-o", out, "--note", `${note} (stdio)`, "--", "node", everything, "stdio"]);
  await everythingScenario(client);
  await client.close();
  console.log(`recorded ${out}`);
}

// HTTP: the server is held on 127.0.0.1 by a preload; the client records what it sends and receives.
{
  const out = `${root}fixtures/transcripts/everything-http.jsonl`;
  const preload = pathToFileURL(`${root}fixtures/http/loopback-only.mjs`).href;
  const child = spawn(process.execPath, ["--import", preload, everything, "streamableHttp"], { stdio: ["ignore", "pipe", "pipe"] });
  const port = await new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error("server-everything did not start")), 15_000);
    child.stderr.on("data", (d) => {
      text += d;
      const m = /loopback-only: listening 127\.0\.0\.1:(\d+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const entries = [];
  const transport = new RecordingTransport(new HttpTransport(`http://127.0.0.1:${port}/mcp`), (e) => entries.push(structuredClone(e)));
  const client = await McpClient.connect(transport);
  await everythingScenario(client);
  await client.close();
  child.kill();
  const init = entries.find((e) => e.dir === "s2c" && e.msg?.result?.serverInfo);
  const header = {
    transcript: 1,
    server: init?.msg.result.serverInfo ?? null,
    transport: "http",
    revision: init?.msg.result.protocolVersion ?? null,
    date: new Date().toISOString().slice(0, 10),
    command: ["node", "node_modules/@modelcontextprotocol/server-everything/dist/index.js", "streamableHttp"],
    note: `${note} (Streamable HTTP)`,
  };
  writeFileSync(out, [header, ...entries].map((l) => JSON.stringify(l)).join("\n") + "\n");
  console.log(`recorded ${out}`);
}
