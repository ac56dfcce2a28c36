// An example MCP server behind OAuth 2.1 on 127.0.0.1 (docs/oauth.md): it is its own authorization
// server (metadata, dynamic registration, PKCE S256, refresh, client_credentials) and serves one tool.
// `startOAuthServer()` returns { url, close() }.
export { startOAuthServer } from "../../fixtures/oauth/server.mjs";
