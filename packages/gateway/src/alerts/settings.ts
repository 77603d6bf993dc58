/**
 * A project's budget alert settings: thresholds, webhook URL and its signing secret. gatewayctl
 * and the dashboard both call these, so the rules and the audit trail live in one place. The
 * secret is returned only by the call that made it (shown once); the URL is named in the trail
 * and in logs by its host only, because webhook URLs often carry a credential in their path or query.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AccessAdminError } from '../access/admin-errors.ts';
import { findProject } from '../access/admin.ts';
import { type Actor, inTransaction, recordAudit } from '../access/audit.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { isIpLiteral, isLoopbackName, isPublicAddress } from './addresses.ts';
import type { WebhookPolicy } from './config.ts';

type Db = Kysely<GatewayDatabase>;

export const DEFAULT_THRESHOLDS: readonly number[] = Object.freeze([50, 80, 100]);
const MAX_THRESHOLDS = 10;
const MAX_URL_LENGTH = 2048;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface AlertSettings {
  readonly projectId: number;
  readonly slug: string;
  readonly thresholds: readonly number[];
  readonly webhookUrl: string | null;
  readonly hasSecret: boolean;
}

/** `50,80,100` (or `50 80 100%`) as ascending whole percentages from 1 to 100. */
export function parseThresholds(text: string): number[] {
  const parts = text
    .split(/[\s,]+/)
    .map((part) => part.replace(/%$/, ''))
    .filter((part) => part !== '');
  const values = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN));
  const valid = values.every((value) => Number.isInteger(value) && value >= 1 && value <= 100);
  if (!valid || values.length === 0 || values.length > MAX_THRESHOLDS)
    throw new AccessAdminError(
      'invalid_thresholds',
      `'${text.trim()}' is not a list of thresholds: give 1 to ${MAX_THRESHOLDS} whole percentages from 1 to 100, such as 50,80,100.`,
    );
  return [...new Set(values)].sort((a, b) => a - b);
}

/** The host a URL is named by in logs and the audit trail. */
export function webhookHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

/**
 * The URL as stored, or refused: https (http only as `allowHttp` permits), no credentials, and
 * unless `allowPrivate`, no host that is a non-public IP literal or `localhost`. A host name is
 * not resolved here: each delivery checks the addresses it resolves to (addresses.ts).
 */
export function checkWebhookUrl(text: string, policy: WebhookPolicy): string {
  const refuse = (why: string) => {
    throw new AccessAdminError('invalid_webhook', `The webhook URL ${why}.`);
  };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return refuse('is not a URL (it must start with https://)');
  }
  if (text.length > MAX_URL_LENGTH) refuse(`is longer than ${MAX_URL_LENGTH} characters`);
  if (url.username !== '' || url.password !== '') refuse('may not contain a user name or password');
  const { allowHttp, allowPrivate } = policy;
  const httpAllowed = allowHttp === 'any' || (allowHttp === 'loopback' && LOOPBACK_HOSTS.has(url.hostname));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed))
    refuse(
      allowHttp === 'loopback'
        ? 'must use https (http only to localhost)'
        : 'must use https (GATEWAY_ALERT_WEBHOOK_ALLOW_HTTP allows http)',
    );
  const internal = isIpLiteral(url.hostname) ? !isPublicAddress(url.hostname) : isLoopbackName(url.hostname);
  if (internal && !allowPrivate)
    refuse(
      'may not point at a private, loopback or link-local address (GATEWAY_ALERT_WEBHOOK_ALLOW_PRIVATE allows it)',
    );
  url.hash = '';
  return url.toString();
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export async function alertSettings(db: Db, slug: string): Promise<AlertSettings> {
  const project = await findProject(db, slug);
  return settingsOf(db, project);
}

