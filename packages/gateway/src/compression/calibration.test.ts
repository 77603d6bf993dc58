/**
 * Calibration against an upstream's own free token counter: Anthropic's count_tokens, reached
 * through the gateway's /v1/messages/count_tokens (which forwards to it) on the bundled
 * simulator. What this really measures: the simulator counts about four characters per token
 * plus three per message (the system prompt counting as one), not with Claude's tokenizer, so the test pins that down (a change to
 * the simulator's counter shows up here), checks that the upstream's counter sees the saving of
 * a compacted prompt too, and prints the ratio of the gateway's Claude tokenizer to the counter.
 * The error against Anthropic's real counter is measured by bench/compression/calibrate.ts with
 * a real key; docs/gateway/compression.md has the figures.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicMessages } from '@app/provider-adapters';
import { anthropicClient, type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';
import { compress } from './index.ts';
import { compressedSource } from './source.ts';
import { tokenizerFor } from './tokenizers.ts';

let t: ChatTestApp;
let client: Anthropic;

before(async () => {
  t = await startChatApp();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  client = anthropicClient(url, t.token);
});
after(() => t.close());

const LOG = Array.from(
  { length: 80 },
  (_, line) => `✔ meter ${line} reads within range (${line * 7} ms)   `,
).join('\n');
const RECORDS = JSON.stringify(
  { rows: Array.from({ length: 20 }, (_, id) => ({ id, kwh: id * 1.5 })) },
  null,
  2,
);

const body = {
  model: 'claude-haiku-4-5@developer',
  system: 'You read test logs.   \n\n\n\nAnswer briefly.',
  messages: [
    { role: 'user' as const, content: `Why is the build slow?   \n\n\n${LOG}` },
    { role: 'assistant' as const, content: 'Let me look at the records.  ' },
    { role: 'user' as const, content: RECORDS },
  ],
};

/** The system prompt counts as one more message. */
function simulatorHeuristic(source: typeof body): number {
  const chars = source.messages.reduce((sum, message) => sum + message.content.length, source.system.length);
  return Math.ceil(chars / 4) + 3 * (source.messages.length + 1);
}

test('the upstream counter (simulated) counts characters, and sees the compacted prompt as smaller', async () => {
  const original = await client.messages.countTokens(body).withResponse();
  assert.equal(original.response.headers.get('x-gateway-token-count'), 'upstream');
  // Within rounding of the heuristic (how content blocks are joined adds a character or two).
  assert.ok(
    Math.abs(original.data.input_tokens - simulatorHeuristic(body)) <= 2,
    String(original.data.input_tokens),
  );

  const request = anthropicMessages.decodeMessagesRequest({ ...body, max_tokens: 1 });
  const claude = await tokenizerFor('anthropic');
  const compacted = compress({ request, level: 'compact', budget: 0, tokenizer: claude });
  const source = compressedSource({ api: 'anthropic-messages', body: { ...body } }, compacted.request);
  assert.ok(source);
  const smaller = await client.messages.countTokens(source.body as unknown as typeof body);
  assert.ok(
    smaller.input_tokens < original.data.input_tokens,
    `${smaller.input_tokens} < ${original.data.input_tokens}`,
  );

  const ratio = compacted.before / original.data.input_tokens;
  console.log(
    `Claude tokenizer / simulated counter: ${ratio.toFixed(2)} (before), saving seen by the counter: ${original.data.input_tokens - smaller.input_tokens} tokens, by the tokenizer: ${compacted.before - compacted.after}`,
  );
  // Both are token counts of the same text: within a factor of two of each other.
  assert.ok(ratio > 0.5 && ratio < 2, String(ratio));
});
