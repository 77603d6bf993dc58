/** The simulator's Claude APIs, driven by the official SDKs, as the gateway's upstreams would be. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { OAuth2Client } from 'google-auth-library';
import { importPKCS8, SignJWT } from 'jose';
import { type Simulator, startSimulator } from '../server.ts';

let sim: Simulator;
let client: Anthropic;

before(async () => {
  sim = await startSimulator();
  client = new Anthropic({
    apiKey: sim.credentials.anthropicKey,
    baseURL: `${sim.url}/anthropic`,
    maxRetries: 0,
  });
});
after(() => sim.close());

const question = { role: 'user', content: 'What is the capital of France?' } as const;
const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('anthropic simulator with @anthropic-ai/sdk', () => {
  test('messages.create: a Message with text and usage', async () => {
    const message = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: [question],
    });
    assert.equal(message.type, 'message');
    assert.equal(message.stop_reason, 'end_turn');
    assert.match(message.content[0]?.type === 'text' ? message.content[0].text : '', /^Simulated reply/);
    assert.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 0);
    assert.equal(sim.received.at(-1)?.headers['anthropic-version'], '2026-10-21');
  });

  test('messages.stream: text deltas and the final usage', async () => {
    const stream = client.messages.stream({
      model: 'claude-haiku-4-5-20251001',
      max_tokens: 256,
      messages: [question],
    });
    const deltas: string[] = [];
    stream.on('text', (text) => deltas.push(text));
    const final = await stream.finalMessage();
    assert.ok(deltas.length > 1);
    assert.equal(final.content[0]?.type === 'text' ? final.content[0].text : '', deltas.join(''));
    assert.ok(final.usage.input_tokens > 0);
    assert.equal(final.usage.output_tokens, deltas.length);
  });

  test('stream: true yields the raw event sequence', async () => {
    const events = await client.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 64,
      messages: [question],
      stream: true,
    });
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    assert.equal(types[0], 'message_start');
    assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop']);
  });

  test('messages.countTokens: the input_tokens the same request is answered with; generation fields refused', async () => {
    const request = { model: 'claude-sonnet-4-6', messages: [question], tools: [weather] };
    const counted = await client.messages.countTokens(request);
    const answered = await client.messages.create({
      ...request,
      max_tokens: 64,
      tool_choice: { type: 'none' },
    });
    assert.equal(counted.input_tokens, answered.usage.input_tokens);
    assert.ok(counted.input_tokens > 0);
    const extra = { ...request, max_tokens: 64 } as Anthropic.MessageCountTokensParams;
    await assert.rejects(client.messages.countTokens(extra), { status: 400 });
    await assert.rejects(client.messages.countTokens({ ...request, model: 'claude-nope' }), { status: 404 });
  });

  test('a tool-use turn: two parallel tool_use blocks, then an answer to the results', async () => {
    const time = { ...weather, name: 'get_time', description: 'Time in a city' };
    const asked = { role: 'user', content: 'Use get_weather and get_time for Paris' } as const;
    const first = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: [asked],
      tools: [weather, time],
    });
    assert.equal(first.stop_reason, 'tool_use');
    const uses = first.content.filter((block) => block.type === 'tool_use');
    assert.deepEqual(
      uses.map((use) => use.name),
      ['get_weather', 'get_time'],
    );
    const second = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      tools: [weather, time],
      messages: [
        asked,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: uses.map((use) => ({
            type: 'tool_result' as const,
            tool_use_id: use.id,
            content: 'sunny',
          })),
        },
      ],
    });
    assert.equal(second.stop_reason, 'end_turn');
  });

  test('thinking: a signed thinking block and thinking tokens; refused shapes are 400', async () => {
    const message = await client.messages.create({
      model: 'claude-opus-4-7',
      max_tokens: 2048,
      messages: [question],
      thinking: { type: 'adaptive' },
      output_config: { effort: 'xhigh' },
    });
    const thinking = message.content.find((block) => block.type === 'thinking');
    assert.ok(thinking?.type === 'thinking' && thinking.signature !== '');
    const stream = client.messages.stream({
      model: 'claude-haiku-4-5-20251001',
      max_tokens: 4096,
      messages: [question],
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    const signatures: string[] = [];
    stream.on('signature', (signature) => signatures.push(signature));
    await stream.finalMessage();
    assert.equal(signatures.length, 1);
    await assert.rejects(
      client.messages.create({
        model: 'claude-opus-4-7',
        max_tokens: 4096,
        messages: [question],
        thinking: { type: 'enabled', budget_tokens: 2048 },
      }),
      Anthropic.BadRequestError,
    );
    await assert.rejects(
      client.messages.create({
        model: 'claude-haiku-4-5-20251001',
        max_tokens: 1024,
        messages: [question],
        thinking: { type: 'enabled', budget_tokens: 1024 },
      }),
      Anthropic.BadRequestError,
    );
    await assert.rejects(
      client.messages.create({
        model: 'claude-haiku-4-5-20251001',
        max_tokens: 1024,
        messages: [question],
        output_config: { effort: 'low' },
      }),
      Anthropic.BadRequestError,
    );
  });

  test('prompt caching: breakpoints write the prefix, split by TTL; a short prefix is not cached', async () => {
    const long = 'The handbook says many things about many topics. '.repeat(400);
    const request = {
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      system: [
        {
          type: 'text' as const,
          text: long,
          cache_control: { type: 'ephemeral' as const, ttl: '1h' as const },
        },
      ],
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: long, cache_control: { type: 'ephemeral' as const } },
            { type: 'text' as const, text: 'What does it say?' },
          ],
        },
      ],
    };
    const message = await client.messages.create(request);
    const { usage } = message;
    const oneHour = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    const fiveMinutes = usage.cache_creation?.ephemeral_5m_input_tokens ?? 0;
    assert.ok(oneHour >= 1024 && fiveMinutes >= 1024, JSON.stringify(usage));
    assert.equal(usage.cache_creation_input_tokens, oneHour + fiveMinutes);
    assert.equal(usage.cache_read_input_tokens, 0);
    assert.ok((usage.input_tokens ?? 0) > 0 && usage.input_tokens < 20, JSON.stringify(usage));
    const count = await client.messages.countTokens({
      model: request.model,
      system: request.system,
      messages: request.messages,
    });
    assert.equal(usage.input_tokens + oneHour + fiveMinutes, count.input_tokens);

    const short = await client.messages.create({
      ...request,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [question],
    });
    assert.equal(short.usage.cache_creation_input_tokens, 0);
  });

  test('web search: server tool blocks, cited text, one search request', async () => {
    const message = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: [question],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
    });
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['server_tool_use', 'web_search_tool_result', 'text'],
    );
    const text = message.content[2];
    assert.ok(text?.type === 'text' && text.citations?.[0]?.type === 'web_search_result_location');
    assert.equal(message.usage.server_tool_use?.web_search_requests, 1);
  });

  test('errors: wrong key, missing max_tokens, unknown model, 529, sampling under 2026-10-21', async () => {
    const wrong = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: `${sim.url}/anthropic`, maxRetries: 0 });
    await assert.rejects(
      wrong.messages.create({ model: 'claude-opus-4-8', max_tokens: 8, messages: [question] }),
      Anthropic.AuthenticationError,
    );
    const noMax = {
      model: 'claude-opus-4-8',
      messages: [question],
    } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    await assert.rejects(client.messages.create(noMax), Anthropic.BadRequestError);
    await assert.rejects(
      client.messages.create({ model: 'claude-9', max_tokens: 8, messages: [question] }),
      Anthropic.NotFoundError,
    );
    const overloaded = client.messages.create(
      { model: 'claude-opus-4-8', max_tokens: 8, messages: [question] },
      { headers: { 'x-sim-fail-status': '529' } },
    );
    await assert.rejects(overloaded, (error: unknown) => {
      assert.ok(error instanceof Anthropic.InternalServerError);
      assert.equal(error.status, 529);
      assert.equal((error.error as { error?: { type?: string } }).error?.type, 'overloaded_error');
      return true;
    });
    // SDK 1.x speaks 2026-10-21, whose types no longer have temperature; the API refuses it.
    const sampled = { model: 'claude-sonnet-4-6', max_tokens: 8, messages: [question], temperature: 0.5 };
    await assert.rejects(
      client.messages.create(sampled as Anthropic.MessageCreateParamsNonStreaming),
      Anthropic.BadRequestError,
    );
  });

  test('an x-api-key client on 2023-06-01 may set temperature; a mid-stream error is an error event', async () => {
    const headers = {
      'x-api-key': sim.credentials.anthropicKey,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    };
    const ok = await fetch(`${sim.url}/anthropic/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        model: 'claude-sonnet-4-6',
        max_tokens: 16,
        temperature: 0.2,
        messages: [question],
      }),
    });
    assert.equal(ok.status, 200);
    const failing = await fetch(`${sim.url}/anthropic/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        model: 'claude-sonnet-4-6',
        max_tokens: 16,
        stream: true,
        messages: [question],
        x_simulator: { fail_after_tokens: 2 },
      }),
    });
    const text = await failing.text();
    assert.equal((text.match(/event: content_block_delta/g) ?? []).length, 2);
    assert.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  });
});

async function googleAccessToken(): Promise<string> {
  const account = sim.credentials.googleServiceAccount;
  const assertion = await new SignJWT({ scope: 'https://www.googleapis.com/auth/cloud-platform' })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(account.client_email)
    .setAudience(`${sim.url}/google/token`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(await importPKCS8(account.private_key, 'RS256'));
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
  const response = await fetch(`${sim.url}/google/token`, { method: 'POST', body: form });
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * vertex-sdk 1.1 stores `accessToken` but authenticates only through a google-auth-library
 * client, so the token goes in through an OAuth2Client holding it as its credentials.
 */
