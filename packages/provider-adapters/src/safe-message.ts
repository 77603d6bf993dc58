/**
 * Upstream error messages can name internal hosts, echo keys or carry stack traces. Only
 * messages about the client's own request are shown (e.g. "Invalid value for 'temperature'"),
 * and only after this scrubbing; everything else gets a message written by the gateway.
 */
import ipaddr from 'ipaddr.js';

/**
 * What is taken out, in order (earlier patterns would otherwise be cut into by later ones):
 * anything that locates or identifies the upstream's internals or a credential. What remains is
 * the part about the client's own request, which is what helps the caller fix it.
 */
const REDACTIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi, '[url]'],
  [/\barn:aws[a-z-]*:[^\s"'<>)]+/gi, '[arn]'],
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)?/g, '[redacted]'],
  [/\bBearer\s+\S+/gi, '[redacted]'],
  [/\b(?:AKIA|ASIA|AIDA|AROA|AIza)[A-Za-z0-9_-]{12,}\b/g, '[redacted]'],
  [/\b(?:sk|pk|rk|key|api|ak|org|proj|sess|ghp|xox[a-z])[-_][A-Za-z0-9_-]{8,}/gi, '[redacted]'],
  [/[A-Za-z0-9+/_-]{32,}={0,2}/g, '[redacted]'],
  [/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g, '[email]'],
  [/(?:^|(?<=[\s"'(=:]))(?:[A-Za-z]:\\|~?\/)[^\s"'<>)]*[\\/][^\s"'<>)]*/g, '[path]'],
  [/\bprojects\/[^\s/"']+/g, 'projects/[project]'],
  [/\borg-[A-Za-z0-9]+/g, '[organization]'],
  [/\b\d{12}\b/g, '[account]'],
];
/** Dotted names whose last label is a top-level domain (or an internal suffix people use as one). */
const HOST =
  /\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|net|org|io|ai|app|dev|cloud|co|info|biz|xyz|tech|site|online|internal|local|localhost|lan|corp|intra|intranet|home|svc|cluster|example|test|invalid|arpa|[a-z]{2})\b(?::\d+)?/gi;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g;
/** IPv6 candidates (two or more colons among hex digits), confirmed by a real parser. */
const IPV6_CANDIDATE =
  /(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,8}(?:\.\d{1,3}){0,3}(?:%[\w.]+)?(?![\w:])/g;
const MAX_LENGTH = 300;

function withoutIpv6(text: string): string {
  return text.replace(IPV6_CANDIDATE, (candidate) =>
    ipaddr.IPv6.isValid(candidate.split('%')[0] ?? '') ? '[address]' : candidate,
  );
}

/**
 * An upstream's message fit to show a client: its first line (no stack trace), without URLs,
 * hosts, addresses, paths, account and project ids, ARNs, e-mail addresses or anything that
 * looks like a key, at most 300 characters; undefined when nothing is left.
 */
export function safeUpstreamMessage(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let text = raw.split(/\r?\n\s*at\s/)[0] ?? '';
  for (const [pattern, replacement] of REDACTIONS) text = text.replace(pattern, replacement);
  text = withoutIpv6(text).replace(IPV4, '[address]').replace(HOST, '[host]');
  const scrubbed = text.replace(/\s+/g, ' ').trim();
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
