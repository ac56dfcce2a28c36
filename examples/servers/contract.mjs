// An example server of the action compatibility contract over stdio (docs/server-contract.md):
// items A, B, C; tools get_item, prepare_rename, rename, rename_receipt, delete_item, add_item.
// `--log PATH` keeps its items and receipts in a journal; `--principal actor/tenant` (default alice/acme).
import "../../fixtures/servers/contract/stdio.mjs";
