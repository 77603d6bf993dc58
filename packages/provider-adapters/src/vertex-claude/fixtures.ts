import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import { TEXT_USAGE, TOOL_USAGE } from '../anthropic/fixtures.ts';
import { fixtureReader } from '../conformance/fixture-reader.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';

const fixtures = fixtureReader(join(import.meta.dirname, 'fixtures'));
export const fixtureText = fixtures.text;
export const fixtureBytes = fixtures.bytes;

export const errorFixtures = JSON.parse(fixtureText('errors.fixture.json')) as Record<
  | 'rateLimited'
  | 'badRequest'
  | 'badRequestGoogle'
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'serverError'
  | 'overloaded'
  | 'timeout',
  UpstreamErrorResponse
>;

/** The canonical exchanges as Vertex sends them: Messages bodies, errors in either envelope. */
export const vertexClaudeConformanceFixtures: ConformanceFixtures = {
  textCompletion: fixtureText('text-completion.fixture.json'),
  toolCallCompletion: fixtureText('tool-call-completion.fixture.json'),
  textStream: fixtureBytes('text-stream.fixture.sse'),
  toolCallStream: fixtureBytes('tool-call-stream.fixture.sse'),
  midStreamError: fixtureBytes('mid-stream-error.fixture.sse'),
  expected: { textUsage: TEXT_USAGE, toolUsage: TOOL_USAGE, midStreamStatus: 502 },
  errors: errorFixtures,
};
