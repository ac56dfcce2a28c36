/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640; V9): list a
 * server's skills, get one by URI, and load one lazily with every file verified
 * against its entry: byte size, SHA-256 digest, and (for SKILL.md) the YAML
 * frontmatter compared field by field. Nothing is read before it is needed, and a
 * file that fails verification is never returned.
 *
 * @module
 */
import { LimitError, ProtocolError } from "../errors.js";
import { MAX_CURSOR_CHARS, MAX_LIST_PAGES, MAX_QUOTED_CHARS, MAX_SKILL_RESOURCES, MAX_SKILL_TOTAL_BYTES, MAX_SKILLS_LISTED } from "../limits.js";
import { isRecord, type JsonRecord } from "./fields.js";
import { frontmatterMatches } from "./skill-frontmatter.js";
import type { ResourceContents } from "./types.js";

/** The extension identifier of skills. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** One file of a skill, as its entry lists it. */
export interface SkillFile {
  uri: string;
  /** `sha256:` and 64 lowercase hex digits. */
  digest: string;
  /** Byte length of the file's raw content. */
  size: number;
}

/** A skill entry (`skills/list`, `skills/get`); untrusted, shape-checked. */
export interface Skill {
  /** URI of the skill's SKILL.md. */
  uri: string;
  /** The SKILL.md frontmatter as the server renders it; `name` and `description` always present. */
  frontmatter: { name: string; description: string } & JsonRecord;
  /** Every file of the skill, or `"dynamic"` (no integrity possible). At most `MAX_SKILL_RESOURCES`. */
  resources: SkillFile[] | "dynamic";
}

/** A verified, loaded skill. */
export interface LoadedSkill {
  skill: Skill;
  /** The SKILL.md text, verified. */
  text: string;
  /**
   * Reads one supporting file, by a path relative to the skill's root or by its
   * full URI, verified against the entry. An unlisted file is refused.
   *
   * @throws ProtocolError (`protocol`) on any verification failure; LimitError (`limit`) past
   * `MAX_SKILL_TOTAL_BYTES` read for the skill; request errors.
   */
  readFile(path: string, options?: { signal?: AbortSignal }): Promise<Uint8Array>;
}

/** What the skill functions need of a client (an `McpClient`). */
export interface SkillsClient {
  readonly name: string;
  readonly serverCapabilities: JsonRecord;
  request(method: string, params?: JsonRecord, options?: { signal?: AbortSignal }): Promise<JsonRecord>;
  readResource(uri: string, options?: { signal?: AbortSignal }): Promise<ResourceContents[]>;
}

/**
 * Does the server declare the skills extension (with resources, as the extension requires)?
 *
 * @example
 * ```ts
 * if (serverHasSkills(client)) console.log(await listSkills(client));
 * ```
 */
