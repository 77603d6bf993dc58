/**
 * Google's error envelope `{"error": {code, message, status, details}}` as an UpstreamFailure.
 * Where a retry may go: RESOURCE_EXHAUSTED and UNAVAILABLE turned the request away (the same
 * provider may be asked again); DEADLINE_EXCEEDED, INTERNAL and other 5xx may come after work on
 * it (only another provider); the rest is the request's or the gateway's configuration.
 */
import type { UpstreamErrorResponse } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../../json.ts';
import type { UpstreamFailure } from '../../model/response.ts';
import { retryForStatus, withRetry } from '../../retry-scope.ts';
import { safeUpstreamMessage, validRetryAfter } from '../../safe-message.ts';

const CREDENTIALS: UpstreamFailure = {
  kind: 'auth',
  status: 502,
  message: "the provider did not accept the gateway's credentials.",
};
const SAFETY = /\b(safety|blocked|prohibited content|harm category)\b/i;
/** Google names projects in messages (`projects/1234`, `project sim-project`); they are the gateway's. */
const PROJECT = /\bprojects?\/[^\s/'"`]+|\bproject(?: id| number)?\s+['"]?[A-Za-z0-9][\w-]*/gi;

function envelopeOf(body: string): JsonObject {
  const parsed = parseJson(body);
  return isJsonObject(parsed) && isJsonObject(parsed.error) ? parsed.error : {};
}

function details(error: JsonObject): JsonObject[] {
  return Array.isArray(error.details) ? error.details.filter(isJsonObject) : [];
}

function clientMessage(error: JsonObject): string | undefined {
  const raw = typeof error.message === 'string' ? error.message.replace(PROJECT, 'the project') : undefined;
  return safeUpstreamMessage(raw);
}

/** A RetryInfo detail's `retryDelay` ("7s", "0.5s") as whole delta-seconds, rounded up. */
function retryDelay(error: JsonObject): string | undefined {
  for (const detail of details(error)) {
    if (!String(detail['@type']).endsWith('google.rpc.RetryInfo')) continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay));
    if (match) return String(Math.ceil(Number(match[1])));
  }
  return undefined;
}

/** The Developer API answers a bad key with 400 INVALID_ARGUMENT; it is the gateway's fault, not the client's. */
function badKey(error: JsonObject): boolean {
  return (
    details(error).some((detail) => String(detail.reason).startsWith('API_KEY_')) ||
    /\bAPI key\b/i.test(String(error.message))
  );
}

/** Status by Google's canonical code name first (it is precise), by HTTP status otherwise. */
export function failureFromGoogle(
  httpStatus: number,
  error: JsonObject,
  retryAfterHeader?: string,
): UpstreamFailure {
  const code = typeof error.status === 'string' ? error.status : '';
  if (code === 'RESOURCE_EXHAUSTED' || httpStatus === 429) {
    const retryAfter = validRetryAfter(retryAfterHeader) ?? retryDelay(error);
    return {
      kind: 'rate_limited',
      status: 429,
      message: 'the provider is rate limiting requests or its quota is used up.',
      retry: 'anywhere',
      ...(retryAfter === undefined ? {} : { retryAfter }),
    };
  }
  if (code === 'DEADLINE_EXCEEDED' || httpStatus === 504 || httpStatus === 408)
    return { kind: 'timeout', status: 504, message: 'the provider timed out.', retry: 'elsewhere' };
  if (code === 'UNAUTHENTICATED' || code === 'PERMISSION_DENIED' || httpStatus === 401 || httpStatus === 403)
    return CREDENTIALS;
  if (code === 'NOT_FOUND' || httpStatus === 404)
    return { kind: 'server', status: 502, message: 'the provider does not know the configured model.' };
  if (
    code === 'INVALID_ARGUMENT' ||
    code === 'FAILED_PRECONDITION' ||
    (httpStatus >= 400 && httpStatus < 500)
  ) {
    if (badKey(error)) return CREDENTIALS;
    const message = clientMessage(error) ?? `the provider rejected the request (HTTP ${httpStatus}).`;
    return SAFETY.test(message)
      ? { kind: 'client', status: 400, message, code: 'content_filter' }
      : { kind: 'client', status: 400, message };
  }
  const failure: UpstreamFailure = {
    kind: 'server',
    status: 502,
    message: `the provider failed (HTTP ${httpStatus}).`,
  };
  return withRetry(
    failure,
    code === 'UNAVAILABLE' ? 'anywhere' : (retryForStatus(httpStatus) ?? 'elsewhere'),
  );
}

export function mapGeminiError(response: UpstreamErrorResponse): UpstreamFailure {
  const header = response.headers['retry-after'];
  return failureFromGoogle(
    response.status,
    envelopeOf(response.body),
    Array.isArray(header) ? header[0] : header,
  );
}

/** An `{"error": ...}` event inside a stream: the same envelope, with its code as the status. */
export function mapGeminiStreamError(error: unknown): UpstreamFailure {
  const envelope = isJsonObject(error) ? error : {};
  const status = typeof envelope.code === 'number' ? envelope.code : 500;
  return failureFromGoogle(status, envelope);
}
