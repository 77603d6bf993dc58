/**
 * Start-up time and memory of the gateway with tracing off (a script, not a test): the real
 * entry point (`packages/gateway/src/main.ts`, the embedded default: SQLite, bundled simulator)
 * is started in a child process until it prints that it listens; then its CPU time (user +
 * system, from /proc: steadier than wall time on a shared machine, which is printed too) and
 * resident set size are read. Two variants take turns in the same run:
 *   - `lazy`: as it starts today (no OTLP endpoint: the OpenTelemetry packages are not loaded);
 *   - `eager`: the same, with the tracing module imported first (`--import`), which is what the
 *     gateway did before the import was made lazy: the baseline.
 * A third, `tracing on` (an OTLP endpoint set, nothing listening there), is printed for scale.
 * Prints the median of each and the ratios lazy/eager.
 *
 *   node bench/gateway/startup.ts [--runs 7]
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(args.runs);
const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'packages/gateway/src/main.ts');
const TRACING = join(ROOT, 'packages/gateway/src/telemetry/tracing.ts');

interface Variant {
  readonly name: string;
  readonly execArgv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const VARIANTS: readonly Variant[] = [
  { name: 'eager', execArgv: ['--import', TRACING], env: {} },
  { name: 'lazy', execArgv: [], env: {} },
  // Port 9 (discard): nothing is exported during start-up anyway.
  { name: 'tracing on', execArgv: [], env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } },
];

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly rssKiB: number;
}

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time (user + system) and VmRSS of a process (Linux /proc). */
function usage(pid: number): { cpuMs: number; rssKiB: number } {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssKiB };
}

async function listening(child: ChildProcess): Promise<void> {
  let output = '';
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    output += chunk.toString();
    if (output.includes('model gateway listening on')) return;
  }
  throw new Error(`the gateway did not start:\n${output}`);
}

async function startOnce(variant: Variant, dataDir: string): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, [...variant.execArgv, MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      GATEWAY_PORT: '0',
      GATEWAY_SIMULATOR_PORT: '0',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_DATABASE_URL: `sqlite:${join(dataDir, 'gateway.db')}`,
      GATEWAY_LOG_LEVEL: 'warn',
      ...variant.env,
    },
    // Its stderr says it drains on SIGTERM, every run: not shown.
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await listening(child);
    const wallMs = performance.now() - started;
    return { wallMs, ...usage(child.pid ?? 0) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
try {
  // The first start creates the database and the demo account; the measured ones open them.
  await startOnce(VARIANTS[1] as Variant, dataDir);
  const samples = new Map<string, Sample[]>(VARIANTS.map((variant) => [variant.name, []]));
  for (let run = 0; run < RUNS; run++)
    for (const variant of run % 2 === 0 ? VARIANTS : [...VARIANTS].reverse())
      samples.get(variant.name)?.push(await startOnce(variant, dataDir));
  const of = (name: string): Sample => {
    const list = samples.get(name) ?? [];
    const at = (key: keyof Sample) => median(list.map((sample) => sample[key]));
    return { wallMs: at('wallMs'), cpuMs: at('cpuMs'), rssKiB: at('rssKiB') };
  };
  for (const variant of VARIANTS) {
    const { wallMs, cpuMs, rssKiB } = of(variant.name);
    const figures = `CPU ${cpuMs.toFixed(0)} ms  wall ${wallMs.toFixed(0)} ms  RSS ${(rssKiB / 1024).toFixed(1)} MiB`;
    console.log(`${variant.name.padEnd(10)}  start-up ${figures}  (median of ${RUNS})`);
  }
  const [eager, lazy] = [of('eager'), of('lazy')];
  const ratio = (key: keyof Sample) => (lazy[key] / eager[key]).toFixed(3);
  console.log(`ratio lazy/eager  CPU ${ratio('cpuMs')}  wall ${ratio('wallMs')}  RSS ${ratio('rssKiB')}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
