/**
 * The generation routes through a listening gateway in front of the simulator, driven by the
 * official `@google/genai` SDK as Gemini CLI drives it: generateContent, generateContentStream
 * and countTokens on a Gemini model on developer and cloud_b (the body forwarded as sent) and on
 * a Claude and a GPT model (translated); a function-calling round trip with the client's own
 * names and ids; usage settled; errors in Google's envelope.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Content, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
let ai: GoogleGenAI;

before(async () => {
  t = await startChatApp();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  ai = new GoogleGenAI({ apiKey: t.token, httpOptions: { baseUrl: url, apiVersion: 'v1beta' } });
});
after(() => t.close());

const CASES = [
  { model: 'gemini-2.5-flash@developer', served: 'gemini-2.5-flash', provider: 'developer', native: true },
  { model: 'gemini-2.5-flash@cloud_b', served: 'gemini-2.5-flash', provider: 'cloud_b', native: true },
  { model: 'claude-sonnet@developer', served: 'claude-sonnet-4-6', provider: 'developer', native: false },
  {
    model: 'gpt-5.4-mini@developer',
    served: 'gpt-5.4-mini-2026-03-17',
    provider: 'developer',
    native: false,
  },
] as const;

const hello: Content[] = [{ role: 'user', parts: [{ text: 'Say hello' }] }];

const listFiles = {
  name: 'list_files',
  description: 'Lists the files of a directory',
  parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

for (const c of CASES) {
  describe(`${c.model} (${c.native ? 'forwarded as sent' : 'translated'})`, () => {
    it('generateContent answers text with usage and the served model', async () => {
      const response = await ai.models.generateContent({ model: c.model, contents: hello });
      assert.match(response.text ?? '', /Simulated reply to "Say hello"/);
      assert.equal(response.modelVersion, c.served);
      assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
      const usage = response.usageMetadata;
      assert.ok((usage?.promptTokenCount ?? 0) > 0 && (usage?.candidatesTokenCount ?? 0) > 0);
      const upstream = t.lastUpstreamBody();
      if (c.native) assert.deepEqual(upstream.contents, hello, 'the contents went upstream as sent');
      else assert.equal(upstream.contents, undefined, 'the upstream got its own API');
    });

    it('generateContentStream streams the answer in chunks ending with the finish reason and usage', async () => {
      const stream = await ai.models.generateContentStream({ model: c.model, contents: hello });
      let text = '';
      let chunks = 0;
      let last;
      for await (const chunk of stream) {
        text += chunk.text ?? '';
        chunks++;
        last = chunk;
      }
      assert.ok(chunks > 1, `${chunks} chunks`);
      assert.match(text, /^Simulated reply to "Say hello"/);
      assert.equal(last?.candidates?.[0]?.finishReason, 'STOP');
      assert.ok((last?.usageMetadata?.candidatesTokenCount ?? 0) > 0);
    });

    it("a function call comes back with the client's tool name, and its id answers it", async () => {
      // Forced (mode ANY): the call does not depend on how the simulator picks tools by default.
      const config = {
        tools: [{ functionDeclarations: [listFiles] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
      };
      const first = await ai.models.generateContent({ model: c.model, contents: hello, config });
      const call = first.functionCalls?.[0];
      assert.equal(call?.name, 'list_files');
      const model = first.candidates?.[0]?.content;
      assert.ok(model);
      const reply: Content = {
        role: 'user',
        parts: [{ functionResponse: { id: call.id, name: 'list_files', response: { output: 'README.md' } } }],
      };
      const contents = [...hello, model, reply];
      const second = await ai.models.generateContent({
        model: c.model,
        contents,
        config: { tools: config.tools },
      });
      assert.equal(second.candidates?.[0]?.finishReason, 'STOP');
      assert.ok((second.text ?? '').length > 0);
      const upstream = JSON.stringify(t.lastUpstreamBody());
      if (c.native) assert.deepEqual(t.lastUpstreamBody().contents, JSON.parse(JSON.stringify(contents)));
      else if (call.id) assert.ok(upstream.includes(call.id), 'the call id reached the upstream unchanged');
    });

    it('countTokens counts the prompt', async () => {
      const counted = await ai.models.countTokens({ model: c.model, contents: hello });
      assert.ok((counted.totalTokens ?? 0) > 0);
    });
  });
}

describe('metering and headers', () => {
  it('a call is settled on the provider it went to, with X-Gateway-Applied', async () => {
    const before = (await t.settledUsage(0)).length;
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-2.5-flash@cloud_b:generateContent',
      headers: { 'x-goog-api-key': t.token },
      payload: { contents: hello },
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['x-gateway-applied']), /provider=cloud_b/);
    const rows = await t.settledUsage(before + 1);
    const row = rows.at(-1);
    assert.equal(row?.provider, 'cloud_b');
    assert.notEqual(row?.status, 'reserved');
    assert.ok((row?.prompt_tokens ?? 0) > 0);
  });

  it('thinkingConfig is the effort unless the name carries one (the modifier wins)', async () => {
    const body = { contents: hello, generationConfig: { thinkingConfig: { thinkingBudget: 24576 } } };
    const fromBody = await t.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-2.5-flash@developer:generateContent',
      headers: { 'x-goog-api-key': t.token },
      payload: body,
    });
    assert.match(String(fromBody.headers['x-gateway-applied']), /effort=high/);
    const byName = await t.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-2.5-flash:low@developer:generateContent',
      headers: { 'x-goog-api-key': t.token },
      payload: body,
    });
    assert.match(String(byName.headers['x-gateway-applied']), /effort=low/);
  });

  it('countTokens is estimated by the gateway for a provider of another API, even one with a counter', async () => {
    // gpt on developer has no counter; Claude on developer has Anthropic's, which takes no Gemini prompt.
    for (const model of ['gpt-5.4-mini@developer', 'claude-sonnet@developer']) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1beta/models/${model}:countTokens`,
        headers: { 'x-goog-api-key': t.token },
        payload: { contents: hello },
      });
      assert.equal(response.statusCode, 200, model);
      assert.equal(response.headers['x-gateway-token-count'], 'estimate', model);
      assert.ok(response.json().totalTokens > 0);
    }
    // The other way round: a Messages prompt and Gemini's counter.
    const messages = await t.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: t.headers(),
      payload: { model: 'gemini-2.5-flash@developer', messages: [{ role: 'user', content: 'Say hello' }] },
    });
    assert.equal(messages.statusCode, 200, messages.body);
    assert.equal(messages.headers['x-gateway-token-count'], 'estimate');
  });
});

describe("countTokens on a Gemini provider's own counter", () => {
  let counted: ChatTestApp;
  let server: Server;
  const bodies: unknown[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        bodies.push({ path: req.url, body: JSON.parse(text) as unknown });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 42 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1beta`;
    counted = await startChatApp({
      editUpstreams: (file) => {
        const developer = file.providers.developer;
        if (developer) developer.vendors.google = { adapter: 'gemini', baseUrl };
      },
    });
  });
  after(async () => {
    await counted.close();
    server.close();
  });

  it("answers the provider's count, the prompt sent as the client wrote it", async () => {
    const response = await counted.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-2.5-flash@developer:countTokens',
      headers: { 'x-goog-api-key': counted.token },
      payload: { contents: hello },
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { totalTokens: 42 });
    assert.equal(response.headers['x-gateway-token-count'], 'upstream');
    const sent = bodies.at(-1) as { path: string; body: { generateContentRequest: { contents: unknown } } };
    assert.match(sent.path, /:countTokens$/);
    assert.deepEqual(sent.body.generateContentRequest.contents, hello);
  });
});

describe('stream framings', () => {
  const stream = (query: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v1beta/models/gpt-5.4-mini:streamGenerateContent${query}`,
      headers: { 'x-goog-api-key': t.token },
      payload: { contents: hello },
    });

  it('without alt: one JSON array of chunks', async () => {
    const response = await stream('');
    assert.match(String(response.headers['content-type']), /^application\/json/);
    const chunks = JSON.parse(response.body) as Array<{ candidates?: unknown[] }>;
    assert.ok(Array.isArray(chunks) && chunks.length > 1);
  });

  it('with alt=sse: data events', async () => {
    const response = await stream('?alt=sse');
    assert.match(String(response.headers['content-type']), /^text\/event-stream/);
    const events = response.body.split(/\r?\n\r?\n/).filter((block) => block.startsWith('data: '));
    assert.ok(events.length > 1);
    for (const event of events) JSON.parse(event.slice(6));
  });

  it('another alt is a 400 naming it', async () => {
    const response = await stream('?alt=proto');
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error.details[0].metadata.param, 'alt');
  });
});

describe('errors through the SDK', () => {
  it("an unknown model is a 404 in Google's envelope, a bad modifier a 400", async () => {
    await assert.rejects(
      ai.models.generateContent({ model: 'gemini-0.1-nano', contents: hello }),
      (error: Error & { status?: number }) => error.status === 404 && /gemini-0\.1-nano/.test(error.message),
    );
    await assert.rejects(
      ai.models.generateContent({ model: 'gemini-2.5-flash:ultra', contents: hello }),
      (error: Error & { status?: number }) =>
        error.status === 400 && /gateway_invalid_model_modifier/.test(error.message),
    );
    const noMethod = await t.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-2.5-flash:high',
      headers: { 'x-goog-api-key': t.token },
      payload: { contents: hello },
    });
    assert.equal(noMethod.statusCode, 404);
    assert.match(noMethod.json().error.message, /'high' is not a method the gateway serves/);
  });

  it('what only Gemini can do is a 400 for another model, and forwarded to Gemini', async () => {
    const call = (model: string) =>
      t.app.inject({
        method: 'POST',
        url: `/v1beta/models/${model}:generateContent`,
        headers: { 'x-goog-api-key': t.token },
        payload: { contents: hello, generationConfig: { candidateCount: 2 } },
      });
    const refused = await call('claude-sonnet@developer');
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.status, 'INVALID_ARGUMENT');
    assert.match(refused.json().error.message, /candidateCount/);
    assert.equal((await call('gemini-2.5-flash@developer')).statusCode, 200);
    const config = t.lastUpstreamBody().generationConfig as { candidateCount?: number };
    assert.equal(config.candidateCount, 2);
  });

  it('a model named percent-encoded is the same model', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-2.5-flash%3Alow%40developer%3AgenerateContent',
      headers: { 'x-goog-api-key': t.token },
      payload: { contents: hello },
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['x-gateway-applied']), /effort=low/);
  });
});

describe('fallbacks', () => {
  it('X-Gateway-Fallbacks is read: a valid list is accepted, an unusable entry is a 400 naming it', async () => {
    const call = (fallbacks: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1beta/models/gemini-2.5-flash@developer:generateContent',
        headers: { 'x-goog-api-key': t.token, 'x-gateway-fallbacks': fallbacks },
        payload: { contents: hello },
      });
    assert.equal((await call('claude-haiku, gpt-5.4-mini')).statusCode, 200);
    const refused = await call('gpt-5.4:ultra');
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.details[0].metadata.param, 'X-Gateway-Fallbacks');
  });
});
