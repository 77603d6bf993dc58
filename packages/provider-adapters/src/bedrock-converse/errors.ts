/**
 * Bedrock failures in the gateway's terms. An HTTP error is `{"message": ...}` with the
 * exception's name in `x-amzn-errortype` (`ThrottlingException:http://internal.amazon.com/...`);
 * a failure after the stream began is an exception frame named by `:exception-type`.
 * Only messages about the client's own request are shown, scrubbed of ARNs, account ids and
 * key ids as well as the hosts and secrets `safeUpstreamMessage` removes.
 * Where a retry may go follows the exception's name first (AWS's SDK retries throttling and
 * transient errors by name), the status otherwise.
 */
import type { UpstreamErrorResponse } from '../adapter.ts';
import { isJsonObject, parseJson } from '../json.ts';
import type { RetryScope, UpstreamFailure } from '../model/response.ts';
import { retryForStatus, withRetry } from '../retry-scope.ts';
import { safeUpstreamMessage, validRetryAfter } from '../safe-message.ts';

const ARN_PATTERN = /\barn:aws[a-z-]*:[^\s"'<>()]*/gi;
const ACCESS_KEY_PATTERN = /\b(?:AKIA|ASIA|AIDA|AROA|AIPA|ANPA|ANVA|AGPA)[A-Z0-9]{12,}\b/g;
const ACCOUNT_PATTERN = /\b\d{12}\b/g;

export function safeBedrockMessage(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  return safeUpstreamMessage(
    raw
      .replace(ARN_PATTERN, '[arn]')
      .replace(ACCESS_KEY_PATTERN, '[redacted]')
      .replace(ACCOUNT_PATTERN, '[account]'),
  );
}

function header(headers: UpstreamErrorResponse['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** `ThrottlingException:http://...` -> `ThrottlingException`. */
export function errorType(headers: UpstreamErrorResponse['headers']): string {
  return (header(headers, 'x-amzn-errortype') ?? '').split(':')[0]?.trim() ?? '';
}

function bodyMessage(body: string): unknown {
  const parsed = parseJson(body);
  if (!isJsonObject(parsed)) return undefined;
  return parsed.message ?? parsed.Message;
}

/** Bedrock's answer when a model is reachable only through an inference profile. */
const NEEDS_PROFILE = /on-demand throughput|inference profile/i;
const PROFILE_FAILURE: UpstreamFailure = {
  kind: 'server',
  status: 502,
  message:
    "the provider only serves this model through an inference profile: the catalog's model id must be an inference profile id (e.g. with a us. or global. prefix).",
};

const CREDENTIAL_TYPES = new Set([
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'IncompleteSignatureException',
  'MissingAuthenticationTokenException',
]);
const RATE_TYPES = new Set([
  'ThrottlingException',
  'ModelNotReadyException',
  'ServiceQuotaExceededException',
]);

/**
 * Exceptions (HTTP errors and their stream frames, named in either case) that say where a retry
 * may go. Throttling, quota, a model still loading and an unavailable service turned the request
 * away; the others failed while the model was working on it.
 */
const RETRY_BY_TYPE: ReadonlyMap<string, RetryScope> = new Map([
  ['throttlingexception', 'anywhere'],
  ['servicequotaexceededexception', 'anywhere'],
  ['modelnotreadyexception', 'anywhere'],
  ['serviceunavailableexception', 'anywhere'],
  ['internalserverexception', 'elsewhere'],
  ['modeltimeoutexception', 'elsewhere'],
  ['modelstreamerrorexception', 'elsewhere'],
  ['modelerrorexception', 'elsewhere'],
]);

function retryForType(type: string): RetryScope | undefined {
  return RETRY_BY_TYPE.get(type.toLowerCase());
}

/** In the gateway's words: the upstream's may name accounts or echo the gateway's credentials. */
function rateLimited(retryAfter: string | undefined): UpstreamFailure {
  return {
    kind: 'rate_limited',
    status: 429,
    message: 'the provider is rate limiting requests.',
    retry: 'anywhere',
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

function byType(type: string, status: number, message: unknown): UpstreamFailure | undefined {
  if (CREDENTIAL_TYPES.has(type) || status === 401 || status === 403)
    return { kind: 'auth', status: 502, message: "the provider did not accept the gateway's credentials." };
  if (type === 'ResourceNotFoundException' || status === 404)
    return { kind: 'server', status: 502, message: 'the provider does not know the configured model.' };
  if (type === 'ModelTimeoutException' || status === 408)
    return { kind: 'timeout', status: 504, message: 'the model timed out.', retry: 'elsewhere' };
  if (type === 'ModelErrorException' || status === 424)
    return {
      kind: 'server',
      status: 502,
      message: 'the model failed while processing the request.',
      retry: 'elsewhere',
    };
  if (type === 'ValidationException' || (status >= 400 && status < 500)) {
    const reason = safeBedrockMessage(message);
    return {
      kind: 'client',
      status: 400,
      message: reason ?? `the provider rejected the request (HTTP ${status}).`,
    };
  }
  return undefined;
}

export function mapBedrockError(response: UpstreamErrorResponse): UpstreamFailure {
  const type = errorType(response.headers);
  const message = bodyMessage(response.body);
  if (typeof message === 'string' && NEEDS_PROFILE.test(message)) return PROFILE_FAILURE;
  if (RATE_TYPES.has(type) || response.status === 429) {
    return rateLimited(validRetryAfter(header(response.headers, 'retry-after')));
  }
  return (
    byType(type, response.status, message) ??
    withRetry(
      { kind: 'server', status: 502, message: `the provider failed (HTTP ${response.status}).` },
      retryForType(type) ?? retryForStatus(response.status),
    )
  );
}

/** An exception frame (`:message-type: exception`) after the stream began. */
export function mapStreamException(exceptionType: string, payload: unknown): UpstreamFailure {
  const message = isJsonObject(payload) ? payload.message : undefined;
  if (typeof message === 'string' && NEEDS_PROFILE.test(message)) return PROFILE_FAILURE;
  switch (exceptionType) {
    case 'throttlingException':
    case 'serviceQuotaExceededException':
      return rateLimited(undefined);
    case 'validationException':
      return {
        kind: 'client',
        status: 400,
        message: safeBedrockMessage(message) ?? 'the provider rejected the request.',
      };
    case 'modelTimeoutException':
      return { kind: 'timeout', status: 504, message: 'the model timed out mid-stream.', retry: 'elsewhere' };
    default:
      // An exception not named above is still the provider failing mid-answer.
      return {
        kind: 'server',
        status: 502,
        message: 'the provider failed mid-stream.',
        retry: retryForType(exceptionType) ?? 'elsewhere',
      };
  }
}
