import { Worker } from 'node:worker_threads';
import { once, target } from './measure.ts';

const workers: Worker[] = [];
const spawn = (role: Record<string, unknown>, prof: boolean) =>
  new Promise<{ url: string; token?: string }>((resolve) => {
    const w = new Worker(new URL('./servers.ts', import.meta.url), {
      workerData: role,
      execArgv: prof ? ['--cpu-prof', '--cpu-prof-dir=/tmp/gwprof'] : [],
    });
    w.once('message', resolve);
    workers.push(w);
  });
const sim = await spawn({ role: 'simulator' }, false);
const gw = await spawn(
  {
    role: 'gateway',
    simulatorUrl: sim.url,
    logLevel: 'info',
    dbDir: process.env.DBDIR,
    databaseUrl: undefined,
  },
  true,
);
const mode = process.argv[2] ?? 'json';
const msg = [{ role: 'user', content: 'hi there' }];
const body =
  mode === 'json' ? { model: 'gpt-5.4', messages: msg } : { model: 'gpt-5.4', messages: msg, stream: true };
const t = target(`${gw.url}/v1`, { authorization: `Bearer ${gw.token}` }, body, 1);
for (let i = 0; i < 500; i++) await once(t);
const started = performance.now();
for (let i = 0; i < 4000; i++) await once(t);
console.log('avg ms', (performance.now() - started) / 4000);
await t.pool.close();
for (const w of workers) {
  w.postMessage('close');
  await new Promise((r) => w.once('message', r));
}
process.exit(0);