function vertexClient(token: string): AnthropicVertex {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  return new AnthropicVertex({
    baseURL: `${sim.url}/vertex/v1`,
    region: 'us-east5',
    projectId: 'sim-project',
    authClient: authClient as unknown as NonNullable<
      ConstructorParameters<typeof AnthropicVertex>[0]
    >['authClient'],
    maxRetries: 0,
  });
}

describe('vertex claude simulator with @anthropic-ai/vertex-sdk', () => {
  test('the scripted tool turn works on Vertex too: the named tool, then its result quoted', async () => {
    const vertex = vertexClient(await googleAccessToken());
    const turn = { name: 'list_files', input: { path: '/srv' } };
    const headers = { 'x-sim-tool-turn': JSON.stringify(turn) };
    const ls: Anthropic.Tool = { name: 'list_files', input_schema: { type: 'object', properties: {} } };
    const ask = { model: 'claude-sonnet-4-6', max_tokens: 256, tools: [weather, ls] };
    const first = await vertex.messages.stream({ ...ask, messages: [question] }, { headers }).finalMessage();
    const calls = first.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
    assert.deepEqual(
      calls.map((call) => [call.name, call.input]),
      [['list_files', { path: '/srv' }]],
    );
    const result = { type: 'tool_result' as const, tool_use_id: calls[0]?.id ?? '', content: 'etc\nsrv' };
    const messages = [question, { role: 'assistant' as const, content: first.content }];
    const final = await vertex.messages.create(
      { ...ask, messages: [...messages, { role: 'user', content: [result] }] },
      { headers },
    );
    assert.deepEqual(final.content, [{ type: 'text', text: 'The tool returned: etc srv', citations: null }]);
    assert.equal(sim.received.at(-1)?.usage?.completion_tokens, final.usage.output_tokens);
  });

  test('rawPredict and streamRawPredict with a Google access token', async () => {
    const vertex = vertexClient(await googleAccessToken());
    const message = await vertex.messages.create({
      model: 'claude-sonnet-4-5@20250929',
      max_tokens: 128,
      messages: [question],
    });
    assert.equal(message.stop_reason, 'end_turn');
    const received = sim.received.at(-1);
    assert.match(received?.path ?? '', /\/models\/claude-sonnet-4-5@20250929:rawPredict$/);
    assert.equal((received?.body as { anthropic_version?: string }).anthropic_version, '2026-10-21');
    const final = await vertex.messages
      .stream({ model: 'claude-opus-4-8', max_tokens: 128, messages: [question] })
      .finalMessage();
    assert.ok(final.usage.output_tokens > 0);
    assert.match(sim.received.at(-1)?.path ?? '', /:streamRawPredict$/);
  });

  test('a bad token is 401; a body with model or without anthropic_version is 400; unknown model 404', async () => {
    await assert.rejects(
      vertexClient('ya29.not-issued').messages.create({
        model: 'claude-opus-4-8',
        max_tokens: 8,
        messages: [question],
      }),
      Anthropic.AuthenticationError,
    );
    const token = await googleAccessToken();
    const url = `${sim.url}/vertex/v1/projects/p/locations/global/publishers/anthropic/models/claude-opus-4-8:rawPredict`;
    const post = (body: object) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const base = { max_tokens: 8, messages: [question] };
    assert.equal(
      (await post({ ...base, anthropic_version: 'vertex-2023-10-16', model: 'claude-opus-4-8' })).status,
      400,
    );
    assert.equal((await post(base)).status, 400);
    assert.equal((await post({ ...base, anthropic_version: 'vertex-2023-10-16' })).status, 200);
    await assert.rejects(
      vertexClient(token).messages.create({ model: 'claude-opus-9', max_tokens: 8, messages: [question] }),
      Anthropic.NotFoundError,
    );
  });
});
