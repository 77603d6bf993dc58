import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  ConverseStreamCommand,
  type Message,
  type ServiceInputTypes,
  type ServiceOutputTypes,
  type ToolConfiguration,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Pluggable } from '@smithy/types';
import { type Simulator, startSimulator } from '../server.ts';

/**
 * Driven by the official AWS SDK: if it signs, sends, parses and raises errors against the
 * simulator as it does against Bedrock, the simulator speaks Bedrock. The SDK's default
 * handler is HTTP/2; the simulator (node:http) speaks HTTP/1.1, as does the gateway's signer.
 */
let sim: Simulator;
let client: BedrockRuntimeClient;
const SONNET_45 = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const SONNET_46 = 'global.anthropic.claude-sonnet-4-6';
const question: Message[] = [{ role: 'user', content: [{ text: 'What is the capital of France?' }] }];

function makeClient(
  options: { secret?: string; clockOffsetMs?: number; headers?: Record<string, string> } = {},
) {
  const { accessKeyId, secretAccessKey, region } = sim.credentials.aws;
  const made = new BedrockRuntimeClient({
    region,
    endpoint: `${sim.url}/bedrock`,
    credentials: { accessKeyId, secretAccessKey: options.secret ?? secretAccessKey },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
    systemClockOffset: options.clockOffsetMs ?? 0,
  });
  if (options.headers !== undefined) made.middlewareStack.use(withHeaders(options.headers));
  return made;
}

/** Adds `x-sim-*` fault headers the way any middleware would, before signing. */
function withHeaders(headers: Record<string, string>): Pluggable<ServiceInputTypes, ServiceOutputTypes> {
  return {
    applyToStack(stack) {
      stack.add(
        (next) => (args) => {
          const request = args.request as { headers?: Record<string, string> };
          if (request.headers !== undefined) Object.assign(request.headers, headers);
          return next(args);
        },
        { step: 'build' },
      );
    },
  };
}

async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail('expected the SDK to throw');
}

