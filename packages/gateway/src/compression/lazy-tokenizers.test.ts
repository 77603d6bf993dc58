/**
 * The tokenizer vocabularies (tens of MiB each) load on the first request that compresses: a
 * module hook records every import this process resolves, before the gateway is imported. A
 * running gateway serving uncompressed requests has loaded none; the first compressed request
 * loads one and reports the same counts as the compression engine with the loaded tokenizer.
 */
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { after, before, test } from 'node:test';

const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    resolved.push(specifier);
    return nextResolve(specifier, context);
  },
});
const TOKENIZERS = ['gpt-tokenizer', '@anthropic-ai/tokenizer'];
const loadedTokenizers = () =>
  resolved.filter((specifier) => TOKENIZERS.some((name) => specifier.startsWith(name)));

// Imported after the hook is in place (static imports would resolve first).
const { startChatApp } = await import('../front-doors/chat-completions/testing.ts');
type ChatTestApp = Awaited<ReturnType<typeof startChatApp>>;

let t: ChatTestApp;
let url: string;

before(async () => {
  t = await startChatApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

const prompt = { role: 'user', content: 'Hello.   \n\n\n\nHow much did pump 3 use yesterday?   ' };

async function chat(model: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [prompt], max_completion_tokens: 16 }),
  });
  await response.arrayBuffer();
  assert.equal(response.status, 200);
  return response;
}

test('importing and starting the gateway loads no tokenizer; uncompressed requests neither', async () => {
  assert.ok(
    resolved.some((specifier) => specifier.includes('app.ts')),
    'the hook sees the app import',
  );
  assert.deepEqual(loadedTokenizers(), []);
  await chat('gpt-5.4-mini@developer');
  assert.deepEqual(loadedTokenizers(), []);
});

test('the first compressed request loads its tokenizer and counts with it', async () => {
  const response = await chat('gpt-5.4-mini:compact@developer');
  assert.deepEqual(loadedTokenizers(), ['gpt-tokenizer/encoding/o200k_base']);
  const { compress, tokenizerFor } = await import('./index.ts');
  const { openAIChat } = await import('@app/provider-adapters');
  const request = openAIChat.decodeChatRequest({ model: 'gpt-5.4-mini', messages: [prompt] });
  const expected = compress({
    request,
    level: 'compact',
    budget: 0,
    tokenizer: await tokenizerFor('openai'),
  });
  assert.equal(
    response.headers.get('x-gateway-compression'),
    `input-tokens-before=${expected.before}, input-tokens-after=${expected.after}`,
  );
  assert.ok(expected.after < expected.before);
});
