/**
 * Every (model, provider) pair that GET /v1/models lists, driven by the official OpenAI SDK
 * through a listening gateway to the simulator, which answers in each provider's own API
 * (OpenAI, Azure OpenAI, Anthropic, Bedrock Converse, Vertex Claude, Gemini, Vertex Gemini)
 * and checks each one's authentication: text, streamed text, parallel tool calls, and the
 * same charge for the same exchange streamed or not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type ChatTestApp, startChatApp } from './testing.ts';

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

interface Listed {
  readonly id: string;
  /** `embedding` on embedding models, which answer /v1/embeddings (front-doors/embeddings/). */
  readonly kind?: string;
  readonly aliases?: readonly string[];
  readonly providers: ReadonlyArray<{ readonly id: string }>;
}

async function pairs(url: string, token: string): Promise<Array<[string, string]>> {
  const response = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
  const { data: all } = (await response.json()) as { data: Listed[] };
  const data = all.filter((model) => model.kind === undefined);
  // Alias entries repeat an exact version; each exact version once.
  const exact = data.filter((model) => !data.some((other) => other.aliases?.includes(model.id)));
  return exact.flatMap((model) =>
    model.providers.map((provider): [string, string] => [model.id, provider.id]),
  );
}

describe('every listed (model, provider) pair through the OpenAI SDK', () => {
  let t: ChatTestApp;
  let client: OpenAI;
  let listed: Array<[string, string]> = [];
  before(async () => {
    t = await startChatApp({ allocations: { developer: 50, cloud_a: 50, cloud_b: 50, cloud_c: 50 } });
    const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
    listed = await pairs(url, t.token);
  });
  after(() => t.close());

  test('the list covers all four providers and every family', () => {
    assert.deepEqual([...new Set(listed.map(([, provider]) => provider))].sort(), [
      'cloud_a',
      'cloud_b',
      'cloud_c',
      'developer',
    ]);
    assert.ok(listed.length >= 30, `${listed.length} pairs`);
  });

  test('JSON and streamed text: the same answer, the same usage, the same charge', async () => {
    for (const [model, provider] of listed) {
      const name = `${model}@${provider}`;
      const messages = [{ role: 'user' as const, content: `Say hello to ${name}` }];
      const whole = await client.chat.completions.create({ model: name, messages });
      const text = whole.choices[0]?.message.content ?? '';
      assert.ok(text.length > 0, name);
      assert.equal(whole.choices[0]?.finish_reason, 'stop', name);
      assert.equal(whole.model, model, name);
      const stream = await client.chat.completions.create({
        model: name,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let streamed = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        streamed += chunk.choices[0]?.delta.content ?? '';
        usage = chunk.usage ?? usage;
      }
      assert.equal(streamed, text, name);
      assert.deepEqual(
        [usage?.prompt_tokens, usage?.completion_tokens],
        [whole.usage?.prompt_tokens, whole.usage?.completion_tokens],
        name,
      );
    }
    const rows = await t.settledUsage(listed.length * 2);
    for (let i = 0; i < listed.length; i++) {
      const [json, streamed] = [rows[2 * i], rows[2 * i + 1]];
      assert.equal(json?.status, 'ok');
      assert.equal(streamed?.cost_micros, json?.cost_micros, `${listed[i]?.join('@')}: metered alike`);
      assert.ok((json?.cost_micros ?? 0) > 0);
    }
  });

  test('parallel tool calls, JSON and streamed (index, id and name once, arguments in pieces)', async () => {
    for (const [model, provider] of listed) {
      const name = `${model}@${provider}`;
      const messages = [{ role: 'user' as const, content: 'Use get_weather and get_time in Paris' }];
      const whole = await client.chat.completions.create({ model: name, messages, tools: TOOLS });
      const calls = whole.choices[0]?.message.tool_calls ?? [];
      assert.deepEqual(
        calls.map((call) => (call.type === 'function' ? call.function.name : call.type)),
        ['get_weather', 'get_time'],
        name,
      );
      assert.equal(whole.choices[0]?.finish_reason, 'tool_calls', name);
      const stream = await client.chat.completions.create({
        model: name,
        messages,
        tools: TOOLS,
        stream: true,
      });
      const seen = new Map<number, { id: string; name: string; args: string; heads: number }>();
      for await (const chunk of stream) {
        for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
          const call = seen.get(delta.index) ?? { id: '', name: '', args: '', heads: 0 };
          if (delta.id) call.heads += 1;
          call.id ||= delta.id ?? '';
          call.name += delta.function?.name ?? '';
          call.args += delta.function?.arguments ?? '';
          seen.set(delta.index, call);
        }
      }
      const streamed = [...seen.values()];
      assert.deepEqual(
        streamed.map((call) => [call.name, JSON.parse(call.args), call.heads]),
        [
          ['get_weather', { city: 'Paris' }, 1],
          ['get_time', { city: 'Paris' }, 1],
        ],
        name,
      );
      // The tool results go back, and the model answers: the round trip each API needs.
      const answered = await client.chat.completions.create({
        model: name,
        tools: TOOLS,
        messages: [
          ...messages,
          { role: 'assistant', tool_calls: calls },
          ...calls.map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: 'sunny, noon' })),
        ],
      });
      assert.equal(answered.choices[0]?.finish_reason, 'stop', name);
    }
  });
});
