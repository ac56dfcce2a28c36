// Y6: the fuzz targets of the parsers added after the first set: the write-tool
// result envelopes (W3) and OAuth answers (A2–A5). fuzz-targets.ts adds them to TARGETS.
import type { FuzzTarget } from "./fuzz-gen.js";
import { envelope } from "./fuzz-envelope.js";
import { oauth } from "./fuzz-oauth.js";

export const MORE_TARGETS: Record<string, FuzzTarget> = { envelope, oauth };
