/**
 * The Responses codec against fixtures spoken as OpenAI speaks it: a Codex CLI turn decoded into
 * the internal model, streams and response objects decoded and encoded again (round trips), the
 * passthrough translator, and the gateway's edits of a forwarded body.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AdapterRequestError, type BuildInput } from '../../adapter.ts';
import { canonicalBuildInput } from '../../conformance/canonical.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { StreamEvent } from '../../model/response.ts';
import { decodeResponsesRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeResponsesInput } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { formatResponsesEvent, ResponsesEventEncoder } from './encode-stream.ts';
import { responsesBody } from './request.ts';
import { createResponsesStreamTranslator } from './stream.ts';
import { usageFromResponses, usageToResponses, withCacheWriteTokens } from './usage.ts';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const bytes = (text: string) => new TextEncoder().encode(text);
const ENVELOPE = { id: 'resp_gw1', model: 'gpt-5.4-2026-03-05', createdAt: 1795400000 };

/** Internal events of a Responses stream, for a client of another API (no native events). */
function decode(text: string, cuts: readonly number[] = []): StreamEvent[] {
  const translator = createResponsesStreamTranslator({ clientApi: 'openai-chat' });
  const raw = bytes(text);
  const out: StreamEvent[] = [];
  let at = 0;
  for (const cut of [...cuts, raw.length]) {
    out.push(...translator.push(raw.subarray(at, cut)));
    at = cut;
  }
  return [...out, ...translator.end()];
}

function encode(events: readonly StreamEvent[]): string {
  const encoder = new ResponsesEventEncoder(ENVELOPE);
  return events
    .flatMap((event) => encoder.encode(event))
    .map(formatResponsesEvent)
    .join('');
}

function lastResponse(text: string): JsonObject {
  const blocks = text.trim().split('\n\n');
  const data = JSON.parse(blocks.at(-1)?.split('\n')[1]?.slice(6) ?? '{}') as JsonObject;
  return isJsonObject(data.response) ? data.response : {};
}

/** Output items without their ids (the gateway names its own). */
function withoutIds(items: unknown): unknown {
  return (items as JsonObject[]).map(({ id: _id, ...rest }) => rest);
}

