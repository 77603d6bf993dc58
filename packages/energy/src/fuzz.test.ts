/**
 * The energy service under requests derived from its own OpenAPI document: no 5xx, the
 * service's error format, nothing internal in a body, and the process healthy afterwards.
 * `FUZZ_RUNS=5000 FUZZ_SEED=n npm run fuzz` runs it longer.
 */
import { after, before, test } from 'node:test';
import { fuzzOperations } from '@app/http-kit/fuzz.ts';
import type { LightMyRequestResponse } from 'fastify';
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
  await fuzzOperations(h.app, {
    pathPrefix: '/api/',
    credentials: { authorization: `Bearer ${token}` },
    isServiceError: isEnergyError,
  });
});
