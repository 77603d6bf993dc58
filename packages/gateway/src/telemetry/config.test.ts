/**
 * The OTEL_* variables as the gateway reads them: once, validated, merged the OTLP way (a
 * traces-specific variable wins over the general one; the general endpoint is a base URL).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '@app/http-kit';
import { ADAPTER_IDS, genAiProviderName } from '@app/provider-adapters';
import {
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';
import { loadGatewayConfig } from '../config.ts';
import { tracesExport } from './config.ts';
import { createTracing } from './tracing.ts';

const telemetryOf = (env: NodeJS.ProcessEnv) => loadGatewayConfig(env, { file: {} }).telemetry;

function problems(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    telemetryOf(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('OTEL_* configuration', () => {
  test('no endpoint: tracing is off, no SDK is built', () => {
    const config = telemetryOf({});
    assert.equal(tracesExport(config), undefined);
    assert.equal(createTracing(config), undefined);
  });

  test('the general endpoint is a base URL; the traces one is used as given and wins', () => {
    assert.deepEqual(tracesExport(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })), {
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: undefined,
    });
    const both = telemetryOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=2,c=3',
    });
    assert.deepEqual(tracesExport(both), {
      url: 'https://traces.example.com/otlp',
      protocol: 'http/json',
      headers: 'b=2,c=3',
    });
  });

  test('OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    assert.equal(tracesExport(telemetryOf({ ...endpoint, OTEL_SDK_DISABLED: 'true' })), undefined);
    assert.equal(tracesExport(telemetryOf({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })), undefined);
  });

  test('bad values are refused, naming the variable and never echoing it', () => {
    const found = [
      ...problems({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      ...problems({ OTEL_TRACES_SAMPLER: 'sometimes' }),
      ...problems({ OTEL_TRACES_SAMPLER_ARG: '1.5' }),
      ...problems({ OTEL_EXPORTER_OTLP_HEADERS: 'token-without-value' }),
      ...problems({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'maybe' }),
    ];
    for (const variable of [
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
    ])
      assert.ok(
        found.some((problem) => problem.includes(variable)),
        `${variable}: ${found.join('; ')}`,
      );
    assert.ok(!found.some((problem) => problem.includes('token-without-value')));
  });

  test('message content is off unless opted in', () => {
    assert.equal(telemetryOf({}).captureMessageContent, false);
    assert.equal(
      telemetryOf({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }).captureMessageContent,
      true,
    );
  });
});

test('adapters name their provider family with the conventions’ well-known values', () => {
  const names = Object.fromEntries(ADAPTER_IDS.map((id) => [id, genAiProviderName(id)]));
  assert.deepEqual(names, {
    openai: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
    'openai-compatible': 'openai_compatible',
    'azure-openai': GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
    anthropic: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
    'vertex-claude': GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI,
    'bedrock-converse': GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK,
    gemini: GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
    'vertex-gemini': GEN_AI_PROVIDER_NAME_VALUE_GCP_VERTEX_AI,
  });
});
