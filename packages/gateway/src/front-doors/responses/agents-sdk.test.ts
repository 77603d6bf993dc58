/**
 * The OpenAI Agents SDK (`@openai/agents`) through a listening gateway on the embedded default:
 * an agent with one function tool runs to its final output, over the Responses API (the SDK's
 * default) and over Chat Completions, on a passthrough provider and on a translated one. The
 * simulator calls the tool the user names, so the final output can only hold the tool's
 * result if the SDK's whole loop (call -> execute -> tool output -> answer) went through the
 * gateway. Tracing is off: the SDK would otherwise export traces to its vendor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import { z } from 'zod';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
let baseURL: string;

before(async () => {
  t = await startChatApp();
  baseURL = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/v1`;
});
after(() => t.close());

const CASES = [
  { api: 'responses', model: 'gpt-5.4-mini@developer', path: '/openai/v1/responses' },
  { api: 'responses', model: 'claude-sonnet@developer', path: '/anthropic/v1/messages' },
  { api: 'chat', model: 'gpt-5.4-mini@cloud_c', path: '/azure/openai/v1/chat/completions' },
  { api: 'chat', model: 'gemini-2.5-flash@developer', path: ':generateContent' },
] as const;

describe('OpenAI Agents SDK through the gateway', () => {
  for (const c of CASES) {
    test(`${c.api} on ${c.model}: the agent calls its tool and answers from the result`, async () => {
      const calls: string[] = [];
      const listFiles = tool({
        name: 'list_files',
        description: 'Lists the files of a directory',
        parameters: z.object({ path: z.string() }),
        execute: async ({ path }) => {
          calls.push(path);
          return 'alpha.txt beta.md gamma.json';
        },
      });
      const agent = new Agent({
        name: 'Files',
        instructions: 'You answer questions about files.',
        model: c.model,
        tools: [listFiles],
      });
      const provider = new OpenAIProvider({ apiKey: t.token, baseURL, useResponses: c.api === 'responses' });
      const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
      const received = t.sim.received.length;

      const result = await runner.run(agent, 'Call list_files for the src directory.', { maxTurns: 4 });

      assert.equal(calls.length, 1, 'the tool ran once');
      assert.match(String(result.finalOutput), /alpha\.txt/);
      const upstream = t.sim.received.slice(received);
      assert.equal(upstream.length, 2, 'one call that asked for the tool, one that answered');
      for (const entry of upstream) assert.ok(entry.path.includes(c.path), entry.path);
    });
  }
});
