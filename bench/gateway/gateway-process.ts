/**
 * Child-process entry of the slow-streams phase (`child_process.fork`): the gateway alone in a
 * process, so its RSS is the gateway's, with `monitorEventLoopDelay` on its own event loop.
 * Bench-only: the production server is not touched. Messages over IPC:
 *   parent -> child: { role } (start), 'reset' (clear the histogram and the RSS peak), 'sample',
 *                    'cpu', 'close'
 *   child -> parent: Ready, then a Sample per 'sample', a CpuTime per 'cpu', 'closed'
 * Started with `--cpu-prof` by the parent when a profile is asked for (written at exit).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startGateway } from './gateway-server.ts';
import type { GatewayRole } from './servers.ts';

export interface Sample {
  /** Largest RSS seen since the last reset (sampled every 50 ms), bytes. */
  readonly rssPeak: number;
  readonly rssNow: number;
  /** Event-loop delay since the last reset, ms. */
  readonly delayP99: number;
  readonly delayMax: number;
}

const send = (message: unknown) => process.send?.(message);
const histogram = monitorEventLoopDelay({ resolution: 10 });
let rssPeak = 0;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
}, 50);

function sample(): Sample {
  const rssNow = process.memoryUsage.rss();
  return {
    rssPeak: Math.max(rssPeak, rssNow),
    rssNow,
    delayP99: histogram.percentile(99) / 1e6,
    delayMax: histogram.max / 1e6,
  };
}

process.once('message', async (role: GatewayRole) => {
  const gateway = await startGateway(role);
  histogram.enable();
  process.on('message', async (message: unknown) => {
    if (message === 'reset') {
      histogram.reset();
      rssPeak = 0;
    } else if (message === 'sample') send(sample());
    else if (message === 'cpu') send(process.cpuUsage());
    else if (message === 'close') {
      clearInterval(sampler);
      histogram.disable();
      await gateway.close();
      // exit (not just disconnect): --cpu-prof writes its profile at exit.
      process.send?.('closed', () => process.exit(0));
    }
  });
  send(gateway.ready);
});
