// Validations per second of yada's JSON Schema validator against @cfworker/json-schema
// (the other eval-free validator) and ajv (code generation), on MCP-like tool schemas.
// Usage: node scripts/build.mjs --no-types && node scripts/bench/schema.mjs [--quick]
// Targets: every row >= 0.33x ajv, the geometric mean >= 20x cfworker, compile >= 1x cfworker.
import { Validator } from "@cfworker/json-schema";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { compileSchema } from "../../build/src/schema/index.js";

const QUICK = process.argv.includes("--quick");

// A filesystem-like edit tool: nested objects, arrays of objects, closed objects.
const editFile = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, maxLength: 4096 },
    edits: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: {
          oldText: { type: "string" },
          newText: { type: "string" },
          occurrence: { type: "integer", minimum: 1 },
        },
        required: ["oldText", "newText"],
        additionalProperties: false,
      },
    },
    dryRun: { type: "boolean", default: false },
    options: {
      type: "object",
      properties: { encoding: { enum: ["utf8", "latin1", "utf16le"] }, createBackup: { type: "boolean" } },
      additionalProperties: false,
    },
  },
  required: ["path", "edits"],
  additionalProperties: false,
};
const editFileValid = {
  path: "/home/user/project/src/index.ts",
  edits: [
    { oldText: "const a = 1;", newText: "const a = 2;" },
    { oldText: "foo()", newText: "bar()", occurrence: 2 },
    { oldText: "import x from 'y';", newText: "import { x } from 'y';" },
  ],
  dryRun: false,
  options: { encoding: "utf8", createBackup: true },
};
const editFileInvalid = { path: "", edits: [{ oldText: "a", newText: 3 }, { oldText: "b" }], options: { encoding: "ascii" } };

// The reference filesystem server's edit_file as zod-to-json-schema writes it (draft 7): a
// simple object schema, the kind most tools have, where a compiled validator is at its best.
const fsEditFile = {
  type: "object",
  properties: {
    path: { type: "string" },
    edits: {
      type: "array",
      items: {
        type: "object",
        properties: {
          oldText: { type: "string", description: "Text to search for - must match exactly" },
          newText: { type: "string", description: "Text to replace with" },
        },
        required: ["oldText", "newText"],
        additionalProperties: false,
      },
    },
    dryRun: { type: "boolean", default: false, description: "Preview changes using git-style diff format" },
  },
  required: ["path", "edits"],
  additionalProperties: false,
  $schema: "http://json-schema.org/draft-07/schema#",
};
const fsEditFileValid = { path: "/home/user/project/src/index.ts", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }], dryRun: false };
const fsEditFileInvalid = { path: "/home/user/project/src/index.ts", edits: [{ oldText: "const a = 1;" }] };

// The smallest common shape: one required string (read_file, get_page, ...).
const readFile = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" };

// A search tool: enum, pattern, integer bounds, oneOf between two query shapes.
const search = {
  type: "object",
  properties: {
    query: {
      oneOf: [
        { type: "string", minLength: 1, maxLength: 500 },
        {
          type: "object",
          properties: {
            field: { type: "string", pattern: "^[a-z_][a-z0-9_]*$" },
            op: { enum: ["eq", "ne", "lt", "gt", "contains"] },
            value: { type: ["string", "number", "boolean"] },
          },
          required: ["field", "op", "value"],
          additionalProperties: false,
        },
      ],
    },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    sort: { type: "string", enum: ["relevance", "date", "name"] },
    lang: { type: "string", pattern: "^[a-z]{2}(-[A-Z]{2})?$" },
    tags: { type: "array", items: { type: "string", maxLength: 50 }, uniqueItems: true, maxItems: 20 },
  },
  required: ["query"],
};
const searchValid = {
  query: { field: "created_at", op: "gt", value: 1700000000 },
  limit: 25,
  sort: "date",
  lang: "en-US",
  tags: ["infra", "urgent", "backend"],
};
const searchInvalid = { query: { field: "Created-At", op: "like", value: null }, limit: 500, lang: "english", tags: ["a", "a"] };

