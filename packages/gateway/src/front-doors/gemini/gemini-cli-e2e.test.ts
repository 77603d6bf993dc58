/**
 * The real Gemini CLI (`@google/gemini-cli`, pinned in the root package.json) against a listening
 * gateway with the bundled simulated upstreams, offline, through the Gemini front door
 * (`/v1beta/models/{model}:streamGenerateContent?alt=sse`): a text turn and a turn that needs one
 * tool call (the simulator's scripted tool turn asks for the CLI's `run_shell_command` to list a
 * directory outside the workspace, then quotes what the tool printed) on developer (Gemini API),
 * cloud_b (Vertex Gemini) and cloud_a (Claude on Bedrock, translated). Each run checks that every
 * request the CLI made went to the gateway and was answered, that the tool really ran (its output
 * reached the upstream and came back in the answer), that the turn stayed within its bounds, and
 * that the ledger holds one ok row per upstream call.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ReceivedRequest } from '@app/upstream-simulator';
import { type ChatTestApp, startChatApp, type UsageRow } from '../chat-completions/testing.ts';
import {
  geminiCliMissing,
  type GeminiCliRun,
  MAX_TURN_REQUESTS,
  runGeminiCli,
  TURN_TIMEOUT_MS,
} from './gemini-cli.ts';

/** Removed once the front door lands: until then every request gets a 404 and these fail. */
const FILES = ['alpha.txt', 'beta.md', 'gamma.json'];

const CASES = [
  {
    model: 'gemini-2.5-flash@developer',
    provider: 'developer',
    path: /^\/gemini\/v1beta\/models\/[^/]+:streamGenerateContent/,
  },
  {
    model: 'gemini-2.5-flash:high@cloud_b',
    provider: 'cloud_b',
    path: /\/publishers\/google\/models\/[^/]+:streamGenerateContent/,
  },
  { model: 'claude-sonnet@cloud_a', provider: 'cloud_a', path: /\/converse-stream$/ },
] as const;

/** Every request the CLI made went to the Gemini front door for this model and was answered. */
function assertThroughGateway(run: GeminiCliRun, model: string, started: number): void {
  assert.ok(Date.now() - started < TURN_TIMEOUT_MS, 'the turn finished in time');
  assert.ok(!run.timedOut, 'the CLI was not killed');
  assert.ok(run.requests.length >= 1, 'the CLI called the gateway');
  assert.ok(run.requests.length <= MAX_TURN_REQUESTS, `${run.requests.length} requests`);
  for (const request of run.requests) {
    assert.equal(request.url, `/v1beta/models/${model}:streamGenerateContent?alt=sse`);
    assert.equal(request.status, 200, `${request.method} ${request.url}`);
  }
}

/** The upstream calls since `seen`, each on the provider's API, with one ok ledger row apiece. */
async function upstreamCalls(
  t: ChatTestApp,
  seen: number,
  rowsBefore: number,
  c: (typeof CASES)[number],
): Promise<ReceivedRequest[]> {
  const calls: ReceivedRequest[] = t.sim.received.slice(seen);
  for (const call of calls) assert.match(call.path.split('?')[0] ?? '', c.path);
  const rows: UsageRow[] = (await t.settledUsage(rowsBefore + calls.length)).slice(rowsBefore);
  assert.equal(rows.length, calls.length, 'one ledger row per upstream call');
  for (const row of rows) assert.deepEqual([row.provider, row.status], [c.provider, 'ok']);
  return calls;
}

const missing = geminiCliMissing();

describe('Gemini CLI 0.61.0 through the Gemini front door', { skip: missing }, () => {
  let t: ChatTestApp;
  let url: string;
  let base: string;
  let project: string;
  let listed: string;
  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'gemini-cli-e2e-'));
    project = join(base, 'project');
    // Outside the workspace: the CLI lists its workspace in every prompt, so only the tool's
    // output can carry these names upstream.
    listed = join(base, 'listed');
    mkdirSync(project);
    mkdirSync(listed);
    for (const name of FILES) writeFileSync(join(listed, name), `${name}\n`);
    t = await startChatApp({
      behaviour: {
        toolTurn: {
          name: 'run_shell_command',
          input: { command: `ls ${listed}`, description: 'List the files' },
        },
      },
    });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await t.close();
    rmSync(base, { recursive: true, force: true });
  });

  for (const c of CASES) {
    test(`gemini -p on ${c.model}: a text turn, one upstream call`, async () => {
      const seen = t.sim.received.length;
      const rowsBefore = (await t.settledUsage(0)).length;
      const started = Date.now();
      // No allow list: headless, the CLI then does not offer its shell tool at all.
      const run = await runGeminiCli({
        baseUrl: url,
        token: t.token,
        model: c.model,
        prompt: 'Say hello',
        cwd: project,
      });

      assert.equal(run.code, 0, run.stderr.slice(-2000));
      assert.equal(run.result?.status, 'success', run.stdout.slice(-2000));
      assertThroughGateway(run, c.model, started);
      assert.equal(run.requests.length, 1);
      assert.match(run.answer, /^Simulated reply to /);
      const calls = await upstreamCalls(t, seen, rowsBefore, c);
      assert.equal(calls.length, 1);
    });

    test(`gemini -p on ${c.model}: one run_shell_command call, the files named`, async () => {
      const seen = t.sim.received.length;
      const rowsBefore = (await t.settledUsage(0)).length;
      const started = Date.now();
      const run = await runGeminiCli({
        ...{ baseUrl: url, token: t.token, model: c.model, cwd: project, allowedCommand: 'ls' },
        prompt: 'Run ls to list the files.',
      });

      assert.equal(run.code, 0, run.stderr.slice(-2000));
      assert.equal(run.result?.status, 'success', run.stdout.slice(-2000));
      assertThroughGateway(run, c.model, started);
      assert.deepEqual(
        run.events.filter((event) => event.type === 'tool_use').map((event) => event.parameters?.command),
        [`ls ${listed}`],
      );
      for (const name of FILES) assert.ok(run.answer.includes(name), `${name} in the answer: ${run.answer}`);
      const calls = await upstreamCalls(t, seen, rowsBefore, c);
      assert.ok(calls.length >= 2, `${calls.length} upstream calls`);
      const sent = (call: ReceivedRequest | undefined) => JSON.stringify(call?.body ?? '');
      assert.ok(
        !FILES.some((name) => sent(calls[0]).includes(name)),
        'the names are not in the first prompt',
      );
      for (const name of FILES)
        assert.ok(sent(calls.at(-1)).includes(name), `the tool output reached the upstream`);
    });
  }
});
