// T6 (result bound), T7 (rendering and images), T8 (tool_failed), T9 (output
// schemas) and T16 (unknown content kinds), against the catalog over stdio and
// HTTP and server-everything, plus the renderer on hand-made content.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_IMAGE_BYTES, MAX_TOOL_ERROR_CHARS, MAX_TOOL_RESULT_BYTES } from "../../src/limits.js";
import type { ContentBlock } from "../../src/mcp/types.js";
import { connectMcp } from "../../src/node/tools.js";
import { cutChars, cutUtf8, utf8Length, utf8Prefix } from "../../src/tools/bound.js";
import { renderContent } from "../../src/tools/render.js";
import type { ImagePart } from "../../src/tools/types.js";
import { alice, allowAll, bytes, envelope, everything, inlineServer, KINDS, T, textOf, tool, using, withCatalog } from "./helpers.js";

const images = (parts: readonly { type: string }[]) => parts.filter((p): p is ImagePart => p.type === "image");
const png = (decodedBytes: number) => ({ type: "image", mimeType: "image/png", data: "A".repeat(Math.floor(decodedBytes / 3) * 4) }) as ContentBlock;

describe("T6: result bound", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T6: a 40,000-byte result is cut to 32,000 UTF-8 bytes with a marker (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const text = textOf(await tool(c, "catalog__report").execute({}, { identity: alice }));
          assert.ok(bytes(text) <= MAX_TOOL_RESULT_BYTES, `${bytes(text)} bytes`);
          assert.ok(bytes(text) > MAX_TOOL_RESULT_BYTES - 100, "cut near the bound, not far below");
          assert.ok(text.startsWith("Report line 0001:"));
          assert.match(text, /\[truncated: 40000 UTF-8 bytes, shown up to 32000\]$/);
        });
      }),
    );
  }

  test("T6: a prefix by bytes takes any budget: none below zero, the whole text beyond its size", () => {
    assert.equal(utf8Prefix("a😀b", -1), "");
    assert.equal(utf8Prefix("a😀b", 4), "a");
    assert.equal(utf8Prefix("a😀b", 5), "a😀");
    assert.equal(utf8Prefix("a😀b", Infinity), "a😀b");
    assert.equal(utf8Prefix("a\ud800b", 4), "a\ud800");
  });

  test("T6: cuts never split a character (4-byte emoji, surrogate pairs)", () => {
    const text = "😀".repeat(10_000); // 40,000 bytes, 20,000 UTF-16 units
    const cut = cutUtf8(text, 32_000);
    assert.ok(bytes(cut) <= 32_000);
    assert.equal(utf8Length(cut), bytes(cut), "no lone surrogate: our count equals Buffer's");
    assert.ok(!cut.includes("\uFFFD"));
    const chars = cutChars("a😀".repeat(3_000), 4_000);
    assert.ok(chars.length <= 4_000);
    assert.equal(Buffer.from(chars, "utf8").toString("utf8"), chars, "round-trips: no lone surrogate");
    assert.equal(cutUtf8("short", 32_000), "short");
  });
});

