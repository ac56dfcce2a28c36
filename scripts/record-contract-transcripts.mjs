#!/usr/bin/env node
// Records the reference contract server (fixtures/servers/contract) through the
// tool layer, one transcript per mode and transport (W1–W7):
//   fixtures/transcripts/contract-<mode>-stdio.jsonl  through scripts/record.mjs
//   fixtures/transcripts/contract-<mode>-http.jsonl   through RecordingTransport
// Each header carries `outcomes`: what the scenario produced when recorded.
// Usage: node scripts/build.mjs && node scripts/record-contract-transcripts.mjs
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectMcp, httpTransportFactory, RecordingTransport } from "../dist/yada-node.js";
import { ALICE, MAPPING, RECORDED_MODES, contractScenario } from "../fixtures/replay/scenarios/contract.mjs";
import { startContractHttp } from "../fixtures/servers/contract/http.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const server = "fixtures/servers/contract/stdio.mjs";
const access = { identity: ALICE, authorize: () => true };
// Long enough for a loaded machine; the timeout mode waits this long once.
const timeoutMs = 2_000;

for (const [mode, transports] of Object.entries(RECORDED_MODES)) {
  const dir = mkdtempSync(join(tmpdir(), "yada-record-"));
  const log = join(dir, "log.jsonl");
  try {
    if (transports.includes("stdio")) {
      const out = `${root}fixtures/transcripts/contract-${mode}-stdio.jsonl`;
      const config = {
        name: "contract",
        command: process.execPath,
        args: [`${root}scripts/record.mjs`, "-o", out, "--note", `reference contract server, mode ${mode} (stdio)`, "--", "node", `${root}${server}`, "--mode", mode, "--log", log],
        writeTools: MAPPING,
        confirmTools: ["delete_item"],
        timeoutMs,
      };
      const connection = await connectMcp(config, access);
      const outcomes = await contractScenario(connection);
      await connection.close();
      // The recorder writes the file as it exits; then the header gets the outcomes and a portable command.
      for (let i = 0; i < 100; i++) {
        try {
          readFileSync(out, "utf8");
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const [header, ...rest] = readFileSync(out, "utf8").split("\n").filter(Boolean);
      const h = JSON.parse(header);
      h.command = ["node", server, "--mode", mode, "--log", "<log>"];
      h.outcomes = outcomes;
      writeFileSync(out, [JSON.stringify(h), ...rest].join("\n") + "\n");
      console.log(`recorded ${out}: ${JSON.stringify(outcomes)}`);
    }
    if (transports.includes("http")) {
      const out = `${root}fixtures/transcripts/contract-${mode}-http.jsonl`;
      rmSync(log, { force: true });
      const http = await startContractHttp({ modes: mode, log });
      const entries = [];
      const transportFactory = (s, context) => new RecordingTransport(httpTransportFactory(s, context), (e) => entries.push(structuredClone(e)));
      const connection = await connectMcp({ name: "contract", url: http.url, writeTools: MAPPING, confirmTools: ["delete_item"], timeoutMs }, access, { transportFactory });
      const outcomes = await contractScenario(connection);
      await connection.close();
      await http.close();
      const init = entries.find((e) => e.dir === "s2c" && e.msg?.result?.serverInfo);
      const header = {
        transcript: 1,
        server: init?.msg.result.serverInfo ?? null,
        transport: "http",
        revision: init?.msg.result.protocolVersion ?? null,
        date: new Date().toISOString().slice(0, 10),
        command: ["node", "fixtures/servers/contract/http.mjs", "--mode", mode, "--log", "<log>"],
        note: `reference contract server, mode ${mode} (Streamable HTTP)`,
        outcomes,
      };
      writeFileSync(out, [header, ...entries].map((l) => JSON.stringify(l)).join("\n") + "\n");
      console.log(`recorded ${out}: ${JSON.stringify(outcomes)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
