/**
 * The contract every upstream adapter implements (OpenAI-compatible today; Anthropic, Bedrock,
 * Vertex and Azure-style later). Adapters are pure translation over plain data: no sockets, no
 * clock, no web framework, no credentials. Transport, authentication/signing, retries, circuit
 * breaking and charging live outside, in the gateway, so each exists once.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from './openai-types.ts';

export type Effort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface AdapterOptions {
  /**
   * Reasoning effort to request, or undefined to send no effort at all (the model has no
   * reasoning control, so any value, even `none`, would be rejected upstream).
   */
  readonly reasoningEffort: Effort | undefined;
  readonly serviceTier: 'standard' | 'flex';
}

export interface BuildInput {
  /** The client's request after validation; unknown fields included. */
  readonly request: ChatCompletionRequest;
  /** The model id the upstream knows. */
  readonly upstreamModel: string;
  readonly options: AdapterOptions;
}

/** An HTTP request for the transport; `path` is relative to the target's base URL. */
export interface UpstreamHttpRequest {
  readonly method: 'POST' | 'GET';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Token counts in OpenAI's convention: prompt includes cached, completion includes reasoning. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly reasoningTokens: number;
}

export interface ResponseContext {
  /** The model name reported to the client (the exact gateway model version, not the upstream id). */
  readonly model: string;
  /** Whether the client asked for the usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
}

export interface ParsedCompletion {
  readonly completion: ChatCompletion;
  readonly usage: TokenUsage | undefined;
}

/** How an upstream call failed, in terms the gateway acts on (selection, circuit breaker, status). */
export type FailureKind = 'client' | 'server' | 'timeout' | 'connection' | 'rate_limited';

export interface UpstreamFailure {
  readonly kind: FailureKind;
  /** The status to answer the client with (429 stays 429, upstream 5xx becomes 502, ...). */
  readonly status: number;
  /** Safe to show: no upstream hostnames, credentials or verbatim bodies. */
  readonly message: string;
  /** Retry-After value to pass through (delta-seconds or HTTP-date), when the upstream sent one. */
  readonly retryAfter?: string;
}

export type StreamEvent =
  | { readonly type: 'chunk'; readonly chunk: ChatCompletionChunk }
  /** Usage for metering; `chunk` is the OpenAI usage chunk, present only when the client asked for it. */
  | { readonly type: 'usage'; readonly usage: TokenUsage; readonly chunk: ChatCompletionChunk | undefined }
  | { readonly type: 'error'; readonly failure: UpstreamFailure }
  | { readonly type: 'done' };

/** Turns upstream stream bytes into OpenAI chunks; stateful across pushes, but does no I/O. */
export interface StreamTranslator {
  push(bytes: Uint8Array): StreamEvent[];
  /** The upstream body ended; flushes anything buffered. */
  end(): StreamEvent[];
}

export interface UpstreamErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface ProviderAdapter {
  /** Registry key, the `adapter` of an upstream target. */
  readonly id: string;
  buildRequest(input: BuildInput): UpstreamHttpRequest;
  /** Parses a successful (2xx) non-streaming body; throws AdapterParseError when it is not one. */
  parseResponse(body: string, context: ResponseContext): ParsedCompletion;
  createStreamTranslator(context: ResponseContext): StreamTranslator;
  mapError(response: UpstreamErrorResponse): UpstreamFailure;
}

/** The upstream answered 2xx with something that is not a completion. */
export class AdapterParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterParseError';
  }
}
