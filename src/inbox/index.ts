/**
 * The approval inbox layer (U1–U4): see inbox.ts.
 *
 * @module
 */
export { createApprovalInbox, type FetchHandler } from "./inbox.js";
export type { ApprovalInboxOptions, Authenticate } from "./options.js";
export type { ActionView } from "./views.js";
