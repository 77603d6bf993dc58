import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Pool } from 'undici';
import { type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';

// Enough requests at once for the first loop turn to spend its admission budget (5 ms).
const BURST = 150;
let t: ChatTestApp;
let pool: Pool;

before(async () => {
  t = await startChatApp();
  pool = new Pool(await t.app.listen({ host: '127.0.0.1', port: 0 }), { connections: BURST });
});
after(async () => {
  await pool.close();
  await t.close();
});

test('a burst of streams sent at once is fully served, each to its own request', async () => {
  const ask = async (i: number) => {
    const response = await pool.request({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: t.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({
        model: 'gpt-5.4@developer',
        messages: [{ role: 'user', content: `request ${i}` }],
        // Without a limit each request reserves its worst-case output, and 150 of them in
        // flight at once can hold the whole test allocation: the burst is about admission.
        max_completion_tokens: 16,
        stream: true,
      }),
    });
    return { status: response.statusCode, body: await response.body.text() };
  };
  const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => ask(i)));
  for (const [i, answer] of answers.entries()) {
    assert.equal(answer.status, 200, `request ${i}: ${answer.body.slice(0, 200)}`);
    assert.ok(answer.body.endsWith('data: [DONE]\n\n'), `request ${i} completed`);
  }
  // Each stream carries its own request's chunk id: no answer was given twice or swapped.
  const ids = new Set(answers.map((answer) => /"id":"(chatcmpl-[^"]+)"/.exec(answer.body)?.[1]));
  assert.equal(ids.size, BURST);
});
