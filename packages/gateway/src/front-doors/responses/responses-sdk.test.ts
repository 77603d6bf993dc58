/**
 * POST /v1/responses through a listening gateway on the embedded default, driven by the official
 * `openai` SDK (`responses.create`, `responses.stream`) as Codex CLI and SDK users drive it:
 * text, a function-call turn (call -> function_call_output -> answer), reasoning items, and
 * usage and ledger equal to what the upstream reported, streamed or not; for gpt on developer
 * (OpenAI Responses, passthrough), on cloud_c (Azure v1 Responses, passthrough) and Claude on
 * developer (Anthropic, translated through the internal model).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type ChatTestApp, startChatApp, type UsageRow } from '../chat-completions/testing.ts';

let t: ChatTestApp;
let client: OpenAI;

before(async () => {
  t = await startChatApp();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
});
after(() => t.close());

const ls: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'list_files',
  description: 'Lists the files of a directory',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  strict: false,
};

const CASES = [
  {
    model: 'gpt-5.4-mini',
    provider: 'developer',
    path: '/openai/v1/responses',
    served: 'gpt-5.4-mini-2026-03-17',
  },
  {
    model: 'gpt-5.4-mini',
    provider: 'cloud_c',
    path: '/azure/openai/v1/responses',
    served: 'gpt-5.4-mini-2026-03-17',
  },
  {
    model: 'claude-sonnet',
    provider: 'developer',
    path: '/anthropic/v1/messages',
    served: 'claude-sonnet-4-6',
  },
] as const;

/** The usage rows after the first `before`, once `count` of them are there and settled. */
async function rowsAfter(before: number, count: number): Promise<UsageRow[]> {
  return (await t.settledUsage(before + count)).slice(before);
}

/** What the simulator reported for the last `count` upstream calls, in OpenAI's terms. */
function reported(count: number) {
  return t.sim.received.slice(-count).map((entry) => entry.usage);
}

