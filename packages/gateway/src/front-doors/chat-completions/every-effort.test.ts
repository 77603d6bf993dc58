/**
 * Every effort and tier each (model, provider) offer accepts, sent through the gateway to the
 * simulator, which refuses what the real service refuses (effort values per OpenAI model,
 * Anthropic thinking shapes per Claude version, Gemini budgets and levels per model, Bedrock's
 * unknown fields, flex where it does not exist). A wrong entry in the catalog's effort
 * profiles, or an adapter that sends the wrong shape, fails here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bundledCatalog } from '../../routing/testing.ts';
import { type ChatTestApp, startChatApp } from './testing.ts';

describe('every accepted effort and tier reaches its upstream in a shape it takes', () => {
  const catalog = bundledCatalog();
  // Every version of the catalog is sent, so the gateway's clock stays before the first
  // retirement (a retired version is a 410 whatever its shape): the test is not about dates.
  const firstRetirement = Math.min(...catalog.models.map((m) => m.lifecycle?.retiredFrom ?? Infinity));
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp({
      allocations: { developer: 50, cloud_a: 50, cloud_b: 50, cloud_c: 50 },
      now: () => Math.min(Date.now(), firstRetirement - 1),
    });
  });
  after(() => t.close());

  test('each (model, provider, effort, tier) answers 200, streamed or not', async () => {
    let sent = 0;
    // Embedding models take no effort and answer /v1/embeddings (front-doors/embeddings/).
    for (const model of catalog.models.filter((m) => m.kind === 'chat')) {
      for (const [provider, offer] of model.offers) {
        for (const effort of offer.efforts) {
          for (const tier of offer.tiers) {
            const name = `${model.id}:${effort}${tier === 'flex' ? ':flex' : ''}@${provider}`;
            for (const stream of [false, true]) {
              const response = await t.app.inject({
                method: 'POST',
                url: '/v1/chat/completions',
                headers: t.headers(),
                payload: { model: name, stream, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
              });
              assert.equal(response.statusCode, 200, `${name}${stream ? ' (stream)' : ''}: ${response.body}`);
              if (stream) assert.doesNotMatch(response.body, /"error"/, name);
              sent++;
            }
          }
        }
      }
    }
    assert.ok(sent > 150, `${sent} requests`);
  });
});
