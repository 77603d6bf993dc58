/**
 * The agent session a request belongs to, from the header its client sends. Coding agents send
 * one id for every request of a conversation; the gateway records it (request log, usage ledger)
 * and keeps the session on one provider so the provider's prompt cache keeps hitting
 * (docs/gateway/models-and-routing.md, "Stickiness").
 */

/**
 * Headers that name a session, in order of preference: the first one present is used. Adding a
 * client is one line. Codex sends `thread-id` beside `session-id` (the same conversation); its
 * `x-client-request-id` names one request, not a session, so it is not listed.
 */
export const SESSION_HEADERS: readonly { readonly header: string; readonly client: string }[] = [
  { header: 'x-claude-code-session-id', client: 'Claude Code' },
  { header: 'session-id', client: 'Codex' },
  { header: 'thread-id', client: 'Codex' },
];

/** Longer ids are refused: every client listed sends a UUID (36 characters). */
export const MAX_SESSION_CHARS = 128;

/** Printable ASCII without space: safe in a log line, a Redis key and a ledger column as is. */
const SESSION_PATTERN = /^[\x21-\x7e]+$/;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export type SessionInput =
  | { readonly session: string }
  /** The header whose value could not be used (too long, empty, repeated, other characters). */
  | { readonly refused: string }
  | undefined;

/**
 * The request's session id, or which header's value was refused. A refused value is never used
 * nor echoed: the request goes on without a session (no session stickiness, nothing recorded).
 */
export function sessionOf(headers: Headers): SessionInput {
  for (const { header } of SESSION_HEADERS) {
    const raw = headers[header];
    if (raw === undefined) continue;
    // A repeated header arrives as an array (or joined with ", "): ambiguous, so refused.
    if (typeof raw !== 'string' || raw.length > MAX_SESSION_CHARS || !SESSION_PATTERN.test(raw))
      return { refused: header };
    return { session: raw };
  }
  return undefined;
}