// A GitHub-MCP-like create_issue schema, as zod-to-json-schema emits it (draft 7).
const createIssue = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    owner: { type: "string", description: "Repository owner" },
    repo: { type: "string", description: "Repository name" },
    title: { type: "string", description: "Issue title" },
    body: { type: "string", description: "Issue body content" },
    assignees: { type: "array", items: { type: "string" }, description: "Usernames to assign to this issue" },
    labels: { type: "array", items: { type: "string" }, description: "Labels to apply to this issue" },
    milestone: { type: "number", description: "Milestone number" },
    type: { type: "string", description: "Type of this issue" },
  },
  required: ["owner", "repo", "title"],
  additionalProperties: false,
};
const createIssueValid = {
  owner: "octocat",
  repo: "hello-world",
  title: "Crash when opening settings",
  body: "Steps to reproduce:\n1. Open the app\n2. Click settings",
  assignees: ["octocat", "hubot"],
  labels: ["bug", "p1"],
  milestone: 3,
};
const createIssueInvalid = { owner: "octocat", title: 7, labels: ["bug", 2], extra: true };

// A large schema: $defs, a recursive filter tree through $ref, shared definitions.
const report = {
  type: "object",
  $defs: {
    field: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_.]*$", maxLength: 128 },
    scalar: { type: ["string", "number", "boolean", "null"] },
    condition: {
      type: "object",
      properties: {
        field: { $ref: "#/$defs/field" },
        op: { enum: ["=", "!=", "<", "<=", ">", ">=", "in", "like"] },
        value: { anyOf: [{ $ref: "#/$defs/scalar" }, { type: "array", items: { $ref: "#/$defs/scalar" }, maxItems: 100 }] },
      },
      required: ["field", "op", "value"],
      additionalProperties: false,
    },
    group: {
      type: "object",
      properties: {
        combinator: { enum: ["and", "or"] },
        rules: { type: "array", items: { $ref: "#/$defs/rule" }, minItems: 1 },
        negate: { type: "boolean" },
      },
      required: ["combinator", "rules"],
      additionalProperties: false,
    },
    rule: { oneOf: [{ $ref: "#/$defs/condition" }, { $ref: "#/$defs/group" }] },
    column: {
      type: "object",
      properties: {
        field: { $ref: "#/$defs/field" },
        label: { type: "string", maxLength: 200 },
        aggregate: { enum: ["sum", "avg", "min", "max", "count"] },
        format: { type: "object", properties: { decimals: { type: "integer", minimum: 0, maximum: 10 }, unit: { type: "string" } } },
      },
      required: ["field"],
      additionalProperties: false,
    },
  },
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    source: { type: "string", enum: ["orders", "customers", "products", "events"] },
    columns: { type: "array", items: { $ref: "#/$defs/column" }, minItems: 1, maxItems: 50 },
    filter: { $ref: "#/$defs/group" },
    orderBy: { type: "array", items: { type: "object", properties: { field: { $ref: "#/$defs/field" }, desc: { type: "boolean" } }, required: ["field"] } },
    limit: { type: "integer", minimum: 1, maximum: 10000 },
  },
  required: ["name", "source", "columns"],
  additionalProperties: false,
};
const reportValid = {
  name: "Weekly revenue",
  source: "orders",
  columns: [
    { field: "region", label: "Region" },
    { field: "amount", aggregate: "sum", format: { decimals: 2, unit: "EUR" } },
    { field: "order_id", aggregate: "count" },
  ],
  filter: {
    combinator: "and",
    rules: [
      { field: "status", op: "in", value: ["paid", "shipped"] },
      { combinator: "or", rules: [{ field: "amount", op: ">", value: 100 }, { field: "customer.vip", op: "=", value: true }] },
      { combinator: "and", negate: true, rules: [{ field: "country", op: "=", value: "FR" }, { combinator: "or", rules: [{ field: "x", op: "<", value: 1 }] }] },
    ],
  },
  orderBy: [{ field: "amount", desc: true }],
  limit: 500,
};
const reportInvalid = {
  name: "Weekly revenue",
  source: "orders",
  columns: [{ field: "1bad" }],
  filter: { combinator: "xor", rules: [{ field: "status", op: "~", value: {} }, { combinator: "or", rules: [] }] },
};

