/**
 * gatewayctl usage SLUG: the buckets' allocations and spend (no period options), or with
 * --since/--until/--by the spend of a period grouped by day, model, token or user, read from
 * the usage ledger. --csv prints either as CSV for spreadsheets and scripts.
 */
import type { Meters } from '@app/provider-adapters/model/meters.ts';
import { findProject, projectUsage } from '../access/admin.ts';
import { parsePeriod, periodOf, type UsageGrouping } from '../access/usage-period.ts';
import { totalOf, type UsageFigures, type UsageRow, usageRows } from '../access/usage-report.ts';
import { metersPresent } from '../db/usage-meters.ts';
import { formatUsd } from '../money.ts';
import type { Context, Handler } from './commands.ts';
import { table } from './list-commands.ts';
import type { Invocation } from './spec.ts';

/** A header row and data rows, printed as a table or CSV. */
interface Sheet {
  readonly header: readonly string[];
  readonly csvHeader: readonly string[];
  /** How many leading columns are text (names); the rest are numbers. */
  readonly keyColumns: number;
  readonly rows: readonly (readonly string[])[];
  /** The table's last line (absent from the CSV, which a script sums itself). */
  readonly total?: readonly string[];
}

/**
 * One CSV field: quoted when it holds a separator, quote or line break (RFC 4180). Text a
 * spreadsheet would run as a formula (=, +, -, @ first) gets a leading apostrophe.
 */
function csvField(value: string, text: boolean): string {
  const safe = text && /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function print({ print }: Context, sheet: Sheet, csv: boolean, none: string): void {
  if (csv) {
    print(sheet.csvHeader.join(','));
    for (const row of sheet.rows) print(row.map((cell, i) => csvField(cell, i < sheet.keyColumns)).join(','));
    return;
  }
  if (sheet.rows.length === 0) return print(none);
  for (const line of table([sheet.header, ...sheet.rows, ...(sheet.total ? [sheet.total] : [])])) print(line);
}

/** Amounts in CSV: US dollars as a plain number (the table's figure without the $). */
const plainUsd = (micros: number) => formatUsd(micros).replace('$', '');

async function allocations(context: Context, args: Invocation): Promise<void> {
  const buckets = await projectUsage(context.database.db, args.args.SLUG ?? '');
  const csv = args.options.csv === true;
  const usd = csv ? plainUsd : formatUsd;
  const meters = metersPresent(buckets);
  const rows = buckets.map((b) => [
    b.provider,
    usd(b.allocatedMicros),
    usd(b.spentMicros),
    usd(b.reservedMicros),
    usd(Math.max(0, b.allocatedMicros - b.spentMicros - b.reservedMicros)),
    String(b.requests),
    String(b.promptTokens),
    String(b.completionTokens),
    ...meterCells(b.meters, meters),
  ]);
  const header = [
    'PROVIDER',
    'ALLOCATED',
    'SPENT',
    'RESERVED',
    'REMAINING',
    'REQUESTS',
    'TOKENS IN',
    'TOKENS OUT',
    ...meterTitles(meters),
  ];
  const csvHeader = [
    'provider',
    'allocated_usd',
    'spent_usd',
    'reserved_usd',
    'remaining_usd',
    'requests',
    'input_tokens',
    'output_tokens',
    ...meters,
  ];
  print(context, { header, csvHeader, keyColumns: 1, rows }, csv, 'no allocations');
}

const FIGURE_COLUMNS = [
  ['REQUESTS', 'requests'],
  ['TOKENS IN', 'input_tokens'],
  ['CACHED IN', 'cached_input_tokens'],
  ['TOKENS OUT', 'output_tokens'],
  ['COST', 'cost_usd'],
] as const;

const KEY_COLUMNS: Readonly<Record<UsageGrouping, readonly (readonly [string, string])[]>> = {
  day: [['DAY', 'day']],
  model: [
    ['PROVIDER', 'provider'],
    ['MODEL', 'model'],
  ],
  token: [
    ['TOKEN', 'token'],
    ['USER', 'user'],
  ],
  user: [['USER', 'user']],
};

/**
 * After the fixed figures, one column per meter present in the report (named as the meter; the
 * table's title in capitals): a meter new to the ledger shows up without a change here.
 */
const meterTitles = (meters: readonly string[]) => meters.map((meter) => meter.toUpperCase());
const meterCells = (values: Meters, meters: readonly string[]) =>
  meters.map((meter) => String(values[meter] ?? 0));

const figureCells = (row: UsageFigures, usd: (micros: number) => string, meters: readonly string[]) => [
  String(row.requests),
  String(row.inputTokens),
  String(row.cachedInputTokens),
  String(row.outputTokens),
  usd(row.costMicros),
  ...meterCells(row.meters, meters),
];

async function emails(context: Context, rows: readonly UsageRow[]): Promise<Map<number, string>> {
  const ids = [...new Set(rows.flatMap((row) => (row.userId === undefined ? [] : [row.userId])))];
  if (ids.length === 0) return new Map();
  const users = await context.database.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('id', 'in', ids)
    .execute();
  return new Map(users.map((user) => [user.id, user.email]));
}

async function report(context: Context, args: Invocation, by: UsageGrouping): Promise<void> {
  const text = (name: string) => (typeof args.options[name] === 'string' ? args.options[name] : undefined);
  const { sinceMs, untilMs } = parsePeriod({ since: text('since'), until: text('until') }, '--');
  const project = await findProject(context.database.db, args.args.SLUG ?? '');
  const filter = { projectId: project.id, ...periodOf(sinceMs, untilMs) };
  const rows = await usageRows(context.database.db, filter, [by]);
  const names = await emails(context, rows);
  const user = (row: UsageRow) => names.get(row.userId ?? 0) ?? `user ${row.userId ?? '?'}`;
  const keys: Record<UsageGrouping, (row: UsageRow) => string[]> = {
    day: (row) => [row.day ?? ''],
    model: (row) => [row.provider ?? '', row.model ?? '-'],
    token: (row) => [row.tokenJti ?? '', user(row)],
    user: (row) => [user(row)],
  };
  const csv = args.options.csv === true;
  const usd = csv ? plainUsd : formatUsd;
  const meters = metersPresent(rows);
  const columns = [...KEY_COLUMNS[by], ...FIGURE_COLUMNS];
  const blank = KEY_COLUMNS[by].slice(1).map(() => '');
  print(
    context,
    {
      header: [...columns.map(([title]) => title), ...meterTitles(meters)],
      csvHeader: [...columns.map(([, name]) => name), ...meters],
      keyColumns: KEY_COLUMNS[by].length,
      rows: rows.map((row) => [...keys[by](row), ...figureCells(row, usd, meters)]),
      total: ['total', ...blank, ...figureCells(totalOf(rows), usd, meters)],
    },
    csv,
    'no usage in this period',
  );
}

export const usageCommand: Handler = async (context, args) => {
  const { since, until, by } = args.options;
  if (since === undefined && until === undefined && by === undefined) return allocations(context, args);
  return report(context, args, typeof by === 'string' ? (by as UsageGrouping) : 'day');
};
