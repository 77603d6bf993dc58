/**
 * `compressed` towards a configured share of the prompt (compression.targetRatio) rather than the
 * context window, through the OpenAI SDK: the prompt here is far below the window, so without the
 * setting `compressed` would cut nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';
import { compressionCounts } from './testing.ts';

const RATIO = 0.5;
let t: ChatTestApp;
let openai: OpenAI;

before(async () => {
  t = await startChatApp({ compression: { targetRatio: RATIO } });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
});
after(() => t.close());

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Tidy prose (nothing for `compact` to remove) over many middle turns. */
function conversation(): Message[] {
  const paragraph = (turn: number) =>
    `Turn ${turn}: ${'The meter on feeder seven reported a steady load through the evening. '.repeat(20).trimEnd()}`;
  const messages: Message[] = [
    { role: 'system', content: 'You summarise meter reports.' },
    { role: 'user', content: 'Here are the reports.' },
  ];
  for (let turn = 0; turn < 20; turn += 1)
    messages.push(
      { role: 'assistant', content: `Noted report ${turn}.` },
      { role: 'user', content: paragraph(turn) },
    );
  messages.push({ role: 'assistant', content: 'All read.' }, { role: 'user', content: 'Summarise.' });
  return messages;
}

async function counts(model: string) {
  const { response } = await openai.chat.completions
    .create({ model, messages: conversation(), max_completion_tokens: 64 })
    .withResponse();
  const measured = compressionCounts(response.headers);
  assert.ok(measured, 'X-Gateway-Compression is present');
  return {
    ...measured,
    sent: t.lastUpstreamBody().messages as { role: string; content: unknown }[],
  };
}

test('compressed cuts to the configured share of the prompt, keeping the protected turns', async () => {
  const { before, after, sent } = await counts('gpt-5.4-mini:compressed@developer');
  assert.ok(after <= Math.floor(before * RATIO), `${after} <= ${RATIO} x ${before}`);
  assert.ok(after > 0);
  assert.match(JSON.stringify(sent), /tokens left out by the gateway/);
  assert.deepEqual(
    sent.slice(0, 2).map((message) => message.role),
    ['system', 'user'],
  );
  assert.deepEqual(JSON.stringify(sent.at(-1)?.content), '[{"type":"text","text":"Summarise."}]');
  assert.deepEqual(JSON.stringify(sent.at(-2)?.content), '"All read."');
});

test('compact ignores the ratio: it never cuts', async () => {
  const { before, after, sent } = await counts('gpt-5.4-mini:compact@developer');
  assert.equal(after, before);
  assert.doesNotMatch(JSON.stringify(sent), /left out by the gateway/);
});
