/**
 * Runs every `*.test.ts` under packages/ with node's test runner. The file list is built here
 * (not left to a shell glob) so that a run that finds no test file fails loudly instead of
 * passing on nothing. Extra arguments are passed through (e.g. a file filter).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

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
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=4', '--test-timeout=120000', ...flags, ...files.sort()],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
