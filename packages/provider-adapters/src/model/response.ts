import type { JsonObject } from '../json.ts';
import type { Citation, Part } from './content.ts';
import type { WireApi } from './request.ts';
import type { Usage } from './usage.ts';

/**
 * Why the model stopped, in OpenAI's words (the richest client-facing set): Anthropic
 * `end_turn`/`stop_sequence` -> stop, `max_tokens` -> length, `refusal` -> content_filter, ...
 * `pause` is Anthropic's `pause_turn` (a server tool wants the turn continued).
 */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'pause';

/** The tier the upstream reports it served, which may differ from the one asked for. */
export type ServedTier = 'standard' | 'flex' | 'priority';

export interface ModelResponse {
  readonly id: string;
  /** The assistant's output, in order. */
  readonly content: readonly Part[];
  readonly finishReason: FinishReason;
  readonly usage: Usage | undefined;
  /** The model the answer says served it (may differ from the one asked: a snapshot), when it says. */
  readonly model?: string;
  readonly servedTier?: ServedTier;
}

/**
 * A parsed upstream answer. `native` is the upstream body itself when the client speaks the
 * upstream's API: its front door forwards that (renaming the model) instead of re-encoding.
 */
export interface ParsedResponse {
  readonly response: ModelResponse;
  readonly native?: { readonly api: WireApi; readonly body: JsonObject };
}

export type StreamEvent =
  /** `model`: the model the stream says serves it, when it says. */
  | { readonly type: 'start'; readonly id: string; readonly model?: string }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'citation'; readonly citation: Citation }
  | { readonly type: 'thinking'; readonly text?: string; readonly signature?: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  /** A tool call begins; `index` counts tool calls in this response from 0. */
  | {
      readonly type: 'tool_call_start';
      readonly index: number;
      readonly id: string;
      readonly name: string;
      readonly signature?: string;
    }
  | { readonly type: 'tool_call_delta'; readonly index: number; readonly arguments: string }
  | { readonly type: 'server_tool'; readonly part: Part }
  | { readonly type: 'finish'; readonly reason: FinishReason }
  /** Usage so far; a later one replaces an earlier one (streams report cumulative figures). */
  | { readonly type: 'usage'; readonly usage: Usage }
  | { readonly type: 'served_tier'; readonly tier: ServedTier }
  /** An event of the upstream's own API, for a client that speaks it (same-API passthrough). */
  | { readonly type: 'native'; readonly api: WireApi; readonly data: JsonObject; readonly event?: string }
  | { readonly type: 'error'; readonly failure: UpstreamFailure }
  | { readonly type: 'done' };

/**
 * How an upstream call failed, in terms the gateway acts on (selection, circuit breaker, status).
 * `auth`: the upstream refused the gateway's own credentials (401/403): a configuration fault of
 * that endpoint, never the client's.
 */
export type FailureKind = 'client' | 'server' | 'timeout' | 'connection' | 'rate_limited' | 'auth';

/**
 * What a retry of a failed call may do. `anywhere`: the upstream proves it did not process the
 * request (429, 503, 529, throttling, model not ready): the same provider may be asked again, or
 * another. `elsewhere`: it may have been processed, or this endpoint is broken (500, 502, 504, a
 * timeout, a reset): another provider may be asked, the same one not. Absent: never retried (the
 * client's own mistake, a content filter, the gateway's credentials).
 */
export type RetryScope = 'anywhere' | 'elsewhere';

export interface UpstreamFailure {
  readonly kind: FailureKind;
  /** The status to answer the client with (429 stays 429, upstream 5xx becomes 502, 529 -> 503, ...). */
  readonly status: number;
  /** Safe to show: no upstream hostnames, credentials or verbatim bodies. */
  readonly message: string;
  /** Retry-After value to pass through (delta-seconds or HTTP-date), when the upstream sent one. */
  readonly retryAfter?: string;
  /** `content_filter` when the provider's safety system refused the request. */
  readonly code?: 'content_filter';
  /** Whether and where the call may be retried (see RetryScope); absent: never. */
  readonly retry?: RetryScope;
}
