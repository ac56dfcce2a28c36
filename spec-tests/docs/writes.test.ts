// The writes guide docs/writes.md (W8, W9, W14, U4, U5): every ```js block runs from the
// examples/ project of the repository (imports of "yada-mcp" / "yada-mcp/node" resolve
// through the package's own exports; the MCP example starts servers/contract.mjs)
// and prints what the guide says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { guideBlocks, runBlocks } from "../helpers/guide.js";

test("W8, W9, W13, W14, U4, U5: every js example of docs/writes.md runs", { timeout: 120_000 }, async () => {
  const examples = guideBlocks("writes");
  assert.equal(examples.length, 9);
  const results = await runBlocks("writes", examples);
  results.forEach((r, i) => assert.equal(r.status, 0, `example ${i + 1} failed:\n${r.code}\n${r.out}`));
  assert.match(results[0]?.out ?? "", /approval_required true\nYour note is saved\. \[ 'buy milk' \]/);
  assert.match(results[1]?.out ?? "", /a changed state is refused/);
  assert.match(results[2]?.out ?? "", /^true\ntrue\nconflict\nawaiting_approval\napproved$/m);
  assert.match(results[3]?.out ?? "", /^outcome_unknown\nunauthorized\nsucceeded oncall\nperson$/m);
  assert.match(results[4]?.out ?? "", /^approval_required 1$/m);
  assert.match(results[5]?.out ?? "", /^2 1 3$/m);
  assert.match(results[6]?.out ?? "", /^store\nawaiting_approval$/m);
  assert.match(results[7]?.out ?? "", /Rename A from "Product A" to "Gear"\nRenamed\./);
  // W13, U5: past the reconcile window, outcome_unknown, and onNeedsAttention is told.
  assert.match(results[8]?.out ?? "", /^reconciling\nneeds a person: shop__refund \(no receipt settled the outcome within the reconcile window of 3600000 ms\)\noutcome_unknown$/m);
});
