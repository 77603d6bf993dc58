/**
 * The real Claude Code CLI (`@anthropic-ai/claude-code`, pinned in the root package.json) against
 * a listening gateway with the bundled simulated upstreams, offline: `claude -p` completes a turn
 * that needs one tool call (the simulator's scripted tool turn asks for Claude Code's Bash tool
 * to list a temporary directory, then quotes what the tool printed) on developer (Anthropic),
 * cloud_a (Bedrock, translated) and cloud_b (Vertex). Each run checks that the tool really ran
 * (its output reached the upstream), that Claude Code's answer names the files, and that the
 * ledger holds one row per upstream call with the usage the upstream reported, at list price.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ReceivedRequest } from '@app/upstream-simulator';
import { type ChatTestApp, startChatApp, type UsageRow } from '../chat-completions/testing.ts';

const ROOT = join(import.meta.dirname, '../../../../..');
const CLAUDE = join(ROOT, 'node_modules/.bin/claude');
const FILES = ['alpha.txt', 'beta.md', 'gamma.json'];
/**
 * Claude Sonnet 4.6 on all three providers, per million tokens (micros per token): $3 in, $15 out;
 * prompt-cache writes (Claude Code marks its system prompt and tools) $3.75 for five minutes, $6
 * for an hour.
 */
const PRICE = { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6 };

/** Why the CLI cannot run here, if it cannot: absent, or its native binary not installed. */
function cliMissing(): string | undefined {
  if (!existsSync(CLAUDE))
    return 'the Claude Code CLI is not installed (npm ci installs @anthropic-ai/claude-code)';
  const version = spawnSync(CLAUDE, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status !== 0)
    return `claude --version failed (is its postinstall allowed?): ${version.stderr.trim().slice(0, 200)}`;
  return undefined;
}

/** A port nothing listens on: Claude Code's calls to any other host fail at once through it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Run {
  readonly code: number | null;
  /** The `result` event of `--output-format stream-json`. */
  readonly result: { result?: string; is_error?: boolean; usage?: Record<string, number> } | undefined;
  readonly output: string;
}

async function runClaude(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn(CLAUDE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 45_000 });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const events = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type?: string });
  return { code, result: events.find((event) => event.type === 'result') as Run['result'], output };
}

/** The text of every tool result in an upstream request, in Messages or in Converse form. */
function toolResults(body: unknown): string[] {
  const texts = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('')
        : '';
  const messages = (body as { messages?: Array<{ content?: unknown }> }).messages ?? [];
  return messages.flatMap((message) =>
    (Array.isArray(message.content) ? message.content : []).flatMap(
      (block: { type?: string; content?: unknown; toolResult?: { content?: unknown } }) =>
        block.type === 'tool_result'
          ? [texts(block.content)]
          : block.toolResult
            ? [texts(block.toolResult.content)]
            : [],
    ),
  );
}

/** One ok row per upstream call, with the usage that call reported, each meter at its list price. */
function assertLedger(rows: readonly UsageRow[], calls: readonly ReceivedRequest[], provider: string): void {
  assert.equal(rows.length, calls.length, 'one ledger row per upstream call');
  for (const [i, row] of rows.entries()) {
    const reported = calls[i]?.usage;
    assert.ok(reported, `upstream call ${i} reported usage`);
    assert.deepEqual([row.provider, row.model, row.status], [provider, 'claude-sonnet-4-6', 'ok']);
    assert.deepEqual(
      [row.prompt_tokens, row.completion_tokens],
      [reported.prompt_tokens, reported.completion_tokens],
    );
    const { fiveMinutes = 0, oneHour = 0 } = calls[i]?.cacheWrites ?? {};
    const stored = (typeof row.meters === 'string' ? JSON.parse(row.meters) : row.meters) as Record<
      string,
      number
    >;
    assert.deepEqual([stored.cache_write_5m ?? 0, stored.cache_write_1h ?? 0], [fiveMinutes, oneHour]);
    const uncached = row.prompt_tokens - fiveMinutes - oneHour;
    assert.equal(
      row.cost_micros,
      Math.ceil(
        uncached * PRICE.input +
          fiveMinutes * PRICE.cacheWrite5m +
          oneHour * PRICE.cacheWrite1h +
          row.completion_tokens * PRICE.output,
      ),
    );
  }
}

