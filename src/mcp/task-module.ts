/**
 * Task-augmented tool calls as a module the host passes in (V8): a bare
 * `McpClient` without it never asks for a task and does not carry the task
 * follower, so a bundler drops it when unused.
 *
 * @module
 */
import { followToolTask } from "./task-call.js";

/** What {@link ClientOptions} `tasks` takes: {@link taskCalls}. */
export interface TaskCalls {
  /** Follows the task a `tools/call` created to its end (internal). */
  readonly follow: typeof followToolTask;
}

/**
 * Task-augmented tool calls (V8), for `McpClient.connect(transport, { tasks: taskCalls })`.
 * With it, a tool listed with `execution.taskSupport: "required"` (or any tool
 * called with `task: true`) runs as a task on a server that takes tasks: the call
 * polls `tasks/get` within the call's bound (`DEFAULT_TASK_TIMEOUT_MS` when it has
 * none, polls at least `MIN_TASK_POLL_MS` apart), answers `input_required` through
 * the host handlers and returns the final result, with task status as progress.
 * Without it such a call fails before anything is sent with a ConfigError
 * (`config`) naming this export. `yada-mcp/node`'s `McpClient`, `connectMcp`,
 * `reconnectingMcp` and the CLI pass it themselves.
 *
 * @example
 * ```ts
 * import { HttpTransport, McpClient, taskCalls } from "yada-mcp";
 * const client = await McpClient.connect(new HttpTransport("http://127.0.0.1:3001/mcp"), { tasks: taskCalls });
 * ```
 */
export const taskCalls: TaskCalls = { follow: followToolTask };
