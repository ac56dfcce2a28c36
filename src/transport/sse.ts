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
const EMPTY: Uint8Array = new Uint8Array(0);

// One decoder for every parser: decode() without `stream` keeps no state between
// calls, so each SSE answer need not construct its own. ignoreBOM: a U+FFFE inside a
// field value is content; only the one at the very start of the stream is dropped
// (on bytes, below). The default decoder would strip one at the start of every
// decode() call, i.e. of every value.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

// Field names (WHATWG: compared exactly), told apart by length, then bytes.
const OTHER = 0;
const DATA = 1;
const EVENT = 2;
const ID = 3;
const RETRY = 4;

function fieldOf(b: Uint8Array, at: number, len: number): number {
  if (len === 4) return b[at] === 0x64 && b[at + 1] === 0x61 && b[at + 2] === 0x74 && b[at + 3] === 0x61 ? DATA : OTHER;
  if (len === 2) return b[at] === 0x69 && b[at + 1] === 0x64 ? ID : OTHER;
  if (len !== 5) return OTHER;
  if (b[at] === 0x65 && b[at + 1] === 0x76 && b[at + 2] === 0x65 && b[at + 3] === 0x6e && b[at + 4] === 0x74) return EVENT;
  if (b[at] === 0x72 && b[at + 1] === 0x65 && b[at + 2] === 0x74 && b[at + 3] === 0x72 && b[at + 4] === 0x79) return RETRY;
  return OTHER;
}

// Long chunks are also read as 32-bit words. Line ends: every byte of the word minus
// 14, borrowing from the next byte only when it is below 14: a byte's high bit is set
// in (x - ONES * 14) & ~x iff some byte is below 14, i.e. maybe CR (13) or LF (10)
// ("determine if a word has a byte less than n", Bit Twiddling Hacks). Text rarely
// holds other bytes below 14 (tab, NUL), so a flagged word is nearly always a line
// end. Measured on 4 MiB of small events (Node 20): Uint8Array.indexOf walks ~1 ns
// per byte and needs one walk for LF and one for CR; the word test reads the same
// bytes in a fifth of that. Shorter chunks are not worth a view object (the tests
// feed single bytes).
const MIN_WORD_SCAN = 64;
const BELOW_14 = 0x0e0e0e0e;
const HIGH_BITS = 0x80808080 | 0;

/** A buffer (`own`, or a new one when it is too small or oversized) holding `src[from, to)` from index 0. */
function holding(own: Uint8Array, src: Uint8Array, from: number, to: number): Uint8Array {
  const len = to - from;
  // Do not pin a long id's buffer for the rest of the stream.
  const buf = len > own.length || (own.length > 65_536 && len <= 64) ? new Uint8Array(Math.max(len, 64)) : own;
  buf.set(src.subarray(from, to));
  return buf;
}

// One scan of a chunk records its line ends (CR or LF bytes) as index * 4 + flags
// telling what the bytes since the previous line end held: NON_ASCII (a byte >=
// 0x80) and ODD (a byte below 14 other than CR and LF, e.g. NUL).
const NON_ASCII = 1;
const ODD = 2;
// Line ends recorded per scan; a chunk with more is scanned again from the last one.
// A stream starts with room for a few (most answers are one short event: measured,
// allocating the full array for every answer was a tenth of the parser's cost per
// HTTP call) and grows to the most.
const FIRST_ENDS = 16;
const MOST_ENDS = 1024;
// index * 4 + 3 must fit an int32: longer chunks are fed in pieces of this size.
const MAX_PIECE = 1 << 28;

/**
 * The first CR or LF of `bytes` at or after `from` as index * 4 + flags (see
 * NON_ASCII), or -1. `words`, when given, views `bytes` from index `head` on, which
 * is 4-byte aligned in memory.
 */
