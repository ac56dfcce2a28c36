/**
 * Streamed tool-call arguments (R3): providers send a call's argument JSON in
 * pieces; an accumulator joins them within `MAX_TOOL_CALL_ARGUMENT_BYTES` and
 * turns the result into a {@link ToolCallPart}. Text that is not a JSON object
 * becomes `argumentsError`, which the loop answers with an error result the model
 * sees, so it can correct itself.
 *
 * @module
 */
import { decodeJson } from "../jsonrpc/messages.js";
import { MAX_QUOTED_TEXT_CHARS, MAX_TOOL_CALL_ARGUMENT_BYTES } from "../limits.js";
import { utf8Length } from "../tools/bound.js";
import { isRec } from "../util/record.js";
import type { ToolCallPart } from "./messages.js";

/** Joins the argument pieces of one streamed tool call. */
export interface ToolCallAccumulator {
  id: string;
  name: string;
  /** Appends a piece of argument JSON; pieces beyond the bound are dropped and remembered. */
  append(piece: string): void;
  /** The finished call. */
  finish(): ToolCallPart;
}

/**
 * Starts assembling one tool call. `id` and `name` may be set later (some
 * OpenAI-compatible servers send them after the first piece). The finished
 * argument text `""` (a call without arguments) is `{}`; text that is not a
 * JSON object, or that outgrew `maxBytes`, is reported in `argumentsError`.
 */
export function toolCallAccumulator(id: string, name: string, maxBytes = MAX_TOOL_CALL_ARGUMENT_BYTES): ToolCallAccumulator {
  const pieces: string[] = [];
  let bytes = 0;
  let overflow = false;
  return {
    id,
    name,
    append(piece: string): void {
      if (overflow || piece === "") return;
      bytes += utf8Length(piece);
      if (bytes > maxBytes) overflow = true;
      else pieces.push(piece);
    },
    finish(): ToolCallPart {
      const part: ToolCallPart = { type: "tool_call", id: this.id, name: this.name, arguments: {} };
      const text = pieces.join("");
      if (overflow) part.argumentsError = `the arguments exceed ${maxBytes} bytes`;
      else if (text.trim() !== "") {
        try {
          const value = decodeJson(text); // J7: a model's arguments cannot carry __proto__ either
          if (isRec(value)) part.arguments = value;
          else part.argumentsError = "the arguments must be a JSON object";
        } catch (e) {
          const cause = e instanceof Error ? e.cause : undefined;
          part.argumentsError = `the arguments are not valid JSON (${cause instanceof SyntaxError ? cause.message.slice(0, MAX_QUOTED_TEXT_CHARS) : "not JSON"})`;
        }
      }
      return part;
    },
  };
}
