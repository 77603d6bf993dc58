/**
 * What a request asks the simulator to do besides answering: fail, stall, slow down. Read
 * from `x-sim-*` request headers (direct callers), from an `x_simulator` body object (callers
 * behind the gateway, which passes unknown body fields through untouched) or from the
 * simulator's configuration (a default for every request). Header > body > configuration.
 */
import { parseToolTurn, type ToolTurn } from './tool-turn.ts';

export interface Behaviour {
  /** Answer with this HTTP status and an OpenAI error envelope instead of a completion. */
  readonly failStatus?: number;
  readonly retryAfter?: string;
  readonly failMessage?: string;
  /** Streams: after this many content tokens, send `data: {"error":...}` and end. */
  readonly failAfterTokens?: number;
  /** Streams: after this many content tokens, destroy the connection. */
  readonly dropAfterTokens?: number;
  /** `headers`: never answer; `body`: send 200 headers, then nothing. */
  readonly hang?: 'headers' | 'body';
  readonly firstTokenDelayMs?: number;
  readonly tokenDelayMs?: number;
  /** Length of the generated reply, in tokens (before max_tokens limits it). */
  readonly replyTokens?: number;
  /** The scripted tool turn (tool-turn.ts): call this tool with this input, then quote its result. */
  readonly toolTurn?: ToolTurn;
  /** OpenAI Chat Completions: the answer names this model, as an alias resolved to a snapshot does. */
  readonly servedModel?: string;
}

type Source = (name: string) => unknown;

const FIELDS = {
  failStatus: ['fail-status', 'fail_status'],
  retryAfter: ['retry-after', 'retry_after'],
  failMessage: ['fail-message', 'fail_message'],
  failAfterTokens: ['fail-after-tokens', 'fail_after_tokens'],
  dropAfterTokens: ['drop-after-tokens', 'drop_after_tokens'],
  hang: ['hang', 'hang'],
  firstTokenDelayMs: ['first-token-delay-ms', 'first_token_delay_ms'],
  tokenDelayMs: ['token-delay-ms', 'token_delay_ms'],
  replyTokens: ['reply-tokens', 'reply_tokens'],
  toolTurn: ['tool-turn', 'tool_turn'],
  servedModel: ['served-model', 'served_model'],
} as const;

function integer(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined;
}

function read(source: Source, which: 0 | 1): Behaviour {
  const get = (field: keyof typeof FIELDS) => source(FIELDS[field][which]);
  const hang = get('hang');
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const entries = {
    failStatus: integer(get('failStatus')),
    retryAfter: text(get('retryAfter')),
    failMessage: text(get('failMessage')),
    failAfterTokens: integer(get('failAfterTokens')),
    dropAfterTokens: integer(get('dropAfterTokens')),
    hang: hang === 'headers' || hang === 'body' ? hang : undefined,
    firstTokenDelayMs: integer(get('firstTokenDelayMs')),
    tokenDelayMs: integer(get('tokenDelayMs')),
    replyTokens: integer(get('replyTokens')),
    toolTurn: parseToolTurn(get('toolTurn')),
    servedModel: text(get('servedModel')),
  };
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

export function behaviourFor(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: Readonly<Record<string, unknown>>,
  configured: Behaviour,
): Behaviour {
  const fromHeaders = read((name) => headers[`x-sim-${name}`], 0);
  const bodyObject = body.x_simulator;
  const fromBody =
    typeof bodyObject === 'object' && bodyObject !== null
      ? read((name) => (bodyObject as Record<string, unknown>)[name], 1)
      : {};
  return { ...configured, ...fromBody, ...fromHeaders };
}
