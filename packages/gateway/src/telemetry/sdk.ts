/**
 * The OpenTelemetry SDK objects, built explicitly from the validated telemetry configuration:
 * the OTLP/HTTP exporter of the configured protocol, a batch processor, the sampler and the
 * resource. Nothing here reads the environment (the config loader did, once).
 */
import type { Tracer } from '@opentelemetry/api';
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  type IdGenerator,
  ParentBasedSampler,
  RandomIdGenerator,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TelemetryConfig, TracesExport } from './config.ts';

/**
 * Trace ids for root spans, decided before the span exists: the request's log line is written
 * before its spans are built (at its end), and it names the trace id they will carry.
 */
export class PresetTraceIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #next: string | undefined;

  /** A fresh trace id, for a request that continues no client trace. */
  fresh(): string {
    return this.#random.generateTraceId();
  }

  /** The trace id of the next root span started (once). */
  preset(traceId: string): void {
    this.#next = traceId;
  }

  generateTraceId(): string {
    const id = this.#next ?? this.#random.generateTraceId();
    this.#next = undefined;
    return id;
  }

  generateSpanId(): string {
    return this.#random.generateSpanId();
  }
}

function sampler(config: TelemetryConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerArg ?? 1);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function exporter(target: TracesExport, timeoutMs: number) {
  const options = {
    url: target.url,
    headers: parseKeyPairsIntoRecord(target.headers),
    timeoutMillis: timeoutMs,
    compression: CompressionAlgorithm.NONE,
  };
  return target.protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options);
}

export interface TracingSdk {
  readonly tracer: Tracer;
  readonly ids: PresetTraceIds;
  /** Exports what is queued, then stops (on app close). */
  shutdown(): Promise<void>;
}

export function createTracingSdk(config: TelemetryConfig, target: TracesExport): TracingSdk {
  const ids = new PresetTraceIds();
  const resource = defaultResource()
    .merge(resourceFromAttributes(parseKeyPairsIntoRecord(config.resourceAttributes)))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }));
  const provider = new TracerProvider({
    resource,
    sampler: sampler(config),
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor({ exporter: exporter(target, config.timeoutMs) })],
  });
  return {
    tracer: provider.getTracer('@app/gateway'),
    ids,
    shutdown: () => provider.shutdown(),
  };
}
