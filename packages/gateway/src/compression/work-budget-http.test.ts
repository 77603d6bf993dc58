/**
 * The hard bound on compression work, through HTTP: a request past GATEWAY_COMPRESSION_WORK_BUDGET
 * (characters of text) or past GATEWAY_COMPRESSION_DEADLINE_MS is forwarded as sent, with
 * compression=off in X-Gateway-Applied and the reason in X-Gateway-Compression: never a stall,
 * never a 5xx. The count endpoint follows the same bound.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';

async function gateway(t: TestContext, compression: Record<string, unknown>): Promise<ChatTestApp> {
  const app = await startChatApp({ compression, behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 } });
  t.after(() => app.close());
  return app;
}

/** Untidy prose `compact` would change (trailing spaces, blank lines), about `chars` long. */
function untidy(chars: number): string {
  return 'Check the pump.   \n\n\n\n'.repeat(Math.ceil(chars / 22));
}

function chat(app: ChatTestApp, model: string, content: string) {
  return app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers({ 'content-type': 'application/json' }),
    payload: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
  });
}

function sentText(app: ChatTestApp): unknown {
  const messages = app.lastUpstreamBody().messages as Array<{ content: unknown }>;
  return messages.at(-1)?.content;
}

describe('the compression work budget', () => {
  test('past the budget: the prompt goes as sent, compression=off, fallback=budget', async (t) => {
    const app = await gateway(t, { workBudget: 5_000 });
    const small = untidy(2_000);
    const within = await chat(app, 'gpt-5.4-mini:compact', small);
    assert.equal(within.statusCode, 200, within.body);
    assert.match(
      String(within.headers['x-gateway-compression']),
      /^input-tokens-before=\d+, input-tokens-after=\d+$/,
    );
    assert.notEqual(sentText(app), small, 'within the budget the prompt is compacted');

    const large = untidy(6_000);
    const past = await chat(app, 'gpt-5.4-mini:compact', large);
    assert.equal(past.statusCode, 200, past.body);
    // The sample in docs/gateway/compression.md ("Work budget"), exactly.
    assert.equal(past.headers['x-gateway-compression'], 'fallback=budget');
    assert.equal(
      past.headers['x-gateway-applied'],
      'model="gpt-5.4-mini-2026-03-17", provider=developer, effort=none, tier=standard, compression=off',
    );
    assert.equal(sentText(app), large, 'the upstream got the prompt exactly as the client sent it');
  });

  test('past the deadline: the same, fallback=deadline', async (t) => {
    // A 1 ms deadline that 600 KB of text cannot meet; well inside the default work budget.
    const app = await gateway(t, { deadlineMs: 1 });
    const large = untidy(600_000);
    const response = await chat(app, 'claude-sonnet:compressed@developer', large);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['x-gateway-compression'], 'fallback=deadline');
    assert.match(String(response.headers['x-gateway-applied']), /compression=off$/);
  });

  test('count_tokens counts past the budget as sent, and says so', async (t) => {
    const app = await gateway(t, { workBudget: 5_000 });
    const response = await app.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: app.headers({ 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }),
      payload: JSON.stringify({
        model: 'claude-sonnet:compact@developer',
        messages: [{ role: 'user', content: untidy(6_000) }],
      }),
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['x-gateway-compression'], 'fallback=budget');
    assert.match(String(response.headers['x-gateway-applied']), /compression=off$/);
    assert.ok((response.json() as { input_tokens: number }).input_tokens > 0);
  });

  test('a budget below its floor is refused at start-up, naming the variable', async () => {
    const { loadGatewayConfig } = await import('../config.ts');
    assert.throws(
      () => loadGatewayConfig({ GATEWAY_COMPRESSION_WORK_BUDGET: '10' }),
      /GATEWAY_COMPRESSION_WORK_BUDGET/,
    );
    assert.throws(
      () => loadGatewayConfig({ GATEWAY_COMPRESSION_DEADLINE_MS: '0' }),
      /GATEWAY_COMPRESSION_DEADLINE_MS/,
    );
  });
});
