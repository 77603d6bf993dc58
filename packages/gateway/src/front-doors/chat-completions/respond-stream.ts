/**
 * `stream: true`: Server-Sent Events exactly as OpenAI sends them. The response is committed
 * (200 + SSE headers) as soon as the upstream answers 2xx, or earlier when it is slow to answer
 * at all, so that `: keep-alive` comments can flow; an upstream failure before the commit keeps
 * its honest HTTP status, one after it becomes a `data: {"error": ...}` event. Usage is always
 * metered: from the upstream's usage chunk, else estimated from what was streamed.
 */
import { PassThrough } from 'node:stream';
import { type AppError, isAppError } from '@app/http-kit';
import {
  openAIChat,
  type ServedTier,
  type StreamEvent,
  type UpstreamFailure,
  type Usage,
} from '@app/provider-adapters';
import { gatewayErrors } from '../../errors.ts';
import { failureFromTransport, sseErrorEvent } from '../../pipeline/failures.ts';
import type { Produced } from '../../pipeline/call-outcome.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import { TransportError, type UpstreamResponse } from '../../upstream/index.ts';
import { chunkChars, shapeNativeChunk } from './native-chunks.ts';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Reverse proxies (nginx) must not buffer the stream.
  'x-accel-buffering': 'no',
} as const;
const KEEP_ALIVE = ': keep-alive\n\n';
const DONE = 'data: [DONE]\n\n';

type Settled = { readonly response: UpstreamResponse } | { readonly error: unknown };

export interface StreamOptions {
  readonly includeUsage: boolean;
  readonly keepAliveMs: number;
}

/**
 * Commits the SSE response, after which the stream runs on its own, or throws an AppError
 * before committing. Resolves to false when the client left before anything was sent.
 */
export async function respondStream(call: UpstreamCall, options: StreamOptions): Promise<boolean> {
  const session = new SseSession(call, options);
  const answer: Promise<Settled> = call.send().then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<'slow'>((resolve) => {
    timer = setTimeout(() => resolve('slow'), options.keepAliveMs);
  });
  const first = await Promise.race([answer, slow]);
  clearTimeout(timer);
  if (first === 'slow') {
    session.commit();
    session.keepAlive({ now: true });
    session.track(session.await(answer));
    return true;
  }
  if ('error' in first) {
    if (session.clientGone(first.error)) return false;
    throw session.failure(first.error);
  }
  if (first.response.status < 200 || first.response.status >= 300) {
    throw await call.failFromResponse(first.response);
  }
  session.commit();
  session.keepAlive();
  session.track(session.pump(first.response));
  return true;
}

class SseSession {
  readonly #call: UpstreamCall;
  readonly #options: StreamOptions;
  readonly #out = new PassThrough();
  readonly #encoder: openAIChat.ChatChunkEncoder;
  #keepAlive: NodeJS.Timeout | undefined;
  #usage: Usage | undefined;
  #servedTier: ServedTier | undefined;
  #streamedChars = 0;
  /** [DONE] was sent. */
  #completed = false;
  /** The upstream speaks the client's API: its chunks pass through and the encoder stays idle. */
  #passthrough = false;

  constructor(call: UpstreamCall, options: StreamOptions) {
    this.#call = call;
    this.#options = options;
    const { plan, reply } = call.init;
    const envelope = {
      id: `chatcmpl-${reply.request.id}`,
      model: plan.model,
      created: Math.floor(Date.now() / 1000),
    };
    this.#encoder = new openAIChat.ChatChunkEncoder(envelope, options.includeUsage);
  }

  commit(): void {
    this.#call.init.reply.headers(SSE_HEADERS).send(this.#out);
  }

  /** Comments every interval until the first chunk; `now`: the upstream has already been silent for one. */
  keepAlive(options: { now?: boolean } = {}): void {
    if (options.now) this.#write(KEEP_ALIVE);
    this.#keepAlive = setInterval(() => this.#write(KEEP_ALIVE), this.#options.keepAliveMs);
  }

  track(run: Promise<void>): void {
    const { pending, log } = this.#call.init;
    const tracked = run
      .catch((error: unknown) => {
        log.error({ err: error }, 'stream failed');
        this.internal();
      })
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
  }

  /** Slow upstream: the response is already committed, so its answer arrives in-stream. */
  async await(answer: Promise<Settled>): Promise<void> {
    const settled = await answer;
    if ('error' in settled) {
      // Ending also stops the keep-alive comments, whoever is (no longer) listening.
      this.#end(this.clientGone(settled.error) ? '' : sseErrorEvent(this.failure(settled.error)));
      return;
    }
    if (settled.response.status < 200 || settled.response.status >= 300) {
      this.#end(sseErrorEvent(await this.#call.failFromResponse(settled.response)));
      return;
    }
    await this.pump(settled.response);
  }

