/**
 * Client fallback lists (body `models`, header X-Gateway-Fallbacks) through HTTP on all three
 * front doors: a valid list is accepted and never reaches the upstream; every unusable entry is
 * a 400 naming it, before any budget is reserved or any request is sent.
 * docs/gateway/models-and-routing.md, "Fallback lists".
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from './chat-completions/testing.ts';

let t: ChatTestApp;
before(async () => {
  // After claude-sonnet-4-5-20250929 retired (2026-11-30), so a retired entry can be named.
  t = await startChatApp({ now: () => Date.parse('2026-12-15T00:00:00Z') });
});
after(() => t.close());

interface Door {
  readonly name: string;
  readonly url: string;
  /** A served model on a same-API upstream: the body goes as sent, so a leaked field would show. */
  readonly model: string;
  readonly path: string;
  body(model: string): Record<string, unknown>;
}

const hello = [{ role: 'user', content: 'Hello' }];
const DOORS: readonly Door[] = [
  {
    name: 'chat completions',
    url: '/v1/chat/completions',
    model: 'gpt-5.4-mini@developer',
    path: '/openai/v1/chat/completions',
    body: (model) => ({ model, messages: hello }),
  },
  {
    name: 'messages',
    url: '/v1/messages',
    model: 'claude-haiku@developer',
    path: '/anthropic/v1/messages',
    body: (model) => ({ model, max_tokens: 64, messages: hello }),
  },
  {
    name: 'responses',
    url: '/v1/responses',
    model: 'gpt-5.4-mini@developer',
    path: '/openai/v1/responses',
    body: (model) => ({ model, input: 'Hello', store: false }),
  },
];

async function post(door: Door, extra: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url: door.url,
    headers: t.headers({ 'content-type': 'application/json', ...headers }),
    payload: JSON.stringify({ ...door.body(door.model), ...extra }),
  });
  const error = response.statusCode >= 400 ? (response.json().error as Record<string, unknown>) : undefined;
  return { response, error };
}

/** Runs `send` and checks that nothing reached the simulator and no ledger row was written. */
async function nothingSent(send: () => Promise<void>): Promise<void> {
  const calls = t.sim.received.length;
  const rows = (await t.settledUsage(0)).length;
  await send();
  assert.equal(t.sim.received.length, calls, 'no upstream request was sent');
  assert.equal((await t.settledUsage(0)).length, rows, 'nothing was reserved or charged');
}

/** Entries the router refuses, with what the 400's message must say after naming the entry. */
const UNRESOLVABLE: ReadonlyArray<readonly [string, RegExp]> = [
  ['no-such-model', /The model 'no-such-model' does not exist/],
  ['gpt-5.4:ultra', /Unknown modifier ':ultra'/],
  ['gpt-5.4@cloud_z', /Unknown provider 'cloud_z'/],
  ['claude-sonnet-4-5-20250929', /was retired on 2026-11-30/],
];

/** Body entries the schema refuses: the list, where it goes wrong, and the message. */
const MALFORMED: ReadonlyArray<readonly [unknown, string, string]> = [
  [['gpt-5.4', ''], 'models[1]', "'models[1]' must NOT have fewer than 1 characters."],
  [['gpt-5.4', { name: 'gpt-5.4' }], 'models[1]', "'models[1]' must be string."],
  // The kit's `coerceTypes: 'array'` would unwrap a one-item array: two items stay an array.
  [['gpt-5.4', ['gpt-5.4', 'claude-haiku']], 'models[1]', "'models[1]' must be string."],
  // Coerced to '' by the same setting.
  [['gpt-5.4', null], 'models[1]', "'models[1]' must NOT have fewer than 1 characters."],
  [['gpt-5.4', 'x'.repeat(257)], 'models[1]', "'models[1]' must NOT have more than 256 characters."],
  [Array.from({ length: 6 }, () => 'gpt-5.4'), 'models', "'models' must NOT have more than 5 items."],
  [[], 'models', "'models' must NOT have fewer than 1 items."],
];

