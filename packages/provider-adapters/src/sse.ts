/**
 * An incremental Server-Sent Events decoder (WHATWG rules: `\n`, `\r\n` or `\r` line ends,
 * multi-line `data`, comments ignored). Bytes may be split anywhere, even inside a UTF-8
 * character or a line end, because the network splits them anywhere.
 */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

export class SseDecoder {
  readonly #decoder = new TextDecoder('utf-8');
  #buffer = '';
  #event: string | undefined;
  /** The event's `data` lines joined by `\n`; undefined until it has one. */
  #data: string | undefined;
  /** A `\r` ended the previous push; a `\n` starting the next one belongs to it. */
  #pendingCr = false;

  push(bytes: Uint8Array): SseEvent[] {
    return this.#consume(this.#decoder.decode(bytes, { stream: true }));
  }

  /** The stream ended: an event without its blank line is dispatched (servers often omit it). */
  end(): SseEvent[] {
    const events = this.#consume(`${this.#decoder.decode()}\n\n`);
    this.#buffer = '';
    return events;
  }

  #consume(text: string): SseEvent[] {
    let input = text;
    if (this.#pendingCr && input.startsWith('\n')) input = input.slice(1);
    this.#pendingCr = false;
    this.#buffer += input;
    const buffer = this.#buffer;
    const events: SseEvent[] = [];
    let start = 0;
    // Jump from line end to line end (indexOf is native) instead of testing every character;
    // a buffer without `\r` (the usual case) never searches for one again.
    let cr = buffer.indexOf('\r');
    for (;;) {
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start);
      const lf = buffer.indexOf('\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      this.#line(buffer, start, end, events);
      let next = end + 1;
      if (end === cr) {
        if (next === buffer.length) this.#pendingCr = true;
        else if (buffer.charCodeAt(next) === 10) next++;
      }
      start = next;
    }
    this.#buffer = buffer.slice(start);
    return events;
  }

  /**
   * The line `buffer[start, end)`. Its usual forms (`data: ...`, `event: ...`) are read in place,
   * without slicing the line and then its field and value apart.
   */
  #line(buffer: string, start: number, end: number, events: SseEvent[]): void {
    if (start === end) {
      if (this.#data !== undefined) events.push({ event: this.#event, data: this.#data });
      this.#data = undefined;
      this.#event = undefined;
    } else if (buffer.startsWith('data:', start)) {
      this.#addData(valueOf(buffer, start + 5, end));
    } else if (buffer.startsWith('event:', start)) {
      this.#event = valueOf(buffer, start + 6, end);
    } else {
      this.#otherLine(buffer.slice(start, end));
    }
  }

  /** Comments, fields this decoder ignores (`id`, `retry`), and a field name without a colon. */
  #otherLine(line: string): void {
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : valueOf(line, colon + 1, line.length);
    if (field === 'data') this.#addData(value);
    else if (field === 'event') this.#event = value;
  }

  #addData(value: string): void {
    this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
  }
}

/** A field's value: what follows its colon, less one leading space. */
function valueOf(text: string, from: number, end: number): string {
  return text.slice(text.charCodeAt(from) === 32 && from < end ? from + 1 : from, end);
}
