// The guide docs/client-extras.md (V8, V9, H14): every ```js block runs and says
// what the guide says it prints. docs.test.ts runs the same blocks from a consumer
// project of the packed package; here they run from the examples/ project of the
// repository (imports of "yada-mcp" / "yada-mcp/node" resolve through the package's own
// exports, servers/ holds the example servers), so each output can be checked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { guideBlocks, runBlocks } from "../helpers/guide.js";

test("V8, V9, H14, X3: every js example of docs/client-extras.md runs", { timeout: 180_000 }, async () => {
  const examples = guideBlocks("client-extras");
  assert.equal(examples.length, 5);
  const results = await runBlocks("client-extras", examples);
  results.forEach((r, i) => assert.equal(r.status, 0, `example ${i + 1} failed:\n${r.code}\n${r.out}`));
  assert.match(results[0]?.out ?? "", /status: working: step 1 of 3\n[\s\S]*researched in 3 steps/);
  // V8, X3: the web entry's bare client names the task module; with it the task runs.
  assert.match(results[1]?.out ?? "", /^config true\nresearched in 2 steps$/m);
  // H14, X3: the web transport falls back with legacySse.
  assert.match(results[2]?.out ?? "", /HTTP\+SSE server http:\/\/127\.0\.0\.1:\d+\/sse\nEcho: hello over SSE/);
  assert.match(results[3]?.out ?? "", /\[ 'Sales', 'Support' \]\n\[ 'David', 'Eve', 'Frank' \]/);
  assert.match(results[4]?.out ?? "", /pdf-tools - Fill and merge PDF forms/);
});
