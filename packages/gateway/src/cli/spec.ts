/**
 * What each subcommand accepts, checked before anything heavy is loaded or the database is
 * opened: wrong usage is answered at once, and handlers receive complete arguments.
 */
import { PeriodError, parsePeriod, USAGE_GROUPINGS } from '../access/usage-period.ts';
import { MAX_ALLOCATION_USD } from '../money.ts';

export interface CommandSpec {
  /** Positional argument names, all required, in order. */
  readonly args: readonly string[];
  readonly required?: readonly string[];
  readonly optional?: readonly string[];
  readonly flags?: readonly string[];
}

export const SPECS: Readonly<Record<string, CommandSpec>> = {
  'users add': { args: [], required: ['email'], flags: ['admin'] },
  'users list': { args: [], flags: ['json'] },
  'projects list': { args: [], flags: ['json'] },
  'members list': { args: ['SLUG'], flags: ['json'] },
  'projects add': { args: ['SLUG'], optional: ['ip-allow'] },
  'projects ip-allow': { args: ['SLUG', 'CIDRS'] },
  'members request': { args: ['SLUG', 'EMAIL'] },
  'members approve': { args: ['SLUG', 'EMAIL'], flags: ['admin'] },
  'members revoke': { args: ['SLUG', 'EMAIL'] },
  'allocations set': { args: ['SLUG', 'PROVIDER', 'USD'] },
  'limits set': { args: ['SLUG', 'SCOPE'], optional: ['rpm', 'tpm', 'concurrency'] },
  'limits show': { args: ['SLUG'] },
  'tokens issue': { args: [], required: ['email', 'project'], optional: ['ttl', 'description'] },
  'tokens list': { args: [], optional: ['email', 'project'], flags: ['json'] },
  'tokens revoke': { args: ['JTI'] },
  usage: { args: ['SLUG'], optional: ['since', 'until', 'by'], flags: ['csv'] },
  'admin-keys create': { args: [], required: ['description'], optional: ['scopes', 'ttl'] },
  'admin-keys list': { args: [], flags: ['json'] },
  'admin-keys revoke': { args: ['ID'] },
  'alerts set': { args: ['SLUG'], optional: ['thresholds', 'webhook'] },
  'alerts show': { args: ['SLUG'], flags: ['json'] },
  'alerts rotate-secret': { args: ['SLUG'] },
  'alerts dismiss': { args: ['SLUG'] },
};

export class UsageError extends Error {}

export interface Invocation {
  readonly command: string;
  readonly args: Readonly<Record<string, string>>;
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
}

/** Splits `positionals` into command and arguments and checks them against the spec. */
export function validate(
  positionals: readonly string[],
  options: Readonly<Record<string, string | boolean | undefined>>,
): Invocation {
  const [group = '', action = ''] = positionals;
  const command = group === 'usage' ? 'usage' : `${group} ${action}`;
  const spec = SPECS[command];
  if (!spec) throw new UsageError(`unknown command '${positionals.slice(0, 2).join(' ')}'`);
  const rest = positionals.slice(command === 'usage' ? 1 : 2);
  const missing = spec.args[rest.length];
  if (missing !== undefined) throw new UsageError(`missing ${missing}`);
  if (rest.length > spec.args.length) throw new UsageError(`unexpected argument '${rest[spec.args.length]}'`);
  const allowed = new Set([...(spec.required ?? []), ...(spec.optional ?? []), ...(spec.flags ?? [])]);
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && !allowed.has(name))
      throw new UsageError(`--${name} is not an option of '${command}'`);
  }
  for (const name of spec.required ?? []) {
    const value = options[name];
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`missing --${name}`);
  }
  if (command === 'alerts set' && options.thresholds === undefined && options.webhook === undefined)
    throw new UsageError(`'alerts set' needs --thresholds and/or --webhook`);
  const args = Object.fromEntries(spec.args.map((name, i) => [name, rest[i] ?? '']));
  for (const name of ['rpm', 'tpm', 'concurrency']) {
    const value = options[name];
    if (value !== undefined && (typeof value !== 'string' || !/^(\d+|none)$/.test(value)))
      throw new UsageError(`--${name} must be a whole number or 'none', got '${String(value)}'`);
  }
  if (args.ID !== undefined && !/^[1-9]\d{0,14}$/.test(args.ID))
    throw new UsageError(
      `ID must be an admin key's id (a whole number, see admin-keys list), got '${args.ID}'`,
    );
  // 1e6 is an amount too; the range is checked where every caller's amount is (usdToMicros).
  if (args.USD !== undefined && !/^\d+(\.\d+)?(e[+-]?\d+)?$/i.test(args.USD))
    throw new UsageError(
      `USD must be an amount in US dollars from 0 to ${MAX_ALLOCATION_USD}, such as 25 or 12.50; got '${args.USD}'`,
    );
  if (command === 'usage') checkUsageOptions(options);
  return { command, args, options };
}

/** `usage --since/--until/--by`: a real period and a known grouping. */
function checkUsageOptions(options: Readonly<Record<string, string | boolean | undefined>>): void {
  const text = (name: string) => (typeof options[name] === 'string' ? options[name] : undefined);
  try {
    parsePeriod({ since: text('since'), until: text('until') }, '--');
  } catch (error) {
    if (error instanceof PeriodError) throw new UsageError(error.message);
    throw error;
  }
  const by = text('by');
  if (by !== undefined && !(USAGE_GROUPINGS as readonly string[]).includes(by))
    throw new UsageError(`--by must be one of ${USAGE_GROUPINGS.join(', ')}, got '${by}'`);
}
