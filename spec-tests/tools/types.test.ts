// W11: read-only configuration literals give McpConnection<ReadTool>; configurations
// that may hold writes give McpConnection<Tool>; McpReadConfig cannot hold writes.
// The type assertions below are checked by `tsc --noEmit` over spec-tests; the
// runtime part connects for real. Also server-everything through connectMcp.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import type { McpReadConfig, McpServerConfig } from "../../src/tools/config.js";
import type { McpConnection } from "../../src/tools/connect.js";
import { mcpServersFromEnv } from "../../src/tools/env.js";
import type { ReadTool, Tool } from "../../src/tools/types.js";
import { alice, allowAll, everything, T, textOf, tool, using, withCatalog } from "./helpers.js";
import { fixtureServer } from "../helpers/paths.js";

/** Compiles only when A and B are the same type. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const same = <A, B>(ok: Equal<A, B>): boolean => ok;

describe("W11: connection types", { concurrency: true }, () => {
  test("W11: a read-only literal gives McpConnection<ReadTool>, whose tools execute directly", T, async () => {
    const connection = await connectMcp(
      { name: "catalog", command: process.execPath, args: [fixtureServer("catalog/stdio.mjs")], readTools: ["lookup"] },
      { identity: alice, authorize: allowAll },
    );
    await using(connection, async (c) => {
      assert.ok(same<typeof c, McpConnection<ReadTool>>(true));
      // No narrowing needed: every tool is a ReadTool.
      const result = await c.tools[0]?.execute({ sku: "ABC-123" }, { identity: alice });
      assert.match(result ? textOf(result) : "", /Widget/);
    });
  });

  test("W11: a configuration that may hold writes gives McpConnection<Tool>", T, () =>
    withCatalog("stdio", async ({ config }) => {
      const server: McpServerConfig = config;
      const c = await connectMcp(server, { identity: alice, authorize: allowAll });
      await using(c, async () => {
        assert.ok(same<typeof c, McpConnection<Tool>>(true));
        const first = c.tools[0];
        // @ts-expect-error a Tool must be narrowed by effect before a read-only call
        const unchecked: ReadTool | undefined = first;
        assert.ok(unchecked);
        assert.equal(first?.effect, "read");
      });
    }),
  );

  test("W11: McpReadConfig cannot contain writeTools or confirmTools", () => {
    const read: McpReadConfig = { name: "catalog", url: "https://x.example/mcp" };
    // @ts-expect-error writeTools are not part of a read configuration
    const withWrites: McpReadConfig = { name: "catalog", url: "https://x.example/mcp", writeTools: {} };
    // @ts-expect-error confirmTools are not part of a read configuration
    const withConfirms: McpReadConfig = { name: "catalog", url: "https://x.example/mcp", confirmTools: "*" };
    assert.ok(read && withWrites && withConfirms);
    // Environment configurations are read configurations.
    assert.ok(same<ReturnType<typeof mcpServersFromEnv>, McpReadConfig[]>(true));
  });

  test("T3: server-everything over stdio: exactly its readOnlyHint tools, callable through the gate", T, async () => {
    await using(await connectMcp(everything(), { identity: alice, authorize: allowAll }), async (c) => {
      const names = c.tools.map((t) => t.name);
      assert.ok(names.includes("everything__echo"));
      assert.ok(!names.includes("everything__toggle-simulated-logging"), "readOnlyHint false is not a read");
      assert.ok(!names.includes("everything__gzip-file-as-resource"));
      assert.match(textOf(await tool(c, "everything__echo").execute({ message: "hello" }, { identity: alice })), /hello/);
    });
  });
});
