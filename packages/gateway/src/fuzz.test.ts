/**
 * The gateway under requests derived from its own OpenAPI document: no 5xx, the OpenAI error
 * envelope, nothing internal in a body, and the process healthy afterwards.
 * `FUZZ_RUNS=5000 FUZZ_SEED=n npm run fuzz` runs it longer.
 */
import { after, before, test } from 'node:test';
import {
  assertSane,
  assertStillHealthy,
  fuzzParameters,
  operationsOf,
  requestsFor,
} from '@app/http-kit/fuzz.ts';
import type { LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { type ChatTestApp, startChatApp } from './front-doors/chat-completions/testing.ts';

function isOpenAIError(response: LightMyRequestResponse): boolean {
  try {
    const parsed = JSON.parse(response.body) as {
      error?: { message?: unknown; type?: unknown; code?: unknown };
    };
    return typeof parsed.error?.message === 'string' && typeof parsed.error.type === 'string';
  } catch {
    return false;
  }
}

let t: ChatTestApp;
before(async () => {
  t = await startChatApp({ allocations: { developer: 1000, cloud_a: 1000, cloud_b: 1000, cloud_c: 1000 } });
});
after(() => t.close());

test('every operation of the OpenAPI document, hostile inputs: sane answers, healthy process', async () => {
  const doc = (await t.app.inject({ url: '/openapi.json' })).json() as Record<string, unknown>;
  const operations = operationsOf(doc).filter((op) => op.path.startsWith('/v1/'));
  const requests = fc.constantFrom(...operations).chain((op) => requestsFor(op));
  await fc.assert(
    fc.asyncProperty(requests, fc.boolean(), async (request, authenticated) => {
      const headers = {
        ...(request.headers as Record<string, string>),
        ...(authenticated ? t.headers() : {}),
      };
      assertSane(await t.app.inject({ ...request, headers }), isOpenAIError);
    }),
    fuzzParameters(process.env, 300),
  );
  await assertStillHealthy(t.app);
});