describe('Responses request decoder (a Codex CLI turn)', () => {
  const body = JSON.parse(fixture('codex-turn.fixture.json')) as JsonObject;
  const request = decodeResponsesRequest(body);

  test('developer messages are the system prompt; options are kept', () => {
    assert.deepEqual(request.system, [{ type: 'text', text: 'You are Codex, a coding agent.' }]);
    assert.equal(request.maxOutputTokens, 4096);
    assert.equal(request.parallelToolCalls, false);
    assert.deepEqual(request.toolChoice, { type: 'auto' });
    assert.deepEqual(request.responseFormat, { type: 'text' });
    assert.equal(request.stream, true);
    assert.deepEqual(request.tools[0], {
      type: 'function',
      name: 'exec_command',
      description: 'Runs a command',
      strict: false,
      parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
    });
  });

  test('items become turns: reasoning and its call in one assistant turn, the output named', () => {
    assert.deepEqual(
      request.turns.map((turn) => [turn.role, turn.content.map((part) => part.type)]),
      [
        ['user', ['text', 'image']],
        ['assistant', ['thinking', 'tool_call']],
        ['user', ['tool_result']],
        ['assistant', ['text']],
        ['user', ['text']],
      ],
    );
    const [thinking, call] = request.turns[1]?.content ?? [];
    assert.deepEqual(thinking, {
      type: 'thinking',
      text: 'I should list the directory first.',
      signature: 'gAAAAABo0fCj-signed-state',
    });
    assert.deepEqual(call, {
      type: 'tool_call',
      id: 'call_Xq3vN8kPz1LmT5wR9yB2cD4e',
      name: 'exec_command',
      arguments: '{"cmd":"ls"}',
    });
    assert.deepEqual(request.turns[2]?.content[0], {
      type: 'tool_result',
      callId: 'call_Xq3vN8kPz1LmT5wR9yB2cD4e',
      name: 'exec_command',
      content: [{ type: 'text', text: 'README.md\nsrc' }],
    });
    const image = request.turns[0]?.content[1];
    assert.deepEqual(image, {
      type: 'image',
      source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      detail: 'high',
    });
  });

  test('what another API cannot carry is refused, never dropped', () => {
    for (const extra of [
      { tools: [{ type: 'custom', name: 'apply_patch', format: { type: 'grammar' } }] },
      { tools: [{ type: 'namespace', name: 'mcp', tools: [] }] },
      { input: [{ type: 'item_reference', id: 'msg_1' }] },
      { input: [{ type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: '*** Begin' }] },
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
    ])
      assert.throws(
        () => decodeResponsesRequest({ ...body, ...extra }),
        AdapterRequestError,
        JSON.stringify(extra),
      );
  });

  test('a string input is one user turn; instructions lead the system prompt', () => {
    const plain = decodeResponsesRequest({ model: 'm', input: 'hi', instructions: 'Be brief.' });
    assert.deepEqual(plain.system, [{ type: 'text', text: 'Be brief.' }]);
    assert.deepEqual(plain.turns, [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });
});

describe('Responses streams', () => {
  for (const name of ['text-stream.fixture.sse', 'tool-call-stream.fixture.sse']) {
    test(`${name}: decode, encode, decode gives the same events; cut anywhere, the same`, () => {
      const text = fixture(name);
      const events = decode(text);
      assert.equal(events.at(-1)?.type, 'done');
      assert.ok(!events.some((event) => event.type === 'error'));
      const again = decode(encode(events));
      const strip = (list: StreamEvent[]) => list.filter((event) => event.type !== 'start');
      assert.deepEqual(strip(again), strip(events));
      for (let cut = 1; cut < text.length; cut += 37) assert.deepEqual(decode(text, [cut]), events);
    });

    test(`${name}: the encoded response.completed has the upstream's output and usage`, () => {
      const text = fixture(name);
      const upstream = lastResponse(text);
      const ours = lastResponse(encode(decode(text)));
      assert.equal(ours.status, 'completed');
      assert.deepEqual(ours.usage, withCacheWriteTokens(upstream).usage);
      const strip = (items: unknown) =>
        (withoutIds(items) as JsonObject[]).map(({ logprobs: _l, ...item }) =>
          item.type === 'message'
            ? { ...item, content: (item.content as JsonObject[]).map(({ logprobs: _p, ...part }) => part) }
            : item,
        );
      assert.deepEqual(strip(ours.output), strip(upstream.output));
    });
  }

  test('the tool-call stream: reasoning with its signature, one call started once, arguments whole', () => {
    const events = decode(fixture('tool-call-stream.fixture.sse'));
    const starts = events.filter((event) => event.type === 'tool_call_start');
    assert.equal(starts.length, 1);
    const args = events.flatMap((event) => (event.type === 'tool_call_delta' ? [event.arguments] : []));
    assert.equal(args.join(''), '{"path":"/tmp/project"}');
    assert.ok(events.some((event) => event.type === 'thinking' && event.signature !== undefined));
    assert.deepEqual(
      events.find((event) => event.type === 'finish'),
      { type: 'finish', reason: 'tool_calls' },
    );
    const usage = events.find((event) => event.type === 'usage');
    assert.equal(usage?.type === 'usage' && usage.usage.reasoningTokens, 8);
  });

  test('passthrough: every upstream event goes out native, plus metering', () => {
    const text = fixture('text-stream.fixture.sse');
    const translator = createResponsesStreamTranslator({ clientApi: 'openai-responses' });
    const events = [...translator.push(bytes(text)), ...translator.end()];
    assert.equal(events.filter((event) => event.type === 'native').length, 10);
    assert.ok(!events.some((event) => event.type === 'text'), 'no decoded text beside the native events');
    const usage = events.find((event) => event.type === 'usage');
    assert.deepEqual(
      usage?.type === 'usage' && [usage.usage.inputTokens, usage.usage.cachedReadTokens],
      [21, 5],
    );
    assert.equal(events.at(-1)?.type, 'done');
  });

  test('response.failed and a cut stream are one safe error each', () => {
    const failed =
      'event: response.failed\ndata: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom on node-7.internal.example.com"}}}\n\n';
    const out = decode(fixture('text-stream.fixture.sse').split('event: response.completed')[0] + failed);
    const error = out.at(-1);
    assert.equal(error?.type, 'error');
    assert.doesNotMatch(error?.type === 'error' ? error.failure.message : '', /internal\.example/);
    const cut = decode(fixture('text-stream.fixture.sse').split('event: response.output_item.done')[0] ?? '');
    assert.deepEqual(cut.at(-1), {
      type: 'error',
      failure: {
        kind: 'server',
        status: 502,
        message: 'the provider ended the stream early.',
        retry: 'elsewhere',
      },
    });
  });
});

describe('Responses failure events', () => {
  const failure = (code: string) => ({ code, message: 'm', type: 'server_error' });
  const failedCode = (events: ReadonlyArray<{ data: JsonObject }>) =>
    (events.at(-1)?.data.response as { error: { code: string } }).error.code;

  test('response.error.code is a listed code; the error event keeps the gateway’s', () => {
    const events = new ResponsesEventEncoder(ENVELOPE).fail(failure('upstream_error'));
    assert.equal((events[0]?.data.error as JsonObject).code, 'upstream_error');
    assert.equal(failedCode(events), 'server_error');
    assert.equal(
      failedCode(new ResponsesEventEncoder(ENVELOPE).fail(failure('rate_limit_exceeded'))),
      'rate_limit_exceeded',
    );
  });

  test('after forwarded events: the next sequence numbers and the forwarded response', () => {
    const encoder = new ResponsesEventEncoder(ENVELOPE);
    encoder.forwarded({
      type: 'response.created',
      sequence_number: 0,
      response: { id: 'resp_up', output: [] },
    });
    encoder.forwarded({ type: 'response.output_text.delta', sequence_number: 5, delta: 'x' });
    const events = encoder.fail(failure('upstream_error'));
    assert.deepEqual(
      events.map((event) => event.data.sequence_number),
      [6, 7],
    );
    const response = events[1]?.data.response as JsonObject;
    assert.deepEqual([response.id, response.status], ['resp_up', 'failed']);
  });
});

describe('Responses objects', () => {
  test('usage: cache writes are read (metering) and written; a forwarded usage without them gets 0', () => {
    const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 4, cache_write_tokens: 6 } };
    const read = usageFromResponses(usage);
    assert.deepEqual([read?.cachedReadTokens, read?.cacheWriteTokens], [4, 6]);
    assert.deepEqual(read && usageToResponses(read).input_tokens_details, usage.input_tokens_details);
    const older = { id: 'resp_1', usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 1 } } };
    assert.deepEqual(withCacheWriteTokens(older).usage, {
      input_tokens: 3,
      input_tokens_details: { cached_tokens: 1, cache_write_tokens: 0 },
    });
    assert.deepEqual(withCacheWriteTokens({ id: 'resp_2', usage: null }), { id: 'resp_2', usage: null });
  });

  test('decode then encode keeps items, usage and status; length is incomplete', () => {
    const upstream = lastResponse(fixture('tool-call-stream.fixture.sse'));
    const decoded = decodeResponse(upstream);
    assert.equal(decoded.finishReason, 'tool_calls');
    const encoded = encodeResponse(decoded, ENVELOPE);
    assert.deepEqual(withoutIds(encoded.output), withoutIds(upstream.output));
    assert.deepEqual(encoded.usage, withCacheWriteTokens(upstream).usage);
    const cut = encodeResponse({ ...decoded, finishReason: 'length' }, ENVELOPE);
    assert.deepEqual([cut.status, cut.incomplete_details], ['incomplete', { reason: 'max_output_tokens' }]);
  });
});

