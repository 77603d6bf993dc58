/**
 * Every front door's answers against copies of the official API schemas (./schemas, from
 * extract-schemas.ts; each records its source and commit): through HTTP, for every provider
 * family (translated and passed through), the JSON answer and every stream event of a text turn
 * and of a tool-call turn, and the error envelopes: 400, 401, 404 (unknown model), 429 (the
 * provider's, and the gateway's own limit) and a provider failing after the stream started.
 * Rules across events that a schema cannot state (numbering, one response id, event names) are
 * checked too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setRateLimits } from '../../access/admin.ts';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';
import { DOORS, type Door, FAMILIES, gemini, invalidBody, parseSse, type Turn } from './testing.ts';
import { check, schemaFile } from './validator.ts';

type Json = Record<string, unknown>;

const INSTANT = { firstTokenDelayMs: 0, tokenDelayMs: 0, replyTokens: 6 };
let ok: ChatTestApp;
let failing: ChatTestApp;
let throttled: ChatTestApp;

before(async () => {
  [ok, failing, throttled] = await Promise.all([
    startChatApp({ behaviour: INSTANT }),
    startChatApp({ behaviour: { ...INSTANT, failAfterTokens: 2 } }),
    // A Retry-After beyond the gateway's longest wait goes to the client at once, unretried.
    startChatApp({ behaviour: { ...INSTANT, failStatus: 429, retryAfter: '7' } }),
  ]);
});
after(() => Promise.all([ok.close(), failing.close(), throttled.close()]));

/** Asks `door` of the gateway for `model`'s answer (streamed or not) to `payload`. */
async function send(
  app: ChatTestApp,
  door: Door,
  [model, payload, stream]: readonly [string, Json, boolean],
  headers?: Record<string, string>,
) {
  const response = await app.app.inject({
    method: 'POST',
    url: door.path(model, stream),
    headers: headers ?? app.headers(),
    payload,
  });
  return { status: response.statusCode, body: response.body };
}

/** `send`'s request for a turn: the model, the door's body, whether streamed. */
function ask(door: Door, model: string, turn: Turn, stream: boolean): readonly [string, Json, boolean] {
  return [model, door.body(model, turn, stream), stream];
}

/**
 * Fields the gateway adds to a vendor's answers on purpose, unknown to that vendor's closed
 * schema: each is checked to be a number, then removed before the schema check, so the rest of
 * the object is still held to the schema field by field. Gemini's messages are closed (proto):
 * `usageMetadata.cost` is the request's cost in US dollars (docs/gateway/gemini-api.md).
 */
const GATEWAY_EXTENSIONS: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  gemini: [['usageMetadata', 'cost']],
};

function withoutExtensions(vendor: string, value: unknown): unknown {
  let out = value;
  for (const [parent, field] of GATEWAY_EXTENSIONS[vendor] ?? []) {
    const inner = (out as Json | null)?.[parent] as Json | undefined;
    if (typeof inner !== 'object' || inner === null || !(field in inner)) continue;
    assert.equal(typeof inner[field], 'number', `${parent}.${field} is not a number`);
    const { [field]: _extension, ...rest } = inner;
    out = { ...(out as Json), [parent]: rest };
  }
  return out;
}

/** Fails with every schema error, naming what was checked. */
function conforms(door: Door, root: string, value: unknown, what: string): void {
  const errors = check(door.vendor, root, withoutExtensions(door.vendor, value));
  assert.deepEqual(errors, [], `${what} does not match ${door.vendor} ${root}: ${JSON.stringify(value)}`);
}

/** Checks every event of a stream and the rules across them; gives the events. */
function streamConforms(door: Door, body: string, what: string): ReturnType<typeof parseSse> {
  const events = parseSse(body);
  assert.ok(events.length > 0, `${what}: no events in ${body}`);
  for (const [index, event] of events.entries()) {
    const root = door.eventRoot(event);
    if (root) conforms(door, root, event.data, `${what} event ${index} (${event.name ?? 'data'})`);
  }
  assert.deepEqual(door.streamRules(events), [], `${what}: ${body}`);
  return events;
}

