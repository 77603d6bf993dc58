/**
 * Set-up of the chat path's HTTP tests: the real gateway (access, routing, ledger on a temp
 * SQLite database) in front of a real simulator, with a seeded account and its token.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { Database } from '@app/db';
import { isolatedDatabase } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import {
  type Behaviour,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '@app/upstream-simulator';
import type { Selectable } from 'kysely';
import { seedAccount } from '../../access/testing.ts';
import { buildApp } from '../../app.ts';
import { DEFAULT_UPSTREAMS_PATH, readJsonFile } from '../../routing/index.ts';
import { type GatewayConfig, loadGatewayConfig } from '../../config.ts';
import type { Principal, ProviderId } from '../../contracts.ts';
import type { GatewayDatabase, UsageTable } from '../../db/schema.ts';
import { ledgersSettled } from '../../ledger/testing.ts';

export interface ChatTestOptions {
  /** Simulator behaviour for every request (requests can add their own `x_simulator`). */
  readonly behaviour?: Behaviour;
  /** Other simulator options (its Azure resource's deployments, ...). */
  readonly simulator?: Omit<SimulatorOptions, 'behaviour'>;
  readonly allocations?: Partial<Record<ProviderId, number>>;
  readonly upstream?: Record<string, unknown>;
  readonly routing?: Record<string, unknown>;
  /** Dashboard settings (default: the configuration's). */
  readonly dashboard?: Record<string, unknown>;
  /** Load-shedding bounds (default: the configuration's). */
  readonly shedding?: Record<string, unknown>;
  /** Prompt compression settings (default: the configuration's). */
  readonly compression?: Record<string, unknown>;
  /** Tracing settings (default: the configuration's, tracing off). */
  readonly telemetry?: Record<string, unknown>;
  /** Settings of the gateway's own /metrics series (default: the configuration's). */
  readonly metrics?: Record<string, unknown>;
  /** Replaces the bundled simulated upstreams: every provider at `baseUrl` with this timeout. */
  readonly endpoint?: {
    readonly baseUrl?: string;
    readonly timeoutMs?: number;
    /** The endpoint's `auth` entry (none by default); its `env:` locations read `env`. */
    readonly auth?: Record<string, unknown>;
  };
  /** Anthropic-family models on `developer` sent to another server of Anthropic's API. */
  readonly anthropicEndpoint?: { readonly baseUrl: string; readonly auth?: Record<string, unknown> };
  /** Environment besides the simulator's credentials (secrets that an `auth` entry names). */
  readonly env?: Readonly<Record<string, string>>;
  /** Receives the gateway's JSON log lines at level info (otherwise logging is silent). */
  readonly logStream?: NodeJS.WritableStream;
  /** Edits the upstreams file the gateway starts with (entries per provider and vendor). */
  readonly editUpstreams?: (file: UpstreamsFile, simUrl: string) => void;
  /** The routing clock (model retirement, stickiness, circuit-breaker cooldowns); the wall clock by default. */
  readonly now?: () => number;
}

export interface ChatTestApp {
  readonly app: App;
  readonly sim: Simulator;
  readonly token: string;
  readonly principal: Principal;
  readonly config: GatewayConfig;
  readonly database: Database<GatewayDatabase>;
  headers(extra?: Record<string, string>): Record<string, string>;
  /** The body of the last request the simulator received. */
  lastUpstreamBody(): Record<string, unknown>;
  /** Usage rows once none is `reserved` any more (ledger writes finish after the response). */
  settledUsage(count: number): Promise<UsageRow[]>;
  close(): Promise<void>;
}

export type UsageRow = Selectable<UsageTable>;

/**
 * The bundled upstreams with OpenAI-family models on `developer` and `cloud_c` sent to another
 * OpenAI-compatible server (a test's own slow or broken upstream), and Anthropic-family models on
 * `developer` to a server of Anthropic's API if one is given; the rest stay simulated.
 */
export interface UpstreamsFile {
  providers: Record<string, { vendors: Record<string, unknown> }>;
}