  async pump(response: UpstreamResponse): Promise<void> {
    const { adapter, clientApi } = this.#call.init;
    const translator = adapter.createStreamTranslator({ clientApi });
    try {
      let ended = false;
      for await (const bytes of response.chunks()) {
        // After [DONE] the rest of the body (normally nothing) is drained, not destroyed, so
        // the connection goes back to the pool; after an error event it is cut.
        if (ended) continue;
        ended = this.#handle(translator.push(bytes));
        if (ended && !this.#completed) return response.discard();
      }
      if (ended || this.#handle(translator.end())) return;
      // No [DONE]: complete if the usage chunk came, else the upstream broke off.
      if (this.#usage) this.#handle([{ type: 'done' }]);
      else this.#fail({ kind: 'server', status: 502, message: 'the provider ended the stream early.' });
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      if (error.kind === 'aborted') {
        this.#call.init.outcome.clientLeft(this.#produced());
        this.#end('');
        return;
      }
      this.#fail(failureFromTransport(error));
    }
  }

  /**
   * Writes the events of one upstream read as one write (one syscall, one chunk on the wire,
   * no added delay); true once the stream has ended (done or failed).
   */
  #handle(events: readonly StreamEvent[]): boolean {
    let batch = '';
    for (const event of events) {
      switch (event.type) {
        case 'native':
          this.#passthrough = true;
          batch += this.#native(event.data);
          break;
        case 'served_tier':
          // The headers are already sent; the charge still follows the tier served.
          this.#servedTier = event.tier;
          break;
        case 'usage':
          this.#usage = event.usage;
          if (!this.#passthrough) batch += this.#encoded(event);
          break;
        case 'error':
          this.#write(batch);
          this.#fail(event.failure);
          return true;
        case 'done':
          this.#completed = true;
          this.#call.init.outcome.succeeded(this.#produced());
          this.#end(batch + (this.#passthrough ? '' : this.#encoded(event)) + DONE);
          return true;
        default:
          batch += this.#encoded(event);
      }
    }
    if (batch !== '') this.#write(batch);
    return false;
  }

  /** A chunk of the upstream's own API, forwarded with the gateway's model name and usage shaping. */
  #native(data: Record<string, unknown>): string {
    this.#stopKeepAlive();
    this.#streamedChars += chunkChars(data);
    const chunks = shapeNativeChunk(data, this.#call.init.plan.model, this.#options.includeUsage);
    return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
  }

  /** An event of the internal model, encoded as Chat Completions chunks. */
  #encoded(event: StreamEvent): string {
    if (event.type === 'text') this.#streamedChars += event.text.length;
    if (event.type === 'tool_call_delta') this.#streamedChars += event.arguments.length;
    const chunks = this.#encoder.encode(event);
    if (chunks.length > 0 && event.type !== 'done') this.#stopKeepAlive();
    return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
  }

  /** Ends the stream with an error event: partial output is charged, a reservation with none is released. */
  #fail(failure: UpstreamFailure): void {
    this.#end(sseErrorEvent(this.#call.init.outcome.failed(failure, this.#produced())));
  }

  /** A fault of the gateway itself mid-stream (logged by the caller). */
  internal(): void {
    this.#call.init.outcome.gatewayFault(this.#produced());
    this.#end(sseErrorEvent(gatewayErrors.create('internal', {})));
  }

  #produced(): Produced {
    return {
      usage: this.#usage,
      generatedChars: this.#streamedChars,
      ...(this.#servedTier ? { servedTier: this.#servedTier } : {}),
    };
  }

  /** Before anything was streamed: the client left (true), or the failure as an AppError. */
  clientGone(error: unknown): boolean {
    if (!(error instanceof TransportError) || error.kind !== 'aborted') return false;
    this.#call.init.outcome.clientLeft();
    return true;
  }

  failure(error: unknown): AppError {
    if (isAppError(error)) return error;
    if (error instanceof TransportError) return this.#call.init.outcome.failed(failureFromTransport(error));
    throw error;
  }

  #write(text: string): void {
    if (!this.#out.destroyed && !this.#out.writableEnded) this.#out.write(text);
  }

  #end(text: string): void {
    this.#stopKeepAlive();
    if (this.#out.destroyed || this.#out.writableEnded) return;
    this.#out.end(text);
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive === undefined) return;
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
