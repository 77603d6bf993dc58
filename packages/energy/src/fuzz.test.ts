/**
 * The energy service under requests derived from its own OpenAPI document: no 5xx, the
 * service's error format, nothing internal in a body, and the process healthy afterwards.
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
import { energyHarness, type Harness } from './testing/harness.ts';

function isEnergyError(response: LightMyRequestResponse): boolean {
  const body = response.body;
  if (response.headers['content-type']?.toString().includes('xml'))
    return /<(error|errors)(\s|>)/.test(body) || /<errors\/>/.test(body);
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown }; errors?: unknown };
    return typeof parsed.error?.code === 'string' || typeof parsed.errors === 'object';
  } catch {
    return false;
  }
}

let h: Harness;
let token: string;
before(async () => {
  h = await energyHarness('sqlite');
  ({ token } = await h.user());
});
after(() => h.close());

test('every operation of the OpenAPI document, hostile inputs: sane answers, healthy process', async () => {
  const doc = (await h.app.inject({ url: '/openapi.json' })).json() as Record<string, unknown>;
  const operations = operationsOf(doc).filter((op) => op.path.startsWith('/api/'));
  const requests = fc.constantFrom(...operations).chain((op) => requestsFor(op));
  await fc.assert(
    fc.asyncProperty(requests, fc.boolean(), async (request, authenticated) => {
      const headers = {
        ...(request.headers as Record<string, string>),
        ...(authenticated ? { authorization: `Bearer ${token}` } : {}),
      };
      assertSane(await h.app.inject({ ...request, headers }), isEnergyError);
    }),
    fuzzParameters(process.env, 300),
  );
  await assertStillHealthy(h.app);
});
