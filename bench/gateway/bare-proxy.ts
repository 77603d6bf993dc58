/**
 * The floor of any proxy on this machine: a bare node:http server that forwards each request
 * to the simulator over an undici pool and streams the answer back, with no auth, routing,
 * metering, validation or logging. The gateway's overhead above this is its own logic; the
 * overhead of this above the direct path is the extra hop (two more socket writes and reads).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export async function startBareProxy(
  upstreamBaseUrl: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(upstreamBaseUrl);
  const pool = new Pool(upstream.origin, { connections: 256 });
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    try {
      const answer = await pool.request({
        method: 'POST',
        path: `${upstream.pathname}/chat/completions`,
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(parts),
      });
      res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type']) });
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}
