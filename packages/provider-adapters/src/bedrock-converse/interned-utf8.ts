/**
 * A UTF-8 decoder for strings known to repeat: event-stream header names and values
 * (`:event-type`, `application/json`, `contentBlockDelta`, ...) come again on every frame.
 * Finding one of them by comparing bytes costs a fraction of decoding it; anything else is
 * decoded. The table is fixed when built, so what an upstream sends never grows it.
 */
interface Entry {
  readonly bytes: Uint8Array;
  readonly text: string;
}

export class InternedUtf8 {
  readonly #decoder = new TextDecoder('utf-8');
  /** Entries by byte length: a lookup compares only strings of the right length. */
  readonly #byLength: Entry[][] = [];

  constructor(known: readonly string[]) {
    const encoder = new TextEncoder();
    for (const text of new Set(known)) {
      const bytes = encoder.encode(text);
      (this.#byLength[bytes.length] ??= []).push({ bytes, text });
    }
  }

  /** Bound, so it can be handed over as a plain function (the smithy codec's `toUtf8`). */
  readonly decode = (bytes: Uint8Array): string => {
    const candidates = this.#byLength[bytes.length];
    if (candidates !== undefined) {
      for (const entry of candidates) if (sameBytes(entry.bytes, bytes)) return entry.text;
    }
    return this.#decoder.decode(bytes);
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
