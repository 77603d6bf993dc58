/**
 * Agent sessions through HTTP: the session id coding agents send is recorded (request log line,
 * usage ledger) and keeps the session on one provider while it serves, beside the user's own
 * sticky choice. `developer`'s OpenAI endpoint is a local server a test can make fail; `cloud_c`
 * (simulated) serves the same models. docs/gateway/models-and-routing.md, "Stickiness".
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test, type TestContext } from 'node:test';
import {
  type ChatTestApp,
  chatCompletionBody,
  localUpstream,
  startChatApp,
} from '../front-doors/chat-completions/testing.ts';
import { MAX_SESSION_CHARS } from './session.ts';

type Line = Record<string, unknown>;

interface SessionGateway {
  readonly chat: ChatTestApp;
  /** Makes `developer` answer 503 from now on (true) or serve again (false). */
  failing(value: boolean): void;
  /** The completion log line of a response. */
  line(response: { headers: Record<string, unknown> }): Promise<Line>;
}

async function sessionGateway(
  t: TestContext,
  routing: Record<string, unknown> = {},
): Promise<SessionGateway> {
  let failing = false;
  const url = await localUpstream(t, (request, response) => {
    request.resume();
    request.on('end', () => {
      if (failing)
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}');
      else
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(chatCompletionBody({ prompt_tokens: 10, completion_tokens: 5 }));
    });
  });
  const lines: Line[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const text of chunk.toString().split('\n')) if (text) lines.push(JSON.parse(text) as Line);
  });
  const chat = await startChatApp({
    // The most budget on developer: every fresh choice goes there first.
    allocations: { developer: 1_000, cloud_c: 100 },
    logStream: stream,
    routing,
    editUpstreams: (file) => {
      const developer = file.providers.developer;
      if (developer) developer.vendors.openai = { adapter: 'openai-compatible', baseUrl: url };
    },
  });
  t.after(() => chat.close());
  return {
    chat,
    failing: (value) => void (failing = value),
    async line(response) {
      const id = response.headers['x-request-id'];
      for (let i = 0; i < 200; i++) {
        const found = lines.find((line) => line.reqId === id && line.msg === 'request completed');
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no log line for ${String(id)}`);
    },
  };
}

function post(chat: ChatTestApp, headers: Record<string, string | string[]> = {}, model = 'gpt-5.4') {
  return chat.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { ...chat.headers({ 'content-type': 'application/json' }), ...headers },
    payload: { model, messages: [{ role: 'user', content: 'Hello' }] },
  });
}

function providerOf(response: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  assert.equal(response.statusCode, 200, response.body);
  return /provider=(\w+)/.exec(String(response.headers['x-gateway-applied']))?.[1];
}

const SESSION_A = { 'x-claude-code-session-id': '0e5f6a1c-7b2d-4e8f-9a3b-1c2d3e4f5a6b' };
const SESSION_B = { 'session-id': '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a' };

describe('a session stays on its provider', () => {
  test('two sessions of one user on different providers, each staying put', async (t) => {
    const { chat, failing, line } = await sessionGateway(t);
    assert.equal(providerOf(await post(chat, SESSION_B)), 'developer', 'B starts on the fresh choice');
    failing(true);
    const moved = await post(chat, SESSION_A);
    assert.equal(providerOf(moved), 'cloud_c', 'A failed over');
    failing(false);
    // developer serves again: A stays where it moved, B where it was.
    for (let i = 0; i < 3; i++) {
      assert.equal(providerOf(await post(chat, SESSION_A)), 'cloud_c', 'A stays on cloud_c');
      assert.equal(providerOf(await post(chat, SESSION_B)), 'developer', 'B stays on developer');
    }
    // The failover moved the user's own choice too: requests without a session and new
    // sessions start there.
    assert.equal(providerOf(await post(chat)), 'cloud_c');
    assert.equal(providerOf(await post(chat, { 'x-claude-code-session-id': 'new-session' })), 'cloud_c');

    const logged = await line(moved);
    assert.equal(logged.session, SESSION_A['x-claude-code-session-id']);
    assert.deepEqual(logged.attempts, ['developer:server', 'cloud_c:ok']);
    assert.equal((await line(await post(chat))).session, undefined, 'no session, no field');
    const rows = await chat.settledUsage(12);
    assert.deepEqual(
      rows.slice(0, 3).map((row) => [row.provider, row.status, row.session_id]),
      [
        ['developer', 'ok', SESSION_B['session-id']],
        ['developer', 'error', SESSION_A['x-claude-code-session-id']],
        ['cloud_c', 'ok', SESSION_A['x-claude-code-session-id']],
      ],
      'the failed attempt carries the session too',
    );
    assert.equal(rows.at(-1)?.session_id, null);
  });

  test('a session whose provider is taken out of service moves, and stays on its new provider', async (t) => {
    const { chat, failing } = await sessionGateway(t, { breakerFailures: 2, breakerCooldownMs: 300 });
    assert.equal(providerOf(await post(chat, SESSION_A)), 'developer');
    assert.equal(providerOf(await post(chat, SESSION_B)), 'developer');
    failing(true);
    // Requests for developer alone fail until its circuit opens.
    for (let i = 0; i < 2; i++) assert.equal((await post(chat, {}, 'gpt-5.4@developer')).statusCode, 503);
    failing(false);
    assert.equal(providerOf(await post(chat, SESSION_B)), 'cloud_c', 'circuit open: B moves');
    assert.equal(providerOf(await post(chat, SESSION_A)), 'cloud_c', 'circuit open: A moves');
    await new Promise((resolve) => setTimeout(resolve, 350));
    assert.equal(providerOf(await post(chat, {}, 'gpt-5.4@developer')), 'developer', 'closed again');
    assert.equal(providerOf(await post(chat, SESSION_A)), 'cloud_c', 'A stays');
    assert.equal(providerOf(await post(chat, SESSION_B)), 'cloud_c', 'B stays');
  });
});

describe('session ids are client input', () => {
  const refused: [string, Record<string, string | string[]>][] = [
    ['too long', { 'x-claude-code-session-id': 'a'.repeat(MAX_SESSION_CHARS + 1) }],
    ['with a space', { 'session-id': 'one two' }],
    ['with a quote and a brace (allowed: printable)', { 'thread-id': '"}{' }],
    ['repeated', { 'session-id': ['one', 'two'] }],
    ['not ASCII', { 'x-claude-code-session-id': 'caf\u00e9' }],
  ];

  test('a bad value is refused: the request is served without a session, and says so', async (t) => {
    const { chat, line } = await sessionGateway(t);
    for (const [what, headers] of refused) {
      const response = await post(chat, headers);
      assert.equal(response.statusCode, 200, `${what}: ${response.body}`);
      const ignored = String(response.headers['x-gateway-ignored'] ?? '');
      const logged = await line(response);
      if (what.startsWith('with a quote')) {
        assert.equal(ignored, '', what);
        assert.equal(logged.session, '"}{', 'JSON-escaped in the line, never breaking it');
        continue;
      }
      const header = Object.keys(headers)[0];
      assert.equal(ignored, `session=${header}`, `${what}: named by its header, never echoed`);
      assert.equal(logged.session, undefined, what);
    }
    const rows = await chat.settledUsage(refused.length);
    assert.deepEqual(
      rows.map((row) => row.session_id),
      refused.map(([what]) => (what.startsWith('with a quote') ? '"}{' : null)),
    );
  });

  test('the longest accepted id is kept whole', async (t) => {
    const { chat, line } = await sessionGateway(t);
    const longest = `${'~'.repeat(MAX_SESSION_CHARS - 1)}!`;
    const response = await post(chat, { 'x-claude-code-session-id': longest });
    assert.equal((await line(response)).session, longest);
  });
});

describe("the coding agents' own headers", () => {
  test('Claude Code (Messages) and Codex (Responses) sessions are read from the headers they send', async (t) => {
    const { chat, line } = await sessionGateway(t);
    const claudeCode = await chat.app.inject({
      method: 'POST',
      url: '/v1/messages?beta=true',
      headers: chat.headers({
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219',
        'x-app': 'cli',
        'x-claude-code-session-id': 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      }),
      payload: { model: 'claude-haiku', max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.equal(claudeCode.statusCode, 200, claudeCode.body);
    assert.equal((await line(claudeCode)).session, 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f');
    // Codex sends session-id and thread-id (the same conversation) and a per-request id.
    const codex = await chat.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: chat.headers({
        originator: 'codex_exec',
        'session-id': '019a4b5c-codex-session',
        'thread-id': '019a4b5c-codex-thread',
        'x-client-request-id': '019a4b5c-codex-request',
      }),
      payload: { model: 'gpt-5.4@cloud_c', input: 'hi', stream: true, store: false },
    });
    assert.equal(codex.statusCode, 200, codex.body);
    assert.equal((await line(codex)).session, '019a4b5c-codex-session', 'session-id is preferred');
    const threadOnly = await chat.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: chat.headers({ originator: 'codex_exec', 'thread-id': '019a4b5c-codex-thread' }),
      payload: { model: 'gpt-5.4@cloud_c', input: 'hi', stream: true, store: false },
    });
    assert.equal((await line(threadOnly)).session, '019a4b5c-codex-thread');
    const rows = await chat.settledUsage(3);
    assert.deepEqual(
      rows.map((row) => row.session_id),
      ['c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f', '019a4b5c-codex-session', '019a4b5c-codex-thread'],
    );
  });
});
