/**
 * Where a URL from a server may send the client (A8). An MCP server's metadata and
 * challenges name URLs the client then requests: its resource metadata, its
 * authorization server, that server's endpoints. A hostile server could name an
 * address inside the client's own network (`http://127.0.0.1:8080/admin`, a router
 * at `192.168.1.1`, a cloud metadata service at `169.254.169.254`) and have the
 * client send requests there. So every such URL is classified by its host, and one
 * on a loopback, private, link-local or literal-IP address is refused unless the MCP
 * server itself is on an address of the same kind (a server on loopback, the host's
 * own machine, may name any).
 *
 * Only the URL's text is classified: no name is resolved here. A DNS name that
 * resolves to a private address passes; the host's `fetch` (the `fetch` option of
 * {@link OAuthClient}) is the one place names are resolved, and where a host pins them.
 *
 * @module
 */
import { OAuthError } from "../errors.js";

/**
 * The kind of a URL's host:
 * - `name`: a DNS name (not `localhost`);
 * - `loopback`: `localhost`, `*.localhost`, the loopback names common hosts files ship
 *   (`localhost.localdomain`, `localhost4`, `localhost6`, `ip6-localhost`, `ip6-loopback`, ...),
 *   127.0.0.0/8, `::1`, and the unspecified `0.0.0.0` / `::`;
 * - `private`: RFC 1918 (10/8, 172.16/12, 192.168/16), shared address space (100.64/10), RFC 4193 (fc00::/7), site-local fec0::/10;
 * - `link-local`: 169.254/16, fe80::/10;
 * - `ip`: any other literal IP address (public, multicast, reserved).
 *
 * IPv4-mapped and NAT64 IPv6 addresses are classified by the IPv4 address inside.
 */
export type AddressKind = "name" | "loopback" | "private" | "link-local" | "ip";

/** The kind of an IPv4 address given as four octets. */
function ipv4Kind(o: readonly number[]): AddressKind {
  const [a = 0, b = 0] = o;
  if (a === 127 || a === 0) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return "private";
  if (a === 169 && b === 254) return "link-local";
  return "ip";
}

/** The eight 16-bit groups of a serialized IPv6 address (as URL.hostname gives it, without brackets), or undefined. */
function ipv6Groups(s: string): number[] | undefined {
  if (s.length > 45 || !/^[0-9a-f:.]+$/.test(s)) return undefined;
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const part = (h: string): number[] | undefined => {
    if (h === "") return [];
    const out: number[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = part(halves[0] ?? "");
  const tail = halves.length === 2 ? part(halves[1] ?? "") : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  if (head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

function ipv6Kind(g: readonly number[]): AddressKind {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const v4 = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return "loopback"; // :: and ::1
    if (g5 === 0xffff || g5 === 0) return ipv4Kind(v4); // IPv4-mapped, IPv4-compatible
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(v4); // NAT64
  if ((g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfec0) return "private";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  return "ip";
}

/**
 * Names the hosts files of common systems map to loopback out of the box (Debian and
 * Ubuntu: `ip6-localhost`, `ip6-loopback`; Red Hat and SUSE: `localhost.localdomain`,
 * `localhost4`, `localhost6` and their `.localdomain` forms): the host's resolver
 * answers them from that file, so they are loopback as surely as `localhost`.
 */
const HOSTS_LOOPBACK: ReadonlySet<string> = new Set([
  "localhost.localdomain",
  "localhost4",
  "localhost4.localdomain4",
  "localhost6",
  "localhost6.localdomain6",
  "ip6-localhost",
  "ip6-loopback",
]);

/**
 * The kind of `hostname` as `URL.hostname` serializes it (IPv4 in dotted decimal,
 * IPv6 in brackets, names lowercased).
 *
 * @example
 * ```ts
 * addressKind(new URL("http://[::ffff:127.0.0.1]/").hostname); // "loopback"
 * addressKind("10.1.2.3"); // "private"
 * addressKind("mcp.example.com"); // "name"
 * ```
 */
export function addressKind(hostname: string): AddressKind {
  const h = hostname.toLowerCase().replace(/\.+$/, "");
  if (h.startsWith("[") && h.endsWith("]")) {
    const groups = ipv6Groups(h.slice(1, -1));
    return groups === undefined ? "ip" : ipv6Kind(groups);
  }
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (v4) return ipv4Kind(v4.slice(1).map(Number));
  if (h === "localhost" || h.endsWith(".localhost") || HOSTS_LOOPBACK.has(h)) return "loopback";
  return "name";
}

/** The kind of the host of the MCP server at `url`: what the URLs it names are measured against (`name`, the strictest, for a URL that does not parse). */
export function reachOf(url: string | URL): AddressKind {
  try {
    return addressKind(new URL(url).hostname);
  } catch {
    return "name";
  }
}

/**
 * May a URL on a host of kind `target` be requested for an MCP server on a host of
 * kind `server`? A DNS name always may (name resolution is the host's `fetch`'s);
 * any other kind only when the server is on the same kind, or on loopback.
 */
export function mayReach(target: AddressKind, server: AddressKind): boolean {
  return target === "name" || target === server || server === "loopback";
}

/**
 * Refuses `url`, taken from the field `field` of `what`, when its host may not be
 * reached for a server of kind `server` ({@link mayReach}).
 *
 * @throws OAuthError (`oauth`, kind `private_address`, `field` set).
 */
export function checkReach(url: URL, field: string, what: string, server: AddressKind): void {
  const target = addressKind(url.hostname);
  if (mayReach(target, server)) return;
  const kind = target === "ip" ? "a literal IP address" : target === "link-local" ? "a link-local address" : `a ${target} address`;
  const on = server === "name" ? "a DNS name" : server === "ip" ? "a literal IP address" : `a ${server} address`;
  throw new OAuthError("private_address", `${what}: ${field} (${url.origin}) is on ${kind}, and the MCP server is on ${on}; it is not requested`, { field });
}
