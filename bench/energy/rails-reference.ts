/**
 * The stock Rails 6.1 reference of the energy benchmark (rails-reference/config.ru) run under
 * puma, when Debian's ruby-rails, puma, ruby-activemodel-serializers-xml and ruby-sqlite3 are
 * installed. It is seeded with the rows the service's database holds (same ids, same values),
 * and before it is measured its bodies are checked against the service's, so both answer the
 * same records in the same shape.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Selectable } from 'kysely';
import type { OperationsTable } from '@app/energy/db/schema.ts';

const APP = join(import.meta.dirname, 'rails-reference');
const LIBRARIES = ['rails', 'activemodel-serializers-xml', 'sqlite3', 'puma'];
const BOOLEANS = ['weekdays_open', 'saturdays_open', 'sundays_open'] as const;

/** Why the reference cannot run here, or undefined when it can. */
export function railsMissing(): string | undefined {
  const requires = LIBRARIES.map((library) => `require '${library}'`).join('; ');
  const probe = spawnSync('ruby', ['-e', `${requires}; print Rails.version`], { encoding: 'utf8' });
  if (probe.error) return `ruby not found (${probe.error.message})`;
  if (probe.status !== 0) return `a library is missing: ${probe.stderr.trim().split('\n')[0]}`;
  if (!probe.stdout.startsWith('6.1')) return `Rails ${probe.stdout} found, the reference is 6.1`;
  if (spawnSync('puma', ['--version']).error) return 'puma not found';
  return undefined;
}

export interface ReferenceSeed {
  readonly token: string;
  readonly userId: number;
  readonly buildings: ReadonlyArray<{ id: number; name: string }>;
  readonly operations: ReadonlyArray<Selectable<OperationsTable>>;
}

/** The seed file the Rails app loads: the service's rows, booleans as booleans, no elevator. */
function writeSeed(dir: string, seed: ReferenceSeed): string {
  const operations = seed.operations.map(({ elevator_id: _elevator, ...row }) => {
    const converted: Record<string, unknown> = { ...row };
    for (const name of BOOLEANS) converted[name] = row[name] === null ? null : Boolean(row[name]);
    return converted;
  });
  const path = join(dir, 'reference-seed.json');
  const body = { token: seed.token, user_id: seed.userId, buildings: seed.buildings, operations };
  writeFileSync(path, JSON.stringify(body));
  return path;
}

/**
 * puma as a stock Rails app is started: production, one process (as the service is), the
 * thread count of Rails' generated config/puma.rb (RAILS_MAX_THREADS, 5).
 */
export function startRails(dir: string, port: number, seed: ReferenceSeed): ChildProcess {
  const devNull = openSync('/dev/null', 'w');
  return spawn(
    'puma',
    ['-e', 'production', '-t', '5:5', '-b', `tcp://127.0.0.1:${port}`, join(APP, 'config.ru')],
    {
      cwd: APP,
      env: {
        ...process.env,
        REFERENCE_DATABASE: join(dir, 'reference.db'),
        REFERENCE_SEED: writeSeed(dir, seed),
      },
      stdio: ['ignore', devNull, 'inherit'],
    },
  );
}

/** Element names and texts of pretty-printed XML, attributes aside (Rails types fewer values). */
function xmlShape(body: string): string[] {
  return [...body.matchAll(/<([a-z-]+)[^>]*?(\/?)>([^<]*)/g)].map(
    ([, name, empty, text]) => `${name}${empty ? '/' : ''}=${(text ?? '').trim()}`,
  );
}

/** Same records in the same shape: JSON equal as values, XML equal element by element. */
export async function sameBodies(ours: string, reference: string, headers: Record<string, string>) {
  const [a, b] = await Promise.all(
    [ours, reference].map(async (url) => {
      const response = await fetch(url, { headers });
      if (!response.ok) throw new Error(`${url}: ${response.status}`);
      return response.text();
    }),
  );
  const xml = (a ?? '').startsWith('<?xml');
  const equal = xml
    ? JSON.stringify(xmlShape(a ?? '')) === JSON.stringify(xmlShape(b ?? ''))
    : JSON.stringify(sortKeys(JSON.parse(a ?? ''))) === JSON.stringify(sortKeys(JSON.parse(b ?? '')));
  if (!equal) throw new Error(`the reference answers ${reference} differently:\n${a}\n---\n${b}`);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(([x], [y]) => x.localeCompare(y));
  return Object.fromEntries(entries.map(([key, item]) => [key, sortKeys(item)]));
}
