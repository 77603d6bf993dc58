/**
 * Runs every `*.test.ts` under packages/ with node's test runner. The file list is built here
 * (not left to a shell glob) so that a run that finds no test file fails loudly instead of
 * passing on nothing. Extra arguments are passed through (e.g. a file filter).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Skipped } from './skip-reporter.ts';

const root = join(import.meta.dirname, '..');

function findTests(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'data') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) findTests(path, out);
    else if (entry.name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'));
const files = [...findTests(join(root, 'packages'), []), ...findTests(join(root, 'scripts'), [])].filter(
  (file) => filters.length === 0 || filters.some((filter) => file.includes(filter)),
);
if (files.length === 0) {
  console.error('run-tests: no test files found; refusing to report success on nothing');
  process.exit(1);
}
console.log(`run-tests: ${files.length} test files on node ${process.version}`);
const scratch = mkdtempSync(join(tmpdir(), 'run-tests-'));
const skippedFile = join(scratch, 'skipped.jsonl');
const reporters = flags.some((flag) => flag.startsWith('--test-reporter'))
  ? []
  : [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'scripts/skip-reporter.ts')}`,
      `--test-reporter-destination=${skippedFile}`,
    ];
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=4', '--test-timeout=120000', ...reporters, ...flags, ...files.sort()],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
if (reporters.length > 0) reportSkipped(skippedFile);
rmSync(scratch, { recursive: true, force: true });
process.exit(result.status ?? 1);

/**
 * Node's summary counts a skipped suite as nothing (its body, and so its tests, never ran):
 * "skipped 3" could hide whole PostgreSQL and Redis suites. Every skipped suite and test is
 * listed here, grouped by reason, with honest counts.
 */
function reportSkipped(path: string): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  const skipped = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Skipped);
  if (skipped.length === 0) {
    console.log('run-tests: nothing was skipped');
    return;
  }
  const suites = skipped.filter((entry) => entry.kind === 'suite').length;
  const tests = skipped.length - suites;
  console.log(
    `\nrun-tests: NOT RUN: ${suites} suite${suites === 1 ? '' : 's'} (whose tests are not in the counts above) and ${tests} test${tests === 1 ? '' : 's'}:`,
  );
  const byReason = Map.groupBy(skipped, (entry) => entry.reason);
  for (const [reason, entries] of byReason) {
    console.log(`  ${reason}:`);
    for (const entry of entries)
      console.log(`    ${entry.kind} "${entry.name}" (${relative(root, entry.file)})`);
  }
}
