/**
 * Webhook delivery of recorded alerts. Each attempt is claimed with one conditional update (the
 * alert is pending, due, and not held by another instance's unexpired lease), so exactly one
 * instance sends each attempt on SQLite and PostgreSQL alike. A failed attempt is retried after
 * an exponential, jittered, capped wait until it is delivered (2xx) or `giveUpMs` after the
 * crossing, when it is marked failed and logged. Redirects are not followed and at most a
 * kilobyte of the answer is read. A host that is or resolves to a private address (unless
 * `allowPrivate`) fails for good at once: retrying would not change where it points.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { Agent, request } from 'undici';
import type { GatewayDatabase } from '../db/schema.ts';
import {
  isIpLiteral,
  isPublicAddress,
  PRIVATE_ADDRESS_CODE,
  PRIVATE_ADDRESS_ERROR,
  type Resolve,
  webhookLookup,
} from './addresses.ts';
import type { AlertsConfig } from './config.ts';
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import { printable } from './printable.ts';
import { webhookHost } from './settings.ts';

type Db = Kysely<GatewayDatabase>;

/** Alerts claimed per round and instance. */
const BATCH = 20;
/** Bytes of a receiver's answer kept for `last_error`. */
const ANSWER_BYTES = 1024;

export type DeliveryOptions = Pick<
  AlertsConfig,
  'retryBaseMs' | 'retryCapMs' | 'giveUpMs' | 'timeoutMs' | 'allowPrivate'
>;

/** Why an attempt failed (for `last_error`, never with the URL); `final` ones are not retried. */
interface Failure {
  readonly error: string;
  readonly final: boolean;
}