function writeUpstreams(dir: string, options: ChatTestOptions, simUrl: string): string {
  const file = readJsonFile(DEFAULT_UPSTREAMS_PATH) as UpstreamsFile;
  const { endpoint, anthropicEndpoint } = options;
  if (endpoint) {
    const entry = {
      adapter: 'openai-compatible',
      baseUrl: endpoint.baseUrl ?? `${simUrl}/v1`,
      timeoutMs: endpoint.timeoutMs ?? 120_000,
      ...(endpoint.auth ? { auth: endpoint.auth } : {}),
    };
    for (const provider of ['developer', 'cloud_c']) {
      const section = file.providers[provider];
      if (section) section.vendors.openai = entry;
    }
  }
  const developer = file.providers.developer;
  if (anthropicEndpoint && developer)
    developer.vendors.anthropic = { adapter: 'anthropic', ...anthropicEndpoint };
  options.editUpstreams?.(file, simUrl);
  const path = join(dir, 'upstreams.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}

export async function startChatApp(options: ChatTestOptions = {}): Promise<ChatTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-chat-'));
  const sim = await startSimulator({
    ...options.simulator,
    ...(options.behaviour ? { behaviour: options.behaviour } : {}),
  });
  const isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
  const routing = {
    ...options.routing,
    ...(options.endpoint || options.anthropicEndpoint || options.editUpstreams
      ? { upstreamsPath: writeUpstreams(dataDir, options, sim.url) }
      : {}),
  };
  const config = loadGatewayConfig(
    {},
    {
      overrides: {
        dataDir,
        logLevel: options.logStream ? 'info' : 'silent',
        routing,
        upstream: options.upstream ?? {},
        ...(options.shedding ? { shedding: options.shedding } : {}),
        ...(options.dashboard ? { dashboard: options.dashboard } : {}),
        ...(options.compression ? { compression: options.compression } : {}),
        ...(options.telemetry ? { telemetry: options.telemetry } : {}),
        ...(options.metrics ? { metrics: options.metrics } : {}),
      },
    },
  );
  const app = await buildApp(config, {
    database: isolated.database,
    simulatorUrl: sim.url,
    env: { ...sim.credentialEnv, ...options.env },
    defaultMetrics: false,
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const { token, principal } = await seedAccount(isolated.database, {
    email: 'ada@example.com',
    projectSlug: 'apollo',
    allocations: options.allocations ?? { developer: 10, cloud_a: 10, cloud_b: 10, cloud_c: 10 },
    config,
  });
  const db = isolated.database.db;
  return {
    app,
    sim,
    token,
    principal,
    config,
    database: isolated.database,
    headers: (extra = {}) => ({ authorization: `Bearer ${token}`, ...extra }),
    lastUpstreamBody: () => (sim.received.at(-1)?.body ?? {}) as Record<string, unknown>,
    async settledUsage(count) {
      await ledgersSettled(); // rows are group-committed a few ms after their request ends
      const deadline = Date.now() + 5_000;
      for (;;) {
        const rows = await db.selectFrom('usage').selectAll().orderBy('id').execute();
        const done = rows.length >= count && rows.every((row) => row.status !== 'reserved');
        if (done || Date.now() > deadline) return rows;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: async () => {
      await app.close();
      await sim.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A local upstream answering with `handler`, closed after the test; resolves to its `/v1` URL. */
export async function localUpstream(t: TestContext, handler: RequestListener): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** A Chat Completions answer ("ok") as an OpenAI-compatible upstream sends it: its usage, and `extra` fields. */
export function chatCompletionBody(
  usage: { readonly prompt_tokens: number; readonly completion_tokens: number },
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    ...extra,
  });
}

/** Splits an SSE body into its events: `data` payloads (parsed unless [DONE]) and comments. */
export function sseEvents(text: string): Array<{ comment: string } | { data: unknown } | { done: true }> {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      if (block.startsWith(':')) return { comment: block.slice(1).trim() };
      const data = block.replace(/^data: /, '');
      return data === '[DONE]' ? { done: true as const } : { data: JSON.parse(data) as unknown };
    });
}

/**
 * The official Anthropic SDK pointed at a listening gateway: the gateway token goes as a bearer
 * (`authToken`), and `apiKey: null` keeps the SDK from sending an `x-api-key` of its own.
 */
export function anthropicClient(baseURL: string, token: string): Anthropic {
  return new Anthropic({ baseURL, authToken: token, apiKey: null, maxRetries: 0 });
}

/** How a scripted upstream answers its `hit`-th request (counted from 1). */
export type UpstreamScript = (response: ServerResponse, hit: number) => void;

/**
 * The gateway with `developer`'s OpenAI-family endpoint replaced by a local OpenAI-compatible
 * server answering `script`; the other providers stay simulated (instant tokens). Failover and
 * fallback tests give `developer` the most budget so that automatic choices go there first.
 */
export async function scriptedDeveloper(
  t: TestContext,
  script: UpstreamScript,
  allocations: Partial<Record<ProviderId, number>>,
): Promise<{ app: ChatTestApp; hits: () => number }> {
  let hits = 0;
  const url = await localUpstream(t, (request, response) => {
    request.resume();
    request.on('end', () => script(response, ++hits));
  });
  const app = await startChatApp({
    behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 },
    allocations,
    editUpstreams: (file) => {
      const developer = file.providers.developer;
      if (developer) developer.vendors.openai = { adapter: 'openai-compatible', baseUrl: url };
    },
  });
  t.after(() => app.close());
  return { app, hits: () => hits };
}
