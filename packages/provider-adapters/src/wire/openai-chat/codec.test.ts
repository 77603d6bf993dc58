import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { packToolCallId, unpackToolCallId } from '../../model/tool-call-id.ts';
import { decodeChatRequest, WireDecodeError } from './decode-request.ts';
import { ChatChunkDecoder } from './decode-response.ts';
import { encodeChatRequest } from './encode-request.ts';
import { ChatChunkEncoder, encodeChatCompletion } from './encode-response.ts';
import type { ChatCompletionRequest } from './types.ts';
import { usageFromMeters } from '../../model/usage.ts';

const request = {
  model: 'm',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR', detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: packToolCallId('call_a', 'sig-1'),
          type: 'function',
          function: { name: 'weather', arguments: '{}' },
        },
        { id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: packToolCallId('call_a', 'sig-1'), content: 'sunny' },
    { role: 'tool', tool_call_id: 'call_b', content: 'noon' },
  ],
  tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
  tool_choice: { type: 'function', function: { name: 'weather' } },
  max_tokens: 100,
  stop: 'END',
  web_search_options: { search_context_size: 'low' },
} as unknown as ChatCompletionRequest;

describe('openai-chat request codec', () => {
  test('decodes system and developer messages, parts, tool calls and merged tool results', () => {
    const decoded = decodeChatRequest(request);
    assert.deepEqual(
      decoded.system.map((part) => part.text),
      ['Be brief.', 'Use metric units.'],
    );
    assert.deepEqual(
      decoded.turns.map((turn) => [turn.role, turn.content.map((part) => part.type)]),
      [
        ['user', ['text', 'image']],
        ['assistant', ['tool_call', 'tool_call']],
        ['user', ['tool_result', 'tool_result']],
      ],
    );
    const call = decoded.turns[1]?.content[0];
    assert.ok(call?.type === 'tool_call');
    assert.deepEqual(
      [call.id, call.signature],
      ['call_a', 'sig-1'],
      'the signature rides in the id and comes out',
    );
    const result = decoded.turns[2]?.content[0];
    assert.ok(result?.type === 'tool_result');
    assert.deepEqual(
      [result.callId, result.name],
      ['call_a', 'weather'],
      'the name is looked up from the call',
    );
    const image = decoded.turns[0]?.content[1];
    assert.ok(image?.type === 'image' && image.source.kind === 'base64');
    assert.equal(image.source.mediaType, 'image/png');
    assert.deepEqual(decoded.toolChoice, { type: 'tool', name: 'weather' });
    assert.deepEqual(decoded.stop, ['END']);
    assert.equal(decoded.maxOutputTokens, 100);
    assert.deepEqual(decoded.tools.at(-1), { type: 'web_search', contextSize: 'low' });
  });

  test('what cannot be translated is refused, never dropped', () => {
    const audio = {
      ...request,
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }],
    };
    assert.throws(() => decodeChatRequest(audio as ChatCompletionRequest), WireDecodeError);
  });

  test('encode(decode(x)) keeps the conversation', () => {
    const body = encodeChatRequest(decodeChatRequest(request), 'up');
    const messages = body.messages as Array<{ role: string; tool_call_id?: string }>;
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'tool'],
    );
    assert.equal(unpackToolCallId(messages[3]?.tool_call_id ?? '').id, 'call_a');
    assert.equal(body.max_completion_tokens, 100);
  });

  test('a tool result names a signed call by the packed id the call goes with', () => {
    const packed = packToolCallId('call_s', 'Cs+/9w==');
    const body = encodeChatRequest(
      decodeChatRequest({
        model: 'm',
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: packed, type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: packed, content: 'sunny' },
        ],
      }),
      'up',
    );
    const messages = body.messages as Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    assert.equal(messages[1]?.tool_calls?.[0]?.id, packed);
    assert.equal(messages[2]?.tool_call_id, packed);
  });
});

describe('openai-chat response codec', () => {
  const envelope = { id: 'chatcmpl-x', model: 'gpt-5.4-2026-03-05', created: 1 };
  test('a response with a signed tool call: the signature rides in the id', () => {
    const completion = encodeChatCompletion(
      {
        id: 'r',
        content: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: '{}', signature: 'abc' }],
        finishReason: 'tool_calls',
        usage: undefined,
      },
      envelope,
    );
    const message = completion.choices[0]?.message as { tool_calls: Array<{ id: string }>; content: unknown };
    assert.equal(message.content, null);
    assert.deepEqual(unpackToolCallId(message.tool_calls[0]?.id ?? ''), { id: 'c1', signature: 'abc' });
  });

  test('chunks: role first, tool call id and name once, usage chunk only when asked', () => {
    const usage = usageFromMeters({ input: 3, output: 2 });
    for (const includeUsage of [false, true]) {
      const encoder = new ChatChunkEncoder(envelope, includeUsage);
      const chunks = [
        { type: 'tool_call_start', index: 0, id: 'c1', name: 'f' },
        { type: 'tool_call_delta', index: 0, arguments: '{"a"' },
        { type: 'tool_call_delta', index: 0, arguments: ':1}' },
        { type: 'finish', reason: 'tool_calls' },
        { type: 'usage', usage },
        { type: 'done' },
      ].flatMap((event) => encoder.encode(event as never));
      assert.deepEqual(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '' });
      const decoder = new ChatChunkDecoder();
      const decoded = chunks.flatMap((chunk) => decoder.decode(chunk));
      assert.deepEqual(
        decoded.filter((event) => event.type === 'tool_call_start').map((event) => event.type),
        ['tool_call_start'],
      );
      assert.equal(chunks.filter((chunk) => chunk.usage).length, includeUsage ? 1 : 0);
      assert.ok(chunks.every((chunk) => (includeUsage ? 'usage' in chunk : !('usage' in chunk))));
    }
  });
});
