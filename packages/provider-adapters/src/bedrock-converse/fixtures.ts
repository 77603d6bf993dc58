import { fixtureReader } from '../conformance/fixture-reader.ts';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';

const fixtures = fixtureReader(join(import.meta.dirname, 'fixtures'));
export const fixtureText = fixtures.text;
export const fixtureBytes = fixtures.bytes;

export type ErrorFixture =
  | keyof ConformanceFixtures['errors']
  | 'onDemand'
  | 'notFound'
  | 'unrecognizedClient'
  | 'modelNotReady'
  | 'quotaExceeded'
  | 'modelError'
  | 'unavailable'
  | 'untyped401';

export const errorFixtures = JSON.parse(fixtureText('errors.fixture.json')) as Record<
  ErrorFixture,
  UpstreamErrorResponse
>;

/** The canonical conformance exchanges as Bedrock Converse sends them (see fixtures/generate.ts). */
export const bedrockConformanceFixtures: ConformanceFixtures = {
  textCompletion: fixtureText('text-completion.fixture.json'),
  toolCallCompletion: fixtureText('tool-call-completion.fixture.json'),
  textStream: fixtureBytes('text-stream.fixture.eventstream'),
  toolCallStream: fixtureBytes('tool-call-stream.fixture.eventstream'),
  midStreamError: fixtureBytes('mid-stream-error.fixture.eventstream'),
  expected: {
    // inputTokens 14 + cache read 12 + cache write 8.
    textUsage: {
      inputTokens: 34,
      cachedReadTokens: 12,
      cacheWriteTokens: 8,
      outputTokens: 9,
      reasoningTokens: 0,
      webSearchRequests: 0,
    },
    toolUsage: {
      inputTokens: 1234,
      cachedReadTokens: 1024,
      cacheWriteTokens: 0,
      outputTokens: 61,
      reasoningTokens: 0,
      webSearchRequests: 0,
    },
    midStreamStatus: 502,
  },
  errors: errorFixtures,
};
