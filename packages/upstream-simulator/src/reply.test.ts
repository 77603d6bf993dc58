import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildReply } from './reply.ts';

const EFFORTS = [undefined, 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const TOOL = {
  function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
};

test('reasoning counts inside the output limit, as every real API counts it', () => {
  const reply = buildReply(
    { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, reasoning_effort: 'high' },
    24,
  );
  assert.equal(reply.usage.completion_tokens, 8);
  assert.equal(reply.reasoningTokens, 8);
  assert.deepEqual(reply.tokens, []);
  assert.equal(reply.finishReason, 'length');
});

test('what is left after reasoning goes to the visible reply', () => {
  const reply = buildReply(
    {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 40,
      reasoning_effort: 'high',
    },
    24,
  );
  assert.equal(reply.reasoningTokens, 32);
  assert.equal(reply.tokens.length, 8);
  assert.equal(reply.usage.completion_tokens, 40);
  assert.equal(reply.finishReason, 'length');
});

test('completion tokens never exceed the limit, for any effort, limit and tool offer', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...EFFORTS),
      fc.integer({ min: 1, max: 120 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 64 }),
      (effort, max, tools, replyTokens) => {
        const reply = buildReply(
          {
            model: 'm',
            messages: [{ role: 'user', content: 'look it up' }],
            max_tokens: max,
            reasoning_effort: effort,
            ...(tools ? { tools: [TOOL] } : {}),
          },
          replyTokens,
        );
        assert.ok(reply.usage.completion_tokens <= max, `${reply.usage.completion_tokens} > ${max}`);
        assert.equal(reply.usage.completion_tokens >= reply.reasoningTokens, true);
        if (reply.finishReason !== 'length') assert.ok(reply.tokens.length > 0 || reply.toolCalls.length > 0);
      },
    ),
    { seed: 15, numRuns: 300 },
  );
});

test('without a limit the reply and reasoning are whole', () => {
  const reply = buildReply(
    { model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'max' },
    24,
  );
  assert.equal(reply.tokens.length, 24);
  assert.equal(reply.usage.completion_tokens, 24 + 64);
  assert.equal(reply.finishReason, 'stop');
});
