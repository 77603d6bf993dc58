/**
 * A streamed answer, for every front door: the response is committed (200 + SSE headers) as
 * soon as the upstream answers 2xx, or earlier when it is slow to answer at all, so that
 * `: keep-alive` comments can flow; a failure before the commit keeps its honest HTTP status,
 * one after it becomes the client API's error event. Usage is always metered: from the
 * upstream's figures, else estimated from what was streamed. What differs between client APIs
 * (event encoding, passthrough of the upstream's own events, the error event, the end marker)
 * is the front door's `StreamDialect`.
 */
import { Readable } from 'node:stream';
import { type AppError, isAppError } from '@app/http-kit';
import type { ServedTier, StreamEvent, UpstreamFailure, Usage } from '@app/provider-adapters';
import { gatewayErrors } from '../errors.ts';
import { TransportError, type UpstreamResponse } from '../upstream/index.ts';
import { appliedState } from './applied.ts';
import { requestCostMicros, usdOf } from './answer-cost.ts';
import type { Produced } from './call-outcome.ts';
import { failureFromTransport } from './failures.ts';
import {
  CONTENT,
  type CostNow,
  generatedChars,
  KEEP_ALIVE,
  type NativeEvent,
  SSE_HEADERS,
  type StreamDialect,
} from './stream-dialect.ts';
import type { UpstreamCall } from './upstream-call.ts';

type Settled = { readonly response: UpstreamResponse } | { readonly error: unknown };

/**
 * Commits the SSE response, after which the stream runs on its own, or throws an AppError
 * before committing. Resolves to false when the client left before anything was sent.
 */
export async function respondStream(
  call: UpstreamCall,
  options: { readonly keepAliveMs: number },
  dialect: StreamDialect,
): Promise<boolean> {
  const session = new StreamSession(call, options.keepAliveMs, dialect);
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
    session.keepAlive({ now: true });
    session.track(session.await(answer));
    return true;
  }
  if ('error' in first) {
    if (session.clientGone(first.error)) return false;
    throw session.failure(first.error);
  }
  if (first.response.status < 200 || first.response.status >= 300)
    throw await call.failFromResponse(first.response);
  // Committed with its first content, so the headers can still report the tier the upstream
  // served, and a stream that fails before any content is still a failure with its own status
  // (which the caller may try elsewhere).
  session.keepAlive();
  session.track(session.pump(first.response));
  return session.started;
}

class StreamSession {
  readonly #call: UpstreamCall;
  readonly #keepAliveMs: number;
  readonly #dialect: StreamDialect;
  /** What Fastify pipes to the client; text is pushed straight in (no Transform step per token). */
  readonly #out = new Readable({ read() {} });
  #keepAlive: NodeJS.Timeout | undefined;
  #usage: Usage | undefined;
  #servedTier: ServedTier | undefined;
  #streamedChars = 0;
  /** Generated content arrived (its time is the attempt's time to first token). */
  #firstToken = false;
  /** The stream completed (its end marker was sent). */
  #completed = false;
  /** The upstream speaks the client's API: its events pass through and the encoder stays idle. */
  #passthrough = false;
  #committed = false;
  /** The end of the body was pushed (readableEnded turns true only once it is read). */
  #ended = false;
  /** Content (or a keep-alive comment) was sent: from here on, failures go in-stream. */
  #started = false;
  /** Wire text of events before the first content (a start event, usage), sent with it. */
  #held = '';
  /** The read being handled holds content: the stream starts once it is handled. */
  #content = false;
  readonly #start = Promise.withResolvers<boolean>();
  readonly #cost: CostNow = () =>
    this.#usage && usdOf(requestCostMicros(this.#call, this.#usage, this.#servedTier));

  constructor(call: UpstreamCall, keepAliveMs: number, dialect: StreamDialect) {
    this.#call = call;
    this.#keepAliveMs = keepAliveMs;
    this.#dialect = dialect;
    // Settled exactly once; whoever does not await it (a committed stream) must not see a rejection.
    this.#start.promise.catch(() => {});
  }

