// What a test leaves behind, by the runtime's own counters: sockets, servers,
// child processes, pipes and timers (process.getActiveResourcesInfo()).
const WATCHED = ["TCPSocketWrap", "TCPServerWrap", "ProcessWrap", "PipeWrap", "Timeout", "TTYWrap", "FSReqCallback"];

/** Counts of the watched resource kinds now. */
export function resources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) if (WATCHED.includes(kind)) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** What `now` holds beyond `baseline`, as "kind +n" strings. */
function beyond(baseline: Record<string, number>, now: Record<string, number>): string[] {
  return Object.entries(now)
    .filter(([kind, n]) => n > (baseline[kind] ?? 0))
    .map(([kind, n]) => `${kind} +${n - (baseline[kind] ?? 0)}`);
}

/**
 * Waits (at most `ms`) until no watched resource is held beyond `baseline`;
 * returns what is still held then ([] when nothing leaked). Sockets and processes
 * take a few event-loop turns to be released after close().
 */
export async function leaksAfter(baseline: Record<string, number>, ms = 5_000): Promise<string[]> {
  const end = Date.now() + ms;
  for (;;) {
    const extra = beyond(baseline, resources());
    if (extra.length === 0 || Date.now() > end) return extra;
    await new Promise((r) => setTimeout(r, 25));
  }
}
