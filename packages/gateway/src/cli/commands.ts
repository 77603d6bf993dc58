/** The gatewayctl subcommands: thin wrappers over access/admin.ts that format the results. */
import { existsSync } from 'node:fs';
import type { Database } from '@app/db';
import {
  addProject,
  addUser,
  approveMembership,
  describeLimits,
  issueToken,
  type LimitChange,
  projectRateLimits,
  requestMembership,
  revokeMembership,
  revokeToken,
  setAllocation,
  setProjectIpAllow,
  setRateLimits,
} from '../access/admin.ts';
import { loadSigningKeys, signingKeyLocation } from '../access/keys.ts';
import { announceRevocation } from '../access/revocation-bus.ts';
import type { GatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { formatUsd } from '../money.ts';
import { ADMIN_KEY_COMMANDS } from './admin-key-commands.ts';
import { ALERT_COMMANDS } from './alert-commands.ts';
import { LIST_COMMANDS } from './list-commands.ts';
import type { Invocation } from './spec.ts';
import { usageCommand } from './usage-command.ts';

export interface Context {
  readonly config: GatewayConfig;
  readonly database: Database<GatewayDatabase>;
  readonly print: (line: string) => void;
  readonly warn: (line: string) => void;
}

export type Handler = (context: Context, args: Invocation) => Promise<void>;

/** Arguments were checked by validate(); these only narrow the types. */
const arg = (invocation: Invocation, name: string): string => invocation.args[name] ?? '';
const text = (invocation: Invocation, name: string): string => {
  const value = invocation.options[name];
  return typeof value === 'string' ? value : '';
};

/**
 * With Redis configured, tells every gateway instance to drop its cached token state now; the
 * revocation itself is already in the database and effective within a second regardless.
 */
async function announce(context: Context, what: string): Promise<void> {
  const url = context.config.redisUrl;
  if (!url) return;
  try {
    await announceRevocation(url, context.config.redisKeyPrefix, what);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    context.warn(`warning: could not notify gateways through Redis (${reason}); effective within 1 s anyway`);
  }
}

/** --rpm/--tpm/--concurrency as a change: a number sets, `none` removes, absent keeps. */
function limitChange(args: Invocation): LimitChange {
  const value = (name: string): number | null | undefined => {
    const given = args.options[name];
    if (typeof given !== 'string') return undefined;
    return given === 'none' ? null : Number(given);
  };
  return {
    requestsPerMinute: value('rpm'),
    tokensPerMinute: value('tpm'),
    concurrentRequests: value('concurrency'),
  };
}

const membership =
  (action: typeof requestMembership): Handler =>
  async ({ database, print }, args) => {
    const result = await action(database.db, {
      slug: arg(args, 'SLUG'),
      email: arg(args, 'EMAIL'),
    });
    print(`${result.email}: ${result.status} membership of ${result.projectSlug}`);
  };

export const COMMANDS: Readonly<Record<string, Handler>> = {
  ...LIST_COMMANDS,
  ...ADMIN_KEY_COMMANDS,
  ...ALERT_COMMANDS,
  'users add': async ({ database, print }, args) => {
    const user = await addUser(database.db, {
      email: text(args, 'email'),
      admin: args.options.admin === true,
    });
    print(`created user ${user.id} ${user.email}${user.isAdmin ? ' (admin)' : ''}`);
  },
  'projects add': async ({ database, print }, args) => {
    const ipAllow = typeof args.options['ip-allow'] === 'string' ? [args.options['ip-allow']] : [];
    const project = await addProject(database.db, { slug: arg(args, 'SLUG'), ipAllow });
    const allow = project.ipAllow.length > 0 ? project.ipAllow.join(', ') : 'any address';
    print(`created project ${project.id} ${project.slug} (IP allowlist: ${allow})`);
  },
  'projects ip-allow': async (context, args) => {
    const cidrs = arg(args, 'CIDRS');
    const ipAllow = cidrs === 'none' ? [] : [cidrs];
    const project = await setProjectIpAllow(context.database.db, { slug: arg(args, 'SLUG'), ipAllow });
    await announce(context, `project ${project.slug} ip-allow`);
    const allow = project.ipAllow.length > 0 ? project.ipAllow.join(', ') : 'any address';
    context.print(`${project.slug} IP allowlist: ${allow}`);
  },
  'members request': membership(requestMembership),
  'members approve': async ({ database, print }, args) => {
    const result = await approveMembership(database.db, {
      slug: arg(args, 'SLUG'),
      email: arg(args, 'EMAIL'),
      ...(args.options.admin === true ? { admin: true } : {}),
    });
    print(
      `${result.email}: approved membership of ${result.projectSlug}${result.isAdmin ? ' (project admin)' : ''}`,
    );
  },
  'members revoke': async (context, args) => {
    const result = await revokeMembership(context.database.db, {
      slug: arg(args, 'SLUG'),
      email: arg(args, 'EMAIL'),
    });
    await announce(context, `membership ${result.projectSlug} ${result.email}`);
    context.print(`${result.email}: ${result.status} membership of ${result.projectSlug}`);
  },
  'allocations set': async ({ database, print }, args) => {
    const slug = arg(args, 'SLUG');
    const usd = Number(arg(args, 'USD'));
    const result = await setAllocation(database.db, { slug, provider: arg(args, 'PROVIDER'), usd });
    print(`${slug}/${result.provider} allocation set to ${formatUsd(result.allocatedMicros)}`);
  },
  'limits set': async ({ database, print }, args) => {
    const slug = arg(args, 'SLUG');
    const scope = arg(args, 'SCOPE');
    const limits = await setRateLimits(database.db, { slug, scope, change: limitChange(args) });
    print(`${slug} ${scope} limits: ${describeLimits(limits)}`);
  },
  'limits show': async ({ database, print }, args) => {
    const limits = await projectRateLimits(database.db, arg(args, 'SLUG'));
    print(`project: ${describeLimits(limits.project)}`);
    print(`each token: ${describeLimits(limits.token)}`);
  },
  'tokens issue': async ({ config, database, print, warn }, args) => {
    const location = signingKeyLocation(config.dataDir, config.access.signingKeyPath);
    // A new key signs tokens no running gateway with another key file would accept: say so.
    if (location.generate && !existsSync(location.path))
      warn(`gatewayctl: no signing key at ${location.path}; generating a new one there`);
    const keys = await loadSigningKeys(location);
    const ttl = args.options.ttl;
    const description = args.options.description;
    const issued = await issueToken(
      database.db,
      keys,
      { defaultTtl: config.access.tokenTtl, maxTtl: config.access.tokenMaxTtl },
      {
        email: text(args, 'email'),
        slug: text(args, 'project'),
        ...(typeof ttl === 'string' ? { ttl } : {}),
        ...(typeof description === 'string' ? { description } : {}),
      },
    );
    print(issued.token);
  },
  'tokens revoke': async (context, args) => {
    const result = await revokeToken(context.database.db, arg(args, 'JTI'));
    await announce(context, `token ${result.jti}`);
    context.print(`revoked token ${result.jti} at ${result.revokedAt}`);
  },
  usage: usageCommand,
};
