import { fixtureReader } from '../conformance/fixture-reader.ts';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';
import type { Usage } from '../model/usage.ts';

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

/** The fixtures' usage in the internal convention: cache reads and writes added to the input. */
export const TEXT_USAGE: Usage = {
  inputTokens: 20 + 100 + 30,
  cachedReadTokens: 100,
  cacheWriteTokens: 30,
  outputTokens: 60,
  reasoningTokens: 50,
  webSearchRequests: 0,
};
export const TOOL_USAGE: Usage = {
  inputTokens: 412 + 1024,
  cachedReadTokens: 1024,
  cacheWriteTokens: 0,
  outputTokens: 88,
  reasoningTokens: 0,
  webSearchRequests: 0,
};

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
