/**
 * Every example of README.md and docs/ runs against the embedded default, as a reader would run
 * it: shell and console blocks in bash (curl included, with a real token; a console block's
 * `HTTP/1.1 NNN` line is the status it must get), TypeScript blocks with the project's Node,
 * JSON blocks parsed, and every model name mentioned sent as a chat call, or an embeddings call
 * for an embedding model (a name the text says is an error, `... is a 400`, must get that status). Variables a page's shell block exports
 * carry to its later blocks, as in a reader's terminal. A coding agent's commands (`claude`,
 * `codex`, `gemini`; docs-agents.ts) run as shown on each provider the agent works on, held to a
 * request and time budget. A block that cannot run carries
 * `<!-- docs-examples: skip (reason) -->` on the line before it; that stays rare.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCatalog } from '../packages/gateway/src/routing/catalog.ts';
import { isRetired } from '../packages/gateway/src/routing/catalog-lifecycle.ts';
import { DEFAULT_CATALOG_PATH, readJsonFile } from '../packages/gateway/src/routing/index.ts';
import { REASONING_TOKENS } from '../packages/upstream-simulator/src/reply.ts';
import { DEFAULT_REPLY_TOKENS } from '../packages/upstream-simulator/src/respond.ts';
import { type Agent, agentOf, answeredRequests, PROJECT_FILES, sandbox } from './docs-agents.ts';
import { type Block, blocksOf, docFiles, type Mention, modelMentions, ROOT } from './docs-examples.ts';
import { type EmbeddedDefault, startEmbeddedDefault } from './embedded-default.ts';

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const EXECUTED = new Set([...SHELL, 'ts', 'js', 'json']);
const blocks = docFiles().flatMap(blocksOf);
const curlAvailable = spawnSync('curl', ['--version']).status === 0;

/** curl as the docs write it, with each answer's status appended to $DOCS_STATUS_FILE. */
const PRELUDE = `
curl() {
  local body status
  body=$(mktemp)
  status=$(command curl --silent --show-error --output "$body" --write-out '%{http_code}' "$@") || { cat "$body"; rm -f "$body"; return 1; }
  cat "$body"; rm -f "$body"
  echo "$status" >> "$DOCS_STATUS_FILE"
}
`;

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly statuses: number[];
  /** What the script exported (variables it set or changed). */
  readonly exported: Record<string, string>;
}

