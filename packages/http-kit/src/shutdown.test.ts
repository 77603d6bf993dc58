import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request } from 'undici';

async function startChild(env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'drain-child.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { child, url: line.toString().trim() };
}

describe('graceful shutdown', () => {
  it('drains in-flight requests and streams on SIGTERM, then exits 0', async () => {
    const { child, url } = await startChild();
    const slow = request(`${url}/slow?ms=400`).then(async (r) => ({
      status: r.statusCode,
      body: await r.body.json(),
    }));
    const stream = request(`${url}/stream`).then(async (r) => ({
      status: r.statusCode,
      body: await r.body.text(),
    }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [slowResult, streamResult] = await Promise.all([slow, stream]);
    assert.deepEqual(slowResult, { status: 200, body: { done: true } });
    assert.equal(streamResult.status, 200);
    assert.equal(streamResult.body, 'data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n');
    const [code] = await exited;
    assert.equal(code, 0);
  });

  it('refuses new connections once draining has started', async () => {
    const { child, url } = await startChild();
    const slow = request(`${url}/slow?ms=500`).then((r) => r.body.dump());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await assert.rejects(
      request(`${url}/healthz`, { reset: true }),
      /ECONNREFUSED|other side closed|ECONNRESET/,
    );
    await slow;
    await exited;
  });

  it('gives up on requests still running at the deadline', async () => {
    const { child, url } = await startChild({ DRAIN_DEADLINE_MS: '300' });
    const hung = request(`${url}/slow?ms=10000`).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.ok(Date.now() - started < 3000, 'exited near the deadline, not after the request');
    assert.notEqual(code, 0);
    assert.ok((await hung) instanceof Error);
  });
});
