/**
 * The logging hook. yada never prints by itself: every diagnostic goes to the
 * host's {@link Logger}, which is a no-op unless the host passes one.
 *
 * @module
 */

/** Log levels, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * Receives yada's diagnostics. `data` never contains header values, tokens or
 * tool argument values.
 */
export type Logger = (level: LogLevel, message: string, data?: Record<string, unknown>) => void;

/** A logger that drops everything (the default). */
export const silentLogger: Logger = () => {};
