/**
 * POST /v1/messages/count_tokens with a compression level, through the Anthropic SDK: the count
 * is that of the prompt as /v1/messages would send it upstream (the upstream's counter where it
 * has one, else the estimate), with X-Gateway-Compression as on /v1/messages.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';
import { compressionCounts } from './testing.ts';

let t: ChatTestApp;
let client: Anthropic;

before(async () => {
  t = await startChatApp();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  client = anthropicClient(url, t.token);
});
after(() => t.close());

const RECORDS = JSON.stringify(
  Array.from({ length: 20 }, (_, id) => ({ id, site: `site-${id}`, kwh: id * 7 })),
  null,
  2,
);
const messages: Anthropic.MessageParam[] = [
  { role: 'user', content: `Which site used most?   \n\n\n\n${RECORDS}\n\n\n\nThanks.   ` },
];

const compression = (response: Response) => compressionCounts(response.headers);

test('count_tokens through :compact counts the compacted prompt, as /v1/messages bills it', async () => {
  const plain = await client.messages
    .countTokens({ model: 'claude-sonnet@developer', messages })
    .withResponse();
  assert.equal(compression(plain.response), undefined, 'off: no X-Gateway-Compression');

  const compact = await client.messages
    .countTokens({ model: 'claude-sonnet:compact@developer', messages })
    .withResponse();
  assert.equal(compact.response.headers.get('x-gateway-token-count'), 'upstream');
  assert.match(compact.response.headers.get('x-gateway-applied') ?? '', /compression=compact/);
  const counts = compression(compact.response);
  assert.ok(counts && counts.after < counts.before, JSON.stringify(counts));
  assert.ok(compact.data.input_tokens < plain.data.input_tokens, 'the upstream counted the compacted body');
  // What the upstream's counter received is the compacted body.
  const sent = JSON.stringify(t.sim.received.at(-1)?.body);
  assert.ok(sent.includes('{\\"id\\":0,\\"site\\":'), sent.slice(0, 300));

  const answered = await client.messages.create({
    model: 'claude-sonnet:compact@developer',
    messages,
    max_tokens: 10,
  });
  assert.equal(compact.data.input_tokens, answered.usage.input_tokens, 'the count is what is billed');

  const byHeader = await client.messages
    .countTokens(
      { model: 'claude-sonnet@developer', messages },
      { headers: { 'X-Gateway-Compression': 'compact' } },
    )
    .withResponse();
  assert.equal(byHeader.data.input_tokens, compact.data.input_tokens);
  assert.deepEqual(compression(byHeader.response), counts);
});

test('count_tokens estimated by the gateway also counts the compressed prompt', async () => {
  const plain = await client.messages.countTokens({ model: 'gpt-5.4-mini', messages }).withResponse();
  const compact = await client.messages
    .countTokens({ model: 'gpt-5.4-mini:compact', messages })
    .withResponse();
  assert.equal(compact.response.headers.get('x-gateway-token-count'), 'estimate');
  assert.ok(compression(compact.response));
  assert.ok(compact.data.input_tokens < plain.data.input_tokens, `${compact.data.input_tokens}`);
});
