/**
 * Test helper: one headless turn of the real Gemini CLI (`@google/gemini-cli`, pinned in the root
 * package.json) against a Gemini API base URL such as the gateway's, offline. The CLI runs with a
 * private home, settings that turn off usage statistics, telemetry, update checks and retries,
 * exactly one allow-listed shell command, and proxies pointing at a closed port so that any host
 * other than the base URL fails at once. Its requests pass through a recording relay, so a test
 * sees what the CLI sent and what came back, whatever the server behind it is.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../../../..');
const GEMINI = join(ROOT, 'node_modules/@google/gemini-cli/bundle/gemini.js');

/** Requests one turn may make: a tool turn takes two, retries are off. */
export const MAX_TURN_REQUESTS = 10;
/** A turn that takes longer is killed: a healthy one takes a few seconds. */
export const TURN_TIMEOUT_MS = 60_000;

export interface GeminiCliTurn {
  /** `http://127.0.0.1:PORT`, without `/v1beta`: the CLI appends `/v1beta/models/...`. */
  readonly baseUrl: string;
  /** Sent as `x-goog-api-key` (and also as `Authorization: Bearer` with `credential: 'bearer'`). */
  readonly token: string;
  /** Sent verbatim in the URL path, `:` and `@` included. */
  readonly model: string;
  readonly prompt: string;
  /** The directory the CLI works in (its workspace). */
  readonly cwd: string;
  /** The one shell command the CLI may run without asking, e.g. `ls`; none when absent. */
  readonly allowedCommand?: string;
  readonly credential?: 'x-goog-api-key' | 'bearer';
  readonly timeoutMs?: number;
}

/** One request the CLI made, and the status it got back. */
export interface GeminiCliRequest {
  readonly method: string;
  /** Path and query, as sent (not decoded). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  readonly status: number;
}

/** One line of `--output-format stream-json`. */
export interface GeminiCliEvent {
  readonly type?: string;
  readonly role?: string;
  readonly content?: string;
  readonly tool_name?: string;
  readonly parameters?: Record<string, unknown>;
  readonly status?: string;
  readonly output?: string;
  readonly stats?: Record<string, unknown>;
}

export interface GeminiCliRun {
  readonly code: number | null;
  readonly timedOut: boolean;
  /** The assistant's text: every `message` event of role `assistant`, joined. */
  readonly answer: string;
  readonly events: readonly GeminiCliEvent[];
  /** The `result` event: `status` and `stats` (`input_tokens`, `output_tokens`, `tool_calls`, ...). */
  readonly result: GeminiCliEvent | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly requests: readonly GeminiCliRequest[];
}

/** Why the CLI cannot run here, if it cannot. */
export function geminiCliMissing(): string | undefined {
  if (!existsSync(GEMINI)) return 'the Gemini CLI is not installed (npm ci installs @google/gemini-cli)';
  const version = spawnSync(process.execPath, [GEMINI, '--version'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH, HOME: tmpdir(), GEMINI_CLI_NO_RELAUNCH: 'true' },
  });
  if (version.status !== 0) return `gemini --version failed: ${version.stderr.trim().slice(0, 200)}`;
  return undefined;
}

/**
 * `~/.gemini/settings.json`. The auth type must be chosen here: with only GOOGLE_GEMINI_BASE_URL
 * set, 0.61 picks its `gateway` auth type, which headless mode rejects ("Invalid auth method").
 */
export function geminiSettings(allowedCommand: string | undefined): Record<string, unknown> {
  return {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    // On by default: it would post to play.googleapis.com and add x-gemini-api-privileged-user-id.
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    // One attempt: a failing turn fails once instead of retrying with backoff for minutes.
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
    tools: { allowed: allowedCommand === undefined ? [] : [`run_shell_command(${allowedCommand})`] },
  };
}

/** A port nothing listens on: proxied calls to any other host fail at once. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return raw.toString('utf8');
  }
}

/** Forwards one request to `target` and records it with the status the target answered. */
function relayOne(target: URL, log: GeminiCliRequest[], req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const { method = 'GET', url = '/', headers } = req;
    const upstream = request(
      new URL(url, target),
      { method, headers: { ...headers, host: target.host } },
      (answer) => {
        log.push({ method, url, headers, body: parseBody(raw), status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      log.push({ method, url, headers, body: parseBody(raw), status: 502 });
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    });
    upstream.end(raw);
  });
}

/** A local relay in front of `baseUrl` that records every request passing through it. */
async function startRelay(
  baseUrl: string,
): Promise<{ url: string; server: Server; log: GeminiCliRequest[] }> {
  const target = new URL(baseUrl);
  const log: GeminiCliRequest[] = [];
  const server = createServer((req, res) => relayOne(target, log, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server, log };
}

/** The CLI's environment: nothing inherited but PATH, so a developer's own keys never leak in. */
function environment(turn: GeminiCliTurn, home: string, relay: string, proxy: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    // Error reports go to the temporary directory: keep them in the private home.
    TMPDIR: home,
    GEMINI_API_KEY: turn.token,
    GOOGLE_GEMINI_BASE_URL: relay,
    ...(turn.credential === 'bearer' ? { GEMINI_API_KEY_AUTH_MECHANISM: 'bearer' } : {}),
    // One process: without it the CLI relaunches itself with a larger heap.
    GEMINI_CLI_NO_RELAUNCH: 'true',
    NO_COLOR: '1',
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    ALL_PROXY: proxy,
    NO_PROXY: '127.0.0.1,localhost',
  };
}

function parseEvents(stdout: string): GeminiCliEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as GeminiCliEvent];
      } catch {
        return [];
      }
    });
}

interface Exit {
  readonly code: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Asynchronous on purpose: the server the CLI calls may run in this very process. */
async function spawnCli(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ms: number,
): Promise<Exit> {
  const child = spawn(process.execPath, [GEMINI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, ms);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, timedOut, stdout, stderr };
}

/** Runs `gemini -p PROMPT -m MODEL -o stream-json` once and reports what happened. */
export async function runGeminiCli(turn: GeminiCliTurn): Promise<GeminiCliRun> {
  const home = mkdtempSync(join(tmpdir(), 'gemini-cli-home-'));
  const relay = await startRelay(turn.baseUrl);
  try {
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini/settings.json'), JSON.stringify(geminiSettings(turn.allowedCommand)));
    const proxy = `http://127.0.0.1:${await closedPort()}`;
    const args = ['-p', turn.prompt, '-m', turn.model, '--output-format', 'stream-json'];
    const env = environment(turn, home, relay.url, proxy);
    const exit = await spawnCli(args, turn.cwd, env, turn.timeoutMs ?? TURN_TIMEOUT_MS);
    const events = parseEvents(exit.stdout);
    const answer = events
      .filter((event) => event.type === 'message' && event.role === 'assistant')
      .map((event) => event.content ?? '')
      .join('');
    const result = events.find((event) => event.type === 'result');
    return { ...exit, answer, events, result, requests: [...relay.log] };
  } finally {
    relay.server.closeAllConnections();
    await new Promise((resolve) => relay.server.close(resolve));
    rmSync(home, { recursive: true, force: true });
  }
}
