/**
 * Model lifecycle through HTTP, on a clock the test moves: a deprecated version still answers
 * and says so (Deprecation, Sunset, Link), GET /v1/models lists the dates, and past the
 * retirement date every front door that takes a model name answers 410 `model_retired` naming
 * the successor while family aliases move on. The bundled catalog's own data (Claude Sonnet 4.5)
 * is used, plus a retiring Gemini preview so that a family alias has somewhere to move.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';
import { bundledCatalogFile, manualClock } from './testing.ts';

const SONNET_45 = 'claude-sonnet-4-5-20250929';
const DAY = 86_400_000;
const clock = manualClock(Date.parse('2026-11-29T12:00:00Z'));
const dir = mkdtempSync(join(tmpdir(), 'gw-lifecycle-'));
let t: ChatTestApp;

before(async () => {
  const file = bundledCatalogFile();
  const preview = file.models.find((model) => model.id === 'gemini-3.1-pro-preview');
  assert.ok(preview);
  Object.assign(preview, { retiresAt: '2026-12-15', successor: 'gemini-2.5-pro' });
  const catalogPath = join(dir, 'models.json');
  writeFileSync(catalogPath, JSON.stringify(file));
  t = await startChatApp({ now: clock.now, routing: { catalogPath } });
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const hello = [{ role: 'user', content: 'Hello' }];

/** One model call per front door that takes a model name, as a client sends it. */
const FRONT_DOORS = {
  chat: (model: string) => ({ url: '/v1/chat/completions', body: { model, messages: hello } }),
  messages: (model: string) => ({ url: '/v1/messages', body: { model, max_tokens: 16, messages: hello } }),
  count_tokens: (model: string) => ({ url: '/v1/messages/count_tokens', body: { model, messages: hello } }),
  responses: (model: string) => ({ url: '/v1/responses', body: { model, input: 'Hello' } }),
};

async function call(door: keyof typeof FRONT_DOORS, model: string) {
  const { url, body } = FRONT_DOORS[door](model);
  const response = await t.app.inject({
    method: 'POST',
    url,
    headers: t.headers({ 'anthropic-version': '2023-06-01' }),
    payload: body,
  });
  return { response, json: response.json<Record<string, unknown>>() };
}

interface Listed {
  id: string;
  alias_of?: string;
  aliases: string[];
  deprecated_at: string | null;
  retires_at: string | null;
  successor: string | null;
}

function lifecycleOf({ aliases, deprecated_at, retires_at, successor }: Listed) {
  return { aliases, deprecated_at, retires_at, successor };
}

async function models(): Promise<Listed[]> {
  const response = await t.app.inject({ method: 'GET', url: '/v1/models', headers: t.headers() });
  assert.equal(response.statusCode, 200);
  return response.json<{ data: Listed[] }>().data;
}

describe('before the retirement date (deprecated, still working)', () => {
  test('a deprecated version answers on every front door and says so: Deprecation, Sunset, Link', async () => {
    for (const door of Object.keys(FRONT_DOORS) as (keyof typeof FRONT_DOORS)[]) {
      for (const name of [SONNET_45, 'claude-sonnet-4-5']) {
        const { response } = await call(door, name);
        assert.equal(response.statusCode, 200, `${door} ${name}: ${response.body}`);
        // RFC 9745: a Structured Field Date in seconds; RFC 8594: an HTTP-date.
        assert.equal(response.headers.deprecation, `@${Date.parse('2026-09-30T00:00:00Z') / 1000}`);
        assert.equal(response.headers.sunset, 'Mon, 30 Nov 2026 00:00:00 GMT');
        assert.equal(response.headers.link, '</v1/models/claude-sonnet-4-6>; rel="successor-version"');
      }
    }
    const current = await call('chat', 'claude-sonnet');
    assert.equal(current.response.statusCode, 200);
    assert.equal(current.response.headers.deprecation, undefined, 'nothing is announced for Sonnet 4.6');
    assert.equal(current.response.headers.sunset, undefined);
  });

  test('GET /v1/models lists the dates and the successor; models with nothing announced have nulls', async () => {
    const data = await models();
    const sonnet = data.find((model) => model.id === SONNET_45);
    assert.deepEqual(sonnet && lifecycleOf(sonnet), {
      aliases: ['claude-sonnet-4-5'],
      deprecated_at: '2026-09-30',
      retires_at: '2026-11-30',
      successor: 'claude-sonnet-4-6',
    });
    const alias = data.find((model) => model.id === 'claude-sonnet-4-5');
    assert.equal(alias?.alias_of, SONNET_45);
    assert.equal(alias?.retires_at, '2026-11-30');
    const current = data.find((model) => model.id === 'claude-sonnet-4-6');
    assert.deepEqual([current?.deprecated_at, current?.retires_at, current?.successor], [null, null, null]);
    assert.equal(data.find((model) => model.id === 'gemini-pro')?.alias_of, 'gemini-3.1-pro-preview');
  });
});

