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
  isJsonObject,
  type StreamEvent,
  type TokenUsage,
  type UpstreamFailure,
} from '@app/provider-adapters';
import { gatewayErrors } from '../errors.ts';
import { TransportError, type UpstreamResponse } from '../upstream/index.ts';
import { failureFromTransport, sseErrorEvent } from './failures.ts';
import type { UpstreamCall } from './upstream-call.ts';

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
  #keepAlive: NodeJS.Timeout | undefined;
  #usage: TokenUsage | undefined;
  #streamedChars = 0;
  /** [DONE] was sent. */
  #completed = false;

  constructor(call: UpstreamCall, options: StreamOptions) {
    this.#call = call;
    this.#options = options;
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
    const { adapter, plan } = this.#call.init;
    const translator = adapter.createStreamTranslator({
      model: plan.model,
      includeUsage: this.#options.includeUsage,
    });
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
        this.#call.init.meter.settle(this.#usage, 'aborted', this.#streamedChars);
        this.#call.report('ok');
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
        case 'chunk':
          this.#stopKeepAlive();
          this.#streamedChars += generatedChars(event.chunk.choices);
          batch += `data: ${JSON.stringify(event.chunk)}\n\n`;
          break;
        case 'usage':
          this.#usage = event.usage;
          if (event.chunk) batch += `data: ${JSON.stringify(event.chunk)}\n\n`;
          break;
        case 'error':
          this.#write(batch);
          this.#fail(event.failure);
          return true;
        case 'done':
          this.#completed = true;
          this.#call.init.meter.settle(this.#usage, 'ok', this.#streamedChars);
          this.#call.report('ok');
          this.#end(batch + DONE);
          return true;
      }
    }
    if (batch !== '') this.#write(batch);
    return false;
  }

  /** Ends the stream with an error event: partial output is charged, a reservation with none is released. */
  #fail(failure: UpstreamFailure): void {
    // Once settled, fail() only reports and maps: its release is then a no-op.
    if (this.#produced()) this.#call.init.meter.settle(this.#usage, 'error', this.#streamedChars);
    this.#end(sseErrorEvent(this.#call.fail(failure)));
  }

  /** A fault of the gateway itself mid-stream (logged by the caller). */
  internal(): void {
    const { meter } = this.#call.init;
    if (this.#produced()) meter.settle(this.#usage, 'error', this.#streamedChars);
    else meter.release('gateway error');
    this.#end(sseErrorEvent(gatewayErrors.create('internal', {})));
  }

  #produced(): boolean {
    return this.#usage !== undefined || this.#streamedChars > 0;
  }

  /** Before anything was streamed: the client left (true), or the failure as an AppError. */
  clientGone(error: unknown): boolean {
    if (!(error instanceof TransportError) || error.kind !== 'aborted') return false;
    this.#call.init.meter.settle(undefined, 'aborted');
    return true;
  }

  failure(error: unknown): AppError {
    if (isAppError(error)) return error;
    if (error instanceof TransportError) return this.#call.fail(failureFromTransport(error));
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

/** Characters of generated text in a chunk's choices (content and tool-call arguments). */
function generatedChars(choices: readonly Record<string, unknown>[]): number {
  let chars = 0;
  for (const choice of choices) {
    const delta = isJsonObject(choice.delta) ? choice.delta : undefined;
    if (!delta) continue;
    if (typeof delta.content === 'string') chars += delta.content.length;
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        const args = isJsonObject(call) && isJsonObject(call.function) ? call.function.arguments : undefined;
        if (typeof args === 'string') chars += args.length;
      }
    }
  }
  return chars;
}
