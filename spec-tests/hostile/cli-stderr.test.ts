// `yada -v` prints a stdio server's stderr through the terminal filter.
import { test } from "node:test";
import assert from "node:assert/strict";
import { stdioOf, yada } from "../cli/support.js";
import { EXIT } from "../../src/cli/exit.js";

test("Y5: yada -v shows a server's stderr with its escape sequences neutralized", async () => {
  const r = await yada(["tools", "-v", "--stdio", stdioOf("hostile.mjs", "--mode", "stderr-escapes")], { timeoutMs: 30_000 });
  assert.equal(r.code, EXIT.ok, r.stderr);
  assert.match(r.stderr, /stderr done/);
  assert.match(r.stderr, /title .*clip .*clear/);
  // ESC, BEL, CR and the C1 CSI never reach the terminal.
  assert.doesNotMatch(r.stderr, /[\x1b\x07\r\u009b]/);
});
