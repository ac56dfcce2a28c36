/**
 * The `writeFile` and `editFile` built-ins (R5): confirm tools that replace a
 * file's content inside the roots. `prepare` reads the file now, computes the
 * new content and returns a diff summary as the preview, bound to the current
 * content's hash (`stateVersion`); `execute` reads again and writes only when
 * the content is still the one reviewed, atomically and through a verified
 * directory (Y4).
 *
 * @module
 */
import { MAX_BUILTIN_ARGUMENT_CHARS, MAX_BUILTIN_EDITS, MAX_BUILTIN_WRITE_BYTES } from "../../limits.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool } from "../../tools/types.js";
import { argsObject } from "./args.js";
import { replaceConfined } from "./confine.js";
import { builtinConfirmTool, failed, type Plan } from "./confirm-tool.js";
import { diffSummary, fileState, shownText } from "./file-state.js";
import { textResult } from "./output.js";
import { PathRefused, type RootGuard } from "./roots.js";

/** Content checked: a string of at most `MAX_BUILTIN_WRITE_BYTES` UTF-8 bytes. */
function content(v: unknown, key: string): string {
  if (typeof v !== "string") throw new PathRefused(`${key} must be a string`);
  if (new TextEncoder().encode(v).length > MAX_BUILTIN_WRITE_BYTES) throw new PathRefused(`${key} is larger than ${MAX_BUILTIN_WRITE_BYTES} bytes`);
  return v;
}

function pathArg(a: Record<string, unknown>): string {
  const p = a.path;
  if (typeof p !== "string" || p === "" || p.length > MAX_BUILTIN_ARGUMENT_CHARS || p.includes("\u0000")) {
    throw new PathRefused(`path must be a non-empty string of at most ${MAX_BUILTIN_ARGUMENT_CHARS} characters`);
  }
  return p;
}

interface Edit {
  oldText: string;
  newText: string;
}

function editsArg(v: unknown): Edit[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_BUILTIN_EDITS) throw new PathRefused(`edits must be a list of 1 to ${MAX_BUILTIN_EDITS} replacements`);
  return v.map((e: unknown, i) => {
    const o = argsObject(e);
    const oldText = content(o.oldText, `edits[${i}].oldText`);
    if (oldText === "") throw new PathRefused(`edits[${i}].oldText must not be empty`);
    return { oldText, newText: content(o.newText, `edits[${i}].newText`) };
  });
}

/** Applies `edits` in order; each `oldText` must occur exactly once in the text it applies to. */
function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  edits.forEach((e, i) => {
    const at = out.indexOf(e.oldText);
    if (at < 0) throw new PathRefused(`edits[${i}].oldText does not occur in the file`);
    if (out.indexOf(e.oldText, at + 1) >= 0) throw new PathRefused(`edits[${i}].oldText occurs more than once; include more context`);
    out = out.slice(0, at) + e.newText + out.slice(at + e.oldText.length);
  });
  if (new TextEncoder().encode(out).length > MAX_BUILTIN_WRITE_BYTES) throw new PathRefused(`the edited file would be larger than ${MAX_BUILTIN_WRITE_BYTES} bytes`);
  return out;
}

type Compute = (guard: RootGuard, a: Record<string, unknown>) => Promise<{ plan: Plan; text: string; dir: string; name: string; roots: string[] }>;

const computeWrite: Compute = async (guard, a) => {
  const path = pathArg(a);
  const text = content(a.content, "content");
  const state = await fileState(guard, path);
  const plan = { arguments: { path, content: text }, preview: shownText(diffSummary(state.shown, state.text, text)), stateVersion: state.hash };
  return { plan, ...state, text };
};

const computeEdit: Compute = async (guard, a) => {
  const path = pathArg(a);
  const edits = editsArg(a.edits);
  const state = await fileState(guard, path);
  if (state.text === null) throw new PathRefused(`${path} does not exist`);
  const text = applyEdits(state.text, edits);
  const plan = { arguments: { path, edits }, preview: shownText(diffSummary(state.shown, state.text, text)), stateVersion: state.hash };
  return { plan, ...state, text };
};

/** Performs an approved write or edit: recomputed on the file as it is now, refused when that is not the reviewed content. */
async function perform(guard: RootGuard, compute: Compute, action: ApprovedAction): Promise<ActionOutcome> {
  let now;
  try {
    now = await compute(guard, argsObject(action.arguments));
  } catch (e) {
    if (e instanceof PathRefused) return failed(e.message);
    throw e;
  }
  if (now.plan.stateVersion !== action.stateVersion) {
    return failed(`${now.plan.arguments.path as string} changed since the action was reviewed; nothing was written`);
  }
  await replaceConfined(now.dir, now.name, new TextEncoder().encode(now.text), now.roots);
  return { status: "succeeded", result: textResult(now.plan.preview.replace(/^(create|modify)/, (v) => (v === "create" ? "created" : "modified"))) };
}

/** The `writeFile` confirm tool, confined by `guard`. */
export function writeFileTool(guard: RootGuard, name: string): ConfirmTool {
  return builtinConfirmTool({
    name,
    description:
      `Creates or replaces a UTF-8 text file with the given content, after a person approves. Relative paths are resolved against ${guard.roots[0] ?? "the first root"}; ` +
      `only files inside ${guard.roots.join(", ")} can be written.`,
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", description: "File path" }, content: { type: "string", description: "The whole new content" } },
      required: ["path", "content"],
      additionalProperties: false,
    },
    config: { roots: guard.roots },
    plan: async (args) => (await computeWrite(guard, argsObject(args))).plan,
    perform: (action) => perform(guard, computeWrite, action),
  });
}

/** The `editFile` confirm tool, confined by `guard`. */
export function editFileTool(guard: RootGuard, name: string): ConfirmTool {
  return builtinConfirmTool({
    name,
    description:
      `Replaces exact text in a UTF-8 file, after a person approves: each oldText must occur exactly once; edits apply in order. ` +
      `Only files inside ${guard.roots.join(", ")} can be edited.`,
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path" },
        edits: {
          type: "array",
          minItems: 1,
          maxItems: MAX_BUILTIN_EDITS,
          items: {
            type: "object",
            properties: { oldText: { type: "string", minLength: 1 }, newText: { type: "string" } },
            required: ["oldText", "newText"],
            additionalProperties: false,
          },
        },
      },
      required: ["path", "edits"],
      additionalProperties: false,
    },
    config: { roots: guard.roots },
    plan: async (args) => (await computeEdit(guard, argsObject(args))).plan,
    perform: (action) => perform(guard, computeEdit, action),
  });
}
