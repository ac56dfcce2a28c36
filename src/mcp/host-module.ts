/**
 * The host handlers (roots, sampling, elicitation: V6) as a module the host passes
 * in, beside the handlers themselves: a client given no handlers does not carry
 * the checks of what a server asks, the answers and their concurrency bound, so a
 * bundler drops them when unused (X3).
 *
 * @module
 */
import type { JsonRpcSession } from "../jsonrpc/session.js";
import { answerServerRequest, capabilitiesFor, HANDLER_OF, type ClientHandlers, type HandlerContext } from "./handlers.js";
import { limitHandlers } from "./handler-limits.js";
import type { JsonRecord } from "./types.js";

/**
 * Answers one thing a server asks of the client: a legacy server request, or (with
 * `legacy` false) a modern input request.
 *
 * @throws RpcErrorReply -32601 when no handler answers `method`, -32602 for invalid params.
 */
export type HostAnswer = (method: string, params: JsonRecord | undefined, context: HandlerContext, legacy?: boolean) => Promise<JsonRecord>;

/** What {@link ClientOptions} `hosting` takes: {@link hostHandlers}. */
export interface HostHandling {
  /** The capabilities `handlers` imply, after checking them (internal). */
  readonly capabilities: typeof capabilitiesFor;
  /** The answerer of one client's handlers, each bounded in concurrency (internal). */
  readonly answerer: (handlers: ClientHandlers) => HostAnswer;
  /** Registers the legacy server requests the handlers answer on `session` (internal). */
  readonly serve: (session: JsonRpcSession, answer: HostAnswer, handlers: ClientHandlers) => void;
}

function answerer(handlers: ClientHandlers): HostAnswer {
  // Y2: the bound is per client, made once here.
  const limited = limitHandlers(handlers);
  return (method, params, context, legacy) => answerServerRequest(limited, method, params, context, legacy);
}

function serve(session: JsonRpcSession, answer: HostAnswer, handlers: ClientHandlers): void {
  for (const [method, capability] of Object.entries(HANDLER_OF)) {
    if (handlers[capability]) session.onRequest(method, (params, context) => answer(method, params, context));
  }
}

/**
 * The host handlers' module (V6), for
 * `McpClient.connect(transport, { handlers, hosting: hostHandlers })`: it checks
 * the handlers and declares their capabilities, checks every request a server
 * sends them (legacy server requests and modern `input_required` rounds), bounds
 * each handler to `MAX_HOST_HANDLER_CONCURRENCY` calls at once and checks their
 * answers. `handlers` without it is a ConfigError (`config`) naming this export,
 * before anything starts. Without handlers a server's request is declined (-32601)
 * and an `input_required` round fails with `unauthorized`, module or not.
 * `yada-mcp/node`'s `McpClient` and the CLI pass it themselves.
 *
 * @example
 * ```ts
 * import { HttpTransport, McpClient, hostHandlers } from "yada-mcp";
 * const client = await McpClient.connect(new HttpTransport("https://files.example/mcp"), {
 *   handlers: { roots: () => [{ uri: "file:///home/me/project" }] },
 *   hosting: hostHandlers,
 * });
 * ```
 */
export const hostHandlers: HostHandling = Object.freeze({ capabilities: capabilitiesFor, answerer, serve });
