// The example catalog MCP server over Streamable HTTP on 127.0.0.1:
// `const server = await startCatalogHttp({ port: 0 })`, then `server.url`, `server.close()`.
export { startCatalogHttp } from "../../fixtures/servers/catalog/http.mjs";
