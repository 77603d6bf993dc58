/** Starting the benchmark's servers: worker threads (servers.ts) and the gateway child process. */
import { execFileSync, fork } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import type { Sample } from './gateway-process.ts';
import type { CpuTime, GatewayRole, Ready, ServerRole } from './servers.ts';

export interface Started {
  readonly ready: Ready;
  /** CPU time of the server's thread (its process, for a forked gateway) so far. */
  cpu(): Promise<CpuTime>;
  stop(): Promise<void>;
}

export function spawnServer(
  role: ServerRole,
  script = new URL('./servers.ts', import.meta.url),
): Promise<Started> {
  const worker = new Worker(script, { workerData: role });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (ready: Ready) =>
      resolve({
        ready,
        cpu: () =>
          new Promise<CpuTime>((done) => {
            if (!ready.answersCpu) return done({ user: Number.NaN, system: Number.NaN });
            worker.once('message', done);
            worker.postMessage('cpu');
          }),
        stop: () =>
          new Promise<void>((done) => {
            worker.once('message', () => void worker.terminate().then(() => done()));
            worker.postMessage('close');
          }),
      }),
    );
  });
}

export interface GatewayProcess extends Started {
  reset(): void;
  sample(): Promise<Sample>;
}

/** The gateway in a process of its own (gateway-process.ts); `cpuProfDir` adds `--cpu-prof`. */
export function forkGateway(
  role: GatewayRole,
  cpuProfDir?: string,
  script = new URL('./gateway-process.ts', import.meta.url),
): Promise<GatewayProcess> {
  const profile = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  // BENCH_GATEWAY_FLAGS: V8 flags for the gateway processes alone (e.g. `--trace-gc`).
  const flags = process.env['BENCH_GATEWAY_FLAGS']?.split(' ').filter(Boolean) ?? [];
  const child = fork(script, {
    execArgv: [...process.execArgv, ...profile, ...flags],
  });
  // BENCH_GATEWAY_CPUS: the cores the gateway processes run on (taskset), e.g. `1` while the load
  // generator and the simulator are kept on core 0 (`taskset -c 0 npm run bench:gateway ...`):
  // on a 2-core machine the scheduler's moves otherwise swing CPU per request by +-10%.
  const cpus = process.env['BENCH_GATEWAY_CPUS'];
  if (cpus && child.pid !== undefined) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(child.pid)]);
  const next = <T>() =>
    new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T)));
  child.send(role);
  return next<Ready>().then((ready) => ({
    ready,
    reset: () => void child.send('reset'),
    cpu: () => {
      const answer = next<CpuTime>();
      child.send('cpu');
      return answer;
    },
    sample: () => {
      const answer = next<Sample>();
      child.send('sample');
      return answer;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await (child.send('close'), next<string>());
      await exited;
    },
  }));
}