describe('past the retirement date', () => {
  before(() => clock.advance(Date.parse('2026-11-30T00:00:00Z') - clock.now()));

  test('the exact version and its version alias are a 410 model_retired naming date and successor, on every front door', async () => {
    const upstreamCalls = t.sim.received.length;
    for (const door of Object.keys(FRONT_DOORS) as (keyof typeof FRONT_DOORS)[]) {
      for (const name of [SONNET_45, 'claude-sonnet-4-5']) {
        const { response, json } = await call(door, name);
        assert.equal(response.statusCode, 410, `${door} ${name}: ${response.body}`);
        const error = json.error as { type: string; code: string; message: string; param?: string };
        // Messages and count_tokens answer in Anthropic's envelope, the others in OpenAI's.
        if (door === 'messages' || door === 'count_tokens') assert.equal(json.type, 'error');
        else assert.equal(error.param, 'model');
        assert.equal(error.type, 'invalid_request_error');
        assert.equal(error.code, 'model_retired');
        const named = name === SONNET_45 ? `'${SONNET_45}'` : `'claude-sonnet-4-5' (${SONNET_45})`;
        assert.equal(
          error.message,
          `The model ${named} was retired on 2026-11-30 and no longer answers requests. Use its successor 'claude-sonnet-4-6' instead (GET /v1/models lists the models available to you).`,
        );
      }
    }
    assert.equal(t.sim.received.length, upstreamCalls, 'nothing reaches an upstream');
  });

  test('the family alias still answers, from a version that is not retired', async () => {
    const { response, json } = await call('chat', 'claude-sonnet');
    assert.equal(response.statusCode, 200);
    assert.equal(json.model, 'claude-sonnet-4-6');
  });

  test('GET /v1/models leaves the retired version and its alias out; retrieving it is a 410', async () => {
    const ids = (await models()).map((model) => model.id);
    assert.ok(!ids.includes(SONNET_45) && !ids.includes('claude-sonnet-4-5'), ids.join(', '));
    assert.ok(ids.includes('claude-sonnet-4-6') && ids.includes('claude-sonnet'));
    const retrieved = await t.app.inject({
      method: 'GET',
      url: `/v1/models/claude-sonnet-4-5`,
      headers: t.headers(),
    });
    assert.equal(retrieved.statusCode, 410);
    assert.equal(retrieved.json<{ error: { code: string } }>().error.code, 'model_retired');
  });

  test('when the newest version of a family retires, its alias moves to the newest one still working', async () => {
    clock.advance(16 * DAY); // 2026-12-16: the Gemini preview retired on the 15th
    const { response, json } = await call('chat', 'gemini-pro');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(json.model, 'gemini-2.5-pro');
    const data = await models();
    assert.equal(data.find((model) => model.id === 'gemini-pro')?.alias_of, 'gemini-2.5-pro');
    assert.deepEqual(data.find((model) => model.id === 'gemini-2.5-pro')?.aliases, ['gemini-pro']);
    assert.equal((await call('responses', 'gemini-3.1-pro-preview')).response.statusCode, 410);
  });
});
