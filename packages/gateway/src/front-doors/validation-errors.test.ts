import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ChatTestApp, startChatApp } from './chat-completions/testing.ts';

let t: ChatTestApp;
before(async () => {
  t = await startChatApp();
});
after(() => t.close());

async function post(url: string, payload: Record<string, unknown>) {
  const response = await t.app.inject({ method: 'POST', url, headers: t.headers(), payload });
  return { status: response.statusCode, error: response.json().error as Record<string, unknown> };
}

test('a schema error names the field as the API does and sets param (chat completions)', async () => {
  const empty = await post('/v1/chat/completions', { model: 'gpt-5.4', messages: [] });
  assert.equal(empty.status, 400);
  assert.equal(empty.error.code, 'invalid_request');
  assert.equal(empty.error.param, 'messages');
  assert.equal(empty.error.message, "'messages' must NOT have fewer than 1 items.");

  const noModel = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(noModel.error.param, 'model');
  assert.equal(noModel.error.message, "'model' is required.");

  const nested = await post('/v1/chat/completions', { model: 'gpt-5.4', messages: [{ content: 'hi' }] });
  assert.equal(nested.error.param, 'messages[0].role');
  assert.equal(nested.error.message, "'messages[0].role' is required.");

  const option = await post('/v1/chat/completions', {
    model: 'gpt-5.4',
    messages: [{ role: 'user', content: 'hi' }],
    stream_options: { include_usage: 'yes' },
  });
  assert.equal(option.error.param, 'stream_options.include_usage');
});

test('the Messages and Responses front doors say the same, in their own envelopes', async () => {
  const messages = await post('/v1/messages', { model: 'claude-haiku', max_tokens: 16, messages: [] });
  assert.equal(messages.status, 400);
  assert.equal(messages.error.type, 'invalid_request_error');
  assert.equal(messages.error.message, "'messages' must NOT have fewer than 1 items.");

  const responses = await post('/v1/responses', { input: 'hi' });
  assert.equal(responses.status, 400);
  assert.equal(responses.error.param, 'model');
  assert.equal(responses.error.message, "'model' is required.");
});
