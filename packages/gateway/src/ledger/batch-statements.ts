import type { Engine } from '@app/db';
import type { Meters } from '@app/provider-adapters/model/meters.ts';
import { CompiledQuery } from 'kysely';
import type { UsageStatus } from '../db/schema.ts';

/** One usage ledger row, in the order of USAGE_COLUMNS. */
export type UsageRow = readonly [
  tokenJti: string,
  userId: number,
  projectId: number,
  provider: string,
  model: string | null,
  promptTokens: number,
  completionTokens: number,
  /** JSON object of the row's meters (`{}` for a release). */
  meters: string,
  reservedMicros: number,
  costMicros: number,
  status: Exclude<UsageStatus, 'reserved'>,
  reason: string | null,
  createdAt: string,
  settledAt: string,
  sessionId: string | null,
  requestId: string | null,
  attempt: number | null,
  effort: string | null,
  tier: string | null,
  /** 1 when the row starts its request (reports count it as a request), else 0. */
  newRequest: 0 | 1,
  latencyMs: number | null,
  firstTokenMs: number | null,
  outcome: string | null,
  httpStatus: number | null,
];

const USAGE_COLUMNS = [
  'token_jti',
  'user_id',
  'project_id',
  'provider',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'meters',
  'reserved_micros',
  'cost_micros',
  'status',
  'reason',
  'created_at',
  'settled_at',
  'session_id',
  'request_id',
  'attempt',
  'effort',
  'tier',
  'new_request',
  'latency_ms',
  'first_token_ms',
  'outcome',
  'http_status',
] as const;

/** The PostgreSQL type of each column of USAGE_COLUMNS, for the arrays `unnest` takes apart. */
const PG_TYPES = [
  'text',
  'int4',
  'int4',
  'text',
  'text',
  'int4',
  'int4',
  'jsonb',
  'int8',
  'int8',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'int4',
  'text',
  'text',
  'int4',
  'int4',
  'int4',
  'text',
  'int4',
];

/**
 * A row's meters as stored (a JSON object of whole, positive quantities): a meter of 0 is
 * absent, so rows stay small and a report lists only the meters something used.
 */
export function metersJson(meters: Meters | undefined): string {
  if (meters === undefined) return '{}';
  // metersOf's meters are already that (the usual case, serialized as they are); others are
  // copied without what does not fit. Every settle writes one: a copy each was half its cost.
  for (const name in meters) {
    const quantity = meters[name] as number;
    if (!Number.isSafeInteger(quantity) || quantity <= 0) return JSON.stringify(wholeMeters(meters));
  }
  return JSON.stringify(meters);
}

function wholeMeters(meters: Meters): Record<string, number> {
  const stored: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(meters))
    if (Number.isFinite(quantity) && quantity > 0) stored[name] = Math.round(quantity);
  return stored;
}

/** Largest SQLite INSERT, in rows: 24 x 256 bound values, below SQLite's 32,766. */
const SQLITE_MAX_ROWS = 256;

/**
 * The group commit's statements, compiled once per engine: a commit runs a few statements
 * every few milliseconds, and building them with Kysely's query builder on each commit was most
 * of the commit's CPU (docs/gateway/chat-completions.md, "Ledger group commit"). The texts are
 * fixed, so node:sqlite's statement cache (@app/db) prepares each one once.
 */
export interface LedgerStatements {
  /** The INSERTs of a batch: one on PostgreSQL; on SQLite one per power-of-two slice. */
  insertUsage(rows: readonly UsageRow[]): CompiledQuery[];
  /** Takes `decrement` out of an open lease and renews it; 0 rows when the lease is closed. */
  drainLease(leaseId: number, decrement: number, expiresAt: string): CompiledQuery;
  /** Moves a batch's cost of one bucket into `spent`, `decrement` of it out of `reserved`. */
  chargeBucket(
    projectId: number,
    provider: string,
    cost: number,
    decrement: number,
    now: string,
  ): CompiledQuery;
}

export function ledgerStatements(engine: Engine): LedgerStatements {
  const p = engine === 'postgres' ? (n: number) => `$${n}` : () => '?';
  const drain = `update budget_leases set amount_micros = amount_micros - ${p(1)}, expires_at = ${p(2)} where id = ${p(3)} and closed_at is null`;
  const charge = `update allocations set spent_micros = spent_micros + ${p(1)}, reserved_micros = reserved_micros - ${p(2)}, updated_at = ${p(3)} where project_id = ${p(4)} and provider = ${p(5)}`;
  return {
    insertUsage: engine === 'postgres' ? postgresInsert() : sqliteInsert(),
    drainLease: (leaseId, decrement, expiresAt) => CompiledQuery.raw(drain, [decrement, expiresAt, leaseId]),
    chargeBucket: (projectId, provider, cost, decrement, now) =>
      CompiledQuery.raw(charge, [cost, decrement, now, projectId, provider]),
  };
}

const insertHead = `insert into usage (${USAGE_COLUMNS.join(', ')})`;

/** One statement for any batch: each column travels as one array parameter. */
function postgresInsert(): LedgerStatements['insertUsage'] {
  const arrays = PG_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
  const text = `${insertHead} select * from unnest(${arrays})`;
  return (rows) => {
    const columns: unknown[][] = USAGE_COLUMNS.map(() => new Array<unknown>(rows.length));
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as UsageRow;
      for (let c = 0; c < columns.length; c++) (columns[c] as unknown[])[r] = row[c];
    }
    return [CompiledQuery.raw(text, columns)];
  };
}

/**
 * Multi-row VALUES statements in power-of-two sizes (at most nine texts, each prepared once): a
 * batch of n rows is a handful of statements, against one statement (and one await) per row.
 */
function sqliteInsert(): LedgerStatements['insertUsage'] {
  const one = `(${USAGE_COLUMNS.map(() => '?').join(', ')})`;
  const texts = new Map<number, string>();
  const textOf = (size: number) => {
    let text = texts.get(size);
    if (text === undefined) {
      text = `${insertHead} values ${new Array<string>(size).fill(one).join(', ')}`;
      texts.set(size, text);
    }
    return text;
  };
  return (rows) => {
    const statements: CompiledQuery[] = [];
    for (let start = 0; start < rows.length;) {
      const size = largestPowerOfTwo(Math.min(rows.length - start, SQLITE_MAX_ROWS));
      const values: unknown[] = [];
      for (let r = start; r < start + size; r++) values.push(...(rows[r] as UsageRow));
      statements.push(CompiledQuery.raw(textOf(size), values));
      start += size;
    }
    return statements;
  };
}

const largestPowerOfTwo = (n: number) => 2 ** Math.floor(Math.log2(n));
