/**
 * Upstream error messages can name internal hosts, echo keys or carry stack traces. Only
 * messages about the client's own request are shown (e.g. "Invalid value for 'temperature'"),
 * and only after this scrubbing; everything else gets a message written by the gateway.
 */
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi;
const SECRET_PATTERN =
  /\b(?:sk|pk|rk|key|api|ak|org|proj|sess)[-_][A-Za-z0-9_-]{8,}|\bBearer\s+\S+|\b[A-Za-z0-9_-]{32,}\b/g;
const HOST_PATTERN =
  /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|ai|internal|local|cloud|dev)\b(?::\d+)?/gi;
const MAX_LENGTH = 300;

export function safeUpstreamMessage(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const firstLine = raw.split(/\r?\n\s*at\s/)[0] ?? '';
  const scrubbed = firstLine
    .replace(URL_PATTERN, '[url]')
    .replace(SECRET_PATTERN, '[redacted]')
    .replace(HOST_PATTERN, '[host]')
    .replace(/\s+/g, ' ')
    .trim();
  if (scrubbed === '') return undefined;
  return scrubbed.length > MAX_LENGTH ? `${scrubbed.slice(0, MAX_LENGTH - 1)}…` : scrubbed;
}

/** Retry-After is delta-seconds or an HTTP-date; anything else is dropped rather than passed on. */
export function validRetryAfter(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  if (/^\d{1,9}$/.test(trimmed)) return trimmed;
  return /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed) &&
    !Number.isNaN(Date.parse(trimmed))
    ? trimmed
    : undefined;
}
