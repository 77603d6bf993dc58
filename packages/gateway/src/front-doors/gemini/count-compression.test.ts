/**
 * countTokens with a compression level: since the Gemini door counts through the pipeline's
 * token counting, the count is that of the prompt as generateContent would send it upstream,
 * with X-Gateway-Compression, as on /v1/messages/count_tokens.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { compressionCounts } from '../../compression/testing.ts';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
before(async () => {
  t = await startChatApp();
});
after(() => t.close());

const RECORDS = JSON.stringify(
  Array.from({ length: 20 }, (_, id) => ({ id, site: `site-${id}`, kwh: id * 7 })),
  null,
  2,
);
const contents = [{ role: 'user', parts: [{ text: `Which site used most?   \n\n\n\n${RECORDS}\n\n\n\n` }] }];

async function count(model: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1beta/models/${model}:countTokens`,
    headers: { 'x-goog-api-key': t.token },
    payload: { contents },
  });
  assert.equal(response.statusCode, 200, response.body);
  const headers = new Headers(response.headers as Record<string, string>);
  return { tokens: (response.json() as { totalTokens: number }).totalTokens, response, headers };
}

test('countTokens through :compact counts the compacted prompt, counted as plain', async () => {
  for (const model of ['gemini-2.5-flash', 'gpt-5.4-mini']) {
    const plain = await count(`${model}@developer`);
    assert.equal(compressionCounts(plain.headers), undefined, 'off: no X-Gateway-Compression');
    const compact = await count(`${model}:compact@developer`);
    const source = compact.response.headers['x-gateway-token-count'];
    assert.equal(source, plain.response.headers['x-gateway-token-count'], model);
    assert.match(String(compact.response.headers['x-gateway-applied']), /compression=compact/);
    const counts = compressionCounts(compact.headers);
    assert.ok(counts && counts.after < counts.before, JSON.stringify(counts));
    assert.ok(compact.tokens < plain.tokens, `${model}: ${compact.tokens} < ${plain.tokens}`);
  }
});
