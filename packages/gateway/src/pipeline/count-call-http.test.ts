/**
 * count_tokens as a half-open circuit's one trial, through HTTP: a count reports how it ended to
 * the circuit breaker like every call, so a recovering provider is taken back at its first
 * answered count, and a failed count reopens the circuit instead of holding the trial. The
 * routing clock is the test's: the cooldown passes when the test says so, never by waiting.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ChatTestApp,
  chatCompletionBody,
  localUpstream,
  startChatApp,
} from '../front-doors/chat-completions/testing.ts';
import { manualClock } from '../routing/testing.ts';

const COOLDOWN_MS = 60_000;
const MODEL = 'claude-sonnet@developer';
const messages = [{ role: 'user', content: 'Count me, please.' }];

const ANSWER = JSON.stringify({
  id: 'msg_count_test',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 7, output_tokens: 1 },
});

/**
 * A server of Anthropic's API (and of OpenAI's Chat Completions, which has no token counter)
 * that fails everything while `failing`, and counts its calls.
 */
async function anthropicUpstream(t: TestContext) {
  const state = { failing: true, calls: 0 };
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    state.calls += 1;
    const send = (status: number, body: string) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(body);
    if (state.failing)
      return send(500, JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'down' } }));
    if (request.url?.endsWith('/count_tokens')) return send(200, JSON.stringify({ input_tokens: 7 }));
    const chat = request.url?.endsWith('/chat/completions');
    return send(200, chat ? chatCompletionBody({ prompt_tokens: 7, completion_tokens: 1 }) : ANSWER);
  };
  const url = await localUpstream(t, (request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  });
  return { state, url };
}

async function gateway(t: TestContext) {
  const upstream = await anthropicUpstream(t);
  const clock = manualClock();
  const app = await startChatApp({
    anthropicEndpoint: { baseUrl: upstream.url.replace(/\/v1$/, '') },
    endpoint: { baseUrl: upstream.url },
    routing: { breakerFailures: 1, breakerCooldownMs: COOLDOWN_MS },
    now: clock.now,
  });
  t.after(() => app.close());
  return { app, upstream, clock };
}

const post = (app: ChatTestApp, url: string, payload: Record<string, unknown>) =>
  app.app.inject({ method: 'POST', url, headers: app.headers(), payload });

const message = (app: ChatTestApp, model = MODEL) =>
  post(app, '/v1/messages', { model, max_tokens: 10, messages });
const count = (app: ChatTestApp, model = MODEL) =>
  post(app, '/v1/messages/count_tokens', { model, messages });

/** Router reports land just after their response: asks until `done`, for at most 5 s. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await sleep(10);
  }
}

/** The provider taken out by a failure (one opens the circuit), then its cooldown passed. */
async function halfOpen(app: ChatTestApp, clock: ReturnType<typeof manualClock>, model = MODEL) {
  assert.equal((await message(app, model)).statusCode, 502);
  await until('the circuit opens', async () => {
    const refused = await message(app, model);
    return refused.json().error?.code === 'provider_unavailable';
  });
  clock.advance(COOLDOWN_MS);
}

async function listsDeveloper(app: ChatTestApp): Promise<boolean> {
  const model = await app.app.inject({ url: '/v1/models/claude-sonnet', headers: app.headers() });
  const providers = (model.json() as { providers?: { id: string }[] }).providers ?? [];
  return providers.some((provider) => provider.id === 'developer');
}

describe('count_tokens as the trial of a half-open circuit', () => {
  test('an answered count closes the circuit: the next message reaches the provider', async (t) => {
    const { app, upstream, clock } = await gateway(t);
    await halfOpen(app, clock);
    upstream.state.failing = false;
    const counted = await count(app);
    assert.equal(counted.statusCode, 200, counted.body);
    assert.equal(counted.headers['x-gateway-token-count'], 'upstream', 'the count was the trial');
    const before = upstream.state.calls;
    // The trial was reported: the circuit is closed, with no cooldown passing on the clock.
    await until('a message is served again', async () => (await message(app)).statusCode === 200);
    assert.equal(upstream.state.calls, before + 1, 'served by the provider that was out');
  });

  test('a failed count reopens the circuit for a full cooldown', async (t) => {
    const { app, clock } = await gateway(t);
    await halfOpen(app, clock);
    assert.ok(await listsDeveloper(app), 'half-open: the provider is listed again');
    const counted = await count(app);
    assert.equal(counted.statusCode, 200, counted.body);
    assert.equal(counted.headers['x-gateway-token-count'], 'estimate', 'the provider failed: estimated');
    await until('the circuit reopens', async () => !(await listsDeveloper(app)));
    clock.advance(COOLDOWN_MS - 1);
    assert.equal(await listsDeveloper(app), false, 'open until a whole cooldown has passed');
    clock.advance(1);
    assert.ok(await listsDeveloper(app));
  });

  test('a count the provider cannot make sends nothing and leaves the trial to the next call', async (t) => {
    const { app, upstream, clock } = await gateway(t);
    const model = 'gpt-5.4@developer';
    await halfOpen(app, clock, model);
    upstream.state.failing = false;
    const before = upstream.state.calls;
    const counted = await count(app, model);
    assert.equal(counted.headers['x-gateway-token-count'], 'estimate', 'no counter on this API');
    assert.equal(upstream.state.calls, before, 'nothing was sent');
    const served = await message(app, model);
    assert.equal(served.statusCode, 200, served.body);
    assert.equal(upstream.state.calls, before + 1, 'the message was the trial');
  });
});