/** A port nothing listens on: an agent's calls to any host but the gateway fail at once through it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function changed(before: NodeJS.ProcessEnv, dump: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of dump.split('\0')) {
    const [name = '', value = ''] = entry.split(/=(.*)/s);
    if (/^\w+$/.test(name) && !name.startsWith('DOCS_') && before[name] !== value) out[name] = value;
  }
  return out;
}

describe('every example of the docs works against the embedded default', () => {
  let running: EmbeddedDefault;
  let dir: string;
  let gatewayToken: string;
  let closedProxy: string;
  /** Per doc, what its shell blocks exported so far: a reader runs a page's blocks in one shell. */
  const sessions = new Map<string, Record<string, string>>();
  before(async () => {
    running = await startEmbeddedDefault();
    gatewayToken = running.gatewayToken();
    dir = mkdtempSync(join(tmpdir(), 'docs-examples-'));
    closedProxy = `http://127.0.0.1:${await closedPort()}`;
  });
  after(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The docs' local URLs, pointed at the running services. A `{base_url}` placeholder is left as
   * it is, so a command that shows one fails here as it would for a reader who pastes it.
   */
  const localise = (text: string) =>
    text
      .replaceAll('http://127.0.0.1:8080', running.gatewayUrl)
      .replaceAll('http://127.0.0.1:8081', running.energyUrl)
      .replace(/http:\/\/127\.0\.0\.1:18642/g, running.energyUrl);

  let runs = 0;
  function bash(script: string, env: NodeJS.ProcessEnv, where = { cwd: ROOT, timeout: 60_000 }): Outcome {
    const statusFile = join(dir, `statuses-${runs}`);
    const envFile = join(dir, `env-${runs++}`);
    const full = { ...running.env, GATEWAY_TOKEN: gatewayToken, ...env };
    const dump = `\nenv -0 > "$DOCS_ENV_FILE"`;
    const result = spawnSync('bash', ['-c', `set -euo pipefail\n${PRELUDE}\n${script}${dump}`], {
      ...where,
      env: { ...full, DOCS_STATUS_FILE: statusFile, DOCS_ENV_FILE: envFile },
      encoding: 'utf8',
    });
    let exported: Record<string, string> = {};
    try {
      exported = changed(full, readFileSync(envFile, 'utf8'));
    } catch {
      // the script failed before its end
    }
    let statuses: number[] = [];
    try {
      statuses = readFileSync(statusFile, 'utf8').trim().split('\n').filter(Boolean).map(Number);
    } catch {
      // no curl in this script
    }
    return { code: result.status, stdout: result.stdout, stderr: result.stderr, statuses, exported };
  }

  const at = (block: Block) => `${block.file}:${block.line}`;

  function runShell(block: Block): void {
    const session = sessions.get(block.file) ?? {};
    const outcome = bash(localise(block.text), session);
    assert.equal(outcome.code, 0, `${at(block)}: exit ${outcome.code}\n${outcome.stderr}${outcome.stdout}`);
    for (const status of outcome.statuses) assert.ok(status < 400, `${at(block)}: a curl got ${status}`);
    sessions.set(block.file, { ...session, ...outcome.exported });
  }

  /**
   * An agent's commands, as shown, once per provider it works on: each exits 0, a tool turn's
   * answer names the files of the directory it works in, and the whole block (a text turn and a
   * tool turn) takes at most 10 gateway requests and under 60 s.
   */
  async function runAgent(block: Block, agent: Agent, diagnostic: (message: string) => void): Promise<void> {
    const session = sessions.get(block.file) ?? {};
    const earlier = blocks.filter((b) => b.file === block.file && b.line < block.line);
    for (const provider of agent.providers) {
      const box = sandbox(dir, closedProxy);
      const run = { home: box.home, provider, gatewayUrl: running.gatewayUrl, session, earlier };
      const env = { ...session, ...box.env, ...agent.prepare(run) };
      const requests = await answeredRequests(running.gatewayUrl);
      const started = Date.now();
      const outcome = bash(localise(block.text), env, { cwd: box.project, timeout: 120_000 });
      const seconds = (Date.now() - started) / 1000;
      const used = (await answeredRequests(running.gatewayUrl)) - requests;
      const label = `${at(block)} on ${provider}`;
      diagnostic(`${label}: ${used} requests, ${seconds.toFixed(1)} s`);
      assert.equal(outcome.code, 0, `${label}: exit ${outcome.code}\n${outcome.stderr}${outcome.stdout}`);
      for (const file of PROJECT_FILES)
        assert.ok(outcome.stdout.includes(file), `${label}: ${outcome.stdout}`);
      // None counted would mean the agent's routes are missing from the count, not a free run.
      assert.ok(used > 0 && used <= 10, `${label}: ${used} requests`);
      assert.ok(seconds < 60, `${label}: ${seconds} s`);
    }
  }

  /** `$ command` lines (with their continuation lines) and the output the block shows after each. */
  function consoleSteps(text: string): Array<{ command: string; expected: number | undefined }> {
    const steps: Array<{ command: string; expected: number | undefined }> = [];
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]?.startsWith('$ ')) continue;
      let command = (lines[i] ?? '').slice(2);
      while ((command.endsWith('\\') || (command.split("'").length - 1) % 2 === 1) && i + 1 < lines.length)
        command += `\n${lines[++i]}`;
      const next = lines.slice(i + 1).find((line) => line.trim() !== '');
      const status = next?.match(/^HTTP\/1\.1 (\d{3})/)?.[1];
      steps.push({ command, expected: status ? Number(status) : undefined });
    }
    return steps;
  }

  function runConsole(block: Block): void {
    const session: Record<string, string> = {};
    for (const { command, expected } of consoleSteps(block.text)) {
      const assignments = /^(\w+=\S+)(\s+\w+=\S+)*$/.test(command) ? command.split(/\s+/) : [];
      if (assignments.length > 0) {
        for (const pair of assignments) {
          const [name = '', value = ''] = pair.split(/=(.*)/s);
          // A token the reader copies from an earlier output is the one this run really got.
          if (!(name === 'TOKEN' && session.TOKEN)) session[name] = localise(value);
        }
        continue;
      }
      const outcome = bash(localise(command), session);
      const label = `${at(block)}: ${command.split('\n')[0]}`;
      assert.equal(outcome.code, 0, `${label}: exit ${outcome.code}\n${outcome.stderr}${outcome.stdout}`);
      for (const status of outcome.statuses)
        assert.ok(expected === undefined ? status < 400 : status === expected, `${label}: got ${status}`);
      const printed = /^\{.*\}\s*$/s.test(outcome.stdout)
        ? (JSON.parse(outcome.stdout) as { token?: unknown })
        : {};
      if (typeof printed.token === 'string') session.TOKEN = printed.token;
    }
  }

  function runTypeScript(block: Block): void {
    const result = spawnSync(
      process.execPath,
      ['--input-type=module-typescript', '-e', localise(block.text)],
      {
        cwd: ROOT,
        env: { ...running.env, GATEWAY_TOKEN: gatewayToken },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(result.status, 0, `${at(block)}: ${result.stderr}`);
  }

  // First: a block below sets rate limits on the demo project, as the docs show.
  it('every model name the docs mention resolves and answers as the text says', async () => {
    const catalog = buildCatalog(readJsonFile(DEFAULT_CATALOG_PATH));
    const mentions = docFiles().flatMap((file) =>
      modelMentions(file, (base) => catalog.lookup(base) !== undefined),
    );
    const unique = new Map<string, Mention>();
    for (const mention of mentions) unique.set(`${mention.name} ${mention.status}`, mention);
    assert.ok(unique.size > 20, `${unique.size} model names found`);
    const failures: string[] = [];
    // A version past its retirement date answers 410 wherever the docs name it (the docs describe
    // it until it leaves the catalog); the gateway runs on the real clock, as a reader's would.
    const retired = (name: string) => {
      const model = catalog.lookup(name.split(/[:@]/)[0] ?? '');
      return model !== undefined && isRetired(model, catalog.now);
    };
    for (const mention of unique.values()) {
      const { name, where } = mention;
      const status = mention.status === 200 && retired(name) ? 410 : mention.status;
      // An embedding model is asked for an embedding; every other name, a chat completion.
      const embedding = catalog.lookup(name.split(/[:@]/)[0] ?? '')?.kind === 'embedding';
      const call = embedding
        ? { path: '/v1/embeddings', body: { model: name, input: 'Hello' } }
        : {
            path: '/v1/chat/completions',
            body: { model: name, messages: [{ role: 'user', content: 'Hello' }] },
          };
      const response = await fetch(`${running.gatewayUrl}${call.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gatewayToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(call.body),
      });
      const text = await response.text();
      if (response.status !== status)
        failures.push(`${where} ${name}: ${response.status} (expected ${status}) ${text}`);
    }
    assert.deepEqual(failures, []);
  });

  for (const block of blocks.filter((b) => EXECUTED.has(b.lang))) {
    const skip =
      block.skip ?? (SHELL.has(block.lang) && !curlAvailable ? 'curl is not installed here' : undefined);
    const agent = SHELL.has(block.lang) ? agentOf(block) : undefined;
    it(`${at(block)} (${block.lang})`, { skip }, async (t) => {
      if (agent) await runAgent(block, agent, (message) => t.diagnostic(message));
      else if (block.lang === 'json') JSON.parse(block.text);
      else if (block.lang === 'console') runConsole(block);
      else if (SHELL.has(block.lang)) runShell(block);
      else runTypeScript(block);
    });
  }

  it("simulator.md's numbers are the simulator's own", () => {
    const text = readFileSync(join(ROOT, 'docs/gateway/simulator.md'), 'utf8').replace(/\s+/g, ' ');
    const efforts = Object.entries(REASONING_TOKENS)
      .map(([effort, tokens]) => `${effort} ${tokens}`)
      .join(', ');
    assert.ok(text.includes(`(${efforts})`), `the reasoning tokens per effort: (${efforts})`);
    assert.ok(text.includes(`${DEFAULT_REPLY_TOKENS} by default for a simulator started on its own`));
  });

  it('the opt-out marker is rare and always says why', () => {
    const executable = blocks.filter((b) => EXECUTED.has(b.lang));
    const skipped = executable.filter((b) => b.skip !== undefined);
    assert.ok(executable.length >= 15, `${executable.length} executable blocks`);
    assert.ok(skipped.length <= 3, `skipped: ${skipped.map(at).join(', ')}`);
    const markers = docFiles().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(
          (line) => line.includes('docs-examples:') && !/^<!-- docs-examples: skip \(.+\) -->$/.test(line),
        ),
    );
    assert.deepEqual(markers, [], 'malformed markers');
  });
});
