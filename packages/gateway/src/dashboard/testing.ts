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
    /** Budget alert settings (section `alerts`). */
    alerts?: Record<string, unknown>;
    /** Upstreams answered by this simulator (chat calls that cost money). */
    simulator?: Simulator;
    redis?: Redis;
    /** GATEWAY_PUBLIC_URL. */
    publicUrl?: string;
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
        ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
        access: { demoSeed: false, ...options.access },
        dashboard: { devIdp: 'on', ...options.dashboard },
        ...(options.alerts ? { alerts: options.alerts } : {}),
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

/** One exchange of a browser that follows redirects itself (the response, not followed). */
export type Transport = (
  url: URL,
  init: { method: string; cookie: string; form: string | undefined },
) => Promise<{ status: number; location: string | null; setCookie: string[]; text: string }>;

/** The real network: a listening gateway. */
export const fetchTransport: Transport = async (url, init) => {
  const response = await fetch(url, {
    method: init.method,
    redirect: 'manual',
    headers: {
      cookie: init.cookie,
      accept: 'text/html',
      ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(init.form ? { body: init.form } : {}),
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    setCookie: response.headers.getSetCookie(),
    text: await response.text(),
  };
};

/**
 * app.inject as a TLS-terminating proxy in front of the gateway would forward a browser's
 * request to a public URL: its path, its Host and `X-Forwarded-Proto`.
 */
export function proxyTransport(app: App): Transport {
  return async (url, init) => {
    const response = await app.inject({
      method: init.method as 'GET' | 'POST',
      url: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        'x-forwarded-proto': url.protocol.slice(0, -1),
        cookie: init.cookie,
        accept: 'text/html',
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(init.form ? { payload: init.form } : {}),
    });
    const location = response.headers.location;
    return {
      status: response.statusCode,
      location: typeof location === 'string' ? location : null,
      setCookie: [response.headers['set-cookie'] ?? []].flat(),
      text: response.body,
    };
  };
}

/** A browser at `base`: follows redirects by hand, keeping cookies, until a page answers. */
export function redirectingBrowser(base: string, transport: Transport = fetchTransport) {
  const jar = new CookieJar();
  /** Every URL requested, redirects included. */
  const visited: string[] = [];
  async function request(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    let target = new URL(url, base);
    let method = init.method ?? 'GET';
    let form = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hop = 0; hop < 15; hop++) {
      visited.push(target.href);
      const response = await transport(target, { method, cookie: jar.header(), form });
      jar.take(response.setCookie);
      if (response.status < 300 || response.status >= 400 || !response.location)
        return { status: response.status, url: target.href, text: squash(response.text) };
      target = new URL(response.location, target);
      method = 'GET';
      form = undefined;
    }
    throw new Error('too many redirects');
  }
  return { jar, request, visited };
}

/** The action of the form on `page` whose button reads `label`. */
export function formAction(page: string, label: string): string {
  const forms = [...page.matchAll(/<form method="post" action="([^"]+)"[\s\S]*?<\/form>/g)];
  const form = forms.find((match) => match[0].includes(`>${label}</button>`));
  if (!form?.[1]) throw new Error(`no form with a "${label}" button`);
  return form[1];
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
