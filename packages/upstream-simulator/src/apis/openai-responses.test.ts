/** The simulator's Responses APIs (OpenAI and Azure), driven by the official `openai` SDK. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { AzureOpenAI } from 'openai';
import { type Simulator, startSimulator } from '../server.ts';
import { TOOL_TURN_ANSWER } from '../tool-turn.ts';

let sim: Simulator;
let openai: OpenAI;

before(async () => {
  sim = await startSimulator();
  openai = new OpenAI({ apiKey: sim.credentials.openaiKey, baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
});
after(() => sim.close());

const shell: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'exec_command',
  parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
  strict: false,
};

describe('responses simulator with the openai SDK', () => {
  test('responses.create: text, usage, reasoning item with summary and encrypted content', async () => {
    const response = await openai.responses.create({
      model: 'gpt-5.4-2026-03-05',
      input: 'What is the capital of France?',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    assert.equal(response.status, 'completed');
    assert.match(response.output_text, /^Simulated reply/);
    const reasoning = response.output[0];
    assert.ok(
      reasoning?.type === 'reasoning' && reasoning.summary.length === 1 && reasoning.encrypted_content,
    );
    assert.equal(response.usage?.output_tokens_details.reasoning_tokens, 8);
    assert.deepEqual(sim.received.at(-1)?.usage?.completion_tokens, response.usage?.output_tokens);
  });

  test('responses.stream: the SDK accumulates the same response', async () => {
    const params = {
      model: 'gpt-5.4-2026-03-05',
      input: 'Stream please',
      tools: [shell],
      tool_choice: 'none' as const,
    };
    const stream = openai.responses.stream(params);
    const final = await stream.finalResponse();
    const json = await openai.responses.create(params);
    assert.equal(final.output_text, json.output_text);
    assert.deepEqual(final.usage, json.usage);
  });

  test('the scripted tool turn: the named tool is called, then its output is quoted', async () => {
    const headers = {
      'x-sim-tool-turn': JSON.stringify({ name: 'exec_command', input: { cmd: 'ls /tmp/x' } }),
    };
    const first = await openai.responses.create(
      { model: 'gpt-5.4-2026-03-05', input: 'List /tmp/x', tools: [shell] },
      { headers },
    );
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call?.type === 'function_call');
    assert.deepEqual(JSON.parse(call.arguments), { cmd: 'ls /tmp/x' });
    const answer = await openai.responses.create(
      {
        model: 'gpt-5.4-2026-03-05',
        tools: [shell],
        input: [
          { role: 'user', content: 'List /tmp/x' },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: 'alpha.txt beta.txt' },
        ],
      },
      { headers },
    );
    assert.equal(answer.output_text, `${TOOL_TURN_ANSWER} alpha.txt beta.txt`);
  });

  test('refusals as OpenAI words them: bad key, previous_response_id, an effort the model lacks', async () => {
    const bad = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
    await assert.rejects(
      bad.responses.create({ model: 'gpt-5.4-2026-03-05', input: 'x' }),
      OpenAI.AuthenticationError,
    );
    await assert.rejects(
      openai.responses.create({ model: 'gpt-5.4-2026-03-05', input: 'x', previous_response_id: 'resp_1' }),
      (error) => error instanceof OpenAI.BadRequestError && error.param === 'previous_response_id',
    );
    await assert.rejects(
      openai.responses.create({ model: 'gpt-5.4-2026-03-05', input: 'x', reasoning: { effort: 'minimal' } }),
      OpenAI.BadRequestError,
    );
  });

  test('Azure v1: the deployment as model with api-key; flex only for gpt-5.6-sol', async () => {
    const azure = new AzureOpenAI({
      apiKey: sim.credentials.azureKey,
      baseURL: `${sim.url}/azure/openai/v1`,
      apiVersion: 'preview',
      maxRetries: 0,
    });
    const response = await azure.responses.create({
      model: 'gpt-5.6-sol',
      input: 'hi',
      service_tier: 'flex',
    });
    assert.equal(response.service_tier, 'flex');
    assert.equal(sim.received.at(-1)?.path.split('?')[0], '/azure/openai/v1/responses');
    await assert.rejects(
      azure.responses.create({ model: 'gpt-5.4-2026-03-05', input: 'hi', service_tier: 'flex' }),
      OpenAI.BadRequestError,
    );
  });
});
