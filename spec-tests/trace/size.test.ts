// O3, X3: a bundle that does not import the MCP tracing module carries none of it:
// measured as scripts/size.mjs measures (esbuild, minified, tree-shaken).
import { test } from "node:test";
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";

type Inputs = Record<string, { bytesInOutput: number }>;
type SizeModule = { measure(row: { contents: string; loader: string; platform: string }, metafile?: boolean): Promise<{ gzip: number; inputs?: Inputs }> };
const size = (await import(pathToFileURL(repoPath("scripts", "size.mjs")).href)) as SizeModule;
const selection = (contents: string) => ({ contents, loader: "ts", platform: "neutral" });
const traceBytes = (inputs: Inputs | undefined): Record<string, number> =>
  Object.fromEntries(Object.entries(inputs ?? {}).filter(([f, v]) => f.startsWith("src/trace/") && v.bytesInOutput > 0).map(([f, v]) => [f, v.bytesInOutput]));

test("O3: McpClient + HttpTransport and connectMcp carry no tracing code unless mcpTracing is imported", async () => {
  for (const names of ["McpClient, HttpTransport", "connectMcp"]) {
    const { inputs } = await size.measure(selection(`export { ${names} } from "./src/index.ts";`), true);
    assert.deepEqual(traceBytes(inputs), {}, `${names} carries tracing code`);
    const traced = await size.measure(selection(`export { ${names}, mcpTracing } from "./src/index.ts";`), true);
    assert.ok(Object.keys(traceBytes(traced.inputs)).includes("src/trace/mcp.ts"), "the module is carried once imported");
  }
});
