/**
 * countTokens on a Gemini model against the simulator's own counters (developer: the Gemini
 * API's, cloud_b: Vertex's): the count is the upstream's, equal to the prompt tokens the same
 * request reports when generated, and repeated counts leave the provider's circuit closed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;

before(async () => {
  t = await startChatApp();
});
after(() => t.close());

const body = {
  systemInstruction: { parts: [{ text: 'Answer briefly.' }] },
  contents: [{ role: 'user', parts: [{ text: 'How many planets orbit the Sun?' }] }],
};

async function post(model: string, method: string) {
  return t.app.inject({
    method: 'POST',
    url: `/v1beta/models/${model}:${method}`,
    headers: { 'x-goog-api-key': t.token },
    payload: body,
  });
}

for (const model of ['gemini-2.5-flash@developer', 'gemini-2.5-flash@cloud_b']) {
  describe(`countTokens on ${model}`, () => {
    it("answers the upstream's count, the prompt tokens generation reports, time after time", async () => {
      const generated = await post(model, 'generateContent');
      assert.equal(generated.statusCode, 200, generated.body);
      const prompt = (generated.json() as { usageMetadata: { promptTokenCount: number } }).usageMetadata
        .promptTokenCount;
      // More counts than the failures that open a circuit (5): each would be one if the counter failed.
      for (let round = 0; round < 7; round++) {
        const counted = await post(model, 'countTokens');
        assert.equal(counted.statusCode, 200, counted.body);
        assert.equal(counted.headers['x-gateway-token-count'], 'upstream', `count ${round + 1}`);
        assert.deepEqual(counted.json(), { totalTokens: prompt });
      }
      const after = await post(model, 'generateContent');
      assert.equal(after.statusCode, 200, 'the provider still serves');
      assert.match(String(after.headers['x-gateway-applied']), new RegExp(`provider=${model.split('@')[1]}`));
    });
  });
}
