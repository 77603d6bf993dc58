/**
 * The baseline of the energy benchmark: a bare Fastify route (no logger, hooks, auth or
 * database) answering a JSON object the size of one operation. Run as a child process so it
 * gets its own core like the service does.
 */
import { operationExample } from '@app/energy/resources/operation.ts';
import Fastify from 'fastify';

const operation = operationExample;

const app = Fastify({ logger: false });
app.get('/bare', async () => operation);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
