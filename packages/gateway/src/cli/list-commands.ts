/**
 * gatewayctl's `list` commands: a table for people, `--json` (one JSON document on stdout) for
 * scripts. The rows come from the access area's listings, the same the dashboard reads.
 */
import { listTokens } from '../access/admin.ts';
import { listMembers, listProjects, listUsers } from '../access/listings.ts';
import type { Context, Handler } from './commands.ts';
import type { Invocation } from './spec.ts';

/** Columns of text padded to line up; the first row is the header. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, col) => cell.padEnd(widths[col] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/** Prints `items` as JSON with --json, otherwise as a table (or `none` when there are none). */
export function show<T>(
  { print }: Context,
  args: Invocation,
  items: readonly T[],
  columns: readonly (readonly [string, (item: T) => string])[],
  none: string,
): void {
  if (args.options.json === true) return print(JSON.stringify(items, null, 2));
  if (items.length === 0) return print(none);
  const rows = items.map((item) => columns.map(([, cell]) => cell(item)));
  for (const line of table([columns.map(([title]) => title), ...rows])) print(line);
}

const option = (args: Invocation, name: string): string | undefined => {
  const value = args.options[name];
  return typeof value === 'string' ? value : undefined;
};

export const LIST_COMMANDS: Readonly<Record<string, Handler>> = {
  'users list': async (context, args) => {
    show(
      context,
      args,
      await listUsers(context.database.db),
      [
        ['ID', (u) => String(u.id)],
        ['EMAIL', (u) => u.email],
        ['ADMIN', (u) => (u.isAdmin ? 'yes' : '-')],
        ['PROJECTS', (u) => String(u.projects)],
        ['CREATED', (u) => u.createdAt],
      ],
      'no users',
    );
  },
  'projects list': async (context, args) => {
    show(
      context,
      args,
      await listProjects(context.database.db),
      [
        ['ID', (p) => String(p.id)],
        ['SLUG', (p) => p.slug],
        ['MEMBERS', (p) => String(p.approvedMembers)],
        ['PENDING', (p) => String(p.pendingMembers)],
        ['IP ALLOWLIST', (p) => (p.ipAllow.length > 0 ? p.ipAllow.join(',') : 'any')],
        ['CREATED', (p) => p.createdAt],
      ],
      'no projects',
    );
  },
  'members list': async (context, args) => {
    show(
      context,
      args,
      await listMembers(context.database.db, args.args.SLUG ?? ''),
      [
        ['EMAIL', (m) => m.email],
        ['STATUS', (m) => m.status],
        ['ROLE', (m) => (m.isAdmin ? 'admin' : 'member')],
        ['REQUESTED', (m) => m.requestedAt],
      ],
      'no members',
    );
  },
  'tokens list': async (context, args) => {
    const email = option(args, 'email');
    const project = option(args, 'project');
    const tokens = await listTokens(context.database.db, {
      ...(email === undefined ? {} : { email }),
      ...(project === undefined ? {} : { project }),
    });
    show(
      context,
      args,
      tokens,
      [
        ['ID', (t) => t.jti],
        ['USER', (t) => t.email],
        ['PROJECT', (t) => t.projectSlug],
        ['STATE', (t) => t.state],
        ['CREATED', (t) => t.createdAt],
        ['EXPIRES', (t) => t.expiresAt],
        ['LAST USED', (t) => t.lastUsedAt ?? '-'],
        ['DESCRIPTION', (t) => t.description],
      ],
      'no tokens',
    );
  },
};
