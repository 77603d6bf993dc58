/**
 * The gateway's own credentials, taken out of upstream text before it is relayed or logged.
 * Upstreams echo what they were sent (a key in a 400, a token in a 429), and the pattern
 * scrubbing of the adapters only knows what keys usually look like; this knows the values: every
 * configured secret (added when its signer is created) and every token obtained at run time
 * (OAuth access tokens, temporary AWS credentials, added when they arrive).
 *
 * Any run of at least SECRET_RUN characters of a secret is replaced, so a truncated or partly
 * quoted key goes too. Every SECRET_RUN-gram of every secret is indexed in one Map, and a text is
 * scanned once, one lookup per position: linear in the text, whatever the number of secrets.
 * Adjacent or overlapping hits are one replacement. It runs on error text only.
 */

/** The shortest run of a secret that is redacted; shorter ones are ordinary text ("Bearer a"). */
export const SECRET_RUN = 8;
export const REDACTED = '[redacted]';

/**
 * Secrets obtained at run time from one source: each refresh replaces them. The values of the
 * generation before stay redacted too (a call signed with them may still be answered), older
 * ones are forgotten so that hourly tokens do not grow the index for ever.
 */
export interface ObtainedSecrets {
  update(values: readonly (string | undefined)[]): void;
}

export class SecretRedactor {
  /** SECRET_RUN-gram -> how many indexed secret values contain it (once per position). */
  readonly #grams = new Map<string, number>();
  readonly #configured = new Set<string>();

  /** A configured secret, kept for the process's life. */
  add(secret: string | undefined): void {
    if (secret === undefined || this.#configured.has(secret)) return;
    this.#configured.add(secret);
    this.#index(secret, 1);
  }

  /** A source of run-time secrets (one signer's token cache or credential chain). */
  obtained(): ObtainedSecrets {
    let current: readonly string[] = [];
    let previous: readonly string[] = [];
    return {
      update: (values) => {
        const next = values.filter((value): value is string => value !== undefined && value !== '');
        if (next.length === current.length && next.every((value, i) => value === current[i])) return;
        for (const value of previous) this.#index(value, -1);
        for (const value of next) this.#index(value, 1);
        previous = current;
        current = next;
      },
    };
  }

  /** The text with every run of SECRET_RUN or more characters of a known secret replaced. */
  redact(text: string): string {
    const grams = this.#grams;
    if (grams.size === 0 || text.length < SECRET_RUN) return text;
    let out = '';
    let copied = 0;
    let runStart = -1;
    let runEnd = -1;
    for (let at = 0; at + SECRET_RUN <= text.length; at++) {
      if (!grams.has(text.slice(at, at + SECRET_RUN))) continue;
      if (at > runEnd) {
        if (runStart >= 0) {
          out += text.slice(copied, runStart) + REDACTED;
          copied = runEnd;
        }
        runStart = at;
      }
      runEnd = at + SECRET_RUN;
    }
    if (runStart < 0) return text;
    return out + text.slice(copied, runStart) + REDACTED + text.slice(runEnd);
  }

  #index(secret: string, delta: 1 | -1): void {
    for (let at = 0; at + SECRET_RUN <= secret.length; at++) {
      const gram = secret.slice(at, at + SECRET_RUN);
      const count = (this.#grams.get(gram) ?? 0) + delta;
      if (count > 0) this.#grams.set(gram, count);
      else this.#grams.delete(gram);
    }
  }
}
