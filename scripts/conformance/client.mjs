#!/usr/bin/env node
// The client the official MCP conformance runner drives (X5). It uses only yada's
// public web entry. The runner passes the server URL as the last argument and the
// scenario name in MCP_CONFORMANCE_SCENARIO; each scenario below does what that
// scenario asks of a client, then the process exits (0 on success). Every opt-in
// module of the web entry is passed in: the task module, the HTTP+SSE fallback and
// the form-elicitation validator.
import { compileSchema, hostHandlers, HttpTransport, legacySse, listSkills, loadSkill, McpClient, taskCalls } from "../../dist/yada.js";
import { runAuthScenario } from "./auth-client.mjs";

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const verbose = process.env.YADA_CONFORMANCE_VERBOSE === "1";
const logger = verbose ? (level, message, data) => console.error(`[${level}] ${message}`, data ?? "") : undefined;

async function connect(options = {}) {
  const elicitation = options.handlers?.elicitation;
  const handlers = elicitation ? { ...options.handlers, elicitation: { ...elicitation, compileSchema } } : options.handlers;
  const transport = new HttpTransport(url, { fallback: legacySse, ...(logger && { logger }) });
  return McpClient.connect(transport, { logger, clientInfo: { name: "yada-conformance", version: "0.1.0" }, tasks: taskCalls, ...options, handlers, ...(handlers && { hosting: hostHandlers }) });
}

const scenarios = {
  async initialize() {
    const client = await connect();
    await client.listTools();
    await client.close();
  },

  async tools_call() {
    const client = await connect();
    const tools = await client.listTools();
    if (!tools.some((t) => t.name === "add_numbers")) throw new Error("add_numbers is not listed");
    const r = await client.callTool("add_numbers", { a: 2, b: 3 });
    if (r.isError) throw new Error("add_numbers failed");
    await client.close();
  },

  // The form handler accepts without filling anything: yada completes the answer
  // with the schema's defaults before sending it.
  async "elicitation-sep1034-client-defaults"() {
    const client = await connect({ handlers: { elicitation: { form: async () => ({ action: "accept", content: {} }) } } });
    await client.listTools();
    await client.callTool("test_client_elicitation_defaults", {});
    await client.close();
  },

  async "sse-retry"() {
    const client = await connect();
    await client.callTool("test_reconnection", {});
    await client.close();
  },

  async "json-schema-2020-12-preservation"() {
    const client = await connect();
    const tools = await client.listTools();
    const rich = tools.find((t) => t.name === "json_schema_2020_12_tool");
    if (!rich) throw new Error("json_schema_2020_12_tool is not listed");
    await client.callTool("json_schema_echo", { schema: rich.inputSchema });
    await client.close();
  },

  async "request-metadata"() {
    const client = await connect();
    await client.listTools();
    await client.close();
  },

  // The elicitation handler runs while the first call waits for its retry: an
  // unrelated call made meanwhile must carry none of that call's state.
  async "sep-2322-client-request-state"() {
    let client;
    let unrelatedDone = false;
    client = await connect({
      handlers: {
        elicitation: {
          form: async () => {
            if (!unrelatedDone) {
              unrelatedDone = true;
              await client.callTool("test_mrtr_unrelated", {});
            }
            return { action: "accept", content: { confirmed: true } };
          },
        },
      },
    });
    await client.listTools();
    await client.callTool("test_mrtr_echo_state", {});
    await client.callTool("test_mrtr_no_state", {});
    await client.callTool("test_mrtr_no_result_type", {});
    await client.close();
  },

  async "http-standard-headers"() {
    const client = await connect();
    const tools = await client.listTools();
    for (const t of tools) await client.callTool(t.name, {}).catch(() => undefined);
    const resources = await client.listResources();
    for (const r of resources) await client.readResource(r.uri).catch(() => undefined);
    const prompts = await client.listPrompts();
    for (const p of prompts) await client.getPrompt(p.name, {}).catch(() => undefined);
    await client.close();
  },

  async "http-custom-headers"() {
    const client = await connect();
    await client.listTools();
    await client.callTool("test_custom_headers", {
      region: "us-west1",
      query: "SELECT 1",
      priority: 42,
      verbose: true,
      debug: false,
      empty_val: "",
      method_val: "override",
      float_val: 1.5,
      non_ascii_val: "Hello, 世界",
      whitespace_val: "  both  ",
      leading_space_val: " leading",
      trailing_space_val: "trailing ",
      internal_space_val: "in side",
      control_char_val: "bell\u0007",
      crlf_val: "a\r\nb",
      tab_val: "a\tb",
    });
    await client.callTool("test_custom_headers_null", { region: null, priority: null });
    await client.close();
  },

  // Tools with invalid x-mcp-header declarations are left out by listTools; every
  // tool that remains is called.
  async "http-invalid-tool-headers"() {
    const client = await connect();
    const tools = await client.listTools();
    for (const t of tools) await client.callTool(t.name, {}).catch(() => undefined);
    await client.close();
  },

  // Skills (SEP-2640): listing reads no file; loading reads SKILL.md and verifies it
  // (size, digest, frontmatter) before any supporting file is read.
  async "sep-2640-client-no-prefetch"() {
    const client = await connect();
    await listSkills(client);
    await client.close();
  },
  "sep-2640-client-verify-digest": loadThenReadSupport,
  "sep-2640-client-verify-size": loadThenReadSupport,
  "sep-2640-client-verify-frontmatter": loadThenReadSupport,

  async "json-schema-ref-no-deref"() {
    const client = await connect();
    await client.listTools();
    await client.close();
  },
};

// Loads the first listed skill and, only once it verified, reads its supporting
// files; a verification failure (code protocol) is the expected outcome when the
// server tampered with the skill.
async function loadThenReadSupport() {
  const client = await connect();
  try {
    for (const skill of await listSkills(client)) {
      let loaded;
      try {
        loaded = await loadSkill(client, skill);
      } catch (e) {
        if (e?.code !== "protocol") throw e;
        console.error(`conformance client: skill refused: ${e.message}`);
        continue;
      }
      if (skill.resources !== "dynamic") for (const f of skill.resources) if (f.uri !== skill.uri) await loaded.readFile(f.uri);
    }
  } finally {
    await client.close();
  }
}

const run = scenario.startsWith("auth/") ? () => runAuthScenario(url, scenario, logger) : (scenarios[scenario] ?? scenarios.initialize);
try {
  await run();
  process.exit(0);
} catch (e) {
  console.error(`conformance client: ${scenario}: ${e?.code ?? ""} ${e?.message ?? e}`);
  process.exit(1);
}