function findLineEnd(bytes: Uint8Array, words: Int32Array | undefined, head: number, from: number): number {
  let i = from;
  let seen = 0; // every byte and word before i, or-ed: a high bit set means non-ASCII
  let odd = 0;
  if (words !== undefined && from < head + 4 * words.length) {
    // Bytes up to the next word boundary, then whole words, then the tail below.
    let w = (from - head + 3) >> 2; // the head is at most 3 bytes: from - head + 3 >= 0
    for (; i < head + 4 * w; i++) {
      const b = bytes[i] ?? 0;
      if (b < 14) {
        if (b === LF || b === CR) return i * 4 + ((seen & HIGH_BITS) === 0 ? 0 : NON_ASCII) + odd;
        odd = ODD;
      }
      seen |= b;
    }
    // Two words per test while no byte is below 14 (measured: a quarter faster on
    // long lines), then one at a time from the word that has one.
    for (const pairs = words.length - 1; w < pairs; w += 2) {
      const x = words[w] ?? 0;
      const y = words[w + 1] ?? 0;
      if (((((x - BELOW_14) & ~x) | ((y - BELOW_14) & ~y)) & HIGH_BITS) !== 0) break;
      seen |= x | y;
    }
    for (; w < words.length; w++) {
      const x = words[w] ?? 0;
      if (((x - BELOW_14) & ~x & HIGH_BITS) === 0) seen |= x;
      else {
        for (i = head + 4 * w; i < head + 4 * w + 4; i++) {
          const b = bytes[i] ?? 0;
          if (b < 14) {
            if (b === LF || b === CR) return i * 4 + ((seen & HIGH_BITS) === 0 ? 0 : NON_ASCII) + odd;
            odd = ODD;
          }
          seen |= b;
        }
      }
    }
    i = head + 4 * words.length;
  }
  for (; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b < 14) {
      if (b === LF || b === CR) return i * 4 + ((seen & HIGH_BITS) === 0 ? 0 : NON_ASCII) + odd;
      odd = ODD;
    }
    seen |= b;
  }
  return -1;
}

/**
 * Records the line ends of `bytes` from `from` on into `ends` (see NON_ASCII) and
 * returns how many; `ends.length` means it stopped there. Measured (Node 20): one
 * loop over the whole chunk that records line ends as it goes ran 2x slower than
 * this, as its rarely taken branches kept deoptimizing it.
 */
function scanLines(bytes: Uint8Array, words: Int32Array | undefined, head: number, from: number, ends: Int32Array): number {
  let k = 0;
  for (let pos = from; k < ends.length; k++) {
    const e = findLineEnd(bytes, words, head, pos);
    if (e < 0) break;
    ends[k] = e;
    pos = (e >> 2) + 1;
  }
  return k;
}

/**
 * The state of one stream. A class, not a closure per parser: its methods are the
 * same functions for every stream, so the engine's optimized code for the loops
 * below serves each new SSE answer. Measured: with per-parser closures, every new
 * parser deoptimized the scanning loop ("wrong call target") and a 10 MiB stream
 * parsed 1.5x slower.
 */
class EventStream {
  readonly #onEvent: (event: SseEvent) => void;
  readonly #onRetry: ((ms: number) => void) | undefined;
  readonly #max: number;

  // Line state: bytes of a line that has not ended yet, and whether the previous
  // chunk ended in CR (so a leading LF of the next one completes a CRLF).
  #pending: Uint8Array = EMPTY;
  #pendingLen = 0;
  #skipLF = false;
  #bomMatched = 0;
  #atStart = true;

  // The chunk being fed, its line ends found by the last scan (scanLines), how many,
  // and the entry and flags of the line being handled (an id line without ODD holds no NUL).
  #chunk: Uint8Array = EMPTY;
  #ends = new Int32Array(FIRST_ENDS);
  #count = 0;
  #entry = 0;
  #flags = 0;

  // Event state (WHATWG "data buffer", "event type buffer", "last event ID buffer").
  // The data buffer is bytes, decoded once at dispatch (Y3). While the event has
  // one data line that lies in the chunk being fed, it is only remembered as a
  // range of that chunk (#dataChunk); it is copied into #dataBuf when a second data
  // line comes or the chunk ends first.
  #hasData = false;
  // #dataBuf[#dataHead, #dataLen) holds the data; #dataHead is not 0 only when the
  // line buffer that held the first data line became the data buffer (swapped, not copied).
  #dataBuf: Uint8Array = EMPTY;
  #dataHead = 0;
  #dataLen = 0;
  #dataChunk: Uint8Array | undefined;
  #dataStart = 0;
  #dataEnd = 0;
  // The entry of #ends where that line ends, while it is one of the last scan.
  #dataEntry = -1;
  // Wire bytes of the field lines of the event so far, line ends included (Y3).
  #eventBytes = 0;
  #type = "";
  // Measured: one TextDecoder call costs ~100 ns however short the value, about
  // what a small event costs to scan. So the type string is reused while the bytes
  // repeat (servers send "message" every time), ids, which change with every
  // event but are rarely read, are kept as bytes and decoded when asked for, and
  // ASCII data values of one chunk share one decode (see #text).
  #typeBytes: Uint8Array = EMPTY;
  #typeText = "";
  // An id is a range of the chunk it came in (or of #own*, when it came in a line
  // split across chunks), copied only when the chunk ends while the id is still
  // referenced: measured, copying every event's id was ~10% of parsing small events.
  // While an `id` line came since the last dispatch (#idSet), #next* is the WHATWG
  // last event ID buffer and dispatch makes it #last*; otherwise it equals #last*.
  #idSet = false;
  #nextBuf: Uint8Array = EMPTY;
  #nextStart = 0;
  #nextEnd = 0;
  #lastBuf: Uint8Array = EMPTY;
  #lastStart = 0;
  #lastEnd = 0;
  #lastIdText: string | undefined = "";
  #ownNext: Uint8Array = EMPTY;
  #ownLast: Uint8Array = EMPTY;
  // A run of ASCII lines of the chunk being fed, decoded once: #runText is
  // chunk[#runStart, #runStop). Data values inside it are slices of that one string.
  #runText: string | undefined;
  #runStart = 0;
  #runStop = 0;

