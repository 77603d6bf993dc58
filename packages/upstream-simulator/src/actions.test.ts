/**
 * The cautious default through HTTP on each API's shape: text unless the user's last message
 * asks for an action; a command goes to the client's shell tool (whatever it is called and
 * however its schema takes the command line); never an agent tool, never a loop; a forced or
 * required tool choice is still honoured.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestedCommand } from './actions.ts';
import { type Simulator, startSimulator } from './server.ts';

let sim: Simulator;
before(async () => {
  sim = await startSimulator();
});
after(() => sim.close());

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const AGENT = { name: 'Task', schema: object({ prompt: { type: 'string' }, command: { type: 'string' } }) };
const READ = { name: 'Read', schema: object({ file_path: { type: 'string' } }) };

type Tool = { name: string; schema: Record<string, unknown> };

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

/** Chat Completions: the calls made, as [name, arguments]; or the text when none. */
async function chat(tools: Tool[], last: string | { tool: string }, extra: Record<string, unknown> = {}) {
  const messages =
    typeof last === 'string'
      ? [{ role: 'user', content: last }]
      : [
          { role: 'user', content: 'Run `ls`' },
          {
            role: 'assistant',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: last.tool },
        ];
  const body = (await post('/v1/chat/completions', {
    model: 'sim-small',
    messages,
    tools: tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, parameters: tool.schema },
    })),
    ...extra,
  })) as {
    choices: Array<{
      message: {
        content: string | null;
        tool_calls?: Array<{ function: { name: string; arguments: string } }>;
      };
    }>;
  };
  const message = body.choices[0]?.message;
  const calls = (message?.tool_calls ?? []).map((call) => [
    call.function.name,
    JSON.parse(call.function.arguments),
  ]);
  return calls.length > 0 ? calls : message?.content;
}

