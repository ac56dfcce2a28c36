#!/usr/bin/env node
// Re-records the committed transcripts of real servers (X4) through scripts/record.mjs.
// Usage: node scripts/build.mjs && node scripts/record-transcripts.mjs
import { McpClient } from "../dist/yada-node.js";
import { everythingScenario } from "../fixtures/replay/scenarios/everything.mjs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const everything = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const out = `${root}fixtures/transcripts/everything-stdio.jsonl`;

const client = await McpClient.connectStdio("node", [
  `${root}scripts/record.mjs`, "-o", out,
  "--note", "server-everything over stdio: list, calls of every content kind, errors, progress, cancellation, ping",
  "--", "node", everything, "stdio",
]);
const result = await everythingScenario(client);
await client.close();
console.log(`recorded ${out}`);
console.log(JSON.stringify({ tools: result.tools, unknown: result.unknown, badArgument: result.badArgument, cancelled: result.cancelled }, null, 1));
