/**
 * Tracing settings (section `telemetry` of the gateway config), read from the standard
 * OpenTelemetry variables once, with the rest of the configuration: the SDK is then built
 * from these values and never reads the environment itself. Without an endpoint, tracing is off.
 */
import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

const OTLP_URL = { pattern: '^https?://[^\\s]+$', expected: 'an http:// or https:// URL' };
/** `key=value` pairs separated by commas (W3C Baggage form, values percent-encoded). */
const KEY_VALUE_LIST = {
  pattern: '^\\s*[^=,\\s]+\\s*=[^,]*(,\\s*[^=,\\s]+\\s*=[^,]*)*$',
  expected: 'key=value pairs separated by commas',
};

const Protocol = Type.Union([Type.Literal('http/protobuf'), Type.Literal('http/json')], {
  description: 'OTLP transport (gRPC is not supported)',
});

export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export const TelemetryConfigSchema = Type.Object(
  {
    sdkDisabled: Type.Boolean({
      default: false,
      description: 'Turns tracing off even when an endpoint is set',
    }),
    tracesExporter: Type.Union([Type.Literal('otlp'), Type.Literal('none')], {
      default: 'otlp',
      description: '`none` turns tracing off',
    }),
    endpoint: Type.Optional(
      Type.String({
        ...OTLP_URL,
        description:
          'OTLP/HTTP base URL; traces go to <endpoint>/v1/traces. Unset (and no traces endpoint): tracing off',
      }),
    ),
    tracesEndpoint: Type.Optional(
      Type.String({ ...OTLP_URL, description: 'Full OTLP/HTTP traces URL (wins over the base URL)' }),
    ),
    protocol: Type.Optional(Protocol),
    tracesProtocol: Type.Optional(Protocol),
    headers: Type.Optional(
      Type.String({ ...KEY_VALUE_LIST, description: 'Headers sent with every export (e.g. api-key=...)' }),
    ),
    tracesHeaders: Type.Optional(
      Type.String({
        ...KEY_VALUE_LIST,
        description: 'Headers sent with trace exports (win over the general ones)',
      }),
    ),
    timeoutMs: Type.Integer({
      minimum: 1,
      default: 10_000,
      description: 'Time one export may take before it is given up',
    }),
    serviceName: Type.String({
      minLength: 1,
      default: 'gateway',
      description: '`service.name` of the exported spans',
    }),
    resourceAttributes: Type.Optional(
      Type.String({
        ...KEY_VALUE_LIST,
        description: 'Resource attributes of the exported spans (e.g. deployment.environment.name=prod)',
      }),
    ),
    sampler: Type.Union(
      TRACES_SAMPLERS.map((name) => Type.Literal(name)),
      { default: 'parentbased_always_on', description: 'Which requests are traced' },
    ),
    samplerArg: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        expected: 'a number from 0 to 1',
        description: 'Share of traces kept by the traceidratio samplers (default 1)',
      }),
    ),
    captureMessageContent: Type.Boolean({
      default: false,
      description:
        'Records prompts and answers on spans (gen_ai.input.messages / output.messages); off: never',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type TelemetryConfig = Static<typeof TelemetryConfigSchema>;

export const TELEMETRY_ENV: EnvMapping = {
  sdkDisabled: 'OTEL_SDK_DISABLED',
  tracesExporter: 'OTEL_TRACES_EXPORTER',
  endpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  tracesEndpoint: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  protocol: 'OTEL_EXPORTER_OTLP_PROTOCOL',
  tracesProtocol: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  headers: 'OTEL_EXPORTER_OTLP_HEADERS',
  tracesHeaders: 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  timeoutMs: 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  serviceName: 'OTEL_SERVICE_NAME',
  resourceAttributes: 'OTEL_RESOURCE_ATTRIBUTES',
  sampler: 'OTEL_TRACES_SAMPLER',
  samplerArg: 'OTEL_TRACES_SAMPLER_ARG',
  captureMessageContent: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
};

/** Where and how spans are exported, once the general and trace-specific settings are merged. */
export interface TracesExport {
  readonly url: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  readonly headers: string | undefined;
}

/** The export of a tracing configuration, or undefined when tracing is off. */
export function tracesExport(config: TelemetryConfig): TracesExport | undefined {
  if (config.sdkDisabled || config.tracesExporter === 'none') return undefined;
  const url = config.tracesEndpoint ?? signalUrl(config.endpoint);
  if (url === undefined) return undefined;
  return {
    url,
    protocol: config.tracesProtocol ?? config.protocol ?? 'http/protobuf',
    headers: config.tracesHeaders ?? config.headers,
  };
}

/** The OTLP rule: the general endpoint is a base URL, the traces path is appended to it. */
function signalUrl(base: string | undefined): string | undefined {
  if (base === undefined) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}
