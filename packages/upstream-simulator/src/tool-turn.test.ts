/**
 * The scripted tool turn through HTTP on the Anthropic Messages API (body and configuration) and
 * on the OpenAI path; Bedrock and Vertex have theirs beside their other tests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { behaviourFor } from './faults.ts';
import { type Simulator, startSimulator } from './server.ts';
import { parseToolTurn, TOOL_TURN_QUOTED_WORDS } from './tool-turn.ts';

const TURN = { name: 'Bash', input: { command: 'ls /work', description: 'List the files' } };
const TOOLS = [
  { name: 'Agent', input_schema: { type: 'object', properties: { prompt: { type: 'string' } } } },
  { name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
];
const QUESTION = { role: 'user', content: 'Which files are in /work?' };

interface Block {
  type: string;
  name?: string;
  input?: unknown;
  id?: string;
  text?: string;
}

let sim: Simulator;
let scripted: Simulator;
before(async () => {
  sim = await startSimulator();
  scripted = await startSimulator({ behaviour: { toolTurn: TURN } });
});
after(async () => {
  await sim.close();
  await scripted.close();
});

async function messages(on: Simulator, body: Record<string, unknown>): Promise<{ content: Block[] }> {
  const response = await fetch(`${on.url}/anthropic/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': on.credentials.anthropicKey,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 512, tools: TOOLS, ...body }),
  });
  assert.equal(response.status, 200);
  return (await response.json()) as { content: Block[] };
}

function toolResultTurn(call: Block | undefined, output: string) {
  return {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: call?.id, content: [{ type: 'text', text: output }] },
      { type: 'text', text: '<system-reminder>ignored</system-reminder>' },
    ],
  };
}

describe('the scripted tool turn', () => {
  test('off by default: a question gets text; asked to run a command, the shell tool runs it once', async () => {
    const answered = await messages(sim, { messages: [QUESTION] });
    assert.deepEqual(
      answered.content.map((block) => block.type),
      ['text'],
    );
    const ask = { role: 'user', content: 'Run `ls -la /work` please' };
    const first = await messages(sim, { messages: [ask] });
    const calls = first.content.filter((block) => block.type === 'tool_use');
    assert.deepEqual(
      calls.map((block) => [block.name, block.input]),
      [['Bash', { command: 'ls -la /work' }]],
    );
    const final = await messages(sim, {
      messages: [ask, { role: 'assistant', content: first.content }, toolResultTurn(calls[0], 'a.txt')],
    });
    assert.deepEqual(
      final.content.map((block) => [block.type, block.text]),
      [['text', 'The tool returned: a.txt <system-reminder>ignored</system-reminder>']],
    );
  });

  test('x_simulator.tool_turn: one call of the named tool with exactly the input, then the output quoted', async () => {
    const x_simulator = { tool_turn: TURN };
    const first = await messages(sim, { messages: [QUESTION], x_simulator });
    const calls = first.content.filter((block) => block.type === 'tool_use');
    assert.deepEqual(
      calls.map((block) => [block.name, block.input]),
      [['Bash', TURN.input]],
    );
    const history = [QUESTION, { role: 'assistant', content: first.content }];
    const final = await messages(sim, {
      messages: [...history, toolResultTurn(calls[0], 'a.txt\nb.md\n\nc.json\n')],
      x_simulator,
    });
    assert.deepEqual(
      final.content.map((block) => [block.type, block.text]),
      [['text', 'The tool returned: a.txt b.md c.json <system-reminder>ignored</system-reminder>']],
    );
  });

  test('configured for every request; a request without the named tool gets text, a long output is cut', async () => {
    const side = await messages(scripted, { messages: [QUESTION], tools: [TOOLS[0]] });
    assert.deepEqual(
      side.content.map((block) => block.type),
      ['text'],
      'no tool call at all: an agent side call stays a side call',
    );
    const first = await messages(scripted, { messages: [QUESTION] });
    const call = first.content.find((block) => block.type === 'tool_use');
    assert.equal(call?.name, 'Bash');
    const output = Array.from({ length: 100 }, (_, i) => `file-${i}`).join('\n');
    const final = await messages(scripted, {
      messages: [QUESTION, { role: 'assistant', content: first.content }, toolResultTurn(call, output)],
    });
    const words = (final.content[0]?.text ?? '').split(' ');
    assert.equal(words.length, 3 + TOOL_TURN_QUOTED_WORDS);
    assert.equal(words.at(-1), `file-${TOOL_TURN_QUOTED_WORDS - 1}`);
  });

  test('the OpenAI path too, by header', async () => {
    const response = await fetch(`${sim.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sim-tool-turn': JSON.stringify(TURN) },
      body: JSON.stringify({
        model: 'sim-small',
        messages: [QUESTION],
        tools: TOOLS.map((tool) => ({ type: 'function', function: { name: tool.name } })),
      }),
    });
    const body = (await response.json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { name: string; arguments: string } }> } }>;
    };
    const calls = body.choices[0]?.message.tool_calls ?? [];
    assert.deepEqual(
      calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)]),
      [['Bash', TURN.input]],
    );
  });

  test('parsing: an object or its JSON; header over body over configuration; junk is no tool turn', () => {
    assert.deepEqual(parseToolTurn(JSON.stringify(TURN)), TURN);
    assert.deepEqual(parseToolTurn({ name: 'ls' }), { name: 'ls', input: {} });
    for (const junk of ['{', '[]', { name: '' }, { name: 'ls', input: [] }, 42])
      assert.equal(parseToolTurn(junk), undefined, JSON.stringify(junk));
    const configured = { toolTurn: { name: 'c', input: {} } };
    const body = { x_simulator: { tool_turn: { name: 'b' } } };
    assert.equal(behaviourFor({}, body, configured).toolTurn?.name, 'b');
    const header = { 'x-sim-tool-turn': '{"name":"h"}' };
    assert.equal(behaviourFor(header, body, configured).toolTurn?.name, 'h');
    assert.equal(behaviourFor({ 'x-sim-tool-turn': 'nonsense' }, {}, configured).toolTurn?.name, 'c');
  });
});
