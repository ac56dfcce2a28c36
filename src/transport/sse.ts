/**
 * A Server-Sent Events parser over bytes (H2), following the WHATWG HTML
 * "event stream interpretation" rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 *
 * It scans `Uint8Array` chunks for line ends and decodes only field values:
 * field names are matched as bytes, comment lines and unknown fields are never
 * decoded. One pass over the input; a line split across chunks is kept in one
 * growable buffer, so a line streamed in many tiny slices stays linear.
 *
 * Y3: the event bound counts wire bytes (field names, empty data lines, unknown
 * fields and line ends all count; comments, which are not kept, do not), and an event's data is decoded once, at dispatch:
 * a single data line straight from the chunk it arrived in, several lines from
 * one growable byte buffer. No string is built by repeated concatenation, so the
 * memory one stream holds stays within about twice its bound.
 *
 * @module
 */
import { LimitError } from "../errors.js";
import { MAX_SSE_EVENT_BYTES } from "../limits.js";

/**
 * One dispatched event. Its last event ID is {@link SseParser.lastEventId}, which
 * is up to date when `onEvent` runs.
 */
export interface SseEvent {
  /** The `event` field, or `"message"` when the event set none (WHATWG default). */
  type: string;
  /** The `data` lines joined with `"\n"`. Empty for a priming event (`id: 1` + `data:`). */
  data: string;
}

/** Options of {@link createSseParser}. */
export interface SseParserOptions {
  /** Called once per dispatched event, synchronously inside `feed()`. */
  onEvent(event: SseEvent): void;
  /** Called with the value of every valid `retry` field (digits only), in milliseconds. */
  onRetry?(ms: number): void;
  /** Bound on the wire bytes of one event, every line up to its blank line (default `MAX_SSE_EVENT_BYTES`). */
  maxEventBytes?: number;
}

