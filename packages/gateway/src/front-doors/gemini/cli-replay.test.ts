/**
 * The two requests Gemini CLI 0.61 sent for a tool turn (recorded from the unmodified client,
 * fixtures/gemini-cli-tool-turn.json), replayed through the gateway as sent: on the Gemini model
 * they name (cloud_b, forwarded as sent, the name's effort applied) and on a Claude model
 * (translated: the CLI's own tool names and call ids reach the upstream).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

interface Recorded {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: { contents: unknown; tools: unknown; systemInstruction: unknown; generationConfig: unknown };
}

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/gemini-cli-tool-turn.json', import.meta.url), 'utf8'),
) as { requests: Recorded[] };

let t: ChatTestApp;
before(async () => {
  t = await startChatApp();
});
after(() => t.close());

function replay(recorded: Recorded, url = recorded.url) {
  const {
    host: _host,
    'content-length': _length,
    'accept-encoding': _encoding,
    ...headers
  } = recorded.headers;
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...headers, 'x-goog-api-key': t.token },
    payload: recorded.body,
  });
}

function events(body: string): Array<{ candidates?: Array<{ finishReason?: string }> }> {
  return body
    .split(/\r?\n\r?\n/)
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as { candidates?: Array<{ finishReason?: string }> });
}

describe('Gemini CLI 0.61 tool turn, replayed', () => {
  it('both requests stream an answer on the model the CLI named, forwarded as sent', async () => {
    for (const recorded of fixture.requests) {
      assert.match(recorded.url, /gemini-2\.5-flash:high@cloud_b:streamGenerateContent\?alt=sse$/);
      const response = await replay(recorded);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['x-gateway-applied']), /provider=cloud_b/);
      assert.match(String(response.headers['x-gateway-applied']), /effort=high/);
      const chunks = events(response.body);
      assert.ok(chunks.some((chunk) => chunk.candidates?.[0]?.finishReason === 'STOP'));
      const upstream = t.lastUpstreamBody();
      for (const field of ['contents', 'tools', 'systemInstruction'] as const)
        assert.deepEqual(upstream[field], recorded.body[field], field);
      const config = upstream.generationConfig as { thinkingConfig?: Record<string, unknown> };
      assert.equal(config.thinkingConfig?.includeThoughts, true, "the client's includeThoughts stays");
    }
  });

  it("the turn completes: the CLI's shell tool is called, then its output is answered", async () => {
    const [first, second] = fixture.requests;
    assert.ok(first && second);
    const call = await replay(first);
    assert.match(call.body, /"functionCall":\{"name":"run_shell_command"/);
    const answer = events((await replay(second)).body)
      .map((chunk) => JSON.stringify(chunk))
      .join('');
    assert.match(answer, /The tool returned:/);
    assert.match(answer, /a\.txt/, 'the tool output came back');
  });

  it("on a Claude model the CLI's call id and tool name reach the upstream unchanged", async () => {
    const second = fixture.requests[1];
    assert.ok(second);
    const response = await replay(
      second,
      '/v1beta/models/claude-sonnet:high@developer:streamGenerateContent?alt=sse',
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(events(response.body).length > 0);
    const upstream = JSON.stringify(t.lastUpstreamBody());
    assert.ok(upstream.includes('"run_shell_command_1795867749231_0"'), 'the call id, byte for byte');
    assert.ok(upstream.includes('"name":"run_shell_command"'), 'the tool name');
  });
});
