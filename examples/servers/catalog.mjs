// The example catalog MCP server over stdio (tools lookup, search, rename, report;
// resources; prompts). In the repository it is the test fixture of the same name.
import "../../fixtures/servers/catalog/stdio.mjs";
