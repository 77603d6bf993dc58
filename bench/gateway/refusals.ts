/**
 * Refusals against successes (a script, not a test): one gateway answers 200 to a project with
 * budget and 402 to a project whose buckets cannot cover a request's worst-case reservation,
 * at concurrency 64 (`--concurrency`), the cells taking turns. The gateway of this tree and,
 * with `--baseline DIR` (a copy of the repository, as for run.ts), that of another version, on
 * the same kind of database, in one run. Prints requests/s and CPU microseconds of each
 * gateway's thread per request, and the ratio of 402s/s to 200s/s.
 *
 *   node bench/gateway/refusals.ts [--baseline DIR] [--seconds 2] [--rounds 3] [--concurrency 64]
 *                                  [--db-dir DIR] [--database-url postgres://...]
 *
 * The refused project has $0.001 in each bucket of the model: the first requests get what is
 * left (partial reservations) and overspend it, every later one is a 402. Three request kinds:
 * 200 (automatic selection, the funded project), 402 automatic (the sticky provider is refused,
 * then the other one is considered) and 402 with an explicit provider (`gpt-5.4@developer`).
 */
import { loadavg, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, type Target, target } from './measure.ts';
import { spawnServer, type Started } from './spawn.ts';
import { cell } from './throughput.ts';

const { values: args } = parseArgs({
  options: {
    baseline: { type: 'string' },
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '64' },
    'db-dir': { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const KINDS = ['200', '402 auto', '402 @developer'] as const;
type RequestKind = (typeof KINDS)[number];
const messages = [
  { role: 'user', content: 'Summarise the benefits of connection pooling in two sentences.' },
];

interface Subject {
  readonly name: string;
  readonly server: Started;
  readonly targets: Record<RequestKind, Target>;
}

async function startSubject(name: string, simulator: Started, root?: string): Promise<Subject> {
  const server = await spawnServer({
    role: 'gateway',
    simulatorUrl: simulator.ready.origin ?? '',
    simulatorEnv: simulator.ready.env ?? {},
    logLevel: 'info',
    dbDir: args['db-dir'],
    databaseUrl: args['database-url'],
    projects: { refused: { developer: 0.001, cloud_c: 0.001 } },
    ...(root && { root }),
  });
  const url = `${server.ready.url}/v1`;
  const bearer = (token = '') => ({ authorization: `Bearer ${token}` });
  const refused = bearer(server.ready.tokens?.refused);
  const targets = {
    '200': target(url, bearer(server.ready.token), { model: 'gpt-5.4', messages }, CONCURRENCY),
    '402 auto': target(url, refused, { model: 'gpt-5.4', messages }, CONCURRENCY, 402),
    '402 @developer': target(url, refused, { model: 'gpt-5.4@developer', messages }, CONCURRENCY, 402),
  };
  await spendAll(targets['402 auto']);
  return { name, server, targets };
}

/** Sends the refused project's requests one at a time until ten in a row are 402s. */
async function spendAll(t: Target): Promise<void> {
  for (let sent = 0, refusedInARow = 0; refusedInARow < 10; sent++) {
    if (sent > 200) throw new Error(`${t.origin}: the refused project still gets answers after 200 requests`);
    const response = await t.pool.request({ method: 'POST', path: t.path, headers: t.headers, body: t.body });
    await response.body.text();
    refusedInARow = response.statusCode === 402 ? refusedInARow + 1 : 0;
  }
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

async function main(): Promise<void> {
  const simulator = await spawnServer({ role: 'simulator' });
  const subjects = [await startSubject('this', simulator)];
  if (args.baseline) subjects.push(await startSubject('base', simulator, resolve(args.baseline)));
  const db = args['database-url'] ? 'PostgreSQL' : `SQLite in ${args['db-dir'] ?? tmpdir()}`;
  console.log(
    `Refusals against successes: c=${CONCURRENCY}, ${SECONDS} s per cell, median of ${ROUNDS} rounds; ` +
      `database ${db}; load average at start ${loadavg()
        .map((v) => v.toFixed(1))
        .join(' ')}`,
  );
  if (args.baseline) console.log(`base = the gateway of ${args.baseline}`);
  console.log();
  const runs = new Map<string, { rate: number; cpu: number }[]>();
  // Round 0 warms every cell up and is not counted.
  for (let round = 0; round <= ROUNDS; round++)
    for (const kind of KINDS)
      for (const subject of subjects) {
        const measured = await cell(
          subject.targets[kind],
          CONCURRENCY,
          subject.server,
          round === 0 ? 0.5 : SECONDS,
        );
        if (round > 0)
          runs.set(`${subject.name} ${kind}`, [...(runs.get(`${subject.name} ${kind}`) ?? []), measured]);
      }
  const figure = (subject: Subject, kind: RequestKind, pick: 'rate' | 'cpu') =>
    median((runs.get(`${subject.name} ${kind}`) ?? []).map((m) => m[pick]));
  console.log(
    '| gateway | 200/s | 402/s auto | 402/s @developer | 402 auto / 200 | 402 @dev / 200 | CPU us per 200 | per 402 auto | per 402 @dev |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const subject of subjects) {
    const rate = (kind: RequestKind) => figure(subject, kind, 'rate');
    const cpu = (kind: RequestKind) => figure(subject, kind, 'cpu');
    const cells = [
      ...KINDS.map((kind) => rate(kind).toFixed(0)),
      `${(rate('402 auto') / rate('200')).toFixed(2)}x`,
      `${(rate('402 @developer') / rate('200')).toFixed(2)}x`,
      ...KINDS.map((kind) => cpu(kind).toFixed(0)),
    ];
    console.log(`| ${subject.name} | ${cells.join(' | ')} |`);
  }
  console.log(
    `\nload average at end: ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}`,
  );
  for (const subject of subjects) {
    await Promise.all(Object.values(subject.targets).map((t) => t.pool.close()));
    await subject.server.stop();
  }
  await simulator.stop();
}

await main();
