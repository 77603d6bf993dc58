/** gatewayctl's `admin-keys` commands: the credentials of the admin API (/admin/v1). */
import { createAdminKey, listAdminKeys, revokeAdminKey } from '../access/admin-keys.ts';
import type { Handler } from './commands.ts';
import { show } from './list-commands.ts';

export const ADMIN_KEY_COMMANDS: Readonly<Record<string, Handler>> = {
  'admin-keys create': async ({ config, database, print }, args) => {
    const { description, scopes, ttl } = args.options;
    const { key } = await createAdminKey(
      database.db,
      { defaultTtl: config.access.adminKeyTtl, maxTtl: config.access.adminKeyMaxTtl },
      {
        description: typeof description === 'string' ? description : '',
        ...(typeof scopes === 'string' ? { scopes: [scopes] } : {}),
        ...(typeof ttl === 'string' ? { ttl } : {}),
      },
    );
    print(key);
  },
  'admin-keys list': async (context, args) => {
    show(
      context,
      args,
      await listAdminKeys(context.database.db),
      [
        ['ID', (k) => String(k.id)],
        ['SCOPES', (k) => k.scopes.join(',')],
        ['STATE', (k) => k.state],
        ['CREATED', (k) => k.createdAt],
        ['EXPIRES', (k) => k.expiresAt],
        ['LAST USED', (k) => k.lastUsedAt ?? '-'],
        ['DESCRIPTION', (k) => k.description],
      ],
      'no admin keys',
    );
  },
  'admin-keys revoke': async ({ database, print }, args) => {
    const result = await revokeAdminKey(database.db, Number(args.args.ID));
    print(`revoked admin key ${result.id} at ${result.revokedAt}`);
  },
};
