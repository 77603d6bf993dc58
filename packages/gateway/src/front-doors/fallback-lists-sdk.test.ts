/**
 * The fallback list as SDK users send it: the official `openai` and `@anthropic-ai/sdk` clients
 * pass `models` as an extra body field (it is not in their types) or X-Gateway-Fallbacks as a
 * default header, and raise their BadRequestError for an unusable entry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicClient, type ChatTestApp, startChatApp } from './chat-completions/testing.ts';

let t: ChatTestApp;
let url: string;
before(async () => {
  t = await startChatApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

/** The SDKs send what they are given; their types only know their own APIs' fields. */
const withModels = <T extends object>(params: T, models: readonly string[]): T => ({ ...params, models });

const hello = [{ role: 'user' as const, content: 'Hello' }];

describe('fallback lists through the SDKs', () => {
  test('openai: chat.completions and responses take `models`; a bad entry is a BadRequestError', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
    const chat = await client.chat.completions.create(
      withModels({ model: 'gpt-5.4-mini@developer', messages: hello }, ['claude-haiku', 'gemini-flash']),
    );
    assert.equal(chat.model, 'gpt-5.4-mini-2026-03-17');
    const response = await client.responses.create(
      withModels({ model: 'gpt-5.4-mini@developer', input: 'Hello', store: false }, ['claude-haiku']),
    );
    assert.equal(response.status, 'completed');
    await assert.rejects(
      client.responses.create(
        withModels({ model: 'gpt-5.4-mini', input: 'Hello', store: false }, ['gpt-5.4:ultra']),
      ),
      (error) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.param, 'models[0]');
        assert.match(error.message, /Fallback model 'gpt-5\.4:ultra' \('models\[0\]'\) cannot be used/);
        return true;
      },
    );
  });

  test('anthropic: messages.create takes `models` and X-Gateway-Fallbacks; a bad entry is a BadRequestError', async () => {
    const client = anthropicClient(url, t.token);
    const params = { model: 'claude-haiku@developer', max_tokens: 64, messages: hello };
    const message = await client.messages.create(withModels(params, ['gpt-5.4-mini']));
    assert.equal(message.model, 'claude-haiku-4-5-20251001');
    assert.equal('models' in (t.lastUpstreamBody() as object), false);
    const headed = new Anthropic({
      baseURL: url,
      authToken: t.token,
      apiKey: null,
      maxRetries: 0,
      defaultHeaders: { 'X-Gateway-Fallbacks': 'claude-haiku@cloud_b, no-such-model' },
    });
    await assert.rejects(headed.messages.create(params), (error) => {
      assert.ok(error instanceof Anthropic.BadRequestError);
      assert.match(error.message, /Fallback model 'no-such-model' \(X-Gateway-Fallbacks entry 2\)/);
      return true;
    });
  });
});