const weather: ToolConfiguration = {
  tools: [
    {
      toolSpec: {
        name: 'get_weather',
        inputSchema: {
          json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    },
    {
      toolSpec: {
        name: 'get_time',
        inputSchema: {
          json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    },
  ],
};

before(async () => {
  sim = await startSimulator();
  client = makeClient();
});
after(async () => {
  client.destroy();
  await sim.close();
});

describe('simulated Bedrock Converse (driven by @aws-sdk/client-bedrock-runtime)', () => {
  test('ConverseCommand: text with usage; the model id travels as one encoded segment', async () => {
    const out = await client.send(new ConverseCommand({ modelId: SONNET_45, messages: question }));
    const text = out.output?.message?.content?.[0]?.text ?? '';
    assert.match(text, /^Simulated reply to "What is the":/);
    assert.equal(out.stopReason, 'end_turn');
    assert.equal(out.usage?.outputTokens, 16);
    assert.equal(out.usage?.totalTokens, (out.usage?.inputTokens ?? 0) + 16);
    assert.equal(out.usage?.cacheReadInputTokens, 0);
    assert.equal(
      sim.received.at(-1)?.path,
      '/bedrock/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    );
  });

  test('ConverseStreamCommand: the same text as deltas, metadata usage last', async () => {
    const whole = await client.send(new ConverseCommand({ modelId: SONNET_45, messages: question }));
    const out = await client.send(new ConverseStreamCommand({ modelId: SONNET_45, messages: question }));
    let text = '';
    const kinds: string[] = [];
    let usage: unknown;
    for await (const event of out.stream ?? []) {
      const kind =
        Object.keys(event).find((key) => (event as unknown as Record<string, unknown>)[key] !== undefined) ??
        '';
      kinds.push(kind);
      text += event.contentBlockDelta?.delta?.text ?? '';
      if (event.metadata) usage = event.metadata.usage;
      if (event.messageStop) assert.equal(event.messageStop.stopReason, 'end_turn');
    }
    assert.equal(text, whole.output?.message?.content?.[0]?.text);
    assert.deepEqual(usage, whole.usage);
    assert.equal(kinds[0], 'messageStart');
    assert.equal(kinds.at(-1), 'metadata');
    assert.equal(kinds.filter((kind) => kind === 'contentBlockDelta').length, 16);
  });

  test('prompt caching: cachePoint blocks write the prefix, detailed by TTL (1h before 5m)', async () => {
    const long = 'The handbook says many things about many topics. '.repeat(400);
    const input: ConverseCommandInput = {
      modelId: SONNET_46,
      system: [{ text: long }, { cachePoint: { type: 'default', ttl: '1h' } }],
      messages: [
        {
          role: 'user',
          content: [{ text: long }, { cachePoint: { type: 'default' } }, { text: 'What does it say?' }],
        },
      ],
    };
    const { usage } = await client.send(new ConverseCommand(input));
    const [hour, five] = usage?.cacheDetails ?? [];
    assert.equal(hour?.ttl, '1h');
    assert.equal(five?.ttl, '5m');
    assert.ok((hour?.inputTokens ?? 0) >= 1024 && (five?.inputTokens ?? 0) >= 1024, JSON.stringify(usage));
    assert.equal(usage?.cacheWriteInputTokens, (hour?.inputTokens ?? 0) + (five?.inputTokens ?? 0));
    const plain = await client.send(new ConverseCommand({ modelId: SONNET_46, messages: question }));
    assert.equal(plain.usage?.cacheWriteInputTokens, 0);
    assert.equal(plain.usage?.cacheDetails, undefined);
    assert.equal(
      (usage?.inputTokens ?? 0) + (usage?.cacheWriteInputTokens ?? 0) + (usage?.outputTokens ?? 0),
      usage?.totalTokens,
    );
  });

  test('a tool-use turn calls both tools named in parallel, and answers the results', async () => {
    const asked: Message[] = [
      { role: 'user', content: [{ text: 'Use get_weather and get_time for Paris' }] },
    ];
    const input: ConverseCommandInput = { modelId: SONNET_45, messages: asked, toolConfig: weather };
    const first = await client.send(new ConverseCommand(input));
    assert.equal(first.stopReason, 'tool_use');
    const calls = (first.output?.message?.content ?? []).flatMap((block) =>
      block.toolUse ? [block.toolUse] : [],
    );
    assert.deepEqual(
      calls.map((call) => call.name),
      ['get_weather', 'get_time'],
    );
    assert.ok(calls.every((call) => /^tooluse_/.test(call.toolUseId ?? '')));
    const results: Message = {
      role: 'user',
      content: calls.map((call) => ({
        toolResult: { toolUseId: call.toolUseId, content: [{ text: 'sunny' }] },
      })),
    };
    const messages = [...asked, first.output?.message as Message, results];
    const second = await client.send(new ConverseCommand({ ...input, messages }));
    assert.equal(second.stopReason, 'end_turn');
    assert.equal(second.output?.message?.content?.[0]?.text, 'The tool returned: sunny sunny');

    const streamed = await client.send(new ConverseStreamCommand(input));
    const starts: string[] = [];
    for await (const event of streamed.stream ?? []) {
      if (event.contentBlockStart?.start?.toolUse?.name)
        starts.push(event.contentBlockStart.start.toolUse.name);
    }
    assert.deepEqual(starts, ['get_weather', 'get_time']);
  });

  test('the scripted tool turn (x-sim-tool-turn): the named tool with the given input, then its result quoted', async () => {
    const turn = { name: 'get_time', input: { city: 'Oslo', utc: true } };
    const scripted = makeClient({ headers: { 'x-sim-tool-turn': JSON.stringify(turn) } });
    const input: ConverseCommandInput = { modelId: SONNET_45, messages: question, toolConfig: weather };
    const first = await scripted.send(new ConverseCommand(input));
    assert.equal(first.stopReason, 'tool_use');
    const calls = (first.output?.message?.content ?? []).flatMap((block) =>
      block.toolUse ? [block.toolUse] : [],
    );
    // By default the question (no action asked for) would get text and no call.
    assert.deepEqual(
      calls.map((call) => [call.name, call.input]),
      [['get_time', turn.input]],
    );
    const results: Message = {
      role: 'user',
      content: [{ toolResult: { toolUseId: calls[0]?.toolUseId, content: [{ text: '09:41\nCEST' }] } }],
    };
    const messages = [...question, first.output?.message as Message, results];
    const out = await scripted.send(new ConverseStreamCommand({ ...input, messages }));
    let text = '';
    let usage: { inputTokens?: number; outputTokens?: number } | undefined;
    for await (const event of out.stream ?? []) {
      text += event.contentBlockDelta?.delta?.text ?? '';
      if (event.metadata) usage = event.metadata.usage;
    }
    assert.equal(text, 'The tool returned: 09:41 CEST');
    const reported = sim.received.at(-1)?.usage;
    assert.deepEqual(
      [reported?.prompt_tokens, reported?.completion_tokens],
      [usage?.inputTokens, usage?.outputTokens],
      'the simulator records the usage it reported',
    );
    scripted.destroy();
  });

  test('adaptive thinking on a 4.6 profile: signed reasoning first, reasoning inside output tokens', async () => {
    const plain = await client.send(new ConverseCommand({ modelId: SONNET_46, messages: question }));
    const out = await client.send(
      new ConverseCommand({
        modelId: SONNET_46,
        messages: question,
        additionalModelRequestFields: { thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } },
      }),
    );
    const reasoning = out.output?.message?.content?.[0]?.reasoningContent?.reasoningText;
    assert.ok(reasoning?.text);
    assert.ok(reasoning?.signature);
    assert.equal(out.usage?.outputTokens, (plain.usage?.outputTokens ?? 0) + 16);

    const streamed = await client.send(
      new ConverseStreamCommand({
        modelId: SONNET_46,
        messages: question,
        additionalModelRequestFields: { thinking: { type: 'adaptive' } },
      }),
    );
    let signature = '';
    for await (const event of streamed.stream ?? [])
      signature += event.contentBlockDelta?.delta?.reasoningContent?.signature ?? '';
    assert.notEqual(signature, '');
  });

  test('a wrong secret or a stale clock fails the signature check', async () => {
    const wrong = makeClient({ secret: 'x'.repeat(40) });
    const error = await rejection(
      wrong.send(new ConverseCommand({ modelId: SONNET_45, messages: question })),
    );
    assert.equal(error.name, 'InvalidSignatureException');
    assert.equal(error.$metadata?.httpStatusCode, 403);
    assert.match(error.message, /^The request signature we calculated does not match/);
    wrong.destroy();
    const stale = makeClient({ clockOffsetMs: -20 * 60 * 1000 });
    const expired = await rejection(
      stale.send(new ConverseCommand({ modelId: SONNET_45, messages: question })),
    );
    assert.match(expired.message, /Signature expired/);
    stale.destroy();
  });

  test('Bedrock refusals: bare model id, unknown Claude keys, budget thinking on Opus 4.7, flex', async () => {
    const cases: Array<[Partial<ConverseCommandInput>, RegExp]> = [
      [{ modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }, /on-demand throughput isn’t supported/],
      [
        { additionalModelRequestFields: { reasoning_effort: 'high' } },
        /reasoning_effort: Extra inputs are not permitted/,
      ],
      [
        {
          modelId: 'global.anthropic.claude-opus-4-7',
          additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
        },
        /thinking.type.enabled is not supported/,
      ],
      [
        {
          additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 4096 } },
          inferenceConfig: { maxTokens: 4096 },
        },
        /must be greater than `thinking.budget_tokens`/,
      ],
      [{ serviceTier: { type: 'flex' } }, /service tier is not supported/],
    ];
    for (const [input, message] of cases) {
      const error = await rejection(
        client.send(new ConverseCommand({ modelId: SONNET_45, messages: question, ...input })),
      );
      assert.equal(error.name, 'ValidationException');
      assert.match(error.message, message);
    }
  });

  test('x-sim-fail-status 429 is a ThrottlingException; a mid-stream failure is an exception frame', async () => {
    const throttled = makeClient({ headers: { 'x-sim-fail-status': '429', 'x-sim-retry-after': '7' } });
    const error = await rejection(
      throttled.send(new ConverseCommand({ modelId: SONNET_45, messages: question })),
    );
    assert.equal(error.name, 'ThrottlingException');
    assert.equal(error.$metadata?.httpStatusCode, 429);
    throttled.destroy();

    const failing = makeClient({ headers: { 'x-sim-fail-after-tokens': '2' } });
    const out = await failing.send(new ConverseStreamCommand({ modelId: SONNET_45, messages: question }));
    let deltas = 0;
    const streamError = await rejection(
      (async () => {
        for await (const event of out.stream ?? []) if (event.contentBlockDelta) deltas++;
      })(),
    );
    assert.equal(streamError.name, 'ModelStreamErrorException');
    assert.equal(deltas, 2);
    failing.destroy();
  });
});