// An issue tracker's create_issue with patterns on repository, labels, logins and a due date.
const trackerIssue = {
  type: "object",
  properties: {
    repository: { type: "string", pattern: "^[A-Za-z0-9_.-]{1,39}/[A-Za-z0-9_.-]{1,100}$" },
    title: { type: "string", minLength: 1, maxLength: 256 },
    body: { type: "string", maxLength: 65536 },
    labels: { type: "array", items: { type: "string", pattern: "^[a-z0-9][a-z0-9 :._-]{0,49}$" }, maxItems: 20, uniqueItems: true },
    assignees: { type: "array", items: { type: "string", pattern: "^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38}$" }, maxItems: 10 },
    due: { type: "string", pattern: "^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])$" },
    priority: { enum: ["low", "medium", "high", "urgent"] },
  },
  required: ["repository", "title"],
  additionalProperties: false,
};
const trackerValid = {
  repository: "octo-org/hello-world",
  title: "Crash when opening settings",
  body: "Steps to reproduce:\n1. Open the app\n2. Click settings",
  labels: ["bug", "area: ui", "p1"],
  assignees: ["octocat", "hubot-2"],
  due: "2026-12-24",
  priority: "high",
};
const trackerInvalid = { repository: "octo-org", title: "x", labels: ["Bug!"], due: "2026-13-01" };

// A calendar event with formats (asserted) and patterns.
const calendarEvent = {
  type: "object",
  properties: {
    summary: { type: "string", minLength: 1, maxLength: 200 },
    start: { type: "string", format: "date-time" },
    end: { type: "string", format: "date-time" },
    timeZone: { type: "string", pattern: "^[A-Za-z_]+(?:/[A-Za-z_+-]+){0,2}$" },
    attendees: {
      type: "array",
      items: { type: "object", properties: { email: { type: "string", format: "email" }, optional: { type: "boolean" } }, required: ["email"], additionalProperties: false },
      maxItems: 50,
    },
    location: { type: "string", maxLength: 500 },
    recurrence: { type: "string", pattern: "^RRULE:FREQ=(?:DAILY|WEEKLY|MONTHLY|YEARLY)(?:;[A-Z]+=[A-Z0-9,]+)*$" },
    meetingUrl: { type: "string", format: "uri" },
  },
  required: ["summary", "start", "end"],
  additionalProperties: false,
};
const calendarValid = {
  summary: "Planning",
  start: "2026-12-01T10:00:00Z",
  end: "2026-12-01T11:00:00+01:00",
  timeZone: "Europe/Paris",
  attendees: [{ email: "ana@example.com" }, { email: "bo@example.org", optional: true }],
  recurrence: "RRULE:FREQ=WEEKLY;BYDAY=MO,WE",
  meetingUrl: "https://meet.example.com/abc-defg",
};
const calendarInvalid = { summary: "Planning", start: "tomorrow", end: "2026-12-01T11:00:00Z", attendees: [{ email: "not-an-email" }], timeZone: "Europe Paris" };

const cases = [
  { name: "filesystem edit_file (draft 7)", schema: fsEditFile, draft: "7", valid: fsEditFileValid, invalid: fsEditFileInvalid },
  { name: "read_file (draft 7)", schema: readFile, draft: "7", valid: { path: "/home/user/notes.md" }, invalid: { path: 42 } },
  { name: "edit_file", schema: editFile, draft: "2020-12", valid: editFileValid, invalid: editFileInvalid },
  { name: "search (oneOf, pattern)", schema: search, draft: "2020-12", valid: searchValid, invalid: searchInvalid },
  { name: "create_issue (draft 7)", schema: createIssue, draft: "7", valid: createIssueValid, invalid: createIssueInvalid },
  { name: "report ($defs, recursive $ref)", schema: report, draft: "2020-12", valid: reportValid, invalid: reportInvalid },
  { name: "tracker create_issue (patterns)", schema: trackerIssue, draft: "2020-12", valid: trackerValid, invalid: trackerInvalid },
  { name: "calendar event (formats)", schema: calendarEvent, draft: "2020-12", valid: calendarValid, invalid: calendarInvalid, formats: true },
];