/** Wait before attempt `attempts + 1`: base x 2^(attempts-1), capped, the upper half jittered. */
export function retryDelayMs(
  attempts: number,
  options: Pick<AlertsConfig, 'retryBaseMs' | 'retryCapMs'>,
  random = Math.random,
): number {
  const full = Math.min(options.retryCapMs, options.retryBaseMs * 2 ** Math.min(30, attempts - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

export interface AlertPayload {
  readonly id: string;
  readonly type: 'budget.threshold_crossed';
  readonly project: string;
  readonly provider: string;
  readonly threshold_percent: number;
  readonly allocated_usd: number;
  readonly spent_usd: number;
  readonly remaining_usd: number;
  readonly crossed_at: string;
}

const usd = (micros: number) => Math.round(micros) / 1_000_000;

export function alertPayload(row: {
  alert_key: string;
  slug: string;
  provider: string;
  threshold: number;
  allocated_micros: number;
  spent_micros: number;
  crossed_at: string;
}): AlertPayload {
  const [allocated, spent] = [Number(row.allocated_micros), Number(row.spent_micros)];
  return {
    id: row.alert_key,
    type: 'budget.threshold_crossed',
    project: row.slug,
    provider: row.provider,
    threshold_percent: Number(row.threshold),
    allocated_usd: usd(allocated),
    spent_usd: usd(spent),
    remaining_usd: usd(Math.max(0, allocated - spent)),
    crossed_at: row.crossed_at,
  };
}

export interface Deliverer {
  /** Sends every due alert this instance can claim; resolves when their attempts ended. */
  deliverDue(): Promise<void>;
  /** Aborts the attempts in flight (recorded as failed, so retried) and sends no more. */
  close(): Promise<void>;
}

export function createDeliverer(deps: {
  db: Db;
  log: FastifyBaseLogger;
  options: DeliveryOptions;
  /** Name resolution, for tests; node's by default. */
  resolve?: Resolve;
}): Deliverer {
  const { db, log, options } = deps;
  const lookup = webhookLookup({
    allowPrivate: options.allowPrivate,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  const agent = new Agent({ connect: { timeout: options.timeoutMs, ...(lookup ? { lookup } : {}) } });

  /** The lease this instance holds on the alert, or undefined when another instance has it. */
  async function claim(id: number, now: Date): Promise<string | undefined> {
    const at = now.toISOString();
    const lease = new Date(now.getTime() + options.timeoutMs * 2 + 1_000).toISOString();
    const claimed = await db
      .updateTable('budget_alerts')
      .set((eb) => ({ lease_until: lease, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .where('delivery', '=', 'pending')
      .where('next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', at)]))
      .executeTakeFirst();
    return claimed.numUpdatedRows === 1n ? lease : undefined;
  }

  const load = (id: number) =>
    db
      .selectFrom('budget_alerts as b')
      .innerJoin('projects as p', 'p.id', 'b.project_id')
      .leftJoin('alert_settings as s', 's.project_id', 'b.project_id')
      .select([
        'b.alert_key',
        'p.slug',
        'b.provider',
        'b.threshold',
        'b.allocated_micros',
        'b.spent_micros',
        'b.crossed_at',
        'b.attempts',
        's.webhook_url',
        's.webhook_secret',
      ])
      .where('b.id', '=', id)
      .executeTakeFirstOrThrow();

  /** One POST; undefined when delivered, else why not. */
  async function send(url: string, secret: string, key: string, body: string): Promise<Failure | undefined> {
    // Sockets skip `lookup` for an IP literal, so a literal is judged here (it may predate the setting).
    const hostname = URL.parse(url)?.hostname ?? '';
    if (!options.allowPrivate && isIpLiteral(hostname) && !isPublicAddress(hostname))
      return { error: PRIVATE_ADDRESS_ERROR, final: true };
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'model-gateway-budget-alerts',
          [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(Date.now() / 1000), body),
          [IDEMPOTENCY_HEADER]: key,
        },
        body,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const answer = await boundedText(response.body);
      if (response.statusCode >= 200 && response.statusCode < 300) return undefined;
      return { error: `HTTP ${response.statusCode}${answer ? `: ${answer}` : ''}`, final: false };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === PRIVATE_ADDRESS_CODE) return { error: PRIVATE_ADDRESS_ERROR, final: true };
      const why = typeof code === 'string' ? code : error instanceof Error ? error.name : 'request failed';
      return { error: why, final: false };
    }
  }

  async function attempt(id: number): Promise<void> {
    const lease = await claim(id, new Date());
    if (!lease) return;
    const row = await load(id);
    const mine = db.updateTable('budget_alerts').where('id', '=', id).where('lease_until', '=', lease);
    if (!row.webhook_url || !row.webhook_secret) {
      await mine.set({ delivery: 'none', lease_until: null, last_error: 'no webhook' }).execute();
      return;
    }
    const body = JSON.stringify(alertPayload(row));
    const failure = await send(row.webhook_url, row.webhook_secret, row.alert_key, body);
    const done = new Date();
    const fields = { project: row.slug, provider: row.provider, threshold: Number(row.threshold) };
    const attempts = Number(row.attempts);
    if (failure === undefined) {
      await mine
        .set({ delivery: 'delivered', delivered_at: done.toISOString(), lease_until: null })
        .execute();
      log.info({ ...fields, attempts }, 'budget alert webhook delivered');
      return;
    }
    // Logs get the status or error code only: a receiver's answer may echo what it was sent.
    const logged = {
      ...fields,
      attempts,
      host: webhookHost(row.webhook_url),
      error: failure.error.split(':')[0],
    };
    const last_error = printable(failure.error);
    const ageMs = done.getTime() - Date.parse(row.crossed_at);
    if (failure.final || ageMs >= options.giveUpMs) {
      await mine.set({ delivery: 'failed', lease_until: null, last_error }).execute();
      log.error(logged, `budget alert webhook failed: ${failure.final ? 'refused' : 'giving up'}`);
      return;
    }
    const waitMs = retryDelayMs(attempts, options);
    const next = new Date(done.getTime() + waitMs).toISOString();
    await mine.set({ next_attempt_at: next, lease_until: null, last_error }).execute();
    log.info({ ...logged, retryInMs: waitMs }, 'budget alert webhook attempt failed');
  }

  async function deliverDue(): Promise<void> {
    const at = new Date().toISOString();
    const due = await db
      .selectFrom('budget_alerts')
      .select('id')
      .where('delivery', '=', 'pending')
      .where('next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', at)]))
      .orderBy('next_attempt_at')
      .limit(BATCH)
      .execute();
    await Promise.all(
      due.map((row) =>
        attempt(row.id).catch((error: unknown) =>
          log.warn({ err: error, alert: row.id }, 'budget alert delivery round failed'),
        ),
      ),
    );
  }

  // Shutdown aborts attempts in flight: each is recorded as failed and retried, by any instance.
  return { deliverDue, close: () => agent.destroy() };
}

/** The start of a receiver's answer; the rest is not read (the stream is destroyed). */
async function boundedText(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= ANSWER_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, ANSWER_BYTES).toString('utf8');
}
