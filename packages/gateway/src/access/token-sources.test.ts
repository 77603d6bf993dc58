/**
 * Where a front door reads the token (its descriptor's `tokenSources`, passed to authenticate):
 * a header of its own or a query parameter, in the order given, the first found winning.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAppError } from '@app/http-kit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TokenSource } from '../contracts.ts';
import { createAccessControl } from './control.ts';
import { loadSigningKeys, signingKeyLocation } from './keys.ts';
import { startTestApp, type TestApp } from './test-app.ts';
import { seedAccount } from './testing.ts';

const GOOGLE: readonly TokenSource[] = [
  { kind: 'bearer' },
  { kind: 'header', name: 'x-goog-api-key' },
  { kind: 'query', name: 'key' },
];

describe('token sources of a front door', () => {
  let t: TestApp;
  let probe: FastifyInstance;
  let token: string;
  let closeControl: () => Promise<void>;
  before(async () => {
    t = await startTestApp('sqlite');
    ({ token } = await seedAccount(t.database, {
      email: 'gem@example.com',
      projectSlug: 'gem',
      allocations: { developer: 5 },
      config: t.config,
    }));
    const keys = await loadSigningKeys(signingKeyLocation(t.config.dataDir, t.config.access.signingKeyPath));
    const control = createAccessControl({ db: t.database.db, keys, config: t.config.access, log: t.app.log });
    // A route that authenticates as a door with these sources does: who it is, or the error's code.
    probe = Fastify();
    probe.get('/probe', async (request) => {
      try {
        return { email: (await control.authenticate(request, GOOGLE)).email };
      } catch (error) {
        if (isAppError(error)) return { code: error.code };
        throw error;
      }
    });
    closeControl = () => control.close();
  });
  after(async () => {
    await probe.close();
    await closeControl();
    await t.close();
  });

  const get = async (url: string, headers: Record<string, string> = {}) =>
    (await probe.inject({ url, headers })).json() as { email?: string; code?: string };

  it('reads a header of its own and a query parameter', async () => {
    assert.deepEqual(await get('/probe', { 'x-goog-api-key': token }), { email: 'gem@example.com' });
    assert.deepEqual(await get(`/probe?key=${token}`), { email: 'gem@example.com' });
    assert.deepEqual(await get('/probe?key=not.a.jwt'), { code: 'gateway_invalid_token' });
  });

  it('takes the first source present: Authorization before the header before the query', async () => {
    assert.deepEqual(await get(`/probe?key=${token}`, { 'x-goog-api-key': 'not.a.jwt' }), {
      code: 'gateway_invalid_token',
    });
    assert.deepEqual(await get(`/probe?key=${token}`, { authorization: 'Bearer abc' }), {
      code: 'gateway_invalid_token',
    });
  });

  it('does not read a source it was not given, nor a blank one', async () => {
    // x-api-key is a default source, not one of these.
    assert.deepEqual(await get('/probe', { 'x-api-key': token }), { code: 'missing_token' });
    assert.deepEqual(await get('/probe?key=%20', { 'x-goog-api-key': ' ' }), { code: 'missing_token' });
  });
});
