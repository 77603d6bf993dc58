/**
 * Error messages name what exists and what was really tried: the 401's way to a token, the
 * 402's buckets and what they have left, the 404 of a provider that does not serve a model,
 * and an empty `GET /v1/models` that says why it is empty.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setAllocation } from '../../access/admin.ts';
import { type ChatTestApp, startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'Hello' }];

describe('401: how to get a token names only what this gateway serves', () => {
  test('without a dashboard, the operator command', async () => {
    const t = await startChatApp({ dashboard: { enabled: false } });
    try {
      for (const authorization of [undefined, 'Bearer not.a.jwt']) {
        const response = await t.app.inject({
          method: 'GET',
          url: '/v1/models',
          headers: authorization ? { authorization } : {},
        });
        assert.equal(response.statusCode, 401);
        const { message } = response.json().error;
        assert.match(message, /npx gatewayctl tokens issue --email <your email> --project <project>/);
        assert.doesNotMatch(message, /dashboard/);
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/dashboard' })).statusCode, 404);
    } finally {
      await t.close();
    }
  });

  test('with a dashboard served at /dashboard, the dashboard', async () => {
    const t = await startChatApp({ dashboard: { enabled: true } });
    try {
      assert.notEqual((await t.app.inject({ method: 'GET', url: '/dashboard' })).statusCode, 404);
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        payload: { model: 'gpt-5.4', messages },
      });
      assert.equal(response.statusCode, 401);
      const { message } = response.json().error;
      assert.match(message, /in the account dashboard \(\/dashboard\)/);
      assert.doesNotMatch(message, /gatewayctl/);
    } finally {
      await t.close();
    }
  });
});

describe('402 and an empty model list with only a cloud_b allocation, spent', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp({ allocations: { cloud_b: 1 } });
    await setAllocation(t.database.db, { slug: 'apollo', provider: 'cloud_b', usd: 0 });
  });
  after(() => t.close());

  test('automatic selection names the buckets it tried and what each has left', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model: 'claude-sonnet', messages },
    });
    assert.equal(response.statusCode, 402);
    const { code, message } = response.json().error;
    assert.equal(code, 'gateway_allocation_exhausted');
    assert.match(message, /project 'apollo'/);
    assert.match(
      message,
      /developer has no allocation; cloud_a has no allocation; cloud_b has \$0\.00 left of \$0\.00/,
    );
    assert.doesNotMatch(message, /cloud_c/, 'cloud_c does not serve Claude: it was not tried');
    assert.doesNotMatch(message, /provider 'developer, /);
  });

  test('an explicit provider names that bucket only', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model: 'claude-sonnet@cloud_b', messages },
    });
    assert.equal(response.statusCode, 402);
    const { message } = response.json().error;
    assert.match(message, /: cloud_b has \$0\.00 left of \$0\.00\. /);
  });

  test('GET /v1/models is an empty OpenAI list that says why', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/models', headers: t.headers() });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.object, 'list');
    assert.deepEqual(body.data, []);
    assert.match(body.notice, /project 'apollo' has no budget left on any provider/);
    assert.match(body.notice, /cloud_b has \$0\.00 left of \$0\.00/);
  });
});

describe('404 for a provider that does not serve the model', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp();
  });
  after(() => t.close());

  test('claude-sonnet@cloud_c names the providers that serve it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model: 'claude-sonnet@cloud_c', messages },
    });
    assert.equal(response.statusCode, 404);
    const { code, message, param } = response.json().error;
    assert.equal(code, 'model_not_found');
    assert.equal(param, 'model');
    assert.match(message, /not served by 'cloud_c'\. Providers serving it: developer, cloud_a, cloud_b/);
  });

  test('a non-empty model list has no notice', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/models', headers: t.headers() });
    assert.ok(response.json().data.length > 0);
    assert.equal('notice' in response.json(), false);
  });
});