const missing = cliMissing();

describe('Claude Code 2.1.330 through the Messages front door', { skip: missing }, () => {
  let t: ChatTestApp;
  let url: string;
  let base: string;
  let project: string;
  let proxy: string;
  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'claude-code-e2e-'));
    project = join(base, 'project');
    mkdirSync(project);
    for (const name of FILES) writeFileSync(join(project, name), `${name}\n`);
    t = await startChatApp({
      behaviour: {
        toolTurn: { name: 'Bash', input: { command: `ls ${project}`, description: 'List the files' } },
      },
    });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    proxy = `http://127.0.0.1:${await closedPort()}`;
  });
  after(async () => {
    await t.close();
    rmSync(base, { recursive: true, force: true });
  });

  /** The environment of docs/gateway/coding-agents.md, with a private home and no other host. */
  function environment(
    provider: string,
    credential: Record<string, string>,
    home: string,
  ): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      // Claude Code keeps its tool output under $TMPDIR/claude-<uid>/.
      TMPDIR: home,
      ANTHROPIC_BASE_URL: url,
      ...credential,
      ANTHROPIC_MODEL: `claude-sonnet@${provider}`,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: `claude-haiku@${provider}`,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      HTTPS_PROXY: proxy,
      HTTP_PROXY: proxy,
      ALL_PROXY: proxy,
      NO_PROXY: '127.0.0.1,localhost',
    };
  }

  const CASES = [
    { provider: 'developer', credential: 'ANTHROPIC_AUTH_TOKEN', path: /^\/anthropic\/v1\/messages$/ },
    { provider: 'cloud_a', credential: 'ANTHROPIC_AUTH_TOKEN', path: /\/converse-stream$/ },
    { provider: 'cloud_b', credential: 'ANTHROPIC_AUTH_TOKEN', path: /:streamRawPredict$/ },
    { provider: 'developer', credential: 'ANTHROPIC_API_KEY', path: /^\/anthropic\/v1\/messages$/ },
  ] as const;

  for (const c of CASES) {
    test(`claude -p on claude-sonnet@${c.provider} (${c.credential}): one tool call, the files named, usage as reported`, async () => {
      const seen = t.sim.received.length;
      const rowsBefore = (await t.settledUsage(0)).length;
      const home = mkdtempSync(join(base, 'home-'));
      const args = ['-p', 'List the files in this directory.', '--max-turns', '4'];
      const flags = ['--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash(ls:*)'];
      const run = await runClaude(
        [...args, ...flags],
        project,
        environment(c.provider, { [c.credential]: t.token }, home),
      );

      assert.equal(run.code, 0, run.output.slice(-2000));
      assert.equal(run.result?.is_error, false, run.output.slice(-2000));
      assert.equal(run.result?.result, `The tool returned: ${FILES.join(' ')}`);

      const calls: ReceivedRequest[] = t.sim.received.slice(seen);
      assert.ok(calls.length >= 2, `${calls.length} upstream calls`);
      for (const call of calls) assert.match(call.path.split('?')[0] ?? '', c.path);
      assert.deepEqual(
        calls.flatMap((call) => toolResults(call.body)).at(-1),
        FILES.join('\n'),
        'the Bash tool ran and its output reached the upstream',
      );
      const rows: UsageRow[] = (await t.settledUsage(rowsBefore + calls.length)).slice(rowsBefore);
      assertLedger(rows, calls, c.provider);
      const told = run.result?.usage ?? {};
      // Anthropic's input_tokens leaves out the cache reads and writes (Claude Code marks its prompt).
      const toldPrompt =
        (told.input_tokens ?? 0) +
        (told.cache_creation_input_tokens ?? 0) +
        (told.cache_read_input_tokens ?? 0);
      assert.deepEqual(
        [toldPrompt, told.output_tokens],
        [
          rows.reduce((sum, row) => sum + row.prompt_tokens, 0),
          rows.reduce((sum, row) => sum + row.completion_tokens, 0),
        ],
        'Claude Code was told the usage the ledger holds',
      );
    });
  }
});
