/**
 * Test helpers of the dashboard: an app with the development identity provider, a session
 * created directly (for tests about what a signed-in user may do, not about signing in), and
 * a small cookie jar for walking the real sign-in over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, type Engine, openDatabase, type Redis } from '@app/db';
import { isolatedDatabase } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import type { Simulator } from '@app/upstream-simulator';
import type { LightMyRequestResponse } from 'fastify';
import { addUser } from '../access/admin.ts';
import { type BuildOptions, buildApp } from '../app.ts';
import { type GatewayConfig, loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { COOKIES } from './context.ts';
import { createSessionStore, hashId } from './session.ts';

export interface DashboardTestApp {
  readonly app: App;
  readonly config: GatewayConfig;
  readonly database: Database<GatewayDatabase>;
  /** What a second instance on the same database needs (startDashboardInstance). */
  readonly shared: {
    readonly url: string;
    readonly schema: string | undefined;
    readonly build: BuildOptions;
  };
  close(): Promise<void>;
}

export async function startDashboardApp(
  options: {
    engine?: Engine;
    dashboard?: Record<string, unknown>;
    access?: Record<string, unknown>;
    /** Upstreams answered by this simulator (chat calls that cost money). */
    simulator?: Simulator;
    redis?: Redis;
  } = {},
): Promise<DashboardTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-dashboard-'));
  const isolated = await isolatedDatabase<GatewayDatabase>(options.engine ?? 'sqlite');
  const config = loadGatewayConfig(
    {},
    {
      overrides: {
        dataDir,
        logLevel: 'silent',
        access: { demoSeed: false, ...options.access },
        dashboard: { devIdp: 'on', ...options.dashboard },
      },
    },
  );
  const build: BuildOptions = {
    defaultMetrics: false,
    ...(options.simulator
      ? { simulatorUrl: options.simulator.url, env: options.simulator.credentialEnv }
      : {}),
    ...(options.redis ? { redis: options.redis } : {}),
  };
  const app = await buildApp(config, { ...build, database: isolated.database });
  return {
    app,
    config,
    database: isolated.database,
    shared: { url: isolated.url, schema: isolated.schema, build },
    close: async () => {
      await app.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Another gateway instance on the same database (own connection pool, same keys and config). */
export async function startDashboardInstance(
  first: DashboardTestApp,
  options: { redis?: Redis } = {},
): Promise<{ app: App; database: Database<GatewayDatabase>; close(): Promise<void> }> {
  const { url, schema, build } = first.shared;
  const database = await openDatabase<GatewayDatabase>(url, schema ? { schema } : {});
  const app = await buildApp(first.config, {
    ...build,
    ...(options.redis ? { redis: options.redis } : {}),
    database,
  });
  return {
    app,
    database,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

/**
 * Waits until the usage ledger holds `rows` finished rows: the ledger settles a request after
 * its response and writes the rows in a group commit a little later.
 */
export async function settled(database: Database<GatewayDatabase>, rows: number): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const found = await database.db.selectFrom('usage').select(['status']).execute();
    const open = found.some((row) => row.status === 'reserved');
    if (!open && found.length >= rows) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the usage ledger did not reach ${rows} finished rows in 5 s`);
}

/** A session for `email` (the user is created when new), as the callback would create it. */
export async function sessionFor(
  database: Database<GatewayDatabase>,
  email: string,
  options: { admin?: boolean } = {},
): Promise<{ cookie: string; idHash: string; userId: number }> {
  const db = database.db;
  const existing = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  const userId = existing?.id ?? (await addUser(db, { email, admin: options.admin ?? false })).id;
  const store = createSessionStore(db, { idleMs: 30 * 60_000, maxAgeMs: 12 * 3_600_000 });
  const id = await store.create(userId, null);
  return { cookie: id, idHash: hashId(id), userId };
}

/** Markup with whitespace between and around tags collapsed, for matching by regular expression. */
export function squash(markup: string): string {
  return markup
    .replace(/\s+/g, ' ')
    .replace(/\s?>\s?/g, '>')
    .replace(/\s<\//g, '</');
}

/** Cookies a browser would hold, fed from Set-Cookie headers (path and expiry ignored). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  take(setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(line);
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  object(): Record<string, string> {
    return Object.fromEntries(this.#cookies);
  }
}

/** A signed-in browser against app.inject: cookies kept, the page's anti-forgery token read. */
export function injectBrowser(app: App, sessionCookie: string) {
  const jar = new CookieJar();
  jar.take(`${COOKIES.session}=${sessionCookie}`);
  async function send(method: 'GET' | 'POST', url: string, form?: Record<string, string>) {
    const response: LightMyRequestResponse = await app.inject({
      method,
      url,
      cookies: jar.object(),
      ...(form
        ? {
            payload: new URLSearchParams(form).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }
        : {}),
    });
    jar.take(response.headers['set-cookie']);
    return { statusCode: response.statusCode, headers: response.headers, body: squash(response.body) };
  }
  return {
    jar,
    get: (url: string) => send('GET', url),
    /** Posts a form with the anti-forgery token of the page at `from` (as a browser would). */
    post: async (url: string, form: Record<string, string>, from = '/dashboard') => {
      const page = await send('GET', from);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
      return send('POST', url, { _csrf: csrf, ...form });
    },
    postRaw: (url: string, form: Record<string, string>) => send('POST', url, form),
  };
}
