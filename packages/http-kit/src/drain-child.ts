/**
 * Child process for the graceful-shutdown test: a kit app with a slow route and a slow
 * stream, listening on an ephemeral port, closed by closeOnSignals on SIGTERM.
 */
import { Readable } from 'node:stream';
import { closeOnSignals } from './shutdown.ts';
import { buildTestApp } from './test-app.ts';

const { app } = await buildTestApp();
app.get('/stream', async (_request, reply) => {
  async function* chunks() {
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      yield `data: ${i}\n\n`;
    }
  }
  return reply.type('text/event-stream').send(Readable.from(chunks()));
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
closeOnSignals([app], { deadlineMs: Number(process.env.DRAIN_DEADLINE_MS ?? 5000), log: () => {} });
process.stdout.write(`${address}\n`);
