import { fixtureReader } from '../conformance/fixture-reader.ts';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';
import { type Usage, usageFromMeters } from '../model/usage.ts';

const fixtures = fixtureReader(join(import.meta.dirname, 'fixtures'));
export const fixtureText = fixtures.text;
export const fixtureBytes = fixtures.bytes;

export const errorFixtures = JSON.parse(fixtureText('errors.fixture.json')) as Record<
  | 'rateLimited'
  | 'badRequest'
  | 'badRequestWithKey'
  | 'unauthorized'
  | 'notFound'
  | 'serverError'
  | 'overloadedHtml'
  | 'timeout',
  UpstreamErrorResponse
>;

/** The canonical conformance exchanges as OpenAI (and servers of its API) send them. */
export const openAIConformanceFixtures: ConformanceFixtures = {
  textCompletion: fixtureText('text-completion.fixture.json'),
  toolCallCompletion: fixtureText('tool-call-completion.fixture.json'),
  textStream: fixtureBytes('text-stream.fixture.sse'),
  toolCallStream: fixtureBytes('tool-call-stream.fixture.sse'),
  midStreamError: fixtureBytes('mid-stream-error.fixture.sse'),
  expected: {
    textUsage: usage(21, 5, 8, 2),
    toolUsage: usage(40, 16, 24, 6),
  },
  errors: errorFixtures,
};

/** OpenAI's totals include their cached and reasoning parts; the meters are disjoint. */
function usage(prompt: number, cached: number, completion: number, reasoning: number): Usage {
  return usageFromMeters({
    input: prompt - cached,
    cached_input: cached,
    output: completion - reasoning,
    reasoning,
  });
}
