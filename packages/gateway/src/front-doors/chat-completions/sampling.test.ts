/**
 * Claude after Opus 4.6 refuses sampling changes (a 400 upstream): the catalog marks those
 * models and every provider's request leaves the client's temperature out instead of failing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startChatApp } from './testing.ts';

test('temperature 0.3 reaches Claude Sonnet, not Claude Opus 4.8, on every Claude provider', async (t) => {
  const gw = await startChatApp();
  t.after(() => gw.close());
  const send = async (model: string) => {
    const response = await gw.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: gw.headers(),
      payload: { model, messages: [{ role: 'user', content: 'hi' }], temperature: 0.3, max_tokens: 50 },
    });
    assert.equal(response.statusCode, 200, `${model}: ${response.body}`);
    const sent = gw.lastUpstreamBody();
    const config = sent.inferenceConfig as Record<string, unknown> | undefined;
    return sent.temperature ?? config?.temperature;
  };
  for (const provider of ['developer', 'cloud_a', 'cloud_b']) {
    assert.equal(await send(`claude-opus-4-8@${provider}`), undefined, provider);
    assert.equal(await send(`claude-sonnet@${provider}`), 0.3, provider);
  }
});
