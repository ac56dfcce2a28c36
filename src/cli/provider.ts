/**
 * The model provider of `run` and the demo (R3), from flags or the environment:
 *
 * - `--provider anthropic|openai|scripted`; without it, `ANTHROPIC_API_KEY`
 *   chooses Anthropic, else `OPENAI_API_KEY` or `OPENAI_BASE_URL` chooses an
 *   OpenAI-compatible server.
 * - `--model`, else `YADA_MODEL`, else the provider's default (an
 *   `OPENAI_BASE_URL` server has no default: it needs a model named).
 * - `--script plan.json` for the scripted provider: a JSON array of steps.
 *
 * Keys are read from the environment only (never from flags, which other users
 * of the machine can see) and never printed.
 *
 * @module
 */
import { anthropic } from "../agent/anthropic.js";
import { openaiChat } from "../agent/openai-chat.js";
import type { Provider } from "../agent/provider.js";
import { scripted, type ScriptedStep, type ScriptedToolCall } from "../agent/scripted.js";
import { isRecord } from "../mcp/types.js";
import { MAX_SCRIPT_BYTES, MAX_SCRIPT_STEPS } from "../limits.js";
import { readUserFile } from "./command.js";
import { UsageError } from "./exit.js";

/** The default model of each provider when neither `--model` nor `YADA_MODEL` names one. */
export const DEFAULT_MODELS = { anthropic: "claude-sonnet-4-5", openai: "gpt-4.1-mini" } as const;

/** The provider flags. */
export interface ProviderFlags {
  provider?: string;
  model?: string;
  script?: string;
}

/** A chosen provider and how to describe it. */
export interface ProviderChoice {
  provider: Provider;
  /** `anthropic claude-sonnet-4-5`, `scripted plan.json`: for the run's header line (never a key). */
  label: string;
  /** True for the scripted provider: no model, no network. */
  offline: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

function envValue(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

/**
 * Parses a scripted plan: a JSON array of steps `{text?, thinking?, toolCalls?:
 * [{name, arguments?, id?}]}`, checked field by field.
 *
 * @throws UsageError (`usage`) naming the step and field that is wrong.
 *
 * @example
 * ```ts
 * parseScript('[{"toolCalls":[{"name":"catalog__lookup","arguments":{"sku":"ABC-123"}}]},{"text":"Done."}]', "plan.json");
 * ```
 */
export function parseScript(text: string, where: string): ScriptedStep[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${where} is not valid JSON`);
  }
  if (!Array.isArray(value) || value.length === 0) throw new UsageError(`${where} must be a non-empty JSON array of steps`);
  if (value.length > MAX_SCRIPT_STEPS) throw new UsageError(`${where} has more than ${MAX_SCRIPT_STEPS} steps`);
  return value.map((raw: unknown, i): ScriptedStep => {
    const at = `${where} step ${i + 1}`;
    if (!isRecord(raw)) throw new UsageError(`${at} must be an object`);
    for (const k of Object.keys(raw)) if (!["text", "thinking", "toolCalls"].includes(k)) throw new UsageError(`${at}: unknown field ${JSON.stringify(k.slice(0, 40))}`);
    const step: ScriptedStep = {};
    for (const k of ["text", "thinking"] as const) {
      const v = raw[k];
      if (v === undefined) continue;
      if (typeof v !== "string") throw new UsageError(`${at}: ${k} must be a string`);
      step[k] = v;
    }
    if (raw.toolCalls !== undefined) {
      if (!Array.isArray(raw.toolCalls)) throw new UsageError(`${at}: toolCalls must be an array`);
      step.toolCalls = raw.toolCalls.map((c: unknown, j): ScriptedToolCall => {
        const cat = `${at} toolCalls[${j}]`;
        if (!isRecord(c) || typeof c.name !== "string" || c.name === "") throw new UsageError(`${cat} needs a name`);
        const call: ScriptedToolCall = { name: c.name };
        if (c.arguments !== undefined) {
          if (!isRecord(c.arguments)) throw new UsageError(`${cat}: arguments must be an object`);
          call.arguments = c.arguments;
        }
        if (c.id !== undefined) {
          if (typeof c.id !== "string" || c.id === "") throw new UsageError(`${cat}: id must be a non-empty string`);
          call.id = c.id;
        }
        return call;
      });
    }
    return step;
  });
}

/**
 * Chooses the provider from flags, then the environment.
 *
 * @throws UsageError (`usage`) for an unknown provider, a missing key or model,
 * `--script` with another provider, or an invalid plan.
 */
export function chooseProvider(flags: ProviderFlags, env: Env): ProviderChoice {
  const anthropicKey = envValue(env, "ANTHROPIC_API_KEY");
  const openaiKey = envValue(env, "OPENAI_API_KEY");
  const openaiBase = envValue(env, "OPENAI_BASE_URL");
  let kind = flags.provider;
  if (kind === undefined) {
    if (flags.script !== undefined) kind = "scripted";
    else if (anthropicKey !== undefined) kind = "anthropic";
    else if (openaiKey !== undefined || openaiBase !== undefined) kind = "openai";
    else throw new UsageError("no model provider: set ANTHROPIC_API_KEY or OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server), or pass --provider scripted --script plan.json");
  }
  if (flags.script !== undefined && kind !== "scripted") throw new UsageError("--script goes with --provider scripted");
  const model = flags.model ?? envValue(env, "YADA_MODEL");
  switch (kind) {
    case "scripted": {
      if (flags.script === undefined) throw new UsageError("--provider scripted needs --script plan.json");
      const steps = parseScript(readUserFile(flags.script, MAX_SCRIPT_BYTES, "the plan"), flags.script);
      return { provider: scripted(steps), label: `scripted (${flags.script}, ${steps.length} step${steps.length === 1 ? "" : "s"})`, offline: true };
    }
    case "anthropic": {
      if (anthropicKey === undefined) throw new UsageError("--provider anthropic needs ANTHROPIC_API_KEY in the environment");
      const m = model ?? DEFAULT_MODELS.anthropic;
      return { provider: anthropic({ apiKey: anthropicKey, model: m }), label: `anthropic ${m}`, offline: false };
    }
    case "openai": {
      if (openaiKey === undefined && openaiBase === undefined) {
        throw new UsageError("--provider openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server) in the environment");
      }
      if (model === undefined && openaiBase !== undefined) throw new UsageError("with OPENAI_BASE_URL, name the model: --model or YADA_MODEL");
      const m = model ?? DEFAULT_MODELS.openai;
      const provider = openaiChat({ model: m, ...(openaiKey !== undefined ? { apiKey: openaiKey } : {}), ...(openaiBase !== undefined ? { baseUrl: openaiBase } : {}) });
      return { provider, label: `openai ${m}${openaiBase !== undefined ? ` at ${safeOrigin(openaiBase)}` : ""}`, offline: false };
    }
    default:
      throw new UsageError(`unknown provider ${JSON.stringify(kind.slice(0, 40))} (anthropic, openai or scripted)`);
  }
}

/** The origin of a URL (never its path, query or credentials), for labels. */
function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "an invalid OPENAI_BASE_URL";
  }
}
