// `await using` support that asks nothing of the consumer's lib (P7). The shipped
// declarations name `Symbol.asyncDispose` only through AsyncDisposer: under a lib
// that has the symbol (esnext.disposable, @types/node, Deno) it is the
// `[Symbol.asyncDispose]()` member `await using` needs; under one that lacks it
// (es2022 with DOM, Workers' types) it is empty, and the declarations still load.

/** `typeof Symbol.asyncDispose` where the lib in use declares it; `never` elsewhere. */
export type AsyncDisposeKey = SymbolConstructor extends { readonly asyncDispose: infer K extends symbol } ? K : never;

/**
 * The `[Symbol.asyncDispose]()` member of everything with a lifecycle: leaving an
 * `await using` block calls it, which closes the object. Empty where the lib has
 * no `Symbol.asyncDispose`.
 *
 * @example
 * ```ts
 * await using client = await McpClient.connect(new HttpTransport("https://mcp.example.com/mcp"));
 * ```
 */
export type AsyncDisposer = { [K in AsyncDisposeKey]: () => Promise<void> };
