/**
 * The completion line of a gateway request, captured from the real logger through HTTP: every
 * field an operator needs to answer "who asked for what, where did it go, what did it cost,
 * how long did it take", once per request, without prompt text or the token.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { type ChatTestApp, startChatApp } from './front-doors/chat-completions/testing.ts';

type Line = Record<string, unknown>;

const SECRET_PROMPT = 'the prompt text PROMPT-7f3a must never be logged';

describe('gateway request log line', () => {
  let chat: ChatTestApp;
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));

  before(async () => {
    chat = await startChatApp({ logStream: stream });
  });
  after(() => chat.close());

  /** The completion lines of one request id (waits for asynchronous log writes). */
  async function completionLines(requestId: string): Promise<Line[]> {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const found = lines
        .map((line) => JSON.parse(line) as Line)
        .filter((line) => line.reqId === requestId && line.msg === 'request completed');
      if (found.length > 0 || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async function post(body: Record<string, unknown>) {
    return chat.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: chat.headers({ 'content-type': 'application/json' }),
      payload: { messages: [{ role: 'user', content: SECRET_PROMPT }], ...body },
    });
  }

  for (const stream of [false, true]) {
    it(`a ${stream ? 'streamed' : 'JSON'} completion: one line with every field`, async () => {
      const response = await post({ model: 'gpt-5.4-mini:low', stream });
      assert.equal(response.statusCode, 200, response.body);
      const found = await completionLines(String(response.headers['x-request-id']));
      assert.equal(found.length, 1, 'exactly one completion line');
      const line = found[0] ?? {};
      const { principal } = chat;
      assert.equal(line.userId, principal.userId);
      assert.equal(line.project, principal.projectSlug);
      assert.equal(line.tokenId, principal.tokenId);
      assert.equal(line.model, 'gpt-5.4-mini:low');
      assert.match(String(line.servedModel), /^gpt-5\.4-mini/);
      assert.ok(['developer', 'cloud_a', 'cloud_b', 'cloud_c'].includes(String(line.provider)));
      assert.equal(line.effort, 'low');
      assert.equal(typeof line.tier, 'string');
      assert.equal(typeof line.compression, 'string');
      assert.equal(line.statusCode, 200);
      assert.equal(line.errorCode, undefined);
      for (const field of ['inputTokens', 'outputTokens', 'costMicros', 'upstreamMs', 'responseTime'])
        assert.equal(typeof line[field], 'number', `${field} in ${JSON.stringify(line)}`);
      assert.ok((line.outputTokens as number) > 0 && (line.costMicros as number) > 0);
      assert.ok((line.upstreamMs as number) <= (line.responseTime as number));
    });
  }

  it('a refused request carries the caller and the error code', async () => {
    const response = await post({ model: 'no-such-model' });
    assert.equal(response.statusCode, 404);
    const [line] = await completionLines(String(response.headers['x-request-id']));
    assert.ok(line);
    assert.equal(line.statusCode, 404);
    assert.equal(typeof line.errorCode, 'string');
    assert.equal(line.project, chat.principal.projectSlug);
    assert.equal(line.model, 'no-such-model');
    assert.equal(line.inputTokens, undefined, 'nothing was charged');
  });

  it('no line holds prompt text or the token', () => {
    const all = lines.join('\n');
    assert.ok(lines.length > 0);
    assert.ok(!all.includes('PROMPT-7f3a'), 'prompt text in the log');
    assert.ok(!all.includes(chat.token), 'token in the log');
    assert.ok(!all.includes(chat.token.split('.')[2] ?? 'unreachable'), 'token signature in the log');
  });
});
