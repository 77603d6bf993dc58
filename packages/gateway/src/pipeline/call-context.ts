/**
 * The explicit state of one gateway request, from authentication to its log line: what was
 * decided for the answer's headers (X-Gateway-Applied and friends), the facts its log line
 * reports, each attempt made upstream in order, and the one signal that ends every attempt
 * (the request's deadline, or the client leaving). It hangs on the request itself (a Fastify
 * request decoration), so the stages that decide something and the hooks that report it share
 * one object without a side table.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdapterId, Usage } from '@app/provider-adapters';
import type { Principal, ProviderId, UsageRecord } from '../contracts.ts';
import { DeadlineExceeded } from '../upstream/index.ts';
import type { AppliedOptions, CompressionReport } from './applied-header.ts';

export interface AppliedState {
  model?: string;
  provider?: ProviderId;
  options?: AppliedOptions;
  ignored?: readonly string[];
  /** Token counts of a compressed prompt, before and after, or why it was not (X-Gateway-Compression). */
  compression?: CompressionReport | undefined;
  /** Deprecation, Sunset and Link of a model whose end is announced (RoutePlan.lifecycleHeaders). */
  lifecycle?: Readonly<Record<string, string>> | undefined;
}

export interface RequestFacts {
  caller?: Pick<Principal, 'userId' | 'projectSlug' | 'tokenId'>;
  /** The coding agent's session id (RoutePlan.session), already bounded and checked. */
  session?: string;
  charged?: Pick<UsageRecord, 'promptTokens' | 'completionTokens' | 'costMicros'>;
  /** Milliseconds from sending the upstream request to its response headers (the last attempt). */
  upstreamMs?: number;
}

/**
 * One call sent upstream and how it ended (`ok`, or the failure's kind and status), with the
 * figures the observers report once the request is over (traces, metrics, the activity log):
 * times are milliseconds from `startedAt` (performance.now() when the call was sent).
 */
export interface AttemptRecord {
  readonly provider: ProviderId;
  /** Exact model version asked of the provider. */
  readonly model: string;
  outcome: 'pending' | 'ok' | 'client_left' | string;
  /** The status the failure answers with (429, 502, 503, 504, ...); absent while pending or ok. */
  status?: number;
  readonly startedAt: number;
  /** To the upstream's response headers (absent when it never answered). */
  headersMs?: number;
  /** To the first content sent to the client (streams only). */
  firstTokenMs?: number;
  /** To the end of the attempt (settled, released or failed). */
  durationMs?: number;
  /** What was charged (bounded, or estimated when the upstream sent none) and its cost. */
  usage?: Usage;
  costMicros?: number;
  /** The upstream reported no usage: `usage` is the gateway's estimate. */
  estimated?: boolean;
  /** The adapter that translated the call and the URL it was sent to (traces name both). */
  adapter?: AdapterId;
  url?: string;
  /** Why the model stopped (`stop`, `length`, `tool_calls`, ...), when the answer said. */
  finishReason?: string;
  /** The model the answer says served it (a snapshot of `model`, say), when it says. */
  responseModel?: string;
}

export class CallContext {
  /** performance.now() when the request's context was made (authentication, or earlier). */
  readonly startedAt = performance.now();
  readonly applied: AppliedState = {};
  readonly facts: RequestFacts = {};
  readonly attempts: AttemptRecord[] = [];
  #controller: AbortController | undefined;
  #deadlineAt = Infinity;

  /**
   * The signal every attempt of the request is sent with, started by the first attempt: it
   * aborts at the deadline (a DeadlineExceeded reason, answered as a timeout) or when the client
   * closes the connection before the response is complete (stop paying for the upstream).
   */
  signal(reply: FastifyReply, deadlineMs: number): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    this.#deadlineAt = performance.now() + deadlineMs;
    const timer = setTimeout(() => controller.abort(new DeadlineExceeded()), deadlineMs);
    timer.unref();
    const raw = reply.raw;
    raw.once('close', () => {
      clearTimeout(timer);
      if (!raw.writableFinished) controller.abort();
    });
    // ... including while it was being authenticated and budgeted.
    if (raw.destroyed) controller.abort();
    return controller.signal;
  }

  /** Milliseconds left before the request's deadline (Infinity before the first attempt). */
  remainingMs(): number {
    return this.#deadlineAt - performance.now();
  }

  /** The client has gone or the deadline passed: no further attempt can help. */
  get ended(): boolean {
    return this.#controller?.signal.aborted ?? false;
  }

  attempt(provider: ProviderId, model: string): AttemptRecord {
    const record: AttemptRecord = { provider, model, outcome: 'pending', startedAt: performance.now() };
    this.attempts.push(record);
    return record;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the first stage that records something; null for requests that never do. */
    gatewayCall: CallContext | null;
  }
}

/** Makes every request of the app able to carry its context (once, on the root instance). */
export function decorateCallContext(app: FastifyInstance): void {
  app.decorateRequest('gatewayCall', null);
}

export function callContext(request: FastifyRequest): CallContext {
  let context = request.gatewayCall;
  if (context === null || context === undefined) {
    context = new CallContext();
    request.gatewayCall = context;
  }
  return context;
}
