// Y6: the fuzz targets of the parsers added after the first set: the write-tool
// result envelopes (W3), OAuth answers (A2–A5), tasks (V8) and the HTTP+SSE endpoint event (H14). fuzz-targets.ts
// adds them to TARGETS.
import type { FuzzTarget } from "./fuzz-gen.js";
import { envelope } from "./fuzz-envelope.js";
import { oauth } from "./fuzz-oauth.js";
import { task } from "./fuzz-task.js";
import { legacy } from "./fuzz-legacy.js";

export const MORE_TARGETS: Record<string, FuzzTarget> = { envelope, oauth, task, legacy };
