/**
 * Cost of the access layer on the /v1 hot path (a script, not a test). Measures, in one run on
 * one machine:
 *   - authenticate() with a warm cache (the steady state: signature cached, token state cached),
 *   - authenticate() with revocationCacheMs = 0 (a database query on every call),
 *   - the signature check alone (what a first call with a new token pays),
 *   - GET /healthz vs GET /v1/account through app.inject (the route adds authenticate + balances).
 *
 *   node bench/gateway/access-auth.ts [--iterations 20000] [--engine sqlite|postgres]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isolatedDatabase } from '@app/db/testing.ts';
import { createAccessControl } from '@app/gateway/access/control.ts';
import { loadSigningKeys, signingKeyLocation } from '@app/gateway/access/keys.ts';
import { seedAccount } from '@app/gateway/access/testing.ts';
import { verifyToken } from '@app/gateway/access/tokens.ts';
import { buildApp } from '@app/gateway/app.ts';
import { loadGatewayConfig } from '@app/gateway/config.ts';
import type { GatewayDatabase } from '@app/gateway/db/schema.ts';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '20000' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
const N = Number(values.iterations);
const engine = values.engine === 'postgres' ? 'postgres' : 'sqlite';

async function measure(name: string, run: () => Promise<unknown>, iterations = N): Promise<number> {
  for (let i = 0; i < Math.min(1000, iterations); i++) await run();
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await run();
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  samples.sort();
  const p50 = samples[Math.floor(iterations * 0.5)] ?? 0;
  const p99 = samples[Math.floor(iterations * 0.99)] ?? 0;
  console.log(
    `${name.padEnd(44)} p50 ${p50.toFixed(1).padStart(7)} µs   p99 ${p99.toFixed(1).padStart(7)} µs`,
  );
  return p50;
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-access-'));
const isolated = await isolatedDatabase<GatewayDatabase>(engine);
try {
  const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent' } });
  const { token } = await seedAccount(isolated.database, {
    email: 'bench@example.com',
    projectSlug: 'bench',
    allocations: { developer: 10 },
    config,
  });
  const keys = await loadSigningKeys(signingKeyLocation(dataDir, undefined));
  const request = {
    socket: { remoteAddress: '127.0.0.1' },
    headers: { authorization: `Bearer ${token}` },
  } as unknown as FastifyRequest;
  const log = pino({ level: 'silent' });
  const db = isolated.database.db;
  const warm = createAccessControl({ db, keys, config: config.access, log });
  const cold = createAccessControl({ db, keys, config: { ...config.access, revocationCacheMs: 0 }, log });
  console.log(`access layer on ${engine}, ${N} iterations`);
  await measure('authenticate, warm cache', () => warm.authenticate(request));
  await measure('authenticate, DB query every call', () => cold.authenticate(request), Math.min(N, 5000));
  await measure('signature verification alone', () => verifyToken(keys, token), Math.min(N, 5000));
  const app = await buildApp(config, { database: isolated.database, defaultMetrics: false });
  const headers = { authorization: `Bearer ${token}` };
  const base = await measure('inject GET /healthz (baseline)', () => app.inject({ url: '/healthz' }), 5000);
  const account = await measure(
    'inject GET /v1/account',
    () => app.inject({ url: '/v1/account', headers }),
    5000,
  );
  console.log(`GET /v1/account / GET /healthz p50 ratio: ${(account / base).toFixed(2)}`);
  await app.close();
  await warm.close();
  await cold.close();
} finally {
  await isolated.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
