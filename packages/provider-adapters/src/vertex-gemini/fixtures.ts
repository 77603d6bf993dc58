import { fixtureReader } from '../conformance/fixture-reader.ts';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';
import { TEXT_USAGE, TOOL_USAGE } from '../gemini/fixtures.ts';

const fixtures = fixtureReader(join(import.meta.dirname, 'fixtures'));
export const fixtureText = fixtures.text;
export const fixtureBytes = fixtures.bytes;

export const errorFixtures = JSON.parse(fixtureText('errors.fixture.json')) as Record<
  | 'rateLimited'
  | 'badRequest'
  | 'badRequestWithProject'
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'serverError'
  | 'unavailable'
  | 'timeout',
  UpstreamErrorResponse
>;

/** The canonical conformance exchanges as Vertex AI sends them (same counts, plus `trafficType`). */
export const vertexGeminiConformanceFixtures: ConformanceFixtures = {
  textCompletion: fixtureText('text-completion.fixture.json'),
  toolCallCompletion: fixtureText('tool-call-completion.fixture.json'),
  textStream: fixtureBytes('text-stream.fixture.sse'),
  toolCallStream: fixtureBytes('tool-call-stream.fixture.sse'),
  midStreamError: fixtureBytes('mid-stream-error.fixture.sse'),
  expected: { textUsage: TEXT_USAGE, toolUsage: TOOL_USAGE },
  errors: errorFixtures,
};