function newAjv(draft, allErrors = false, formats = false) {
  const opts = { strict: false, validateFormats: false, allErrors };
  if (formats) {
    // ajv ships no formats without ajv-formats: the same checks as plain regexes (cheaper than full checks).
    opts.validateFormats = true;
    opts.formats = { "date-time": /^\d{4}-\d{2}-\d{2}[tT]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[zZ]|[+-]\d{2}:\d{2})$/, email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, uri: /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/ };
  }
  return draft === "7" ? new Ajv(opts) : new Ajv2020(opts);
}

// The machine may be shared and noisy: every figure is the best of ROUNDS rounds,
// and the validators of one row take turns within each round.
const ROUNDS = QUICK ? 3 : 7;
const ROUND_MS = QUICK ? 60 : 200;

function warm(fn) {
  for (let i = 0; i < 5000; i++) fn();
}

function roundOps(fn) {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ROUND_MS) {
    for (let i = 0; i < 500; i++) fn();
    n += 500;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/** Best operations per second of each function, measured in alternating rounds. */
function opsPerSec(fns) {
  for (const fn of fns) warm(fn);
  const best = fns.map(() => 0);
  for (let r = 0; r < ROUNDS; r++) fns.forEach((fn, i) => (best[i] = Math.max(best[i], roundOps(fn))));
  return best;
}

/**
 * Best microseconds per compile over ROUNDS rounds, each on fresh copies of the
 * schema (ajv caches by object). `then` runs on each compiled result inside the
 * timing (used for "compile + first validation").
 */
function compileMicros(make, schema, then = null) {
  const n = QUICK ? 300 : 1000;
  let best = Infinity;
  for (let r = 0; r < ROUNDS + 1; r++) {
    const copies = Array.from({ length: n }, () => structuredClone(schema));
    const start = performance.now();
    if (then === null) for (const c of copies) make(c);
    else for (const c of copies) then(make(c));
    const us = ((performance.now() - start) * 1000) / n;
    if (r > 0) best = Math.min(best, us); // round 0 warms up
  }
  return best;
}

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(0)}k` : x.toFixed(0));
const rows = [];
const ratiosCf = [];
const ratiosAjv = [];
const byKind = { valid: { cf: [], ajv: [] }, invalid: { cf: [], ajv: [] } };
const allRows = [];
const compileRows = [];
const compileRatiosCf = [];
const firstRatiosCf = [];
for (const c of cases) {
  const ours = compileSchema(c.schema, c.formats ? { formats: "assert" } : {});
  const cf = new Validator(c.schema, c.draft);
  const ajv = newAjv(c.draft, false, c.formats).compile(c.schema);
  for (const kind of ["valid", "invalid"]) {
    const inst = c[kind];
    const expect = kind === "valid";
    if (ours.validate(inst).valid !== expect || cf.validate(inst).valid !== expect || ajv(inst) !== expect) {
      throw new Error(`${c.name} ${kind}: validators disagree`);
    }
    const [y, f, a] = opsPerSec([() => ours.validate(inst), () => cf.validate(inst), () => ajv(inst)]);
    ratiosCf.push(y / f);
    ratiosAjv.push(y / a);
    byKind[kind].cf.push(y / f);
    byKind[kind].ajv.push(y / a);
    rows.push([c.name, kind, fmt(y), fmt(f), fmt(a), `${(y / f).toFixed(1)}x`, `${(y / a).toFixed(2)}x`]);
  }
  // Every issue of the invalid instance: yada allIssues, cfworker without short-circuit, ajv allErrors.
  {
    const inst = c.invalid;
    const cfAll = new Validator(c.schema, c.draft, false);
    const ajvAll = newAjv(c.draft, true).compile(c.schema);
    const n = ours.validate(inst, { allIssues: true });
    const [y, f, a] = opsPerSec([() => ours.validate(inst, { allIssues: true }), () => cfAll.validate(inst), () => ajvAll(inst)]);
    allRows.push([c.name, n.valid ? 0 : n.issues.length, fmt(y), fmt(f), fmt(a), `${(y / f).toFixed(1)}x`, `${(y / a).toFixed(2)}x`]);
  }
  const ajvShared = newAjv(c.draft);
  const cy = compileMicros((s) => compileSchema(s), c.schema);
  const cc = compileMicros((s) => new Validator(s, c.draft), c.schema);
  const ca = compileMicros((s) => ajvShared.compile(s), c.schema);
  const fy = compileMicros((s) => compileSchema(s), c.schema, (v) => v.validate(c.valid));
  const fc = compileMicros((s) => new Validator(s, c.draft), c.schema, (v) => v.validate(c.valid));
  compileRatiosCf.push(cc / cy);
  firstRatiosCf.push(fc / fy);
  compileRows.push([c.name, cy.toFixed(1), cc.toFixed(1), ca.toFixed(1), fy.toFixed(1), fc.toFixed(1)]);
}

function table(head, body) {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (r) => "| " + r.map((x, i) => String(x).padEnd(w[i])).join(" | ") + " |";
  console.log(line(head));
  console.log("|" + w.map((n) => "-".repeat(n + 2)).join("|") + "|");
  for (const r of body) console.log(line(r));
}
const geo = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

console.log(`node ${process.version}; validations per second (higher is better), best of ${ROUNDS} rounds\n`);
console.log(
  "modes: all three stop at the first failure and report it with its location:\n" +
    "  yada validate(x): one issue (instance path, schema path, message);\n" +
    "  cfworker new Validator(schema, draft) (shortCircuit: true): errors with locations;\n" +
    "  ajv allErrors: false: validate.errors holds the first error.\n",
);
table(["schema", "instance", "yada", "cfworker", "ajv", "yada/cfworker", "yada/ajv"], rows);
console.log(`\ngeometric mean, all rows: ${geo(ratiosCf).toFixed(1)}x cfworker (target >= 20x), ${geo(ratiosAjv).toFixed(2)}x ajv`);
const below = rows.filter((r) => parseFloat(r[6]) < 0.33);
console.log(`every row >= 0.33x ajv: ${below.length === 0 ? "met" : `NOT met (${below.map((r) => `${r[0]} ${r[1]} ${r[6]}`).join("; ")})`}`);
for (const kind of ["valid", "invalid"]) {
  console.log(`geometric mean, ${kind} instances: ${geo(byKind[kind].cf).toFixed(1)}x cfworker, ${geo(byKind[kind].ajv).toFixed(2)}x ajv`);
}
console.log(
  "\nevery issue of the invalid instance: yada validate(x, { allIssues: true }) (up to MAX_SCHEMA_ISSUES),\n" +
    "cfworker shortCircuit: false, ajv allErrors: true (not in the means above)\n",
);
table(["schema", "yada issues", "yada", "cfworker", "ajv", "yada/cfworker", "yada/ajv"], allRows);
console.log("\ncompile time, microseconds per schema (lower is better); yada builds each subschema's closure on first use,");
console.log("so the last two columns add the first validation of the valid instance\n");
table(["schema", "yada", "cfworker", "ajv", "yada + 1st validate", "cfworker + 1st validate"], compileRows);
console.log(`\ngeometric mean: yada compiles ${geo(compileRatiosCf).toFixed(1)}x faster than cfworker (target >= 1x)`);
console.log(`geometric mean, compile + first validation: ${geo(firstRatiosCf).toFixed(1)}x faster than cfworker`);
