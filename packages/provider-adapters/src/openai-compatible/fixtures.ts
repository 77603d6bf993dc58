import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UpstreamErrorResponse } from '../adapter.ts';
import type { ConformanceFixtures } from '../conformance/scenarios.ts';

const dir = join(import.meta.dirname, 'fixtures');

export function fixtureText(name: string): string {
  return readFileSync(join(dir, name), 'utf8');
}

export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(dir, name)));
}

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

/** The canonical conformance exchanges as an OpenAI-compatible server sends them. */
export const openAIConformanceFixtures: ConformanceFixtures = {
  textCompletion: fixtureText('text-completion.fixture.json'),
  toolCallCompletion: fixtureText('tool-call-completion.fixture.json'),
  textStream: fixtureBytes('text-stream.fixture.sse'),
  toolCallStream: fixtureBytes('tool-call-stream.fixture.sse'),
  midStreamError: fixtureBytes('mid-stream-error.fixture.sse'),
  errors: errorFixtures,
};
