import { fixtureReader } from '../conformance/fixture-reader.ts';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';
import { type Usage, usageFromMeters } from '../model/usage.ts';

const fixtures = fixtureReader(join(import.meta.dirname, 'fixtures'));
export const fixtureText = fixtures.text;
export const fixtureBytes = fixtures.bytes;

export type AnthropicErrorName =
  | 'rateLimited'
  | 'badRequest'
  | 'badRequestMaxTokens'
  | 'contentFilter'
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'tooLarge'
  | 'serverError'
  | 'overloaded'
  | 'timeout';

export const errorFixtures = JSON.parse(fixtureText('errors.fixture.json')) as Record<
  AnthropicErrorName,
  UpstreamErrorResponse
>;

/** The fixtures' usage as meters: the 30 written tokens are 5-minute writes (`cache_creation`). */
export const TEXT_USAGE: Usage = usageFromMeters({
  input: 20,
  cached_input: 100,
  cache_write_5m: 30,
  output: 10,
  reasoning: 50,
});
export const TOOL_USAGE: Usage = usageFromMeters({ input: 412, cached_input: 1024, output: 88 });

/** The canonical conformance exchanges as Anthropic's API sends them. */
export const anthropicConformanceFixtures: ConformanceFixtures = {
  textCompletion: fixtureText('text-completion.fixture.json'),
  toolCallCompletion: fixtureText('tool-call-completion.fixture.json'),
  textStream: fixtureBytes('text-stream.fixture.sse'),
  toolCallStream: fixtureBytes('tool-call-stream.fixture.sse'),
  midStreamError: fixtureBytes('mid-stream-error.fixture.sse'),
  expected: {
    textUsage: TEXT_USAGE,
    toolUsage: TOOL_USAGE,
    midStreamStatus: 503,
    midStreamRetry: 'anywhere',
  },
  errors: errorFixtures,
};