describe("T7: rendering", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T7: structuredContent becomes its JSON text (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const result = await tool(c, "catalog__search").execute({ query: "gizmo" }, { identity: alice });
          assert.equal(textOf(result), '{"items":[{"sku":"GHI-789","name":"Gizmo","price":99.9}]}');
        });
      }),
    );

    test(`T7: text blocks join in order; audio, resource and resource_link become placeholders (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const result = await tool(c, "catalog__mixed").execute({}, { identity: alice });
          const lines = textOf(result).split("\n");
          assert.deepEqual(lines.slice(0, 5), [
            "Here is everything.",
            "[audio: audio/wav]",
            "[resource: catalog://readme]",
            "[resource: catalog://images/logo.png]",
            "[resource_link: catalog://products/ABC-123 ABC-123]",
          ]);
          assert.deepEqual(images(result.content).map((p) => p.mimeType), ["image/png"]);
        });
      }),
    );

    test(`T7: png, jpeg, webp and gif become image parts; an image over 5 MB becomes a placeholder (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const result = await tool(c, "catalog__image").execute({}, { identity: alice });
          assert.deepEqual(images(result.content).map((p) => p.mimeType), ["image/png", "image/jpeg", "image/webp", "image/gif"]);
          assert.equal(textOf(result), "[image: image/png]\nFive images: png, jpeg, webp, gif, and a large png.");
        });
      }),
    );
  }

  test("T7: with structuredContent the model gets its JSON, not the accompanying text", T, async () => {
    const server = inlineServer(
      "inline",
      `(m) => m.method === "tools/list"
        ? { tools: [{ name: "weather", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] }
        : { content: [{ type: "text", text: "Sunny and warm" }], structuredContent: { sky: "clear", celsius: 22 } }`,
    );
    await using(await connectMcp(server, { identity: alice, authorize: allowAll }), async (c) => {
      assert.equal(textOf(await tool(c, "inline__weather").execute({}, { identity: alice })), '{"sky":"clear","celsius":22}');
    });
  });

  test("T7: at most 4 image parts per result; later ones are placeholders", () => {
    const r = renderContent([png(10), png(10), png(10), png(10), png(10)]);
    assert.equal(r.images.length, 4);
    assert.equal(r.text, "[image: image/png]");
  });

  test("T7: the 5 MB bound is on decoded bytes; other types and invalid base64 are placeholders", () => {
    assert.equal(renderContent([png(MAX_IMAGE_BYTES)]).images.length, 1);
    assert.equal(renderContent([png(MAX_IMAGE_BYTES + 3)]).images.length, 0);
    const bmp = { type: "image", mimeType: "image/bmp", data: "AAAA" } as ContentBlock;
    const broken = { type: "image", mimeType: "image/png", data: "not base64!" } as ContentBlock;
    const r = renderContent([bmp, broken]);
    assert.deepEqual(r.images, []);
    assert.equal(r.text, "[image: image/bmp]\n[image: image/png]");
  });

  test("T7: server-everything's tiny image becomes an image part", T, async () => {
    await using(await connectMcp(everything(), { identity: alice, authorize: allowAll }), async (c) => {
      const result = await tool(c, "everything__get-tiny-image").execute({}, { identity: alice });
      assert.equal(result.isError, false);
      assert.deepEqual(images(result.content).map((p) => p.mimeType), ["image/png"]);
    });
  });
});

describe("T8: tool_failed", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T8: an isError message of 10,000 characters is cut to 4,000 (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const result = await tool(c, "catalog__fail").execute({}, { identity: alice });
          assert.equal(result.isError, true);
          const e = envelope(result);
          assert.equal(e.error, "tool_failed");
          assert.equal(e.message.length, MAX_TOOL_ERROR_CHARS);
          assert.ok(e.message.startsWith("Inventory backend failed: upstream timeout;"));
          assert.match(e.message, /\n\[truncated: 10000 characters, shown up to 4000\]$/);
        });
      }),
    );
  }

  test("T8: a short isError result reaches the model whole as tool_failed", T, () =>
    withCatalog("stdio", async ({ config }) => {
      await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
        const result = await tool(c, "catalog__lookup").execute({ sku: "ZZZ-999" }, { identity: alice });
        assert.deepEqual(envelope(result), { error: "tool_failed", message: "Unknown SKU: ZZZ-999" });
      });
    }),
  );
});