/** The parser returned by {@link createSseParser}. */
export interface SseParser {
  /**
   * Parses the next chunk of the stream. Chunks may split the stream anywhere,
   * including inside a UTF-8 sequence or between the CR and LF of a CRLF.
   *
   * @throws LimitError (`limit`, `MAX_SSE_EVENT_BYTES`) when one event outgrows the
   * bound; the parser must not be fed again after that.
   */
  feed(chunk: Uint8Array): void;
  /**
   * The stream ended. An event not yet terminated by a blank line is discarded, as
   * WHATWG requires ("the incomplete event is not dispatched").
   */
  end(): void;
  /**
   * Makes the parser as new, for another stream: nothing of the one before is kept
   * (no partial line or event, no last event ID, no buffer). Cheaper than creating
   * one per stream.
   */
  reset(): void;
  /**
   * The last event ID (WHATWG "last event ID string"): set when an event is
   * dispatched, so inside `onEvent` it is that event's. `""` when none.
   */
  readonly lastEventId: string;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
// Buffers start empty and grow on use: most answers over HTTP are one short event.
const EMPTY: Uint8Array = new Uint8Array(0);

// One decoder for every parser: decode() without `stream` keeps no state between
// calls, so each SSE answer need not construct its own. ignoreBOM: a U+FEFF inside a field value is content; only the one
// at the very start of the stream is dropped (on bytes, below). The default decoder
// would strip one at the start of every decode() call, i.e. of every value.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

// Field names (WHATWG: compared exactly), told apart by length, then bytes:
// measured, a loop comparing against each name was a tenth of parsing small events.
const OTHER = 0;
const DATA = 1;
const EVENT = 2;
const ID = 3;
const RETRY = 4;

/** `own`, or a new buffer when it is too small, holding `src[from, to)` from index 0. */
function holding(own: Uint8Array, src: Uint8Array, from: number, to: number): Uint8Array {
  const buf = to - from > own.length ? new Uint8Array(Math.max(to - from, 64)) : own;
  buf.set(src.subarray(from, to));
  return buf;
}

function fieldOf(b: Uint8Array, at: number, len: number): number {
  if (len === 4) return b[at] === 0x64 && b[at + 1] === 0x61 && b[at + 2] === 0x74 && b[at + 3] === 0x61 ? DATA : OTHER;
  if (len === 2) return b[at] === 0x69 && b[at + 1] === 0x64 ? ID : OTHER;
  if (len !== 5) return OTHER;
  if (b[at] === 0x65 && b[at + 1] === 0x76 && b[at + 2] === 0x65 && b[at + 3] === 0x6e && b[at + 4] === 0x74) return EVENT;
  return b[at] === 0x72 && b[at + 1] === 0x65 && b[at + 2] === 0x74 && b[at + 3] === 0x72 && b[at + 4] === 0x79 ? RETRY : OTHER;
}

// Line ends are searched four bytes at a time. Measured on 4 MiB of small events
// (Node 20): Uint8Array.indexOf walks ~1 ns per byte and the parser needed one walk
// for LF and one for CR, ~7 ms together, a third of the whole cost of parsing; the
// word test below reads the same bytes in ~1.5 ms. Shorter chunks are not worth a
// view object (the tests feed single bytes).
const MIN_WORD_SCAN = 64;
// Every byte of the word minus 14, borrowing from the next byte only when it is
// below 14: a byte's high bit is set in (x - ONES * 14) & ~x iff some byte is below
// 14, i.e. maybe CR (13) or LF (10) ("determine if a word has a byte less than n",
// Bit Twiddling Hacks). Text rarely holds other bytes below 14 (tab, NUL), so a
// flagged word is nearly always a line end.
const BELOW_14 = 0x0e0e0e0e;
const HIGH_BITS = 0x80808080 | 0;

function isLineEnd(b: number | undefined): boolean {
  return b === LF || b === CR;
}

/**
 * The index of the first CR or LF in `bytes` at or after `from`, or -1. `words`,
 * when given, views `bytes` from index `head` on, which is 4-byte aligned in memory.
 */
function findLineEnd(bytes: Uint8Array, words: Int32Array | undefined, head: number, from: number): number {
  let i = from;
  if (words !== undefined && from < head + 4 * words.length) {
    // Bytes up to the next word boundary, then whole words, then the tail below.
    let w = (from - head + 3) >> 2; // head is at most 3: from - head + 3 >= 0
    for (; i < head + 4 * w; i++) if (isLineEnd(bytes[i])) return i;
    // Two words per test while no byte is below 14 (measured: a quarter faster on
    // long lines), then one at a time from the word that has one.
    for (const pairs = words.length - 1; w < pairs; w += 2) {
      const x = words[w] ?? 0;
      const y = words[w + 1] ?? 0;
      if (((((x - BELOW_14) & ~x) | ((y - BELOW_14) & ~y)) & HIGH_BITS) !== 0) break;
    }
    for (; w < words.length; w++) {
      const x = words[w] ?? 0;
      if (((x - BELOW_14) & ~x & HIGH_BITS) !== 0) {
        for (i = head + 4 * w; i < head + 4 * w + 4; i++) if (isLineEnd(bytes[i])) return i;
      }
    }
    i = head + 4 * words.length;
  }
  for (; i < bytes.length; i++) if (isLineEnd(bytes[i])) return i;
  return -1;
}

/**
 * Creates an incremental SSE parser (H2): `data` lines joined with `"\n"`; CR, LF
 * and CRLF line ends (a CRLF split across chunks counts once); one leading BOM
 * skipped; comments (`:`) ignored; `event`, `id` (ignored when it contains NUL),
 * `retry` (digits only); a line without a colon is a field with an empty value; an
 * event without a terminating blank line at end of stream is not dispatched.
 *
 * Bounds: the wire bytes of one event (every field line since the last blank line,
 * line ends included, plus the line still arriving; comments are not kept and do not count) are limited by `maxEventBytes` (Y3).
 *
 * @throws LimitError (`limit`) from `feed()` when an event outgrows the bound.
 *
 * @example
 * ```ts
 * const parser = createSseParser({ onEvent: (e) => console.log(e.type, e.data) });
 * parser.feed(new TextEncoder().encode("data: {\"a\":1}\n\n"));
 * ```
 */
export function createSseParser(options: SseParserOptions): SseParser {
  const { onEvent, onRetry } = options;
  const maxEventBytes = options.maxEventBytes ?? MAX_SSE_EVENT_BYTES;

  // Line state: bytes of a line that has not ended yet, and whether the previous
  // chunk ended in CR (so a leading LF of the next one completes a CRLF).
  let pending = EMPTY;
  let pendingLen = 0;
  let skipLF = false;
  let bomMatched = 0;
  let atStart = true;

  // Event state (WHATWG "data buffer", "event type buffer", "last event ID buffer").
  // The data buffer is bytes, decoded once at dispatch (Y3). While the event has
  // one data line that lies in the chunk being fed, it is only remembered as a
  // range of that chunk (dataChunk); it is copied into dataBuf when a second data
  // line comes or the chunk ends first.
  let hasData = false;
  // dataBuf[dataHead, dataLen) holds the data; dataHead is not 0 only when the
  // line buffer that held the first data line became the data buffer (swapped, not copied).
  let dataBuf = EMPTY;
  let dataHead = 0;
  let dataLen = 0;
  let dataChunk: Uint8Array | undefined;
  let dataStart = 0;
  let dataEnd = 0;
  // Wire bytes of the field lines of the event so far, line ends included (Y3).
  let eventBytes = 0;
  let type = "";
  // Measured: one TextDecoder call costs ~150 ns however short the value, about
  // what a small event costs to scan. So the type string is reused while the bytes
  // repeat (servers send "message" every time), and ids, which change with every
  // event but are rarely read, are kept as bytes and decoded when asked for.
  let typeBytes = EMPTY;
  let typeText = "";
  // An id is a range of the buffer it came in: of the chunk being fed, copied only
  // if the chunk ends while it is still referenced, or of own*, when it came in a
  // line split across chunks (the line buffer is reused at once). Profiled: copying
  // every event's id was ~8% of the parser's time on small events. While an `id` line came since
  // the last dispatch (idSet), next* is the WHATWG last event ID buffer and dispatch
  // makes it last*; otherwise it equals last*.
  let idSet = false;
  let nextBuf = EMPTY;
  let nextStart = 0;
  let nextEnd = 0;
  let lastBuf = EMPTY;
  let lastStart = 0;
  let lastEnd = 0;
  let ownNext = EMPTY;
  let ownLast = EMPTY;
  let lastIdText: string | undefined = "";

  function overLimit(): never {
    throw new LimitError("MAX_SSE_EVENT_BYTES", maxEventBytes, `an SSE event exceeds ${maxEventBytes} bytes`);
  }

  // A buffer of at least `need` bytes holding the first `keep` of `buf`. Doubling
  // keeps a line or data that arrives in many slices linear overall; growth stops
  // at the event bound, so a buffer never exceeds it.
  function grow(buf: Uint8Array, keep: number, need: number): Uint8Array {
    if (need <= buf.length) return buf;
    const grown = new Uint8Array(Math.min(Math.max(need, buf.length * 2, 256), Math.max(need, maxEventBytes)));
    grown.set(buf.subarray(0, keep));
    return grown;
  }

  function appendPending(src: Uint8Array, from: number, to: number): void {
    const need = pendingLen + (to - from);
    if (need + eventBytes > maxEventBytes) overLimit();
    pending = grow(pending, pendingLen, need);
    pending.set(src.subarray(from, to), pendingLen);
    pendingLen = need;
  }

  // Appends bytes to the data buffer (the caller adds the "\n" between lines).
  function appendData(src: Uint8Array, from: number, to: number): void {
    const need = dataLen + (to - from);
    dataBuf = grow(dataBuf, dataLen, need);
    dataBuf.set(src.subarray(from, to), dataLen);
    dataLen = need;
  }

  // The single data line still referenced in its chunk moves into dataBuf.
  function ownData(): void {
    if (dataChunk === undefined) return;
    appendData(dataChunk, dataStart, dataEnd);
    dataChunk = undefined;
  }

  function dispatch(): void {
    // WHATWG dispatch step 1 runs even when no data follows: an `id` alone moves
    // the last event ID.
    if (idSet) {
      idSet = false;
      if (nextBuf === ownNext) {
        ownNext = ownLast;
        ownLast = nextBuf;
      }
      lastBuf = nextBuf;
      lastStart = nextStart;
      lastEnd = nextEnd;
      lastIdText = undefined;
    }
    eventBytes = 0;
    if (!hasData) {
      type = "";
      return;
    }
    let data: string;
    if (dataChunk !== undefined) {
      data = dataStart === dataEnd ? "" : decoder.decode(dataChunk.subarray(dataStart, dataEnd));
      dataChunk = undefined;
    } else {
      data = dataLen === dataHead ? "" : decoder.decode(dataBuf.subarray(dataHead, dataLen));
      // Do not pin a large event's buffer for the rest of the stream.
      if (dataBuf.length > 65_536) dataBuf = EMPTY;
    }
    hasData = false;
    dataHead = dataLen = 0;
    const event: SseEvent = { type: type === "" ? "message" : type, data };
    type = "";
    onEvent(event);
  }

  function setId(buf: Uint8Array, value: number, end: number): void {
    for (let i = value; i < end; i++) if (buf[i] === 0) return; // contains NUL: ignored
    idSet = true;
    if (buf !== pending) {
      nextBuf = buf;
      nextStart = value;
      nextEnd = end;
      return;
    }
    nextBuf = ownNext = holding(ownNext, buf, value, end);
    nextStart = 0;
    nextEnd = end - value;
  }

  // The chunk ends: an id still referenced in it is copied (the chunk is the caller's).
  function releaseIds(chunk: Uint8Array): void {
    if (lastBuf === chunk) {
      lastBuf = ownLast = holding(ownLast, chunk, lastStart, lastEnd);
      lastEnd -= lastStart;
      lastStart = 0;
    }
    if (!idSet) nextBuf = EMPTY;
    else if (nextBuf === chunk) {
      nextBuf = ownNext = holding(ownNext, chunk, nextStart, nextEnd);
      nextEnd -= nextStart;
      nextStart = 0;
    }
  }

  // One line [start, end) of `buf`; `wire` is its length on the wire with its line end.
  function line(buf: Uint8Array, start: number, end: number, wire: number): void {
    if (start === end) return dispatch();
    // A comment is no part of an event (WHATWG) and is not kept: keep-alive
    // comments may go on for longer than any event bound.
    if (buf[start] === COLON) return;
    eventBytes += wire;
    if (eventBytes > maxEventBytes) overLimit();
    let colon = start;
    while (colon < end && buf[colon] !== COLON) colon++;
    let value = colon < end ? colon + 1 : end;
    if (value < end && buf[value] === SPACE) value++;
    const field = fieldOf(buf, start, colon - start);
    if (field === DATA) {
      if (!hasData) {
        hasData = true;
        if (buf === pending) {
          // The line buffer becomes the data buffer: no copy of a long line.
          const spare = dataBuf;
          dataBuf = pending;
          pending = spare;
          dataHead = value;
          dataLen = end;
        } else {
          dataChunk = buf;
          dataStart = value;
          dataEnd = end;
        }
      } else {
        ownData();
        dataBuf = grow(dataBuf, dataLen, dataLen + 1);
        dataBuf[dataLen++] = LF;
        appendData(buf, value, end);
      }
    } else if (field === EVENT) {
      const known = typeBytes;
      let same = end - value === known.length;
      for (let i = 0; same && i < known.length; i++) same = buf[value + i] === known[i];
      if (!same) {
        typeBytes = buf.slice(value, end);
        typeText = decoder.decode(typeBytes);
      }
      type = typeText;
    } else if (field === ID) {
      setId(buf, value, end);
    } else if (field === RETRY) {
      if (value === end) return;
      let ms = 0;
      for (let i = value; i < end; i++) {
        const c = buf[i] ?? 0;
        if (c < 0x30 || c > 0x39) return; // not only ASCII digits: ignored
        if (ms < Number.MAX_SAFE_INTEGER / 10) ms = ms * 10 + (c - 0x30);
      }
      onRetry?.(ms);
    }
    // Any other field name is ignored.
  }

  function feed(chunk: Uint8Array): void {
    const n = chunk.length;
    let pos = 0;
    if (atStart) {
      while (pos < n && bomMatched < BOM.length && chunk[pos] === BOM[bomMatched]) {
        bomMatched++;
        pos++;
      }
      if (bomMatched === BOM.length) atStart = false;
      else if (pos < n) {
        // Not a BOM after all: the bytes matched so far are content.
        atStart = false;
        appendPending(BOM, 0, bomMatched);
      } else return;
    }
    if (skipLF && pos < n) {
      skipLF = false;
      if (chunk[pos] === LF) pos++;
    }
    // A long chunk is also viewed as 32-bit words from its first 4-byte aligned byte.
    const head = (4 - (chunk.byteOffset & 3)) & 3;
    const words = n - pos < MIN_WORD_SCAN ? undefined : new Int32Array(chunk.buffer, chunk.byteOffset + head, (n - head) >> 2);
    while (pos < n) {
      const lineEnd = findLineEnd(chunk, words, head, pos);
      if (lineEnd === -1) {
        appendPending(chunk, pos, n);
        break;
      }
      // Where the next line starts: past a CRLF as one line end.
      let next = lineEnd + 1;
      if (chunk[lineEnd] === CR) {
        if (next === n) skipLF = true;
        else if (chunk[next] === LF) next++;
      }
      if (pendingLen > 0) {
        appendPending(chunk, pos, lineEnd);
        const len = pendingLen;
        pendingLen = 0;
        line(pending, 0, len, len + next - lineEnd);
        if (pending.length > 65_536) pending = EMPTY; // do not pin a huge line's buffer
      } else {
        line(chunk, pos, lineEnd, next - pos);
      }
      pos = next;
    }
    // The chunk is the caller's: a data line or id still referenced in it is copied.
    ownData();
    releaseIds(chunk);
  }

  function end(): void {
    pendingLen = 0;
    skipLF = false;
    hasData = false;
    dataHead = dataLen = 0;
    dataChunk = undefined;
    eventBytes = 0;
    type = "";
  }

  function reset(): void {
    end();
    pending = dataBuf = nextBuf = lastBuf = ownNext = ownLast = EMPTY;
    bomMatched = nextStart = nextEnd = lastStart = lastEnd = 0;
    atStart = true;
    idSet = false;
    lastIdText = "";
  }

  return {
    feed,
    end,
    reset,
    get lastEventId() {
      lastIdText ??= lastEnd === lastStart ? "" : decoder.decode(lastBuf.subarray(lastStart, lastEnd));
      return lastIdText;
    },
  };
}
