// An example enterprise world on 127.0.0.1 (docs/oauth.md): an identity provider that
// exchanges a user's ID token for an ID-JAG, the MCP server's authorization server that
// takes ID-JAGs and workload JWTs as JWT bearer grants, and an MCP server with one tool.
// `startEnterprise()` returns { mcpUrl, idpIssuer, asIssuer, idToken(), workloadJwt(), close() }.
export { startEnterprise, IDP_CLIENT, AS_CLIENT } from "../../fixtures/oauth/enterprise.mjs";