describe("T9: output schemas", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T9: structured content that violates the output schema is an invalid_output error (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const e = envelope(await tool(c, "catalog__bad_output").execute({}, { identity: alice }));
          assert.equal(e.error, "invalid_output");
          assert.match(e.message, /\/count/);
          assert.doesNotMatch(e.message, /three/, "never the value");
        });
      }),
    );
  }

  test("T9: output schemas of tools discovered on earlier pages are enforced", T, () =>
    withCatalog(
      "stdio",
      async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          // One tool per page: bad_output and search are on pages far before the last one.
          assert.equal(envelope(await tool(c, "catalog__bad_output").execute({}, { identity: alice })).error, "invalid_output");
          assert.equal((await tool(c, "catalog__search").execute({ query: "w" }, { identity: alice })).isError, false);
        });
      },
      { flags: { toolsPageSize: 1 } },
    ),
  );

  test("T9: with an output schema, a result without structuredContent is invalid_output; an isError result stays tool_failed", T, async () => {
    const server = inlineServer(
      "inline",
      `(m) => m.method === "tools/list"
        ? { tools: [{ name: "t", inputSchema: { type: "object", properties: { fail: { type: "boolean" } } }, outputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] }
        : { content: [{ type: "text", text: "plain text only" }], isError: m.params.arguments.fail === true }`,
    );
    await using(await connectMcp(server, { identity: alice, authorize: allowAll }), async (c) => {
      const missing = envelope(await tool(c, "inline__t").execute({}, { identity: alice }));
      assert.equal(missing.error, "invalid_output");
      assert.match(missing.message, /structuredContent is missing/);
      assert.deepEqual(envelope(await tool(c, "inline__t").execute({ fail: true }, { identity: alice })), { error: "tool_failed", message: "plain text only" });
    });
  });

  test("T9: server-everything's structured content passes its output schema", T, async () => {
    await using(await connectMcp(everything(), { identity: alice, authorize: allowAll }), async (c) => {
      const result = await tool(c, "everything__get-structured-content").execute({ location: "Chicago" }, { identity: alice });
      assert.equal(result.isError, false, textOf(result));
      assert.equal(typeof JSON.parse(textOf(result)), "object");
    });
  });
});

describe("T16: unknown content kinds", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(`T16: an unknown kind reaches the model as JSON with its base64 payload replaced by its size (${kind})`, T, () =>
      withCatalog(kind, async ({ config }) => {
        await using(await connectMcp(config, { identity: alice, authorize: allowAll }), async (c) => {
          const lines = textOf(await tool(c, "catalog__mixed").execute({}, { identity: alice })).split("\n");
          assert.deepEqual(JSON.parse(lines.at(-1) ?? ""), { type: "hologram", data: "[base64: 2250 bytes]" });
        });
      }),
    );
  }

  test("T16: an unknown kind wrapping a text resource reads as that text", () => {
    const block: ContentBlock = { type: "unknown", kind: "note", block: { type: "note", resource: { uri: "x://n", text: "the note" } } };
    assert.equal(renderContent([block]).text, "the note");
  });

  test("T16: a server's \"__proto__\" member stays a member of the JSON the model sees", () => {
    const block = JSON.parse('{"type":"note","__proto__":{"said":"hello"}}') as ContentBlock;
    assert.deepEqual(JSON.parse(renderContent([block]).text), JSON.parse('{"type":"note","__proto__":{"said":"hello"}}'));
    assert.match(renderContent([block]).text, /"__proto__":\{"said":"hello"\}/);
  });

  test("T16: inline style: a text resource as its text, audio and blob resources as JSON with sizes", () => {
    const wav = "UklG".repeat(100);
    const blocks = [
      { type: "resource", resource: { uri: "x://readme", text: "README" } },
      { type: "audio", mimeType: "audio/wav", data: wav },
      { type: "resource", resource: { uri: "x://logo", mimeType: "image/png", blob: wav } },
    ] as ContentBlock[];
    const lines = renderContent(blocks, { style: "inline" }).text.split("\n");
    assert.equal(lines[0], "README");
    assert.deepEqual(JSON.parse(lines[1] ?? ""), { type: "audio", mimeType: "audio/wav", data: "[base64: 300 bytes]" });
    assert.deepEqual(JSON.parse(lines[2] ?? ""), { type: "resource", resource: { uri: "x://logo", mimeType: "image/png", blob: "[base64: 300 bytes]" } });
  });
});
