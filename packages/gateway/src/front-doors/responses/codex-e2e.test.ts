/**
 * The real Codex CLI (`@openai/codex`, pinned in the root package.json; its binary ships in an
 * npm package, no install script) against a listening gateway with the bundled simulated
 * upstreams, offline: `codex exec` with a custom model provider whose base_url is the gateway
 * completes a turn that needs one tool call (the simulator's scripted tool turn asks for Codex's
 * `exec_command` tool to list a temporary directory, then quotes what the tool printed), on
 * developer (OpenAI Responses) and cloud_c (Azure v1 Responses). Each run checks that the tool
 * really ran (its output reached the upstream), that Codex's answer names the files, and that the
 * ledger holds one row per upstream call with the usage the upstream reported, which is also what
 * Codex was told.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ReceivedRequest } from '@app/upstream-simulator';
import { type ChatTestApp, startChatApp, type UsageRow } from '../chat-completions/testing.ts';

const ROOT = join(import.meta.dirname, '../../../../..');
const CODEX = join(ROOT, 'node_modules/.bin/codex');
const FILES = ['alpha.txt', 'beta.md', 'gamma.json'];

/** Why the CLI cannot run here, if it cannot: absent, or its native binary not installed. */
function cliMissing(): string | undefined {
  if (!existsSync(CODEX)) return 'the Codex CLI is not installed (npm ci installs @openai/codex)';
  const version = spawnSync(CODEX, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status !== 0)
    return `codex --version failed (is its platform package installed?): ${version.stderr.trim().slice(0, 200)}`;
  return undefined;
}

/** A port nothing listens on: Codex's calls to any other host fail at once through it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The configuration of docs/gateway/coding-agents.md, with retries off so a failure is one. */
function configToml(model: string, baseUrl: string): string {
  return `model = "${model}"
model_provider = "gateway"
check_for_update_on_startup = false
web_search = "disabled"

[analytics]
enabled = false

[features]
plugins = false

[model_providers.gateway]
name = "gateway"
base_url = "${baseUrl}"
env_key = "GATEWAY_TOKEN"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`;
}

interface Run {
  readonly code: number | null;
  readonly events: ReadonlyArray<{
    type?: string;
    item?: { type?: string; text?: string };
    usage?: Record<string, number>;
  }>;
  readonly output: string;
}

/** `codex exec` is asynchronous here: the gateway it calls runs in this very process. */
async function runCodex(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn(CODEX, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const events = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Run['events'][number]);
  return { code, events, output: stdout + stderr };
}

/** The text of every function_call_output in an upstream Responses request. */
function toolOutputs(body: unknown): string[] {
  const input = (body as { input?: unknown }).input;
  return (Array.isArray(input) ? input : []).flatMap((item: { type?: string; output?: unknown }) => {
    if (item.type !== 'function_call_output') return [];
    if (typeof item.output === 'string') return [item.output];
    const parts = Array.isArray(item.output) ? (item.output as Array<{ text?: unknown }>) : [];
    return [parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('')];
  });
}

const missing = cliMissing();

describe('Codex CLI 0.169 through the Responses front door', { skip: missing }, () => {
  let t: ChatTestApp;
  let url: string;
  let base: string;
  let project: string;
  let proxy: string;
  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'codex-e2e-'));
    project = join(base, 'project');
    mkdirSync(project);
    for (const name of FILES) writeFileSync(join(project, name), `${name}\n`);
    t = await startChatApp({
      behaviour: { toolTurn: { name: 'exec_command', input: { cmd: `ls ${project}` } } },
    });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    proxy = `http://127.0.0.1:${await closedPort()}`;
  });
  after(async () => {
    await t.close();
    rmSync(base, { recursive: true, force: true });
  });

  const CASES = [
    { provider: 'developer', path: '/openai/v1/responses' },
    { provider: 'cloud_c', path: '/azure/openai/v1/responses' },
  ] as const;

  for (const c of CASES) {
    test(`codex exec on gpt-5.4@${c.provider}: one tool call, the files named, usage as reported`, async () => {
      const seen = t.sim.received.length;
      const rowsBefore = (await t.settledUsage(0)).length;
      const home = mkdtempSync(join(base, 'home-'));
      writeFileSync(join(home, 'config.toml'), configToml(`gpt-5.4@${c.provider}`, `${url}/v1`));
      const last = join(home, 'last.txt');
      const run = await runCodex(
        [
          'exec',
          '--strict-config',
          '--skip-git-repo-check',
          '--ephemeral',
          '--color',
          'never',
          '--sandbox',
          'read-only',
          '-C',
          project,
          '--json',
          '-o',
          last,
          'List the files in this directory.',
        ],
        {
          PATH: process.env.PATH,
          HOME: home,
          CODEX_HOME: home,
          GATEWAY_TOKEN: t.token,
          HTTPS_PROXY: proxy,
          HTTP_PROXY: proxy,
          ALL_PROXY: proxy,
          NO_PROXY: '127.0.0.1,localhost',
        },
      );

      assert.equal(run.code, 0, run.output.slice(-2000));
      const answer = readFileSync(last, 'utf8').trim();
      assert.match(answer, /^The tool returned: /, run.output.slice(-2000));
      assert.match(
        answer,
        new RegExp(`${FILES.join(' ').replaceAll('.', '\\.')}$`),
        'the files, as ls printed them',
      );
      assert.ok(
        run.events.some((event) => event.item?.type === 'command_execution'),
        'Codex ran the command itself',
      );

      const calls: ReceivedRequest[] = t.sim.received.slice(seen);
      assert.equal(calls.length, 2, 'the tool call, then the answer');
      for (const call of calls) assert.equal(call.path.split('?')[0], c.path);
      const output = calls.flatMap((call) => toolOutputs(call.body)).at(-1) ?? '';
      assert.match(
        output,
        new RegExp(FILES.join('\\n').replaceAll('.', '\\.')),
        'the tool output reached the upstream',
      );

      const rows: UsageRow[] = (await t.settledUsage(rowsBefore + calls.length)).slice(rowsBefore);
      assert.equal(rows.length, calls.length, 'one ledger row per upstream call');
      for (const [i, row] of rows.entries()) {
        const reported = calls[i]?.usage;
        assert.ok(reported);
        assert.deepEqual(
          [row.provider, row.model, row.status, row.prompt_tokens, row.completion_tokens],
          [c.provider, 'gpt-5.4-2026-03-05', 'ok', reported.prompt_tokens, reported.completion_tokens],
        );
        assert.ok(row.cost_micros > 0);
      }
      const told = run.events.find((event) => event.type === 'turn.completed')?.usage ?? {};
      assert.deepEqual(
        [told.input_tokens, told.output_tokens],
        [
          rows.reduce((sum, row) => sum + row.prompt_tokens, 0),
          rows.reduce((sum, row) => sum + row.completion_tokens, 0),
        ],
        'Codex was told the usage the ledger holds',
      );
    });
  }
});
