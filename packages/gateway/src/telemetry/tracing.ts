/**
 * Traces of the gateway's model routes (docs/gateway/tracing.md). Off unless an OTLP endpoint
 * is configured: then no SDK object exists and no hook is added. On, each model route gets one
 * onResponse hook that builds the request's spans from its CallContext once it is over (for a
 * stream, when the stream ends), continuing the client's W3C trace context when it sent one.
 */
import { pipeline, Readable } from 'node:stream';
import type { RequestLogFields } from '@app/http-kit';
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { FastifyReply, FastifyRequest, onResponseAsyncHookHandler, onSendHookHandler } from 'fastify';
import { type TelemetryConfig, tracesExport } from './config.ts';
import { inputContent, outputContent } from './content.ts';
import { StreamedText, textTap } from './stream-content.ts';
import { createTracingSdk, type TracingSdk } from './sdk.ts';
import { recordSpans, wallClock } from './spans.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `gen_ai.operation.name` of a model route (chat, generate_content, count_tokens). */
    genAiOperation?: string;
  }
}

/** The trace a request belongs to, decided once (by its log line or its end, whichever first). */
interface RequestTrace {
  readonly parent: Context;
  readonly traceId: string;
  /** The client sent no valid traceparent: the server span starts a trace of this id. */
  readonly root: boolean;
  output?: Attributes;
  /** The text of a streamed answer, read as it is sent (message content captured only). */
  streamed?: StreamedText;
}

export interface RouteTracing {
  readonly onResponse: onResponseAsyncHookHandler;
  /** Only when message content is captured: reads the answer sent (JSON, or a stream as it passes). */
  readonly onSend?: onSendHookHandler;
}

export interface GatewayTracing {
  /** The hooks of one model route. */
  route(operation: string): RouteTracing;
  /** The log line's fields plus `traceId` on model routes. */
  logFields(base: RequestLogFields): RequestLogFields;
  /** Exports what is still queued and stops. */
  close(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();

class Tracing implements GatewayTracing {
  readonly #sdk: TracingSdk;
  readonly #capture: boolean;
  readonly #traces = new WeakMap<FastifyRequest, RequestTrace>();

  constructor(sdk: TracingSdk, capture: boolean) {
    this.#sdk = sdk;
    this.#capture = capture;
  }

  #trace(request: FastifyRequest): RequestTrace {
    let found = this.#traces.get(request);
    if (found) return found;
    const parent = propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    const remote = trace.getSpanContext(parent);
    const continued = remote !== undefined && isSpanContextValid(remote);
    found = { parent, traceId: continued ? remote.traceId : this.#sdk.ids.fresh(), root: !continued };
    this.#traces.set(request, found);
    return found;
  }

  route(operation: string): RouteTracing {
    const onResponse = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const state = this.#trace(request);
      const endMs = wallClock(performance.now());
      const output = state.output ?? state.streamed?.attributes();
      const extra = this.#capture ? { ...inputContent(request.body), ...output } : {};
      if (state.root) this.#sdk.ids.preset(state.traceId);
      recordSpans(
        this.#sdk.tracer,
        state.parent,
        {
          operation,
          method: request.method,
          route: request.routeOptions.url ?? '',
          status: reply.statusCode,
          body: request.body,
          startMs: endMs - reply.elapsedTime,
          endMs,
        },
        request.gatewayCall,
        extra,
      );
    };
    if (!this.#capture) return { onResponse };
    const onSend: onSendHookHandler = (request, _reply, payload, done) => {
      if (typeof payload === 'string') this.#trace(request).output = outputContent(payload);
      if (!(payload instanceof Readable)) return done(null, payload);
      // A stream is sent through a tap; its end (or a client leaving) reaches both sides.
      const streamed = new StreamedText();
      this.#trace(request).streamed = streamed;
      const tap = textTap(streamed);
      pipeline(payload, tap, () => {});
      done(null, tap);
    };
    return { onResponse, onSend };
  }

  logFields(base: RequestLogFields): RequestLogFields {
    return (request) => {
      const fields = base(request);
      if (request.routeOptions.config.genAiOperation === undefined) return fields;
      return { ...fields, traceId: this.#trace(request).traceId };
    };
  }

  close(): Promise<void> {
    return this.#sdk.shutdown();
  }
}

/** The gateway's tracing, or undefined when it is off (no endpoint, disabled). */
export function createTracing(config: TelemetryConfig): GatewayTracing | undefined {
  const target = tracesExport(config);
  if (target === undefined) return undefined;
  return new Tracing(createTracingSdk(config, target), config.captureMessageContent);
}
