import { fixtureReader } from '../conformance/fixture-reader.ts';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';
import { usageFromMeters } from '../model/usage.ts';

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
    textUsage: usageFromMeters({ input: 14, cached_input: 12, cache_write_5m: 8, output: 9 }),
    toolUsage: usageFromMeters({ input: 1234 - 1024, cached_input: 1024, output: 61 }),
    midStreamStatus: 502,
  },
  errors: errorFixtures,
};