describe('the cautious default', () => {
  const bash = {
    name: 'Bash',
    schema: object({ command: { type: 'string' }, description: { type: 'string' } }),
  };

  test('a question gets text, even with an agent tool and a shell offered', async () => {
    assert.match(String(await chat([AGENT, bash, READ], 'What does this project do?')), /^Simulated reply/);
  });

  test('a command asked for runs on the shell tool, once; an agent tool is never the shell', async () => {
    for (const ask of ['run `ls -la`', 'Please run ls -la.', 'Execute `ls -la` in the shell'])
      assert.deepEqual(await chat([AGENT, READ, bash], ask), [['Bash', { command: 'ls -la' }]], ask);
    assert.deepEqual(await chat([AGENT, bash], 'List the files here with the Bash tool.'), [
      ['Bash', { command: 'ls' }],
    ]);
    assert.equal(typeof (await chat([AGENT, READ], 'run `ls`')), 'string', 'no shell offered: text');
  });

  test('each client shape of shell tool', async () => {
    const cases: Array<[Tool, Record<string, unknown>]> = [
      [{ name: 'exec_command', schema: object({ cmd: { type: 'string' } }) }, { cmd: 'ls' }],
      [{ name: 'shell', schema: object({ command: { type: 'array' } }) }, { command: ['bash', '-lc', 'ls'] }],
      [{ name: 'run_shell_command', schema: object({ command: { type: 'string' } }) }, { command: 'ls' }],
      [{ name: 'terminal', schema: object({ cmd: { type: 'string' } }) }, { cmd: 'ls' }],
    ];
    for (const [tool, args] of cases)
      assert.deepEqual(await chat([READ, tool], 'List the files in this directory.'), [[tool.name, args]]);
  });

  test('a tool result is answered in text, quoting it: no second call', async () => {
    assert.equal(await chat([bash], { tool: 'a.txt\nb.md' }), 'The tool returned: a.txt b.md');
  });

  test('tools named in the message are called, in parallel only when allowed', async () => {
    const weather = { name: 'get_weather', schema: object({ city: { type: 'string' } }) };
    const time = { name: 'get_time', schema: object({ city: { type: 'string' } }) };
    const both = 'Use get_weather and get_time for Paris';
    const city = { city: 'Paris' };
    assert.deepEqual(await chat([weather, time], both), [
      ['get_weather', city],
      ['get_time', city],
    ]);
    assert.deepEqual(await chat([weather, time], both, { parallel_tool_calls: false }), [
      ['get_weather', city],
    ]);
  });

  test('a forced tool is called, a required choice calls one, none refuses', async () => {
    const forced = { tool_choice: { type: 'function', function: { name: 'Read' } } };
    assert.deepEqual(await chat([bash, READ], 'Hello there', forced), [['Read', { file_path: 'there' }]]);
    const forcedShell = { tool_choice: { type: 'function', function: { name: 'Bash' } } };
    assert.deepEqual(await chat([READ, bash], 'run `pwd`', forcedShell), [['Bash', { command: 'pwd' }]]);
    assert.deepEqual(await chat([READ, bash], 'Hello there', { tool_choice: 'required' }), [
      ['Read', { file_path: 'there' }],
    ]);
    assert.equal(typeof (await chat([bash], 'run `ls`', { tool_choice: 'none' })), 'string');
  });

  test("Codex's Responses request: exec_command with the command, then the output quoted", async () => {
    const headers = { authorization: `Bearer ${sim.credentials.openaiKey}` };
    const tools = [
      { type: 'function', name: 'exec_command', parameters: object({ cmd: { type: 'string' } }) },
    ];
    const input = [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }],
      },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'List the files in this directory.' }],
      },
    ];
    const base = { model: 'gpt-5.4', tools, tool_choice: 'auto', parallel_tool_calls: true, store: false };
    const first = (await post('/openai/v1/responses', { ...base, input }, headers)) as {
      output: Array<{ type: string; name?: string; arguments?: string; call_id?: string }>;
    };
    const call = first.output.find((item) => item.type === 'function_call');
    assert.deepEqual([call?.name, JSON.parse(call?.arguments ?? '{}')], ['exec_command', { cmd: 'ls' }]);
    const output = { type: 'function_call_output', call_id: call?.call_id, output: 'alpha.txt' };
    const final = (await post(
      '/openai/v1/responses',
      { ...base, input: [...input, call, output] },
      headers,
    )) as {
      output: Array<{ type: string; content?: Array<{ text: string }> }>;
    };
    const message = final.output.find((item) => item.type === 'message');
    assert.equal(message?.content?.[0]?.text, 'The tool returned: alpha.txt');
  });

  test("Gemini CLI's request: run_shell_command", async () => {
    const declaration = {
      name: 'run_shell_command',
      parametersJsonSchema: object({ command: { type: 'string' } }),
    };
    const body = (await post(
      '/gemini/v1beta/models/gemini-2.5-flash:generateContent',
      {
        contents: [{ role: 'user', parts: [{ text: 'run `ls`' }] }],
        tools: [{ functionDeclarations: [declaration] }],
      },
      { 'x-goog-api-key': sim.credentials.geminiKey },
    )) as { candidates: Array<{ content: { parts: Array<{ functionCall?: unknown }> } }> };
    const calls = body.candidates[0]?.content.parts.flatMap((part) =>
      part.functionCall ? [part.functionCall] : [],
    );
    assert.deepEqual(calls, [{ name: 'run_shell_command', args: { command: 'ls' } }]);
  });

  test('what counts as asking for a command', () => {
    assert.equal(requestedCommand('<system-reminder>run `rm`</system-reminder>What is 2+2?'), undefined);
    assert.equal(requestedCommand('Run the tests'), undefined);
    assert.equal(requestedCommand('What does `ls` do?'), undefined);
    assert.equal(requestedCommand('run ls -la'), 'ls -la');
    assert.equal(requestedCommand('Run ls to list the files in this directory'), 'ls');
    assert.equal(requestedCommand('run ls -la and tell me what you see'), 'ls -la');
    assert.equal(requestedCommand('Please run pwd, then explain'), 'pwd');
    assert.equal(requestedCommand('run git status so we know where we are'), 'git status');
    assert.equal(requestedCommand('execute date in order to check the clock'), 'date');
    assert.equal(requestedCommand('run cat notes.txt: it is short'), 'cat notes.txt');
  });
});
