/** Shared set-up of the admin API's tests: an app on an isolated database and admin keys. */
import type { Engine } from '@app/db';
import type { LightMyRequestResponse } from 'fastify';
import { createAdminKey } from '../access/admin-keys.ts';
import { startTestApp, type TestApp } from '../access/test-app.ts';

export interface ErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string;
  };
}

export interface AdminTestApp extends TestApp {
  /** A new admin key (default scopes read and write) and its id. */
  newKey(scopes?: readonly string[], description?: string): Promise<{ key: string; id: number }>;
  /** A request to /admin/v1 with `key` as its bearer credential. */
  call(
    key: string | undefined,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    remoteAddress?: string,
  ): Promise<LightMyRequestResponse>;
}

export async function startAdminApp(
  engine: Engine,
  access: Record<string, unknown> = {},
): Promise<AdminTestApp> {
  const t = await startTestApp(engine, access);
  const policy = { defaultTtl: t.config.access.adminKeyTtl, maxTtl: t.config.access.adminKeyMaxTtl };
  return {
    ...t,
    newKey: async (scopes = ['read', 'write'], description = 'test key') => {
      const { key, info } = await createAdminKey(t.database.db, policy, { description, scopes });
      return { key, id: info.id };
    },
    call: (key, method, path, body, remoteAddress) =>
      t.app.inject({
        method,
        url: `/admin/v1${path}`,
        headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
        ...(body === undefined ? {} : { payload: body as object }),
        ...(remoteAddress ? { remoteAddress } : {}),
      }),
  };
}

/** The error code of an answer, with its status: `404 unknown_project`. */
export function refusal(response: LightMyRequestResponse): string {
  return `${response.statusCode} ${(response.json() as ErrorBody).error.code}`;
}
