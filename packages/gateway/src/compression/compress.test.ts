/**
 * The compression engine on the internal model: examples for each rule, and property tests
 * over generated conversations for what the levels promise (fidelity, budgets, protected parts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelRequest, Part, TextPart, Turn } from '@app/provider-adapters';
import fc from 'fast-check';
import { requestTokens } from './count.ts';
import { compress } from './index.ts';
import { GEMINI_PER_O200K, tokenizerFor } from './tokenizers.ts';

const o200k = await tokenizerFor('openai');
const FENCE = /^ {0,3}```[\s\S]*?^ {0,3}```/gm;

function request(turns: Turn[], system: TextPart[] = []): ModelRequest {
  return { system, turns, tools: [], stream: false };
}
const text = (value: string, cache = false): TextPart =>
  cache ? { type: 'text', text: value, cache: { type: 'ephemeral' } } : { type: 'text', text: value };
const user = (...content: Part[]): Turn => ({ role: 'user', content });
const assistant = (...content: Part[]): Turn => ({ role: 'assistant', content });
const call = (id: string, name = 'read_file'): Part => ({
  type: 'tool_call',
  id,
  name,
  arguments: '{"path":"a.ts"}',
});
const result = (callId: string, value: string): Part => ({
  type: 'tool_result',
  callId,
  content: [text(value)],
});

const FILE = Array.from({ length: 40 }, (_, line) => `export const value${line} = ${line};   `).join('\n');

test('compact: repeated identical tool results become a reference to the first; JSON is minified', () => {
  const json = JSON.stringify({ rows: [{ id: 1, name: 'pump' }], total: 1 }, null, 2);
  const input = request([
    user(text('Read a.ts twice')),
    assistant(call('c1')),
    user(result('c1', FILE)),
    assistant(call('c2')),
    user(result('c2', FILE), text(json)),
  ]);
  const out = compress({
    request: input,
    level: 'compact',
    budget: 0,
    tokenizer: o200k,
  });
  const last = out.request.turns[4]?.content;
  assert.deepEqual(last?.[0], {
    type: 'tool_result',
    callId: 'c2',
    content: [text('[Identical to the result of tool call c1: left out by the gateway.]')],
  });
  assert.deepEqual(last?.[1], text(JSON.stringify(JSON.parse(json))));
  assert.ok(out.after < out.before, `${out.after} < ${out.before}`);
  assert.equal(out.before, requestTokens(input, o200k));
  assert.equal(out.after, requestTokens(out.request, o200k));
});

test('compact: an exact repeat of a system prompt is dropped, in the system or in a turn', () => {
  const prompt = 'You are a careful assistant. '.repeat(10).trim();
  const out = compress({
    request: request([user(text(prompt), text('Question?'))], [text(prompt), text(prompt)]),
    level: 'compact',
    budget: 0,
    tokenizer: o200k,
  });
  assert.deepEqual(out.request.system, [text(prompt)]);
  assert.equal(
    (out.request.turns[0]?.content[0] as TextPart).text,
    '[The system prompt again: left out by the gateway.]',
  );
});

test('the cached prefix (up to the last cache breakpoint) is never edited', () => {
  const messy = 'Notes:   \n\n\n\nmore   ';
  const turns = [
    user(text(messy)),
    assistant(text(messy)),
    user(text(messy, true)),
    assistant(text(messy)),
    user(text(messy)),
  ];
  const out = compress({
    request: request(turns, [text(messy)]),
    level: 'compact',
    budget: 0,
    tokenizer: o200k,
  });
  assert.equal(out.request.system[0]?.text, messy);
  for (const index of [0, 1, 2]) assert.equal(out.request.turns[index], turns[index]);
  assert.equal((out.request.turns[3]?.content[0] as TextPart).text, 'Notes:\n\nmore');
});

test('a request with nothing to remove reports equal counts', () => {
  const out = compress({
    request: request([user(text('Hi.'))]),
    level: 'compact',
    budget: 0,
    tokenizer: o200k,
  });
  assert.equal(out.before, out.after);
});

test('the tokenizers: o200k exact, special-token text counted, Claude vocabulary, Gemini estimated from o200k', async () => {
  assert.equal(o200k.count('Hello, world!'), 4);
  assert.equal(o200k.count('<|endoftext|>'), 7);
  const claude = await tokenizerFor('anthropic');
  assert.equal(claude.count('Hello, world!'), 4);
  assert.equal(claude.name, 'claude');
  // Loaded once: every later call gets the same counter (and its memo).
  assert.equal(await tokenizerFor('anthropic'), claude);
  assert.equal((await tokenizerFor('unknown-vendor')).name, 'o200k');
  const gemini = await tokenizerFor('google');
  assert.equal(gemini.name, 'gemini');
  const long = 'The meter reads 42 kWh.   \n'.repeat(40);
  assert.equal(gemini.count(long), Math.round(o200k.count(long) * GEMINI_PER_O200K));
});

// ---- property tests ------------------------------------------------------------------------

const word = fc.constantFrom('pump', 'meter', 'the', 'grid', 'voltage', 'asset', 'error', '42', 'ok');
const prose = fc
  .array(
    fc.tuple(fc.array(word, { minLength: 1, maxLength: 12 }), fc.constantFrom('', '  ', '\t'), fc.nat(3)),
    {
      minLength: 1,
      maxLength: 8,
    },
  )
  .map((lines) =>
    lines
      .map(([words, trailing, blanks]) => `${words.join(' ')}${trailing}${'\n'.repeat(blanks)}`)
      .join('\n'),
  );
const jsonText = fc
  .dictionary(
    fc.constantFrom('id', 'name', 'value', 'tags'),
    fc.oneof(fc.integer(), word, fc.array(word, { maxLength: 3 })),
  )
  .map((value) => JSON.stringify(value, null, 2));
const codeBlock = fc
  .tuple(prose, prose)
  .map(([before, code]) => `${before}\n\`\`\`\n${code}  \n\n\n\`\`\`\n${before}`);
const content = fc.oneof(prose, jsonText, codeBlock, fc.constant(FILE));

/** Alternating turns; every assistant call is answered in the next user turn. */
const conversation = fc
  .array(fc.tuple(content, fc.boolean(), content, fc.boolean()), { minLength: 1, maxLength: 14 })
  .map((rounds) => {
    const turns: Turn[] = [user(text('First question.'))];
    rounds.forEach(([said, calls, answer, thinks], index) => {
      const parts: Part[] = thinks ? [{ type: 'thinking', text: said, signature: `sig${index}` }] : [];
      parts.push(text(said));
      if (calls) parts.push(call(`c${index}`));
      turns.push(assistant(...parts));
      turns.push(calls ? user(result(`c${index}`, answer)) : user(text(answer)));
    });
    return request(turns, [text('System prompt.   \n\n\n')]);
  });

