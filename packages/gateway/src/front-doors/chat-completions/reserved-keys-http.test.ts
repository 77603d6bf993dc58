import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertPrototypesIntact,
  formPair,
  hasReservedSegment,
  jsonNest,
  keyPath,
  prototypeSnapshot,
} from '@app/http-kit/hostile-keys.ts';
import fc from 'fast-check';
import { type ChatTestApp, startChatApp } from './testing.ts';

describe('parameter names cannot reach Object.prototype (gateway)', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp();
  });
  after(() => t.close());

  test('arbitrary key paths in a chat body: never a 5xx, __proto__ a 400, prototypes intact', async () => {
    const pristine = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(keyPath, async (path) => {
        const [head = 'x', ...rest] = path;
        const response = await t.app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: t.headers({ 'content-type': 'application/json' }),
          payload:
            '{"model":"gpt-5.4@developer","messages":[{"role":"user","content":"hi"}],' +
            `${JSON.stringify(head)}:${jsonNest(rest, 'v')}}`,
        });
        assert.ok(response.statusCode < 500, `${response.statusCode} ${response.body}`);
        const constructorPrototype = path.some((s, i) => s === 'constructor' && path[i + 1] === 'prototype');
        if (path.includes('__proto__') || constructorPrototype) {
          assert.equal(response.statusCode, 400, response.body);
          assert.match(
            response.json().error.message,
            /Parameter name '(__proto__|constructor)' is not accepted/,
          );
        }
        assertPrototypesIntact(pristine);
      }),
      { numRuns: 40, seed: 14 },
    );
  });

  test('arbitrary key paths in a query string: reserved names a 400 in the OpenAI envelope', async () => {
    const pristine = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(keyPath, fc.boolean(), async (path, encode) => {
        const response = await t.app.inject({
          url: `/v1/models?${formPair(path, 'v', encode)}`,
          headers: t.headers(),
        });
        if (hasReservedSegment(path)) {
          assert.equal(response.statusCode, 400, response.body);
          assert.equal(response.json().error.type, 'invalid_request_error');
        } else {
          assert.equal(response.statusCode, 200, response.body);
        }
        assertPrototypesIntact(pristine);
      }),
      { numRuns: 60, seed: 14 },
    );
    const metrics = await t.app.inject({ url: '/metrics' });
    assert.equal(metrics.statusCode, 200);
  });
});