  /**
   * True once the answer started streaming (or ended complete), false when the client left
   * before; an AppError when the upstream failed before any content (nothing was sent).
   */
  get started(): Promise<boolean> {
    return this.#start.promise;
  }

  /** Sends the status and headers; X-Gateway-Applied reports the served tier when it is known by then. */
  commit(): void {
    if (this.#committed) return;
    this.#committed = true;
    const { reply } = this.#call.init;
    const applied = appliedState(reply.request);
    if (this.#servedTier && applied.options) applied.options = { ...applied.options, tier: this.#servedTier };
    reply.headers(this.#dialect.framing?.headers ?? SSE_HEADERS).send(this.#out);
  }

  /** Comments every interval until the first event; `now`: the upstream has already been silent for one. */
  keepAlive(options: { now?: boolean } = {}): void {
    const comment = () => {
      this.#begin();
      this.#write(this.#dialect.framing?.keepAlive ?? KEEP_ALIVE);
    };
    if (options.now) comment();
    this.#keepAlive = setInterval(comment, this.#keepAliveMs);
  }

  track(run: Promise<void>): void {
    const { pending, log } = this.#call.init;
    const tracked = run
      .catch((error: unknown) => {
        log.error({ err: error }, 'stream failed');
        this.#call.init.outcome.gatewayFault(this.#produced());
        const internal = gatewayErrors.create('internal', {});
        if (this.#started) this.#end(this.#dialect.errorEvent(internal));
        else this.#abandon(internal);
      })
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
  }

  /** Slow upstream: the response is already committed, so its answer arrives in-stream. */
  async await(answer: Promise<Settled>): Promise<void> {
    const settled = await answer;
    if ('error' in settled) {
      // Ending also stops the keep-alive comments, whoever is (no longer) listening.
      const gone = this.clientGone(settled.error);
      this.#end(gone ? '' : this.#dialect.errorEvent(this.failure(settled.error)));
      return;
    }
    if (settled.response.status < 200 || settled.response.status >= 300) {
      this.#end(this.#dialect.errorEvent(await this.#call.failFromResponse(settled.response)));
      return;
    }
    await this.pump(settled.response);
  }

  async pump(response: UpstreamResponse): Promise<void> {
    const { adapter, clientApi } = this.#call.init;
    const translator = adapter.createStreamTranslator({ clientApi });
    try {
      let ended = false;
      // Each read is handled synchronously as it arrives (no promise per token).
      await response.each((bytes) => {
        // After the end marker the rest of the body (normally nothing) is drained, not
        // destroyed, so the connection goes back to the pool; after an error event it is cut.
        if (ended) return;
        ended = this.#handle(translator.push(bytes));
        if (ended && !this.#completed) response.discard();
      });
      if (ended || this.#handle(translator.end())) return;
      if (this.#dialect.completeOnUsage && this.#usage) this.#handle([{ type: 'done' }]);
      else this.#fail({ kind: 'server', status: 502, message: 'the provider ended the stream early.' });
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      if (error.kind === 'aborted') {
        this.#call.init.outcome.clientLeft(this.#produced());
        if (this.#started) this.#end('');
        else this.#abandon(undefined);
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
    let index = 0;
    for (const event of events) {
      index++;
      if (!this.#firstToken && CONTENT.has(event.type)) this.#tokenArrived();
      if (!this.#started && CONTENT.has(event.type)) this.#content = true;
      switch (event.type) {
        case 'native':
          this.#meterAhead(events, index);
          batch += this.#native(event);
          break;
        case 'error':
          this.#beginIfContent();
          this.#write(batch);
          this.#fail(event.failure);
          return true;
        case 'done':
          this.#completed = true;
          this.#call.init.outcome.succeeded(this.#produced());
          this.#end(batch + this.#encoded(event) + this.#dialect.terminator);
          return true;
        default:
          // The headers are already sent; the charge still follows the tier served.
          this.#meter(event);
          batch += this.#encoded(event);
      }
    }
    // After the whole read, so the headers report what it said (the served tier).
    this.#beginIfContent();
    if (batch !== '') this.#write(batch);
    return false;
  }

  /** The headers are already sent; the charge still follows the tier served. */
  #meter(event: StreamEvent): void {
    if (event.type === 'served_tier') this.#servedTier = event.tier;
    else if (event.type === 'usage') this.#usage = event.usage;
    else if (event.type === 'finish') this.#finished(event.reason);
    else if (event.type === 'start' && event.model !== undefined) this.#served(event.model);
  }

  /**
   * A translator puts the usage it read from a native event after that event: it is taken
   * first, so that the native event carrying the usage can carry the cost too.
   */
  #meterAhead(events: readonly StreamEvent[], from: number): void {
    for (let index = from; index < events.length; index++) {
      const next = events[index];
      if (next === undefined || next.type === 'native') return;
      this.#meter(next);
    }
  }

  /** Time to first token: the first generated content of the stream (keep-alives do not count). */
  #tokenArrived(): void {
    this.#firstToken = true;
    const attempt = this.#call.init.outcome.attempt;
    if (attempt) attempt.firstTokenMs = performance.now() - attempt.startedAt;
  }

  #finished(reason: string): void {
    const attempt = this.#call.init.outcome.attempt;
    if (attempt) attempt.finishReason = reason;
  }

  #served(model: string): void {
    const attempt = this.#call.init.outcome.attempt;
    if (attempt) attempt.responseModel = model;
  }

  #beginIfContent(): void {
    if (this.#content && !this.#started) this.#begin();
  }

  #native(event: NativeEvent): string {
    this.#passthrough = true;
    const { text, chars } = this.#dialect.native(event, this.#cost);
    if (chars > 0) {
      this.#content = true;
      if (!this.#firstToken) this.#tokenArrived();
    }
    if (text !== '') this.#stopKeepAlive();
    this.#streamedChars += chars;
    return text;
  }

  /** An event of the internal model, encoded by the dialect (nothing in passthrough). */
  #encoded(event: StreamEvent): string {
    if (this.#passthrough) return '';
    this.#streamedChars += generatedChars(event);
    const text = this.#dialect.encode(event, this.#cost);
    if (text !== '' && event.type !== 'done') this.#stopKeepAlive();
    return text;
  }

  /** Ends the stream with an error event: partial output is charged, a reservation with none is released. */
  #fail(failure: UpstreamFailure): void {
    const error = this.#call.init.outcome.failed(failure, this.#produced());
    if (this.#started) this.#end(this.#dialect.errorEvent(error));
    else this.#abandon(error);
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
    if (text === '') return;
    if (!this.#started) {
      this.#held += text;
      return;
    }
    if (!this.#out.destroyed && !this.#ended) this.#out.push(text);
  }

  /** The answer starts: commit, send what was held, and let the caller return the reply. */
  #begin(): void {
    if (this.#started) return;
    this.#started = true;
    const attempt = this.#call.init.outcome.attempt;
    if (attempt?.outcome === 'pending') attempt.outcome = 'ok';
    this.commit();
    const held = this.#held;
    this.#held = '';
    if (held !== '' && !this.#out.destroyed) this.#out.push(held);
    this.#start.resolve(true);
  }

  /** Nothing was sent: the stream is dropped and the caller answers (or tries again). */
  #abandon(error: AppError | undefined): void {
    this.#stopKeepAlive();
    this.#ended = true;
    this.#held = '';
    if (error) this.#start.reject(error);
    else this.#start.resolve(false);
  }

  #end(text: string): void {
    this.#stopKeepAlive();
    this.#begin();
    if (this.#out.destroyed || this.#ended) return;
    this.#ended = true;
    if (text !== '') this.#out.push(text);
    this.#out.push(null);
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive === undefined) return;
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