function skeleton(value: ModelRequest) {
  return value.turns.map((turn) => ({
    role: turn.role,
    parts: turn.content.map((part) =>
      part.type === 'tool_call'
        ? `${part.id}:${part.name}:${part.arguments}`
        : part.type === 'tool_result'
          ? `r:${part.callId}`
          : part.type,
    ),
  }));
}

function fencedBlocks(value: string): string[] {
  return value.match(FENCE) ?? [];
}

test('compact preserves meaning: roles, tool calls, JSON values, code blocks and thinking', () => {
  fc.assert(
    fc.property(conversation, (input) => {
      const out = compress({ request: input, level: 'compact', budget: 0, tokenizer: o200k });
      assert.deepEqual(skeleton(out.request), skeleton(input));
      assert.ok(out.after <= out.before);
      input.turns.forEach((turn, t) =>
        turn.content.forEach((part, p) => {
          const after = out.request.turns[t]?.content[p] as Part;
          if (part.type === 'thinking') assert.equal(after, part);
          const before =
            part.type === 'text'
              ? part.text
              : part.type === 'tool_result'
                ? (part.content[0] as TextPart).text
                : undefined;
          const now =
            after.type === 'text'
              ? after.text
              : after.type === 'tool_result'
                ? (after.content[0] as TextPart).text
                : '';
          if (before === undefined || now.startsWith('[Identical')) return;
          if (/^[[{]/.test(before.trim())) assert.deepEqual(JSON.parse(now), JSON.parse(before));
          for (const block of fencedBlocks(before)) assert.ok(now.includes(block), block);
        }),
      );
    }),
    { numRuns: 150 },
  );
});

test('compact is prefix-stable: a conversation that grew keeps its compacted prefix (automatic caches hit)', () => {
  fc.assert(
    fc.property(conversation, fc.nat(), (input, cut) => {
      const length = 1 + (cut % input.turns.length);
      const shorter = { ...input, turns: input.turns.slice(0, length) };
      const whole = compress({ request: input, level: 'compact', budget: 0, tokenizer: o200k }).request;
      const prefix = compress({ request: shorter, level: 'compact', budget: 0, tokenizer: o200k }).request;
      assert.deepEqual(whole.turns.slice(0, length), prefix.turns);
      assert.deepEqual(whole.system, prefix.system);
    }),
    { numRuns: 100 },
  );
});

test('compressed reaches every budget at or above its floor and keeps the protected parts byte-identical', () => {
  fc.assert(
    fc.property(conversation, fc.double({ min: 0, max: 1, noNaN: true }), (input, share) => {
      const floor = compress({ request: input, level: 'compressed', budget: 0, tokenizer: o200k }).after;
      const compact = compress({ request: input, level: 'compact', budget: 0, tokenizer: o200k });
      const budget = Math.round(floor + share * (compact.after - floor));
      const out = compress({ request: input, level: 'compressed', budget, tokenizer: o200k });
      assert.ok(out.after <= Math.max(budget, compact.after), `${out.after} <= ${budget}`);
      assert.deepEqual(out.request.system, compact.request.system);
      const [first, ...rest] = out.request.turns;
      assert.deepEqual(first?.content.slice(0, 1), compact.request.turns[0]?.content);
      assert.deepEqual(
        rest.slice(-2),
        compact.request.turns.slice(-2).filter(() => rest.length >= 2),
      );
      const ids = out.request.turns.flatMap((turn) => turn.content);
      const calls = ids.filter((part) => part.type === 'tool_call').map((part) => part.id);
      const answered = ids.filter((part) => part.type === 'tool_result').map((part) => part.callId);
      assert.deepEqual(calls, answered, 'every call keeps its result and every result its call');
      for (const part of ids) if (part.type === 'thinking') assert.match(part.signature ?? '', /^sig/);
    }),
    { numRuns: 120 },
  );
});

test('compressed: head-and-tail cuts and middle-out removal say how many tokens were left out', () => {
  const turns: Turn[] = [user(text('Start.'))];
  for (let index = 0; index < 8; index += 1) {
    turns.push(assistant(call(`c${index}`)), user(result(`c${index}`, `${index}\n${FILE}`)));
  }
  turns.push(assistant(text('Done reading.')), user(text('Summarise.')));
  const input = request(turns);
  const mild = compress({ request: input, level: 'compressed', budget: 2500, tokenizer: o200k });
  assert.ok(mild.after <= 2500);
  const cut = JSON.stringify(mild.request);
  assert.match(cut, /\.\.\. [\d,]+ tokens left out by the gateway\./);
  const hard = compress({ request: input, level: 'compressed', budget: 200, tokenizer: o200k });
  assert.ok(hard.after <= 200, String(hard.after));
  assert.match(JSON.stringify(hard.request), /\d+ earlier turns, [\d,]+ tokens left out by the gateway\./);
  assert.deepEqual(hard.request.turns.slice(-2), turns.slice(-2));
});