for (const door of DOORS) {
  describe(`${door.name}: answers`, () => {
    for (const { family, model } of FAMILIES) {
      for (const turn of ['text', 'tool'] as const satisfies readonly Turn[]) {
        test(`${family}, ${turn} turn: the JSON answer${door.streams ? ' and every stream event' : ''}`, async () => {
          const json = await send(ok, door, ask(door, model, turn, false));
          assert.equal(json.status, 200, json.body);
          const answer = JSON.parse(json.body) as Json;
          conforms(door, door.answer, answer, 'the answer');
          if (turn === 'tool') assert.ok(door.calledTool(answer), `no tool call in ${json.body}`);
          if (!door.streams) return;
          const stream = await send(ok, door, ask(door, model, turn, true));
          assert.equal(stream.status, 200, stream.body);
          streamConforms(door, stream.body, 'the stream');
        });
      }
    }
  });

  describe(`${door.name}: error envelopes`, () => {
    test('400 for an invalid body, 401 for a bad token, 404 for an unknown model', async () => {
      const cases = [
        [400, await send(ok, door, ['gpt-5.4-mini', invalidBody(door), false])],
        [
          401,
          await send(ok, door, ask(door, 'gpt-5.4-mini', 'text', false), { authorization: 'Bearer nope' }),
        ],
        [404, await send(ok, door, ask(door, 'no-such-model', 'text', false))],
      ] as const;
      for (const [expected, answer] of cases) {
        assert.equal(answer.status, expected, answer.body);
        conforms(door, door.error, JSON.parse(answer.body), `the ${expected} envelope`);
      }
    });

    for (const { family, model } of door.metered ? FAMILIES : []) {
      test(`${family}: a provider's 429${door.streams ? ', and a failure after the stream started' : ''}`, async () => {
        const refused = await send(throttled, door, ask(door, model, 'text', false));
        assert.equal(refused.status, 429, refused.body);
        conforms(door, door.error, JSON.parse(refused.body), 'the 429 envelope');
        if (!door.streams) return;
        const broken = await send(failing, door, ask(door, model, 'text', true));
        assert.equal(broken.status, 200, broken.body);
        const events = streamConforms(door, broken.body, 'the failed stream');
        assert.ok(
          events.some(
            (event) => door.eventRoot(event) === door.error || event.data.type === 'response.failed',
          ),
          `no error event in ${broken.body}`,
        );
      });
    }
  });
}

describe('the Gemini API as the simulator speaks it: the schema a Gemini front door will be held to', () => {
  const door = gemini('/gemini/v1beta');
  const model = 'gemini-3.5-flash';
  async function direct(app: ChatTestApp, turn: Turn, stream: boolean) {
    const response = await fetch(`${app.sim.url}${door.path(model, stream)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-goog-api-key': app.sim.credentialEnv.SIM_GEMINI_API_KEY ?? '',
      },
      body: JSON.stringify(door.body(model, turn, stream)),
    });
    return { status: response.status, body: await response.text() };
  }

  for (const turn of ['text', 'tool'] as const) {
    test(`${turn} turn: the JSON answer and every stream chunk`, async () => {
      const json = await direct(ok, turn, false);
      assert.equal(json.status, 200, json.body);
      const answer = JSON.parse(json.body) as Json;
      conforms(door, door.answer, answer, 'the answer');
      if (turn === 'tool') assert.ok(door.calledTool(answer), `no function call in ${json.body}`);
      streamConforms(door, (await direct(ok, turn, true)).body, 'the stream');
    });
  }

  test("a 429, and a failure after the stream started, in Google's error envelope", async () => {
    const refused = await direct(throttled, 'text', false);
    assert.equal(refused.status, 429, refused.body);
    conforms(door, door.error, JSON.parse(refused.body), 'the 429 envelope');
    const events = streamConforms(door, (await direct(failing, 'text', true)).body, 'the failed stream');
    assert.ok(
      events.some((event) => 'error' in event.data),
      'an error chunk ends it',
    );
  });
});

test("429 from the gateway's own rate limit, in every door's envelope", async (ctx) => {
  const gw = await startChatApp({ behaviour: INSTANT });
  ctx.after(() => gw.close());
  await setRateLimits(gw.database.db, { slug: 'apollo', scope: 'project', change: { requestsPerMinute: 1 } });
  await new Promise((resolve) => setTimeout(resolve, 1_050));
  const first = await send(gw, DOORS[0] as Door, ask(DOORS[0] as Door, 'gpt-5.4-mini', 'text', false));
  assert.equal(first.status, 200, first.body);
  for (const door of DOORS.filter((each) => each.metered)) {
    const refused = await send(gw, door, ask(door, 'gpt-5.4-mini', 'text', false));
    assert.equal(refused.status, 429, `${door.name}: ${refused.body}`);
    conforms(door, door.error, JSON.parse(refused.body), `${door.name}: the 429 envelope`);
  }
});

test('each vendored schema file records its source and commit', () => {
  for (const vendor of new Set([...DOORS.map((door) => door.vendor), 'gemini'])) {
    const { source, roots } = schemaFile(vendor);
    assert.match(String(source.repo), /^[\w.-]+\/[\w.-]+$/);
    assert.match(String(source.commit), /^[0-9a-f]{40}$/);
    assert.ok(String(source.path).length > 0);
    for (const door of [...DOORS, gemini('')].filter((each) => each.vendor === vendor))
      assert.ok(
        roots.includes(door.answer) && roots.includes(door.error),
        `${door.name}'s roots are extracted`,
      );
  }
});