async function settingsOf(db: Db, project: { id: number; slug: string }): Promise<AlertSettings> {
  const row = await db
    .selectFrom('alert_settings')
    .selectAll()
    .where('project_id', '=', project.id)
    .executeTakeFirst();
  return {
    projectId: project.id,
    slug: project.slug,
    thresholds: row ? (JSON.parse(row.thresholds) as number[]) : DEFAULT_THRESHOLDS,
    webhookUrl: row?.webhook_url ?? null,
    hasSecret: Boolean(row?.webhook_secret),
  };
}

export interface AlertChange {
  readonly slug: string;
  /** Unset: kept. */
  readonly thresholds?: string;
  /** Unset: kept; `''` or `none`: removed. */
  readonly webhookUrl?: string;
  readonly actor?: Actor;
}

/**
 * Changes thresholds and/or the webhook. A webhook set where there was none gets a new secret,
 * returned here and never again (rotateWebhookSecret makes another); a changed URL keeps it.
 */
export async function setAlertSettings(
  db: Db,
  policy: WebhookPolicy,
  change: AlertChange,
): Promise<{ settings: AlertSettings; newSecret?: string }> {
  const project = await findProject(db, change.slug);
  const thresholds = change.thresholds === undefined ? undefined : parseThresholds(change.thresholds);
  const typed = change.webhookUrl?.trim();
  const removing = typed === '' || typed === 'none';
  const webhookUrl = typed === undefined || removing ? undefined : checkWebhookUrl(typed, policy);
  return inTransaction(db, async (trx) => {
    const before = await settingsOf(trx, project);
    const row = await trx
      .selectFrom('alert_settings')
      .select('webhook_secret')
      .where('project_id', '=', project.id)
      .executeTakeFirst();
    const url = removing ? null : (webhookUrl ?? before.webhookUrl);
    const newSecret = url !== null && !row?.webhook_secret ? newWebhookSecret() : undefined;
    const values = {
      thresholds: JSON.stringify(thresholds ?? before.thresholds),
      webhook_url: url,
      // Without a webhook the secret goes too: the next webhook gets a new one, shown once.
      webhook_secret: url === null ? null : (newSecret ?? row?.webhook_secret ?? null),
      updated_at: new Date().toISOString(),
    };
    await trx
      .insertInto('alert_settings')
      .values({ project_id: project.id, ...values })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
      .execute();
    const settings = await settingsOf(trx, project);
    await recordAudit(trx, change.actor, {
      projectId: project.id,
      action: 'alerts.set',
      subject: 'budget alerts',
      detail: describeSettings(settings),
    });
    return newSecret ? { settings, newSecret } : { settings };
  });
}

/** Replaces the webhook's signing secret; the old one stops verifying at the next attempt. */
export async function rotateWebhookSecret(db: Db, input: { slug: string; actor?: Actor }): Promise<string> {
  const project = await findProject(db, input.slug);
  const secret = newWebhookSecret();
  return inTransaction(db, async (trx) => {
    const updated = await trx
      .updateTable('alert_settings')
      .set({ webhook_secret: secret, updated_at: new Date().toISOString() })
      .where('project_id', '=', project.id)
      .where('webhook_url', 'is not', null)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n)
      throw new AccessAdminError(
        'invalid_webhook',
        `Project '${project.slug}' has no webhook: set one first.`,
        `Set one with: npx gatewayctl alerts set ${project.slug} --webhook https://...`,
      );
    await recordAudit(trx, input.actor, {
      projectId: project.id,
      action: 'alerts.rotate_secret',
      subject: 'budget alerts',
      detail: 'new webhook signing secret',
    });
    return secret;
  });
}

/** The settings in words, for the audit trail and gatewayctl: never the URL's path or query. */
export function describeSettings(settings: AlertSettings): string {
  const webhook = settings.webhookUrl ? `webhook to ${webhookHost(settings.webhookUrl)}` : 'no webhook';
  return `thresholds ${settings.thresholds.join(', ')}%; ${webhook}`;
}
