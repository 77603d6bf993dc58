/**
 * First-start demo account for the embedded default: when the SQLite database has no users,
 * a demo user, project and allocations are created and a token is issued, so the printed
 * curl line works at once. Never on PostgreSQL (a real deployment), never twice.
 */
import { type Database, isPostgresUrl, openServiceDatabase } from '@app/db';
import type { GatewayConfig } from '../config.ts';
import { PROVIDERS } from '../contracts.ts';
import { GATEWAY_DATABASE } from '../db/database.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import {
  AccessAdminError,
  type Actor,
  addProject,
  addUser,
  approveMembership,
  issueToken,
  requestMembership,
  setAllocation,
} from './admin.ts';
import { formatUsd } from '../money.ts';
import { loadSigningKeys, signingKeyLocation } from './keys.ts';

export const DEMO = { email: 'demo@example.com', project: 'demo', usdPerBucket: 25, ttl: '7d' } as const;

/** How the demo account's set-up appears in the audit trail (no operator ran it). */
const SEED: Actor = { userId: null, label: 'demo seed (first start)' };

export interface DemoAccount {
  readonly token: string;
  readonly expiresAt: Date;
}

/** Creates the demo account if the database has no users; undefined when it already has some. */
export async function seedDemo(
  database: Database<GatewayDatabase>,
  config: GatewayConfig,
): Promise<DemoAccount | undefined> {
  const db = database.db;
  const anyUser = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (anyUser) return undefined;
  try {
    await addUser(db, { email: DEMO.email, admin: true, actor: SEED });
  } catch (error) {
    // Another instance started at the same moment and seeded first.
    if (error instanceof AccessAdminError && error.code === 'duplicate_user') return undefined;
    throw error;
  }
  const demo = { slug: DEMO.project, actor: SEED };
  await addProject(db, demo);
  await requestMembership(db, { ...demo, email: DEMO.email });
  await approveMembership(db, { ...demo, email: DEMO.email, admin: true });
  for (const provider of PROVIDERS) await setAllocation(db, { ...demo, provider, usd: DEMO.usdPerBucket });
  const keys = await loadSigningKeys(signingKeyLocation(config.dataDir, config.access.signingKeyPath));
  const issued = await issueToken(
    db,
    keys,
    // The demo token lives 7 days, or less if the operator capped lifetimes below that.
    { defaultTtl: config.access.tokenTtl, maxTtl: config.access.tokenMaxTtl },
    { ...demo, email: DEMO.email, description: 'demo token (first start)' },
  );
  return { token: issued.token, expiresAt: issued.expiresAt };
}

/**
 * main.ts calls this once before listening: opens the configured database on its own
 * connection, seeds when enabled and embedded, closes it again.
 */
export async function seedDemoOnFirstStart(config: GatewayConfig): Promise<DemoAccount | undefined> {
  if (!config.access.demoSeed || isPostgresUrl(config.databaseUrl) || config.databaseUrl.includes(':memory:'))
    return undefined;
  const database = await openServiceDatabase<GatewayDatabase>(GATEWAY_DATABASE, config);
  try {
    return await seedDemo(database, config);
  } finally {
    await database.close();
  }
}

/** The lines main.ts prints: ready-to-paste curl commands carrying the demo token. */
export function demoInstructions(account: DemoAccount, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const auth = `-H 'Authorization: Bearer ${account.token}'`;
  const body = JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Say hello!' }] });
  const budget = formatUsd(DEMO.usdPerBucket * 1_000_000);
  return [
    `Demo account created: ${DEMO.email}, project '${DEMO.project}', ${budget} on each provider bucket.`,
    `Demo token (expires ${account.expiresAt.toISOString()}); try:`,
    `  curl -s ${base}/v1/chat/completions ${auth} -H 'Content-Type: application/json' -d '${body}'`,
    `  curl -s ${base}/v1/models ${auth}`,
    `More tokens: ${DEMO_TOKEN_COMMAND}`,
  ].join('\n');
}

const DEMO_TOKEN_COMMAND = `npx gatewayctl tokens issue --email ${DEMO.email} --project ${DEMO.project}`;

/**
 * Printed on every later start (the demo token is shown once, at creation): how to get a token,
 * naming the dashboard only when this gateway serves one.
 */
export function tokenInstructions(options: { demo: boolean; dashboard: string | undefined }): string[] {
  return [
    'Get a token:',
    ...(options.dashboard ? [`  sign in at ${options.dashboard}`] : []),
    ...(options.demo ? [`  ${DEMO_TOKEN_COMMAND}   (the demo account)`] : []),
    '  npx gatewayctl tokens issue --email EMAIL --project SLUG   (npx gatewayctl --help for users and projects)',
  ];
}
