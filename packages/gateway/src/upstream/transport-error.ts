/**
 * Transport failures in the terms the gateway acts on. `aborted` is the client going away;
 * `credentials` is the gateway failing to obtain its own credentials (a token endpoint down);
 * the others are the upstream's fault and feed the circuit breaker.
 */
export type TransportFailureKind = 'timeout' | 'connection' | 'aborted' | 'credentials';

export class TransportError extends Error {
  readonly kind: TransportFailureKind;
  /** The low-level code (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, ...) for logs; never shown to clients. */
  readonly code: string;
  /** True when the request provably never reached the upstream, so sending it again is safe. */
  readonly unsent: boolean;

  constructor(kind: TransportFailureKind, code: string, unsent: boolean) {
    super(`upstream transport ${kind} (${code})`);
    this.name = 'TransportError';
    this.kind = kind;
    this.code = code;
    this.unsent = unsent;
  }
}

/** The reason a call's own deadline aborts it with: a timeout, not the client leaving. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('the request deadline passed');
    this.name = 'DeadlineExceeded';
  }
}

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const ABORTS = new Set(['UND_ERR_ABORTED', 'ABORT_ERR']);
/** Failures before a single byte of the request left: connect refused, unresolvable, unreachable. */
const UNSENT = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'UNKNOWN';
  const { code, name, cause } = error as { code?: unknown; name?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    // undici wraps socket errors: the cause says what really happened.
    if (code === 'UND_ERR_SOCKET' && cause !== undefined)
      return codeOf(cause) === 'UNKNOWN' ? code : codeOf(cause);
    return code;
  }
  if (name === 'AbortError' || name === 'TimeoutError') return 'ABORT_ERR';
  return 'UNKNOWN';
}

export function toTransportError(error: unknown, signal: AbortSignal | undefined): TransportError {
  if (error instanceof TransportError) return error;
  const code = codeOf(error);
  if (signal?.reason instanceof DeadlineExceeded) return new TransportError('timeout', 'DEADLINE', false);
  if (signal?.aborted || ABORTS.has(code)) return new TransportError('aborted', code, false);
  if (TIMEOUTS.has(code)) return new TransportError('timeout', code, false);
  return new TransportError('connection', code, UNSENT.has(code));
}
