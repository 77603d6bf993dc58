/**
 * The Gemini front door's model list through HTTP: Google's shape from the same live list as
 * GET /v1/models, pagination, one model, `/v1/models` answering each client in its own shape,
 * the official `@google/genai` SDK listing and getting models.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
let url: string;

before(async () => {
  t = await startChatApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

interface GeminiList {
  models: Array<{ name: string; baseModelId: string; supportedGenerationMethods: string[] }>;
  nextPageToken?: string;
}

/** The chat models of GET /v1/models: the Gemini routes serve (and list) no embedding model. */
async function openAiIds(): Promise<string[]> {
  const response = await t.app.inject({ url: '/v1/models', headers: t.headers() });
  const { data } = response.json() as { data: Array<{ id: string; kind?: string }> };
  assert.ok(data.some((model) => model.kind === 'embedding'));
  return data.filter((model) => model.kind === undefined).map((model) => model.id);
}

function get(path: string, headers: Record<string, string> = { 'x-goog-api-key': t.token }) {
  return t.app.inject({ url: path, headers });
}

describe('GET /v1beta/models', () => {
  it("lists the models of GET /v1/models, in its order, in Gemini's shape", async () => {
    const response = await get('/v1beta/models?pageSize=1000');
    assert.equal(response.statusCode, 200);
    const list = response.json() as GeminiList;
    assert.deepEqual(
      list.models.map((model) => model.name),
      (await openAiIds()).map((id) => `models/${id}`),
    );
    const alias = list.models.find((model) => model.name === 'models/gemini-flash');
    assert.ok(alias && alias.baseModelId !== 'gemini-flash', 'an alias names the version it resolves to');
    assert.deepEqual(alias.supportedGenerationMethods, [
      'generateContent',
      'streamGenerateContent',
      'countTokens',
    ]);
    assert.equal(list.nextPageToken, undefined);
  });

  it('pages with pageSize and pageToken, and refuses a token it did not issue', async () => {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const query = `pageSize=4${token === undefined ? '' : `&pageToken=${token}`}`;
      const page = (await get(`/v1beta/models?${query}`)).json() as GeminiList;
      assert.ok(page.models.length <= 4);
      names.push(...page.models.map((model) => model.name));
      token = page.nextPageToken;
    } while (token !== undefined);
    assert.deepEqual(
      names,
      (await openAiIds()).map((id) => `models/${id}`),
    );
    const bad = await get('/v1beta/models?pageToken=nope');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.status, 'INVALID_ARGUMENT');
    assert.equal(bad.json().error.details[0].metadata.param, 'pageToken');
  });
});

describe('GET /v1beta/models/{model}', () => {
  it('returns one model by id or alias, with or without the models/ prefix', async () => {
    const exact = await get('/v1beta/models/gemini-2.5-flash');
    assert.equal(exact.statusCode, 200);
    assert.equal(exact.json().name, 'models/gemini-2.5-flash');
    const prefixed = await get('/v1beta/models/models%2Fgemini-flash');
    assert.equal(prefixed.json().name, 'models/gemini-flash');
  });

  it("answers an unknown model 404 NOT_FOUND in Google's envelope with the gateway's code", async () => {
    const response = await get('/v1beta/models/gemini-0.1-nano');
    assert.equal(response.statusCode, 404);
    const { error } = response.json();
    assert.equal(error.code, 404);
    assert.equal(error.status, 'NOT_FOUND');
    assert.equal(error.details[0].reason, 'model_not_found');
    assert.match(error.message, /gemini-0\.1-nano/);
  });

  it("answers a path no route takes under /v1beta in Google's envelope", async () => {
    const response = await get('/v1beta/cachedContents');
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().error.status, 'NOT_FOUND');
    assert.equal(response.json().error.details[0].reason, 'not_found');
  });
});

describe('/v1/models: one path, two APIs', () => {
  it('answers Gemini clients (x-goog-api-key, ?key=, x-goog-api-client) in Gemini shape, others in OpenAI shape', async () => {
    const openai = await get('/v1/models', t.headers());
    assert.equal(openai.json().object, 'list');
    const geminiHeaders: Array<Record<string, string>> = [
      { 'x-goog-api-key': t.token },
      { ...t.headers(), 'x-goog-api-client': 'google-genai-sdk/3.1.0 gl-node/24' },
    ];
    for (const headers of geminiHeaders) {
      const gemini = await get('/v1/models', headers);
      assert.equal(gemini.statusCode, 200);
      assert.ok(Array.isArray(gemini.json().models), JSON.stringify(headers));
    }
    const byQuery = await get(`/v1/models?key=${t.token}`, {});
    assert.ok(Array.isArray(byQuery.json().models));
  });

  it('does the same for one model, and keeps each envelope for its client', async () => {
    assert.equal((await get('/v1/models/gemini-2.5-flash', t.headers())).json().object, 'model');
    assert.equal((await get('/v1/models/gemini-2.5-flash')).json().name, 'models/gemini-2.5-flash');
    const openai404 = await get('/v1/models/nope', t.headers());
    assert.equal(openai404.json().error.code, 'model_not_found');
    const gemini404 = await get('/v1/models/nope');
    assert.equal(gemini404.json().error.status, 'NOT_FOUND');
    const unknownRoute = await get('/v1/models/a/b', t.headers());
    assert.equal(unknownRoute.statusCode, 404);
    assert.equal(unknownRoute.json().error.code, 'not_found', 'OpenAI clients keep their envelope');
  });
});

describe('the @google/genai SDK', () => {
  it('lists every model through its pager and gets one', async () => {
    const ai = new GoogleGenAI({ apiKey: t.token, httpOptions: { baseUrl: url, apiVersion: 'v1beta' } });
    const names: string[] = [];
    const pager = await ai.models.list({ config: { pageSize: 5 } });
    for await (const model of pager) names.push(model.name ?? '');
    assert.deepEqual(
      names,
      (await openAiIds()).map((id) => `models/${id}`),
    );
    const model = await ai.models.get({ model: 'gemini-2.5-flash' });
    assert.equal(model.name, 'models/gemini-2.5-flash');
    assert.ok((model.inputTokenLimit ?? 0) > 0);
    await assert.rejects(
      ai.models.get({ model: 'gemini-0.1-nano' }),
      (error: Error & { status?: number }) => {
        assert.equal(error.status, 404);
        assert.match(error.message, /gemini-0\.1-nano/);
        return true;
      },
    );
  });

  it('works on /v1 too', async () => {
    const ai = new GoogleGenAI({ apiKey: t.token, httpOptions: { baseUrl: url, apiVersion: 'v1' } });
    const model = await ai.models.get({ model: 'models/claude-sonnet' });
    assert.equal(model.name, 'models/claude-sonnet');
  });
});

describe('the OpenAPI document', () => {
  it("lists the Gemini routes under /v1beta with summaries, and keeps OpenAI's operations on /v1/models", async () => {
    const spec = (await t.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { summary?: string; description?: string; tags?: string[] }>>;
    };
    for (const path of ['/v1beta/models', '/v1beta/models/{model}']) {
      const operation = spec.paths[path]?.get;
      assert.ok(operation?.summary, `${path} has a summary`);
      assert.deepEqual(operation.tags, ['gemini']);
    }
    for (const path of ['/v1/models', '/v1/models/{model}']) {
      const operation = spec.paths[path]?.get;
      assert.deepEqual(operation?.tags, ['models'], path);
      assert.match(operation.description ?? '', /Gemini client/);
    }
  });
});
