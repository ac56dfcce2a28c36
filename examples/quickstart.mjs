// The quick starts from a consumer project: a local server over stdio, the same
// server over Streamable HTTP, and the agent loop with a scripted model (no key, no
// network). Run: npm install && npm start
import { McpClient, HttpTransport, connectMcp, run, scripted } from "yada-mcp/node";
import { MAX_LINE_BYTES } from "yada-mcp/limits";
import { startCatalogHttp } from "./servers/catalog-http.mjs";

// stdio: the client owns the server process; close() ends it.
const local = await McpClient.connectStdio("node", ["servers/catalog.mjs"], undefined, { name: "catalog" });
try {
  const result = await local.callTool("lookup", { sku: "ABC-123" });
  const first = result.content[0];
  console.log("stdio:", first?.type === "text" ? first.text : "(no text)");
} finally {
  await local.close();
}

// Streamable HTTP: the web entry's transport, here against a loopback server.
const server = await startCatalogHttp({ port: 0 });
const remote = await McpClient.connect(new HttpTransport(server.url));
try {
  const tools = await remote.listTools();
  console.log("http:", tools.map((t) => t.name).join(", "));
} finally {
  await remote.close();
  await server.close();
}

// The agent loop over connectMcp's tools, with a scripted model.
const identity = { actorId: "user-42", tenantId: "acme" };
const connection = await connectMcp(
  { name: "catalog", command: "node", args: ["servers/catalog.mjs"] },
  { identity, authorize: async (who) => who.tenantId === "acme" },
);
try {
  const provider = scripted([
    { toolCalls: [{ name: "catalog__lookup", arguments: { sku: "ABC-123" } }] },
    { text: "ABC-123 is a Widget." },
  ]);
  const result = await run({ provider, tools: connection.tools, identity, input: "What is ABC-123?" });
  console.log("agent:", result.stopReason, result.text);
} finally {
  await connection.close();
}
console.log("stdout lines are bounded at", MAX_LINE_BYTES, "bytes");
