import { fixtureReader } from '../conformance/fixture-reader.ts';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';
import { type Usage, usageFromMeters } from '../model/usage.ts';

const fixtures = fixtureReader(join(import.meta.dirname, 'fixtures'));
export const fixtureText = fixtures.text;
export const fixtureBytes = fixtures.bytes;

export const errorFixtures = JSON.parse(fixtureText('errors.fixture.json')) as Record<
  'rateLimited' | 'badRequest' | 'unauthorized' | 'notFound' | 'serverError' | 'unavailable' | 'timeout',
  UpstreamErrorResponse
>;

/** Both exchanges reuse a 1024-token cached prefix and think; Google counts both inside its totals. */
export const TEXT_USAGE: Usage = usageFromMeters({
  input: 1207 - 1024,
  cached_input: 1024,
  output: 8,
  reasoning: 114,
});

export const TOOL_USAGE: Usage = usageFromMeters({
  input: 1251 - 1024,
  cached_input: 1024,
  output: 30,
  reasoning: 115,
});

/** The canonical conformance exchanges as the Gemini Developer API sends them (CRLF-framed SSE). */
export const geminiConformanceFixtures: ConformanceFixtures = {
  textCompletion: fixtureText('text-completion.fixture.json'),
  toolCallCompletion: fixtureText('tool-call-completion.fixture.json'),
  textStream: fixtureBytes('text-stream.fixture.sse'),
  toolCallStream: fixtureBytes('tool-call-stream.fixture.sse'),
  midStreamError: fixtureBytes('mid-stream-error.fixture.sse'),
  expected: { textUsage: TEXT_USAGE, toolUsage: TOOL_USAGE },
  errors: errorFixtures,
};
