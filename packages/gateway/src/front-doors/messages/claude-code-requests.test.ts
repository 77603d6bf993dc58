/**
 * The request Claude Code 2.1.330 sends (as recorded from the CLI, trimmed to what matters), on
 * every route it can take, without the CLI: its `system` turn between the others, adaptive
 * thinking with `display: "updates"`, context management, a deferred tool and its betas. The
 * end-to-end test (claude-code-e2e.test.ts) runs the CLI itself where it is installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

const BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24,thinking-display-updates-2026-08-18';
const ENVIRONMENT = '# Environment\nYou have been invoked in the following environment:\n - Platform: linux';

function claudeCodeBody(model: string): Record<string, unknown> {
  const schema = { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] };
  return {
    model,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'List the files in this directory.' }] },
      { role: 'system', content: [{ type: 'text', text: ENVIRONMENT }] },
    ],
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.330;' },
      { type: 'text', text: 'You are a Claude agent.', cache_control: { type: 'ephemeral' } },
    ],
    tools: [
      { name: 'Bash', description: 'Runs a command', input_schema: schema },
      { name: 'DeferredToolPlaceholder', description: 'Deferred', input_schema: schema, defer_loading: true },
    ],
    metadata: { user_id: JSON.stringify({ device_id: 'd', account_uuid: '', session_id: 's' }) },
    max_tokens: 32000,
    thinking: { type: 'adaptive', display: 'updates' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
    stream: true,
  };
}

describe("Claude Code's requests on every route", () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp();
  });
  after(() => t.close());

  const send = (model: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/messages?beta=true',
      headers: t.headers({ 'anthropic-version': '2023-06-01', 'anthropic-beta': BETAS, 'x-app': 'cli' }),
      payload: claudeCodeBody(model),
    });

  test('developer and cloud_b (Messages API): the system turn and every field reach the upstream as sent', async () => {
    for (const provider of ['developer', 'cloud_b']) {
      const response = await send(`claude-sonnet@${provider}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(response.body, /event: message_stop/);
      const sent = t.lastUpstreamBody();
      assert.deepEqual(sent.messages, claudeCodeBody('').messages, provider);
      assert.deepEqual(sent.thinking, { type: 'adaptive', display: 'updates' }, provider);
      assert.deepEqual(sent.context_management, claudeCodeBody('').context_management, provider);
    }
    assert.equal(t.sim.received.at(-2)?.headers['anthropic-beta'], BETAS, 'the betas reach Anthropic');
  });

  test('cloud_a (Bedrock) and another family: the system turn joins the system prompt', async () => {
    const bedrock = await send('claude-sonnet@cloud_a');
    assert.equal(bedrock.statusCode, 200, bedrock.body);
    const converse = t.lastUpstreamBody() as {
      system: Array<{ text?: string }>;
      messages: Array<{ role: string; content: Array<{ text?: string }> }>;
    };
    assert.equal(converse.system.at(-1)?.text, ENVIRONMENT);
    assert.deepEqual(
      converse.messages.map((message) => [message.role, message.content.map((block) => block.text)]),
      [['user', ['List the files in this directory.']]],
    );
    assert.match(String(bedrock.headers['x-gateway-ignored']), /anthropic-beta=/);

    const gpt = await send('gpt-5.4@developer');
    assert.equal(gpt.statusCode, 200, gpt.body);
    const chat = t.lastUpstreamBody() as { messages: Array<{ role: string; content: unknown }> };
    assert.deepEqual(
      chat.messages.map((message) => message.role),
      ['system', 'user'],
    );
    assert.match(JSON.stringify(chat.messages[0]?.content), /# Environment/);
  });
});