for (const door of DOORS) {
  describe(`fallback lists on ${door.name}`, () => {
    test('a valid list is accepted: the primary serves as before, and `models` is not sent upstream', async () => {
      for (const send of [
        () => post(door, { models: ['claude-sonnet:high@cloud_b', 'gpt-5.4:high'] }),
        () => post(door, {}, { 'x-gateway-fallbacks': 'claude-sonnet:high@cloud_b, gpt-5.4:high' }),
      ]) {
        const { response } = await send();
        assert.equal(response.statusCode, 200, response.body);
        assert.match(String(response.headers['x-gateway-applied']), /provider=developer/);
        assert.equal(response.headers['x-gateway-ignored'], undefined);
        const received = t.sim.received.at(-1);
        assert.equal(received?.path.split('?')[0], door.path);
        assert.equal('models' in (received?.body as object), false, 'the upstream never sees the list');
      }
    });

    test('each unusable entry is a 400 naming it, through the body and the header', async () => {
      for (const [entry, reason] of UNRESOLVABLE) {
        await nothingSent(async () => {
          const { response, error } = await post(door, { models: ['gpt-5.4', entry] });
          assert.equal(response.statusCode, 400, response.body);
          assert.equal(error?.code, 'invalid_request');
          const message = String(error?.message);
          assert.ok(message.startsWith(`Fallback model '${entry}' ('models[1]') cannot be used: `), message);
          assert.match(message, reason);
          // The Anthropic envelope has no `param`; the message names the entry there.
          if (door.name !== 'messages') assert.equal(error?.param, 'models[1]');
        });
        await nothingSent(async () => {
          const { response, error } = await post(door, {}, { 'x-gateway-fallbacks': `gpt-5.4, ${entry}` });
          assert.equal(response.statusCode, 400, response.body);
          const message = String(error?.message);
          assert.ok(message.startsWith(`Fallback model '${entry}' (X-Gateway-Fallbacks entry 2) `), message);
          assert.match(message, reason);
          if (door.name !== 'messages') assert.equal(error?.param, 'X-Gateway-Fallbacks');
        });
      }
    });

    test('malformed entries and lists are 400s naming the entry, through the body and the header', async () => {
      for (const [models, param, message] of MALFORMED) {
        await nothingSent(async () => {
          const { response, error } = await post(door, { models });
          assert.equal(response.statusCode, 400, response.body);
          assert.equal(error?.code, 'invalid_request');
          assert.equal(error?.message, message);
          if (door.name !== 'messages') assert.equal(error?.param, param);
        });
      }
      // A number is coerced to its text, which names no model.
      await nothingSent(async () => {
        const { response, error } = await post(door, { models: ['gpt-5.4', 42] });
        assert.equal(response.statusCode, 400, response.body);
        assert.match(
          String(error?.message),
          /^Fallback model '42' \('models\[1\]'\) cannot be used: The model '42'/,
        );
      });
      const HEADERS: ReadonlyArray<readonly [string, string]> = [
        ['gpt-5.4,,claude-haiku', 'X-Gateway-Fallbacks entry 2 is empty'],
        ['gpt-5.4, ', 'X-Gateway-Fallbacks entry 2 is empty'],
        [`gpt-5.4, ${'x'.repeat(257)}`, 'X-Gateway-Fallbacks entry 2 is longer than 256 characters.'],
        [Array.from({ length: 6 }, () => 'gpt-5.4').join(', '), 'X-Gateway-Fallbacks lists 6 models'],
      ];
      for (const [value, start] of HEADERS) {
        await nothingSent(async () => {
          const { response, error } = await post(door, {}, { 'x-gateway-fallbacks': value });
          assert.equal(response.statusCode, 400, response.body);
          assert.ok(String(error?.message).startsWith(start), String(error?.message));
          if (door.name !== 'messages') assert.equal(error?.param, 'X-Gateway-Fallbacks');
        });
      }
    });

    test('the body wins over the header, which is reported; repeats of an attempt are dropped and reported', async () => {
      const { response } = await post(
        door,
        { models: [door.model, 'gpt-5.4:high', 'gpt-5.4:high'] },
        { 'x-gateway-fallbacks': 'no-such-model' },
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(
        response.headers['x-gateway-ignored'],
        `x-gateway-fallbacks=no-such-model, fallbacks="${door.model}, gpt-5.4:high"`,
      );
    });

    test('the samples of docs/gateway/models-and-routing.md, "Fallback lists"', async () => {
      const { response } = await post(door, { model: 'gpt-5.4', models: ['gpt-5.4-2026-03-05'] });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['x-gateway-ignored'], 'fallbacks=gpt-5.4-2026-03-05');
      const overridden = await post(
        door,
        { models: ['gpt-5.4'] },
        { 'x-gateway-fallbacks': 'gemini-flash, claude-haiku' },
      );
      assert.equal(overridden.response.statusCode, 200, overridden.response.body);
      assert.equal(
        overridden.response.headers['x-gateway-ignored'],
        'x-gateway-fallbacks="gemini-flash, claude-haiku"',
      );
    });
  });
}
