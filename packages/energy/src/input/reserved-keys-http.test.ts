import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertPrototypesIntact,
  formPair,
  hasReservedSegment,
  jsonNest,
  type KeyPath,
  keyPath,
  prototypeSnapshot,
  xmlNest,
} from '@app/http-kit/hostile-keys.ts';
import type { LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { energyHarness, type Harness } from '../testing/harness.ts';

type Sender = (h: Harness, path: KeyPath, auth: Record<string, string>) => Promise<LightMyRequestResponse>;

/** Each way a parameter name reaches the service: form, query, JSON and XML bodies. */
const SENDERS: ReadonlyArray<readonly [string, Sender]> = [
  [
    'form body',
    (h, path, auth) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `${formPair(path, 'v', path.length % 2 === 0)}&name=HQ`,
      }),
  ],
  [
    'query string',
    (h, path, auth) =>
      h.app.inject({
        method: 'POST',
        url: `/api/v1/buildings?${formPair(path, 'v', path.length % 2 === 1)}`,
        headers: auth,
      }),
  ],
  [
    'JSON body',
    (h, path, auth) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: `{"name":"HQ","building":${jsonNest(path, 'v')}}`,
      }),
  ],
  [
    'XML body',
    (h, path, auth) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: { ...auth, 'content-type': 'application/xml' },
        payload: `<building><name>HQ</name>${xmlNest(path, 'v')}</building>`,
      }),
  ],
];

describe('parameter names cannot reach Object.prototype (energy)', () => {
  let h: Harness;
  let auth: Record<string, string>;
  before(async () => {
    h = await energyHarness('sqlite');
    auth = { authorization: `Bearer ${(await h.user()).token}` };
  });
  after(() => h.close());

  test('the reported attack: __proto__[x]=1 to authenticate is a 400, and /metrics stays sane', async () => {
    const pristine = prototypeSnapshot();
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/users/authenticate',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '__proto__[x]=1',
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), {
      error: { code: 'bad_request', message: "Parameter name '__proto__' is not accepted." },
    });
    assertPrototypesIntact(pristine);
    for (let i = 0; i < 20; i += 1) {
      const metrics = await h.app.inject({ url: '/metrics' });
      assert.equal(metrics.statusCode, 200);
    }
  });

  for (const [name, send] of SENDERS) {
    test(`arbitrary key paths in a ${name}: never a 5xx, reserved names a 400, prototypes intact`, async () => {
      const pristine = prototypeSnapshot();
      await fc.assert(
        fc.asyncProperty(keyPath, async (path) => {
          const response = await send(h, path, auth);
          assert.ok(response.statusCode < 500, `${response.statusCode} ${response.body}`);
          if (hasReservedSegment(path)) {
            assert.equal(response.statusCode, 400, response.body);
            assert.match(response.json().error.message, /not accepted|reserved/);
          } else {
            assert.notEqual(response.statusCode, 400, response.body);
          }
          assertPrototypesIntact(pristine);
        }),
        { numRuns: 60, seed: 14 },
      );
      const metrics = await h.app.inject({ url: '/metrics' });
      assert.equal(metrics.statusCode, 200);
    });
  }
});