for (const c of CASES) {
  const model = `${c.model}@${c.provider}`;
  describe(`${model} through the Responses front door`, () => {
    test('responses.create and responses.stream: the same text; usage and ledger are the upstream’s', async () => {
      // One ledger row per upstream call so far (some may still be settling).
      const before = t.sim.received.length;
      const params = { model, input: `Hello from ${c.provider}`, store: false };
      const { data, response } = await client.responses.create(params).withResponse();
      assert.equal(data.object, 'response');
      assert.equal(data.status, 'completed');
      assert.equal(data.model, c.served);
      assert.match(data.output_text, /^Simulated reply to "Hello from/);
      assert.match(response.headers.get('x-gateway-applied') ?? '', new RegExp(`provider=${c.provider}`));
      assert.equal(t.sim.received.at(-1)?.path.split('?')[0], c.path);

      const stream = client.responses.stream(params);
      const deltas: string[] = [];
      stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      assert.equal(deltas.join(''), data.output_text, 'the streamed text is the JSON text');
      assert.equal(final.output_text, data.output_text);
      assert.equal(final.model, c.served);
      assert.deepEqual(
        [final.usage?.input_tokens, final.usage?.output_tokens],
        [data.usage?.input_tokens, data.usage?.output_tokens],
      );

      const [jsonUsage, streamedUsage] = reported(2);
      assert.ok(jsonUsage && streamedUsage);
      assert.equal(
        data.usage?.input_tokens,
        jsonUsage.prompt_tokens,
        'the client is told what the upstream said',
      );
      assert.equal(data.usage?.output_tokens, jsonUsage.completion_tokens);
      const [json, streamed] = await rowsAfter(before, 2);
      assert.ok(json && streamed);
      assert.deepEqual([json.status, streamed.status], ['ok', 'ok']);
      assert.deepEqual(
        [json.prompt_tokens, json.completion_tokens],
        [jsonUsage.prompt_tokens, jsonUsage.completion_tokens],
      );
      assert.deepEqual(
        [streamed.prompt_tokens, streamed.completion_tokens],
        [streamedUsage.prompt_tokens, streamedUsage.completion_tokens],
      );
      assert.equal(streamed.cost_micros, json.cost_micros, 'streamed costs what JSON costs');
      assert.ok(json.cost_micros > 0);
    });

    test('a function-call turn: function_call, then function_call_output gets an answer', async () => {
      const question = { role: 'user' as const, content: 'Use list_files in /tmp/project' };
      const first = await client.responses.create({ model, input: [question], tools: [ls], store: false });
      const call = first.output.find((item) => item.type === 'function_call');
      assert.ok(call && call.type === 'function_call', JSON.stringify(first.output));
      assert.equal(call.name, 'list_files');
      assert.equal(typeof (JSON.parse(call.arguments) as { path?: unknown }).path, 'string');

      const stream = client.responses.stream({
        model,
        tools: [ls],
        store: false,
        input: [
          question,
          ...first.output.map((item) => item as OpenAI.Responses.ResponseInputItem),
          { type: 'function_call_output', call_id: call.call_id, output: 'README.md\nsrc' },
        ],
      });
      const answer = await stream.finalResponse();
      assert.equal(answer.status, 'completed');
      assert.match(answer.output_text, /^The tool returned:/);
    });

    test('a streamed function call: item added, argument deltas, item done with the whole call', async () => {
      const stream = client.responses.stream({
        model,
        tools: [ls],
        store: false,
        input: 'Which files does list_files find in /srv?',
      });
      const pieces: string[] = [];
      const done: OpenAI.Responses.ResponseOutputItem[] = [];
      stream.on('response.function_call_arguments.delta', (event) => pieces.push(event.delta));
      stream.on('response.output_item.done', (event) => done.push(event.item));
      const final = await stream.finalResponse();
      const call = final.output.find((item) => item.type === 'function_call');
      assert.ok(call && call.type === 'function_call');
      assert.ok(pieces.length > 0);
      assert.equal(pieces.join(''), call.arguments);
      const { parsed_arguments: _parsed, ...whole } = call as typeof call & { parsed_arguments?: unknown };
      assert.deepEqual(
        done.find((item) => item.type === 'function_call'),
        whole,
        'Codex takes its items from response.output_item.done',
      );
    });
  });
}

describe('reasoning items', () => {
  for (const provider of ['developer', 'cloud_c']) {
    test(`gpt-5.4-mini@${provider}: a reasoning item with its summary and encrypted content`, async () => {
      const params = {
        model: `gpt-5.4-mini@${provider}`,
        input: 'Think, then answer',
        store: false,
        reasoning: { effort: 'low' as const, summary: 'auto' as const },
        include: ['reasoning.encrypted_content' as const],
      };
      const data = await client.responses.create(params);
      const reasoning = data.output.find((item) => item.type === 'reasoning');
      assert.ok(reasoning && reasoning.type === 'reasoning');
      assert.ok((reasoning.summary[0]?.text ?? '').length > 0);
      assert.ok((reasoning.encrypted_content ?? '').length > 20);
      assert.ok((data.usage?.output_tokens_details.reasoning_tokens ?? 0) > 0);
      assert.deepEqual(t.lastUpstreamBody().reasoning, { effort: 'low', summary: 'auto' });

      const summary: string[] = [];
      const stream = client.responses.stream(params);
      stream.on('response.reasoning_summary_text.delta', (event) => summary.push(event.delta));
      const final = await stream.finalResponse();
      assert.equal(summary.join(''), reasoning.summary[0]?.text);
      // The same item as the JSON answer's, apart from the ids and signatures each answer has anew.
      const item = final.output[0];
      assert.ok(item?.type === 'reasoning' && (item.encrypted_content ?? '').length > 20);
      const fresh = { id: '', encrypted_content: '' };
      assert.deepEqual({ ...item, ...fresh }, { ...reasoning, ...fresh });
    });
  }

  test('claude-sonnet:low@developer: thinking comes back as a reasoning item and returns signed', async () => {
    const model = 'claude-sonnet:low@developer';
    const question = { role: 'user' as const, content: 'Use list_files in /work' };
    const first = await client.responses.create({ model, input: [question], tools: [ls], store: false });
    const reasoning = first.output.find((item) => item.type === 'reasoning');
    assert.ok(reasoning && reasoning.type === 'reasoning', JSON.stringify(first.output));
    const signature = reasoning.encrypted_content ?? '';
    assert.ok(signature.length > 20, 'the thinking signature rides in encrypted_content');
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');

    const summary: string[] = [];
    const stream = client.responses.stream({
      model,
      tools: [ls],
      store: false,
      input: [
        question,
        ...first.output.map((item) => item as OpenAI.Responses.ResponseInputItem),
        { type: 'function_call_output', call_id: call.call_id, output: 'a.txt' },
      ],
    });
    stream.on('response.reasoning_summary_text.delta', (event) => summary.push(event.delta));
    const answer = await stream.finalResponse();
    assert.match(answer.output_text, /^The tool returned:/);
    assert.ok(summary.join('').length > 0, 'reasoning_summary_text.delta events');
    const sent = t.lastUpstreamBody().messages as Array<{ content: Array<Record<string, unknown>> }>;
    const thinking = sent[1]?.content[0];
    assert.deepEqual(
      [thinking?.type, thinking?.signature, thinking?.thinking],
      ['thinking', signature, reasoning.summary[0]?.text],
      'the thinking block goes back to Anthropic as it came',
    );
  });
});
