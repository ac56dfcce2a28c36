/**
 * SKILL.md frontmatter verification (V9, SEP-2640 "Frontmatter Verification"):
 * the YAML block between the leading `---` lines is parsed and compared field by
 * field with the entry's JSON frontmatter. The parser reads the subset skills use
 * (block mappings, block sequences, plain and quoted scalars, comments); anything
 * else (anchors, flow collections, block scalars, tags) fails closed: the skill is
 * not verified, so it is not loaded.
 *
 * @module
 */
import { MAX_INSTANCE_DEPTH, MAX_SKILL_FRONTMATTER_BYTES } from "../limits.js";
import { isRecord } from "./fields.js";

/** A parsed YAML node: a scalar keeps its text and whether it was quoted (typing is decided when compared). */
type Node = { scalar: string; quoted: boolean } | { map: Map<string, Node> } | { list: Node[] };

class Unsupported extends Error {}

interface Line {
  indent: number;
  text: string;
}

// A plain scalar's comment starts at " #"; quoted scalars are unquoted here.
function scalar(raw: string): Node {
  const v = raw.trim();
  if (v.startsWith('"')) {
    if (!v.endsWith('"') || v.length < 2) throw new Unsupported("an unterminated double-quoted scalar");
    try {
      const s: unknown = JSON.parse(v);
      if (typeof s === "string") return { scalar: s, quoted: true };
    } catch {
      // falls through
    }
    throw new Unsupported("a double-quoted scalar with escapes this parser does not read");
  }
  if (v.startsWith("'")) {
    if (!v.endsWith("'") || v.length < 2) throw new Unsupported("an unterminated single-quoted scalar");
    return { scalar: v.slice(1, -1).replaceAll("''", "'"), quoted: true };
  }
  const plain = v.replace(/\s+#.*$/, "");
  if (/^[|>&*!%@`{[]/.test(plain)) throw new Unsupported("YAML beyond plain mappings, sequences and scalars");
  return { scalar: plain, quoted: false };
}

function block(lines: Line[], at: { i: number }, indent: number, depth: number): Node {
  if (depth > MAX_INSTANCE_DEPTH) throw new Unsupported("frontmatter nested too deep");
  const first = lines[at.i];
  if (!first) throw new Unsupported("an empty block");
  if (first.text.startsWith("- ") || first.text === "-") {
    const list: Node[] = [];
    while (at.i < lines.length && (lines[at.i] as Line).indent === indent && /^-( |$)/.test((lines[at.i] as Line).text)) {
      const item = (lines[at.i] as Line).text.slice(1).trim();
      at.i++;
      if (item === "") list.push(block(lines, at, (lines[at.i]?.indent ?? -1) > indent ? (lines[at.i] as Line).indent : indent + 1, depth + 1));
      else if (/^[^'"\s][^:]*:(\s|$)/.test(item)) throw new Unsupported("a mapping inside a sequence item");
      else list.push(scalar(item));
    }
    return { list };
  }
  const map = new Map<string, Node>();
  while (at.i < lines.length && (lines[at.i] as Line).indent === indent) {
    const { text } = lines[at.i] as Line;
    const m = /^([^'"\s#][^:]*?):(?:\s+(.*))?$/.exec(text);
    if (!m) throw new Unsupported("a line that is not `key: value`");
    const key = m[1] as string;
    if (map.has(key)) throw new Unsupported("a repeated key");
    at.i++;
    const rest = m[2]?.trim() ?? "";
    if (rest !== "" && !rest.startsWith("#")) map.set(key, scalar(rest));
    else {
      const next = lines[at.i];
      // A nested block, or a sequence at the key's own indentation (common YAML style).
      if (next && (next.indent > indent || (next.indent === indent && /^-( |$)/.test(next.text)))) map.set(key, block(lines, at, next.indent, depth + 1));
      else map.set(key, { scalar: "", quoted: false });
    }
  }
  return { map };
}

/** The frontmatter block of a SKILL.md, parsed. @throws Unsupported */
function parse(text: string): Node {
  const m = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!m) throw new Unsupported("SKILL.md does not begin with a --- frontmatter block");
  const body = m[1] as string;
  // The bound is in UTF-8 bytes: a character is at least one, so the length alone refuses most.
  if (body.length > MAX_SKILL_FRONTMATTER_BYTES || new TextEncoder().encode(body).length > MAX_SKILL_FRONTMATTER_BYTES) throw new Unsupported("the frontmatter is too large");
  const lines: Line[] = [];
  for (const raw of body.split(/\r?\n/)) {
    if (raw.trim() === "" || raw.trimStart().startsWith("#")) continue;
    if (/^\s*\t/.test(raw)) throw new Unsupported("tab indentation");
    const indent = raw.length - raw.trimStart().length;
    lines.push({ indent, text: raw.trim() });
  }
  if (lines.length === 0) return { map: new Map() };
  const at = { i: 0 };
  const node = block(lines, at, (lines[0] as Line).indent, 0);
  if (at.i !== lines.length) throw new Unsupported("inconsistent indentation");
  return node;
}

// A scalar equals a JSON value when YAML's core schema would read it as that value.
function same(node: Node, value: unknown, path: string): string | undefined {
  if ("map" in node) {
    if (!isRecord(value)) return `${path} is a mapping in SKILL.md only`;
    const keys = Object.keys(value);
    if (keys.length !== node.map.size) return `${path} has other fields`;
    for (const k of keys) {
      const child = node.map.get(k);
      if (!child) return `${path}.${k} is missing from SKILL.md`;
      const d = same(child, value[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  if ("list" in node) {
    if (!Array.isArray(value) || value.length !== node.list.length) return `${path} differs as a list`;
    for (let i = 0; i < value.length; i++) {
      const d = same(node.list[i] as Node, value[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const { scalar: s, quoted } = node;
  const ok =
    typeof value === "string"
      ? s === value
      : quoted
        ? false
        : typeof value === "number"
          ? s !== "" && Number(s) === value
          : typeof value === "boolean"
            ? s === String(value)
            : value === null && (s === "" || s === "~" || s === "null");
  return ok ? undefined : `${path} differs`;
}

/**
 * Compares a SKILL.md's frontmatter with an entry's: undefined when they agree,
 * else a short reason (which field, never its value).
 */
export function frontmatterMatches(skillMd: string, frontmatter: Record<string, unknown>): string | undefined {
  let node: Node;
  try {
    node = parse(skillMd);
  } catch (e) {
    if (e instanceof Unsupported) return `unreadable: ${e.message}`;
    throw e;
  }
  return same(node, frontmatter, "frontmatter");
}