describe('a forwarded Responses body', () => {
  const source = JSON.parse(fixture('codex-turn.fixture.json')) as JsonObject;
  const input = (overrides: Partial<BuildInput>): BuildInput => ({
    ...canonicalBuildInput(false),
    ...overrides,
  });

  test('only the model, effort and tier are the gateway’s; the rest goes as sent', () => {
    const body = responsesBody(
      input({ reasoning: { kind: 'openai', value: 'high' }, tier: 'flex' }),
      source,
      'dep-1',
    );
    assert.deepEqual(body.reasoning, { effort: 'high', summary: 'auto' });
    assert.equal(body.service_tier, 'flex');
    assert.equal(body.model, 'dep-1');
    const { model: _m, reasoning: _r, service_tier: _s, ...rest } = body;
    const { model: _m2, reasoning: _r2, ...sent } = source;
    assert.deepEqual(rest, sent);
  });

  test('omit drops the client’s effort (the gateway decided), other kinds are refused', () => {
    const body = responsesBody(input({ reasoning: { kind: 'omit' } }), { ...source, stream: false }, 'm');
    assert.deepEqual(body.reasoning, { summary: 'auto' });
    assert.equal('stream' in body, false);
    assert.throws(
      () => responsesBody(input({ reasoning: { kind: 'anthropic-adaptive' } }), source, 'm'),
      AdapterRequestError,
    );
  });
});

describe('a Responses conversation re-encoded from the internal model (compression)', () => {
  test('decode then encode gives the same items, instructions as a developer message', () => {
    const body = JSON.parse(fixture('codex-turn.fixture.json')) as JsonObject;
    const input = encodeResponsesInput(decodeResponsesRequest(body));
    assert.deepEqual(decodeResponsesRequest({ ...body, input }), decodeResponsesRequest(body));
    assert.deepEqual(input.slice(2, 4), [
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'I should list the directory first.' }],
        encrypted_content: 'gAAAAABo0fCj-signed-state',
      },
      {
        type: 'function_call',
        call_id: 'call_Xq3vN8kPz1LmT5wR9yB2cD4e',
        name: 'exec_command',
        arguments: '{"cmd":"ls"}',
      },
    ]);
  });
});
