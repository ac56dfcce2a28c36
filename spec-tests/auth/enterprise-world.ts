// A7: the loopback enterprise world of fixtures/oauth/enterprise.mjs (an identity
// provider, the MCP server's authorization server and an MCP server, each strict the
// way the extension documents ask), typed for the tests.
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";

type EnterpriseModule = typeof import("../../fixtures/oauth/enterprise.mjs");
export type { EnterpriseBends, EnterpriseWorld, Raw, Seen } from "../../fixtures/oauth/enterprise.mjs";

const m = (await import(pathToFileURL(repoPath("fixtures", "oauth", "enterprise.mjs")).href)) as EnterpriseModule;
export const { startEnterprise, JWT_BEARER, TOKEN_EXCHANGE, ID_JAG, IDP_CLIENT, AS_CLIENT } = m;
