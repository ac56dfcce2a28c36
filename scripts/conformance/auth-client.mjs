// The auth/* scenarios of the conformance client (A6, A7): the runner's authorization
// server answers the authorization URL with a redirect to the callback at once (no
// user), so the interactive step fetches that URL without following the redirect
// and hands back its Location. The scenario's context (MCP_CONFORMANCE_CONTEXT)
// carries pre-registered client credentials where the scenario has them, and for
// the enterprise scenarios the identity provider and the user's ID token (what a
// host's single sign-on would hold), for the workload scenario the platform JWT.
import { enterpriseSignIn, HttpTransport, McpClient, OAuthClient, workloadIdentity } from "../../dist/yada.js";

const CIMD_URL = "https://conformance-test.local/client-metadata.json";

/** The grant a scenario exercises, with what the host would provide for it. */
function grantOf(scenario, context) {
  if (scenario.startsWith("auth/client-credentials")) return { grant: "client_credentials" };
  // Workload identity federation: the platform JWT whose audience is the scenario's authorization server.
  if (scenario === "auth/wif-jwt-bearer") return { grant: workloadIdentity(async () => context.valid_jwt) };
  // Enterprise-managed authorization (cross-app access): the ID token from the host's sign-in at the IdP.
  if (scenario === "auth/cross-app-access-complete-flow" || scenario === "auth/enterprise-managed-authorization") {
    return {
      grant: enterpriseSignIn({
        issuer: context.idp_issuer,
        tokenEndpoint: context.idp_token_endpoint,
        client: { clientId: context.idp_client_id },
        identityAssertion: async () => ({ token: context.idp_id_token, type: "id_token" }),
      }),
    };
  }
  return { grant: "authorization_code" };
}

export async function runAuthScenario(url, scenario, logger) {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
  const grant = grantOf(scenario, context);
  const clients = [];
  // A workload needs no client: its platform JWT is its identity.
  if (typeof context.client_id === "string" && grant.grant?.kind !== "workload_identity") {
    clients.push({
      ...(typeof context.issuer === "string" && { issuer: context.issuer }),
      clientId: context.client_id,
      ...(typeof context.client_secret === "string" && { clientSecret: context.client_secret }),
      ...(typeof context.private_key_pem === "string" && { privateKeyPem: context.private_key_pem, signingAlg: context.signing_algorithm ?? "ES256" }),
    });
  }
  const auth = new OAuthClient({
    ...grant,
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