export function serverHasSkills(client: Pick<SkillsClient, "serverCapabilities">): boolean {
  const caps = client.serverCapabilities;
  return isRecord(caps.extensions) && isRecord(caps.extensions[SKILLS_EXTENSION]) && isRecord(caps.resources);
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Checks one skill entry. @throws ProtocolError (`protocol`), LimitError (`limit`) */
export function parseSkill(v: unknown, where: string): Skill {
  if (!isRecord(v) || typeof v.uri !== "string" || !isRecord(v.frontmatter)) throw new ProtocolError(`${where}: a skill entry needs a "uri" and a "frontmatter" object`);
  const fm = v.frontmatter;
  if (typeof fm.name !== "string" || typeof fm.description !== "string") throw new ProtocolError(`${where}: a skill's frontmatter needs string "name" and "description"`);
  const at = `${where}: skill ${v.uri.slice(0, MAX_QUOTED_CHARS)}`;
  const frontmatter = fm as Skill["frontmatter"];
  if (v.resources === "dynamic") return { uri: v.uri, frontmatter, resources: "dynamic" };
  if (!Array.isArray(v.resources)) throw new ProtocolError(`${at}: "resources" must be an array or "dynamic"`);
  if (v.resources.length > MAX_SKILL_RESOURCES) throw new LimitError("MAX_SKILL_RESOURCES", MAX_SKILL_RESOURCES, `${at} lists ${v.resources.length} files; the limit is ${MAX_SKILL_RESOURCES}`);
  let total = 0;
  const resources: SkillFile[] = [];
  for (const r of v.resources as unknown[]) {
    if (!isRecord(r) || typeof r.uri !== "string" || typeof r.digest !== "string" || !DIGEST.test(r.digest) || !Number.isSafeInteger(r.size) || (r.size as number) < 0) {
      throw new ProtocolError(`${at}: each file needs a "uri", a "sha256:<hex>" digest and a byte "size"`);
    }
    total += r.size as number;
    resources.push({ uri: r.uri, digest: r.digest, size: r.size as number });
  }
  if (total > MAX_SKILL_TOTAL_BYTES) throw new LimitError("MAX_SKILL_TOTAL_BYTES", MAX_SKILL_TOTAL_BYTES, `${at}: its files total ${total} bytes; the limit is ${MAX_SKILL_TOTAL_BYTES}`);
  return { uri: v.uri, frontmatter, resources };
}

/**
 * Lists the server's skills (`skills/list`), following `nextCursor` within
 * `MAX_LIST_PAGES` pages and `MAX_SKILLS_LISTED` skills. Reads no file.
 *
 * @throws ProtocolError (`protocol`), LimitError (`limit`), request errors.
 * @example
 * ```ts
 * import { listSkills, loadSkill } from "yada-mcp";
 * const [first] = await listSkills(client);
 * if (first) console.log((await loadSkill(client, first)).text);
 * ```
 */
export async function listSkills(client: SkillsClient, options: { signal?: AbortSignal } = {}): Promise<Skill[]> {
  const where = `${client.name}: skills/list`;
  const skills: Skill[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_LIST_PAGES; page++) {
    const result = await client.request("skills/list", cursor === undefined ? {} : { cursor }, options);
    if (!Array.isArray(result.skills)) throw new ProtocolError(`${where}: "skills" must be an array`);
    if (skills.length + result.skills.length > MAX_SKILLS_LISTED) throw new LimitError("MAX_SKILLS_LISTED", MAX_SKILLS_LISTED, `${where} lists more than ${MAX_SKILLS_LISTED} skills`);
    for (const [i, s] of (result.skills as unknown[]).entries()) skills.push(parseSkill(s, `${where} skills[${i}]`));
    const next = result.nextCursor ?? undefined;
    if (next === undefined) return skills;
    if (typeof next !== "string" || next.length > MAX_CURSOR_CHARS || seen.has(next)) throw new ProtocolError(`${where}: a bad or repeated cursor`);
    seen.add(next);
    cursor = next;
  }
  throw new LimitError("MAX_LIST_PAGES", MAX_LIST_PAGES, `${where} has more than ${MAX_LIST_PAGES} pages`);
}

/**
 * The entry of one skill by the URI of its SKILL.md (`skills/get`): for a skill
 * named elsewhere (instructions, another skill) or to refresh a listed entry.
 *
 * @throws as {@link listSkills}; the server answers -32602 (JsonRpcError) for a URI that is not a skill.
 * @example
 * ```ts
 * const skill = await getSkill(client, "skill://acme/pdf-tools/SKILL.md");
 * ```
 */
export async function getSkill(client: SkillsClient, uri: string, options: { signal?: AbortSignal } = {}): Promise<Skill> {
  const result = await client.request("skills/get", { uri }, options);
  return parseSkill(result.skill, `${client.name}: skills/get`);
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (const b of d) hex += b.toString(16).padStart(2, "0");
  return hex;
}

// The raw bytes of one read: text as UTF-8, a blob decoded from base64.
function bytesOf(contents: ResourceContents[], uri: string, where: string): Uint8Array {
  const c = contents.find((x) => x.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (!c) throw new ProtocolError(`${where}: the read returned no contents for the file`);
  if ("text" in c) return new TextEncoder().encode(c.text);
  if ("blob" in c) {
    if (c.blob.length > (MAX_SKILL_TOTAL_BYTES * 4) / 3 + 4) throw new LimitError("MAX_SKILL_TOTAL_BYTES", MAX_SKILL_TOTAL_BYTES, `${where}: the file exceeds ${MAX_SKILL_TOTAL_BYTES} bytes`);
    let binary: string;
    try {
      binary = atob(c.blob);
    } catch {
      throw new ProtocolError(`${where}: the file's blob is not base64`);
    }
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  }
  return c satisfies never;
}

/**
 * Loads a skill: reads its SKILL.md (only now: lazy retrieval), verifies its size
 * and digest against the entry (when the entry lists files), parses its YAML
 * frontmatter and compares it field by field with the entry's. Any discrepancy is
 * a verification failure and nothing is returned.
 *
 * @throws ProtocolError (`protocol`) for a failed verification, an entry whose URI does not end in
 * `<name>/SKILL.md`, or a SKILL.md missing from the entry's files; LimitError (`limit`); request errors. * @example
 * ```ts
 * const loaded = await loadSkill(client, skill);
 * const forms = new TextDecoder().decode(await loaded.readFile("references/FORMS.md"));
 * ```
 */
export async function loadSkill(client: SkillsClient, skill: Skill, options: { signal?: AbortSignal } = {}): Promise<LoadedSkill> {
  const where = `${client.name}: skill ${skill.uri.slice(0, MAX_QUOTED_CHARS)}`;
  if (!skill.uri.endsWith(`/${skill.frontmatter.name}/SKILL.md`) && !skill.uri.endsWith(`://${skill.frontmatter.name}/SKILL.md`)) {
    throw new ProtocolError(`${where}: the URI does not end in the skill's name and /SKILL.md`);
  }
  const root = skill.uri.slice(0, -"SKILL.md".length);
  let budget = MAX_SKILL_TOTAL_BYTES;
  const read = async (uri: string, signal: AbortSignal | undefined): Promise<Uint8Array> => {
    const entry = skill.resources === "dynamic" ? undefined : skill.resources.find((r) => r.uri === uri);
    if (skill.resources !== "dynamic" && !entry) throw new ProtocolError(`${where}: ${uri.slice(0, MAX_QUOTED_CHARS)} is not one of the skill's files, which is a verification failure`);
    const bytes = bytesOf(await client.readResource(uri, { signal }), uri, where);
    budget -= bytes.length;
    if (budget < 0) throw new LimitError("MAX_SKILL_TOTAL_BYTES", MAX_SKILL_TOTAL_BYTES, `${where}: its files exceed ${MAX_SKILL_TOTAL_BYTES} bytes`);
    if (entry) {
      // Size first: a length mismatch fails without hashing (SEP-2640 "Resources").
      if (bytes.length !== entry.size) throw new ProtocolError(`${where}: ${uri.slice(0, MAX_QUOTED_CHARS)} is ${bytes.length} bytes, its entry says ${entry.size}: verification failed`);
      if (`sha256:${await sha256Hex(bytes)}` !== entry.digest) throw new ProtocolError(`${where}: ${uri.slice(0, MAX_QUOTED_CHARS)} does not match its digest: verification failed`);
    }
    return bytes;
  };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await read(skill.uri, options.signal));
  } catch (e) {
    if (e instanceof TypeError) throw new ProtocolError(`${where}: SKILL.md is not UTF-8 text`);
    throw e;
  }
  const mismatch = frontmatterMatches(text, skill.frontmatter);
  if (mismatch !== undefined) throw new ProtocolError(`${where}: the SKILL.md frontmatter differs from the entry (${mismatch}): verification failed`);
  return {
    skill,
    text,
    readFile: (path, o = {}) => read(path.includes("://") ? path : root + path.replace(/^\.?\//, ""), o.signal),
  };
}
