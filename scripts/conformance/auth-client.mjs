// The auth/* scenarios of the conformance client (A6): the runner's authorization
// server answers the authorization URL with a redirect to the callback at once (no
// user), so the interactive step fetches that URL without following the redirect
// and hands back its Location. The scenario's context (MCP_CONFORMANCE_CONTEXT)
// carries pre-registered client credentials where the scenario has them.
import { HttpTransport, McpClient, OAuthClient } from "../../dist/yada.js";

const CIMD_URL = "https://conformance-test.local/client-metadata.json";

export async function runAuthScenario(url, scenario, logger) {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
  const machine = scenario.startsWith("auth/client-credentials");
  const clients = [];
  if (typeof context.client_id === "string") {
    clients.push({
      ...(typeof context.issuer === "string" && { issuer: context.issuer }),
      clientId: context.client_id,
      ...(typeof context.client_secret === "string" && { clientSecret: context.client_secret }),
      ...(typeof context.private_key_pem === "string" && { privateKeyPem: context.private_key_pem, signingAlg: context.signing_algorithm ?? "ES256" }),
    });
  }
  const auth = new OAuthClient({
    grant: machine ? "client_credentials" : "authorization_code",
    redirectUri: "http://127.0.0.1:3000/callback",
    clientMetadataUrl: CIMD_URL,
    clients,
    dpop: scenario.startsWith("auth/dpop"),
    logger,
    authorize: async ({ url: authorizationUrl, signal }) => {
      const res = await fetch(authorizationUrl, { redirect: "manual", signal });
      await res.body?.cancel();
      const location = res.headers.get("location");
      if (location === null) throw new Error(`the authorization endpoint answered ${res.status} without a redirect`);
      return new URL(location, authorizationUrl).href;
    },
  });
  const client = await McpClient.connect(new HttpTransport(url, { auth, ...(logger && { logger }) }), { logger, clientInfo: { name: "yada-conformance", version: "0.1.0" } });
  const tools = await client.listTools();
  for (const t of tools) await client.callTool(t.name, {});
  await client.close();
}
