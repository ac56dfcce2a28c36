/**
 * `withClient`: a command's connection to the server of its command line, for the
 * length of the command, with the host handlers of `--elicit` / `--sampling`, the
 * stored login of `yada login`, and the login advice when a server wants one.
 *
 * @module
 */
import type { McpClient } from "../mcp/client.js";
import { loggerOf, type CommandContext } from "./command.js";
import { askOnStdin, hostHandlers } from "./host-handlers.js";
import { loginOf, withLoginAdvice } from "./login-hints.js";
import { chooseServer, connectClient } from "./server.js";

/**
 * Connects to the server of the command line, runs `use`, and closes the
 * connection (ending a stdio server's process) whatever happens.
 *
 * @throws the errors of the server choice, the connection and `use`.
 */
export async function withClient<T>(ctx: CommandContext, use: (client: McpClient) => Promise<T>): Promise<T> {
  const choice = chooseServer(ctx.args, ctx.io.env);
  const logger = loggerOf(ctx);
  // V6: --elicit / --sampling; elicitations are asked only with a terminal on stdin.
  const handlers = hostHandlers(ctx.args, ctx.io, process.stdin.isTTY === true ? askOnStdin : undefined);
  // A6: tokens `yada login` stored for this server are used (and refreshed).
  const auth = await loginOf(choice, ctx.io.env, logger);
  try {
    const client = await connectClient(choice, { signal: ctx.signal, handlers, ...(logger ? { logger } : {}), ...(auth ? { auth } : {}) });
    try {
      return await use(client);
    } finally {
      await client.close().catch(() => {});
    }
  } catch (e) {
    // P4: an expired login, or a server that asks for one, says how to log in.
    throw withLoginAdvice(e, choice, auth);
  }
}
