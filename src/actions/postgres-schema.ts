/**
 * The PostgreSQL action store's schema, versioned (W9): each version is a step
 * applied once, in order, inside one `DO` block that holds an advisory lock, so a
 * migration is one transaction, idempotent, and safe to run from every process at
 * start-up.
 *
 * - v1: the action table: the fields that never change as one verbatim JSON `body`
 *   (with copies of the ones queries use as columns: id, operation id, tenant, run,
 *   effect, times), one column per field a transition may change, and the indexes;
 *   the claim index covers only actions that may need a worker.
 * - v2: a trigger that NOTIFYs the table's channel when an action becomes approved
 *   or reconciling (the wake-up of {@link PostgresActionStore.waitForWork}).
 * - v3: the `resolution` column (W14: an operator's settlement of an outcome-unknown
 *   action), with a check that only a settled action carries one and that its state
 *   is the resolution's verdict.
 * - v4: an index by (tenant, state, created_at, id): a page of one state of a tenant
 *   (the approval inbox's pending list) and its count read only that state's index
 *   entries, however many actions of other states the table holds.
 * - v5: free room on every new page of the table (fillfactor {@link FILLFACTOR}). A claim
 *   rewrites only columns no index holds (fence, lease, updated time), so with room on
 *   its page it is a HOT update: the new version stays on the page and no index gets
 *   an entry for it (without room, each claimed row moved to another page and every
 *   index, five of them, got a new entry). The moves that change the state still
 *   write the indexes, but put their new version on the same page. Pages written
 *   before the upgrade keep their fill until their rows move.
 *
 * @module
 */

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = 5;

/**
 * Percent of each table page new rows fill (v5): the rest is room for the next versions
 * of its rows (about three of a page's ten or so rows of typical size), what a claim
 * needs to be a HOT update.
 */
export const FILLFACTOR = 70;

const steps = (t: string): readonly string[] => [
  `CREATE TABLE ${t} (
    id text PRIMARY KEY,
    operation_id text NOT NULL UNIQUE,
    tenant_id text NOT NULL,
    run_id text,
    effect text NOT NULL,
    created_at double precision NOT NULL,
    expires_at double precision NOT NULL,
    body json NOT NULL,
    state text NOT NULL,
    fence bigint NOT NULL,
    lease_owner text,
    lease_until double precision,
    attempts bigint NOT NULL,
    not_before double precision,
    updated_at double precision NOT NULL,
    state_version json,
    approval json,
    rejection json,
    outcome json
  );
  CREATE INDEX ${t}_work ON ${t} (created_at, id) WHERE state IN ('approved', 'reconciling', 'executing');
  CREATE INDEX ${t}_expiry ON ${t} (expires_at, id) WHERE state = 'awaiting_approval';
  CREATE INDEX ${t}_tenant ON ${t} (tenant_id, created_at, id);
  CREATE INDEX ${t}_run ON ${t} (run_id) WHERE run_id IS NOT NULL;`,
  `CREATE OR REPLACE FUNCTION ${t}_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    PERFORM pg_notify('${t}', NEW.state);
    RETURN NULL;
  END
  $fn$;
  CREATE TRIGGER ${t}_notify AFTER UPDATE OF state ON ${t} FOR EACH ROW
    WHEN (NEW.state IN ('approved', 'reconciling') AND OLD.state IS DISTINCT FROM NEW.state)
    EXECUTE FUNCTION ${t}_notify();`,
  `ALTER TABLE ${t} ADD COLUMN resolution json;
  ALTER TABLE ${t} ADD CONSTRAINT ${t}_resolution CHECK (resolution IS NULL OR (state IN ('succeeded', 'failed') AND resolution ->> 'outcome' = state));`,
  `CREATE INDEX ${t}_tenant_state ON ${t} (tenant_id, state, created_at, id);`,
  `ALTER TABLE ${t} SET (fillfactor = ${FILLFACTOR});`,
];

/**
 * The migration to `target` (default {@link SCHEMA_VERSION}) of the store on table
 * `t` (an identifier the store has checked): one `DO` statement.
 */
export function migrationSql(t: string, target = SCHEMA_VERSION): string {
  const all = steps(t).slice(0, target);
  const body = all.map((sql, i) => `  IF v < ${i + 1} THEN\n${sql}\n  END IF;`).join("\n");
  return `DO $yada$
DECLARE v int;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('yada:${t}'));
  CREATE TABLE IF NOT EXISTS ${t}_schema (version int NOT NULL);
  SELECT coalesce(max(version), 0) INTO v FROM ${t}_schema;
  IF v > ${SCHEMA_VERSION} THEN
    RAISE EXCEPTION 'schema version % is newer than this code (${SCHEMA_VERSION})', v;
  END IF;
${body}
  IF v < ${all.length} THEN
    DELETE FROM ${t}_schema;
    INSERT INTO ${t}_schema (version) VALUES (${all.length});
  END IF;
END
$yada$`;
}
