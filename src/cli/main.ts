/**
 * The `yada` executable (bundled as `dist/cli.js`): runs {@link main} with this
 * process's arguments. The first Ctrl-C (SIGINT) or SIGTERM cancels the command
 * (open calls are cancelled, the server is closed, exit 130; `yada worker` lets
 * the actions in hand finish and exits 0); a second one exits at once. A
 * closed stdout (`yada tools ... | head -1`) ends it quietly with exit 0 (P4).
 *
 * @module
 */
import { CLI_EXIT_GRACE_MS } from "../limits.js";
import { EXIT } from "./exit.js";
import { main } from "./cli.js";
import { exitQuietlyOnClosedPipe } from "./terminal.js";

exitQuietlyOnClosedPipe();

const interrupt = new AbortController();
const onSignal = (): void => {
  if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
  interrupt.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const code = await main(process.argv.slice(2), undefined, interrupt.signal, { deadlineExit: (c) => process.exit(c) });
process.exitCode = code;
// Everything is closed by now; a handle left open by a misbehaving peer must not keep the terminal waiting.
setTimeout(() => process.exit(code), CLI_EXIT_GRACE_MS).unref();