  constructor(options: SseParserOptions) {
    this.#onEvent = options.onEvent;
    this.#onRetry = options.onRetry;
    this.#max = options.maxEventBytes ?? MAX_SSE_EVENT_BYTES;
  }

  #overLimit(): never {
    throw new LimitError("MAX_SSE_EVENT_BYTES", this.#max, `an SSE event exceeds ${this.#max} bytes`);
  }

  // A buffer of at least `need` bytes holding the first `keep` of `buf`. Doubling
  // keeps a line or data that arrives in many slices linear overall; growth stops
  // at the event bound, so a buffer never exceeds it.
  #grow(buf: Uint8Array, keep: number, need: number): Uint8Array {
    if (need <= buf.length) return buf;
    const grown = new Uint8Array(Math.min(Math.max(need, buf.length * 2, 256), Math.max(need, this.#max)));
    grown.set(buf.subarray(0, keep));
    return grown;
  }

  #appendPending(src: Uint8Array, from: number, to: number): void {
    const need = this.#pendingLen + (to - from);
    if (need + this.#eventBytes > this.#max) this.#overLimit();
    this.#pending = this.#grow(this.#pending, this.#pendingLen, need);
    this.#pending.set(src.subarray(from, to), this.#pendingLen);
    this.#pendingLen = need;
  }

  // Appends bytes to the data buffer (the caller adds the "\n" between lines).
  #appendData(src: Uint8Array, from: number, to: number): void {
    const need = this.#dataLen + (to - from);
    this.#dataBuf = this.#grow(this.#dataBuf, this.#dataLen, need);
    this.#dataBuf.set(src.subarray(from, to), this.#dataLen);
    this.#dataLen = need;
  }

  // The single data line still referenced in its chunk moves into #dataBuf.
  #ownData(): void {
    if (this.#dataChunk === undefined) return;
    this.#appendData(this.#dataChunk, this.#dataStart, this.#dataEnd);
    this.#dataChunk = undefined;
  }

  // chunk[start, end) as text, the data line ending at entry #dataEntry. Node
  // decodes ASCII ~10x faster per byte than other UTF-8 but spends ~100 ns on any
  // call, and decoding a whole chunk that holds one non-ASCII byte takes the slow path
  // throughout (measured: 2x slower than one call per event on Node 20 and 22). So
  // the ASCII lines from an ASCII value on are decoded in one call and the values
  // inside them are slices; a value holding non-ASCII bytes is decoded alone.
  #text(start: number, end: number): string {
    const run = this.#runText;
    if (run !== undefined && start >= this.#runStart && end <= this.#runStop) {
      return run.slice(start - this.#runStart, end - this.#runStart);
    }
    const chunk = this.#chunk;
    const ends = this.#ends;
    let k = this.#dataEntry;
    if (k < 0 || ((ends[k] ?? 0) & NON_ASCII) !== 0) return decoder.decode(chunk.subarray(start, end));
    while (k + 1 < this.#count && ((ends[k + 1] ?? 0) & NON_ASCII) === 0) k++;
    const stop = (ends[k] ?? 0) >> 2;
    const text = decoder.decode(chunk.subarray(start, stop));
    this.#runText = text;
    this.#runStart = start;
    this.#runStop = stop;
    return end === stop ? text : text.slice(0, end - start);
  }

  #dispatch(): void {
    // WHATWG dispatch step 1 runs even when no data follows: an `id` alone moves
    // the last event ID.
    if (this.#idSet) {
      this.#idSet = false;
      if (this.#nextBuf === this.#ownNext) {
        this.#ownNext = this.#ownLast;
        this.#ownLast = this.#nextBuf;
      }
      this.#lastBuf = this.#nextBuf;
      this.#lastStart = this.#nextStart;
      this.#lastEnd = this.#nextEnd;
      this.#lastIdText = undefined;
    }
    this.#eventBytes = 0;
    if (!this.#hasData) {
      this.#type = "";
      return;
    }
    let data: string;
    if (this.#dataChunk !== undefined) {
      // A data line referenced in its chunk is always in the chunk being fed.
      data = this.#dataStart === this.#dataEnd ? "" : this.#text(this.#dataStart, this.#dataEnd);
      this.#dataChunk = undefined;
    } else {
      data = this.#dataLen === this.#dataHead ? "" : decoder.decode(this.#dataBuf.subarray(this.#dataHead, this.#dataLen));
      // Do not pin a large event's buffer for the rest of the stream.
      if (this.#dataBuf.length > 65_536) this.#dataBuf = EMPTY;
    }
    this.#hasData = false;
    this.#dataHead = this.#dataLen = 0;
    const event: SseEvent = { type: this.#type === "" ? "message" : this.#type, data };
    this.#type = "";
    this.#onEvent(event);
  }

  #setId(buf: Uint8Array, value: number, end: number): void {
    // A line of the chunk holds a NUL only if the scan flagged it ODD.
    if (buf !== this.#chunk || (this.#flags & ODD) !== 0) {
      for (let i = value; i < end; i++) if (buf[i] === 0) return; // contains NUL: ignored
    }
    if (buf === this.#pending) {
      // The line buffer is reused for the next line: copy now.
      this.#ownNext = holding(this.#ownNext, buf, value, end);
      this.#nextBuf = this.#ownNext;
      this.#nextStart = 0;
      this.#nextEnd = end - value;
    } else {
      this.#nextBuf = buf;
      this.#nextStart = value;
      this.#nextEnd = end;
    }
    this.#idSet = true;
  }

  // One line [start, end) of `buf`; `wire` is its length on the wire with its line end.
  #line(buf: Uint8Array, start: number, end: number, wire: number): void {
    if (start === end) return this.#dispatch();
    // A comment is no part of an event (WHATWG) and is not kept: keep-alive
    // comments may go on for longer than any event bound.
    if (buf[start] === COLON) return;
    this.#eventBytes += wire;
    if (this.#eventBytes > this.#max) this.#overLimit();
    let colon = start;
    while (colon < end && buf[colon] !== COLON) colon++;
    let value = colon < end ? colon + 1 : end;
    if (value < end && buf[value] === SPACE) value++;
    const field = fieldOf(buf, start, colon - start);
    if (field === DATA) {
      if (!this.#hasData) {
        this.#hasData = true;
        if (buf === this.#pending) {
          // The line buffer becomes the data buffer: no copy of a long line.
          this.#pending = this.#dataBuf;
          this.#dataBuf = buf;
          this.#dataHead = value;
          this.#dataLen = end;
        } else {
          this.#dataChunk = buf;
          this.#dataStart = value;
          this.#dataEnd = end;
          this.#dataEntry = this.#entry;
        }
      } else {
        this.#ownData();
        this.#dataBuf = this.#grow(this.#dataBuf, this.#dataLen, this.#dataLen + 1);
        this.#dataBuf[this.#dataLen++] = LF;
        this.#appendData(buf, value, end);
      }
    } else if (field === EVENT) {
      const known = this.#typeBytes;
      let same = end - value === known.length;
      if (same) {
        for (let i = 0; i < known.length; i++) {
          if (buf[value + i] !== known[i]) {
            same = false;
            break;
          }
        }
      }
      if (!same) {
        this.#typeBytes = buf.slice(value, end);
        this.#typeText = decoder.decode(this.#typeBytes);
      }
      this.#type = this.#typeText;
    } else if (field === ID) {
      this.#setId(buf, value, end);
    } else if (field === RETRY) {
      if (value === end) return;
      let ms = 0;
      for (let i = value; i < end; i++) {
        const c = buf[i] ?? 0;
        if (c < 0x30 || c > 0x39) return; // not only ASCII digits: ignored
        if (ms < Number.MAX_SAFE_INTEGER / 10) ms = ms * 10 + (c - 0x30);
      }
      this.#onRetry?.(ms);
    }
    // Any other field name is ignored.
  }

  // The chunk's line from `pos` ends at its CR or LF byte `i`. Returns where the next line starts.
  #lineEnd(i: number, pos: number): number {
    const chunk = this.#chunk;
    // Past a CRLF as one line end.
    let next = i + 1;
    if (chunk[i] === CR) {
      if (next === chunk.length) this.#skipLF = true;
      else if (chunk[next] === LF) next++;
    }
    if (this.#pendingLen > 0) {
      this.#appendPending(chunk, pos, i);
      const len = this.#pendingLen;
      this.#pendingLen = 0;
      this.#line(this.#pending, 0, len, len + next - i);
      if (this.#pending.length > 65_536) this.#pending = EMPTY; // do not pin a huge line's buffer
    } else {
      this.#line(chunk, pos, i, next - pos);
    }
    return next;
  }

  // Hands every complete line of the chunk from `pos` on to #line; returns where the
  // incomplete last line starts (the chunk's length when there is none).
  #lines(pos: number): number {
    const chunk = this.#chunk;
    let ends = this.#ends;
    // A long chunk is also viewed as 32-bit words from its first 4-byte aligned byte.
    const head = (4 - (chunk.byteOffset & 3)) & 3;
    const words = chunk.length - pos < MIN_WORD_SCAN ? undefined : new Int32Array(chunk.buffer, chunk.byteOffset + head, (chunk.length - head) >> 2);
    for (let from = pos; ; ) {
      const count = scanLines(chunk, words, head, from, ends);
      this.#count = count;
      for (let k = 0; k < count; k++) {
        const e = ends[k] ?? 0;
        const i = e >> 2;
        if (i < pos) continue; // the LF of a CRLF, already consumed
        this.#entry = k;
        this.#flags = e & 3;
        pos = this.#lineEnd(i, pos);
      }
      if (count < ends.length) return pos;
      // The next scan overwrites #ends: what refers to its entries is dropped.
      this.#dataEntry = -1;
      this.#runText = undefined;
      from = ((ends[count - 1] ?? 0) >> 2) + 1;
      if (ends.length < MOST_ENDS) this.#ends = ends = new Int32Array(ends.length * 4);
    }
  }

  // The chunk ends: what is still referenced in it is copied (the chunk is the caller's).
  #release(): void {
    const chunk = this.#chunk;
    this.#ownData();
    if (this.#lastBuf === chunk) {
      this.#ownLast = holding(this.#ownLast, chunk, this.#lastStart, this.#lastEnd);
      this.#lastBuf = this.#ownLast;
      this.#lastEnd -= this.#lastStart;
      this.#lastStart = 0;
    }
    if (!this.#idSet) this.#nextBuf = EMPTY;
    else if (this.#nextBuf === chunk) {
      this.#ownNext = holding(this.#ownNext, chunk, this.#nextStart, this.#nextEnd);
      this.#nextBuf = this.#ownNext;
      this.#nextEnd -= this.#nextStart;
      this.#nextStart = 0;
    }
    this.#chunk = EMPTY;
    this.#dataEntry = -1;
    this.#runText = undefined;
  }

  feed(bytes: Uint8Array): void {
    if (bytes.length > MAX_PIECE) {
      for (let at = 0; at < bytes.length; at += MAX_PIECE) this.feed(bytes.subarray(at, at + MAX_PIECE));
      return;
    }
    const n = bytes.length;
    let pos = 0;
    if (this.#atStart) {
      while (pos < n && this.#bomMatched < BOM.length && bytes[pos] === BOM[this.#bomMatched]) {
        this.#bomMatched++;
        pos++;
      }
      if (this.#bomMatched === BOM.length) this.#atStart = false;
      else if (pos < n) {
        // Not a BOM after all: the bytes matched so far are content.
        this.#atStart = false;
        this.#appendPending(BOM, 0, this.#bomMatched);
      } else return;
    }
    if (this.#skipLF && pos < n) {
      this.#skipLF = false;
      if (bytes[pos] === LF) pos++;
    }
    this.#chunk = bytes;
    try {
      pos = this.#lines(pos);
      if (pos < n) this.#appendPending(bytes, pos, n);
    } finally {
      this.#release();
    }
  }

  end(): void {
    this.#pendingLen = 0;
    this.#skipLF = false;
    this.#hasData = false;
    this.#dataHead = this.#dataLen = 0;
    this.#dataChunk = undefined;
    this.#eventBytes = 0;
    this.#type = "";
  }

  get lastEventId(): string {
    this.#lastIdText ??= this.#lastEnd === this.#lastStart ? "" : decoder.decode(this.#lastBuf.subarray(this.#lastStart, this.#lastEnd));
    return this.#lastIdText;
  }
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
  const stream = new EventStream(options);
  return {
    feed: (chunk) => stream.feed(chunk),
    end: () => stream.end(),
    get lastEventId() {
      return stream.lastEventId;
    },
  };
}
