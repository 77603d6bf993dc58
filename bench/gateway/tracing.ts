/**
 * What tracing costs (a script, not a test): two gateways in this process, one without an OTLP
 * endpoint (tracing off) and one exporting to a local sink (OTLP/HTTP protobuf, every request
 * sampled), both in front of one simulator, take turns answering the same chat requests through
 * app.inject. Prints CPU time per request of each (user + system, this process: the requests'
 * own work on both sides is the same) and the ratio on/off, JSON and streamed.
 *
 *   node bench/gateway/tracing.ts [--requests 400] [--rounds 5] [--model gpt-5.4@cloud_c]
 *
 * Tracing off is also what the parent commit does; the lead compares it with the main bench's
 * `--baseline`. The sink answers every export at once, so the export's own network time is not
 * in the figure; its serialisation and the batch processor's work are.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  startChatApp,
  type ChatTestApp,
} from '../../packages/gateway/src/front-doors/chat-completions/testing.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '5' },
    model: { type: 'string', default: 'gpt-5.4@cloud_c' },
  },
});
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);

const discard = new Writable({
  write(_chunk, _encoding, done) {
    done();
  },
});

/**
 * An OTLP/HTTP receiver that reads and acknowledges every export, counting bytes, in a child
 * process: receiving is the collector's work, not the gateway's, and stays out of this
 * process's CPU time.
 */
const SINK = `
let bytes = 0;
const server = require('node:http').createServer((request, response) => {
  request.on('data', (chunk) => (bytes += chunk.length));
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('message', () => process.send(bytes));
`;

async function sink(): Promise<{ url: string; bytes: () => Promise<number>; close: () => void }> {
  const child = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${line.toString().trim()}`,
    bytes: async () => {
      child.send('bytes?');
      const [count] = (await once(child, 'message')) as [number];
      return count;
    },
    close: () => child.kill(),
  };
}

async function send(app: ChatTestApp, stream: boolean): Promise<void> {
  const response = await app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers({ 'content-type': 'application/json' }),
    payload: JSON.stringify({
      model: args.model,
      stream,
      messages: [{ role: 'user', content: 'Hello' }],
    }),
  });
  if (response.statusCode !== 200) throw new Error(`${response.statusCode}: ${response.body}`);
}

/** CPU microseconds per request over `REQUESTS` requests, 8 in flight. */
async function cpuPerRequest(app: ChatTestApp, stream: boolean): Promise<number> {
  const before = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next++ < REQUESTS) await send(app, stream);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / REQUESTS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const receiver = await sink();
const behaviour = { firstTokenDelayMs: 0, tokenDelayMs: 0 };
const allocations = { cloud_c: 1_000_000 };
const off = await startChatApp({ behaviour, allocations, logStream: discard });
const on = await startChatApp({
  behaviour,
  allocations,
  logStream: discard,
  telemetry: { endpoint: receiver.url, sampler: 'always_on' },
});
try {
  for (const stream of [false, true]) {
    await cpuPerRequest(off, stream); // warm-up of both
    await cpuPerRequest(on, stream);
    const results = { off: [] as number[], on: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so neither always runs on a warmer process.
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const kind of order) results[kind].push(await cpuPerRequest(kind === 'off' ? off : on, stream));
    }
    const offUs = median(results.off);
    const onUs = median(results.on);
    console.log(
      `${stream ? 'stream' : 'json  '}  CPU/request  tracing off ${offUs.toFixed(0)} µs  on ${onUs.toFixed(0)} µs  ratio on/off ${(onUs / offUs).toFixed(3)}  (median of ${ROUNDS} rounds x ${REQUESTS})`,
    );
  }
} finally {
  await on.close();
  await off.close();
  console.log(`exported ${((await receiver.bytes()) / 1024).toFixed(0)} KiB of OTLP protobuf`);
  receiver.close();
}
