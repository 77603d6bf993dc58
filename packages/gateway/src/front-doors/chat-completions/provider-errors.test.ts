/**
 * Upstream errors of each provider's own API, mapped to the OpenAI envelope with the status an
 * OpenAI SDK acts on: Anthropic's 529 overloaded is 503, Bedrock throttling and Vertex
 * RESOURCE_EXHAUSTED are 429 with Retry-After, a content-filter refusal is 400
 * `content_filter`, and a failure after the stream started is a `data: {"error": ...}` event.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { type ChatTestApp, chatCompletionBody, localUpstream, sseEvents, startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'hello' }];
/** Hosts, keys and addresses the simulator puts in its failures; none may reach a client. */
const INTERNALS = /sim-node|internal\.example|10\.0\.0\.7|sk-sim|127\.0\.0\.1|AKIA|sim-project/;

async function post(t: ChatTestApp, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: t.headers(), payload });
}

describe('errors of each provider API', () => {
  const apps: ChatTestApp[] = [];
  after(async () => {
    for (const app of apps) await app.close();
  });
  async function app(options: Parameters<typeof startChatApp>[0] = {}): Promise<ChatTestApp> {
    const started = await startChatApp({ routing: { breakerFailures: 1000 }, ...options });
    apps.push(started);
    return started;
  }

  test("Anthropic's 529 overloaded_error is 503 upstream_overloaded, JSON and before a stream commits", async () => {
    // Unknown body fields such as `x_simulator` reach only an upstream of the client's own API,
    // so faults for translated calls are configured on the simulator.
    const t = await app({ behaviour: { failStatus: 529 } });
    for (const stream of [false, true]) {
      const response = await post(t, { model: 'claude-sonnet@developer', messages, stream });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.json().error.code, 'upstream_overloaded');
      assert.equal(response.json().error.type, 'api_error');
      assert.doesNotMatch(response.body, INTERNALS);
      assert.equal(
        String(response.headers['x-gateway-attempts']).split(',').length,
        1 + t.config.upstream.sameProviderRetries,
      );
    }
    // The adapter says a 529 was not processed, so the named provider is asked again before the
    // client gets the 503: each attempt is its own row.
    const rows = await t.settledUsage(2 * (1 + t.config.upstream.sameProviderRetries));
    assert.deepEqual(
      rows.map((row) => row.status),
      rows.map(() => 'error'),
      'nothing was produced: the reservations went back',
    );
    assert.ok(rows.every((row) => row.cost_micros === 0));
  });

  test('Bedrock ThrottlingException is 429 rate_limited with its Retry-After', async () => {
    const t = await app({ behaviour: { failStatus: 429, retryAfter: '7' } });
    const response = await post(t, { model: 'claude-haiku@cloud_a', messages });
    assert.equal(response.statusCode, 429, response.body);
    assert.equal(response.json().error.code, 'rate_limited');
    assert.equal(response.headers['retry-after'], '7');
    assert.doesNotMatch(response.body, INTERNALS);
  });

  test('Vertex RESOURCE_EXHAUSTED is 429; an unknown Vertex failure is 502 naming no project', async () => {
    const limited = await app({ behaviour: { failStatus: 429 } });
    const response = await post(limited, { model: 'gemini-flash@cloud_b', messages });
    assert.equal(response.statusCode, 429, response.body);
    assert.doesNotMatch(response.body, INTERNALS);
    const broken = await app({ behaviour: { failStatus: 500 } });
    const failed = await post(broken, { model: 'gemini-pro@cloud_b', messages });
    assert.equal(failed.statusCode, 502, failed.body);
    assert.equal(failed.json().error.code, 'upstream_error');
    assert.doesNotMatch(failed.body, INTERNALS);
  });

  test('a failure after an Anthropic stream started is one error event, and the partial output is charged', async () => {
    const t = await app({ behaviour: { failAfterTokens: 2 } });
    const response = await post(t, { model: 'claude-sonnet@developer', messages, stream: true });
    assert.equal(response.statusCode, 200);
    const events = sseEvents(response.body);
    const last = events.at(-1) as { data?: { error?: { code: string } } };
    assert.ok(last.data?.error, response.body);
    assert.equal(
      events.filter((event) => 'data' in event && (event.data as { error?: unknown }).error).length,
      1,
    );
    assert.doesNotMatch(response.body, INTERNALS);
    const [row] = await t.settledUsage(1);
    assert.equal(row?.status, 'error');
    assert.ok((row?.cost_micros ?? 0) > 0, 'the tokens already streamed are charged');
  });

  test('unknown body fields reach an upstream of the same API only', async () => {
    const t = await app();
    await post(t, { model: 'claude-sonnet@developer', messages, vendor_extension: { a: 1 } });
    assert.equal(
      'vendor_extension' in t.lastUpstreamBody(),
      false,
      'not sent to Anthropic, which would refuse it',
    );
    await post(t, { model: 'gpt-5.4@developer', messages, vendor_extension: { a: 1 } });
    assert.deepEqual(t.lastUpstreamBody().vendor_extension, { a: 1 });
  });

  test('what the selected API cannot express is 400 invalid_request, sent nowhere, budget returned', async () => {
    const t = await app();
    const before = t.sim.received.length;
    const audio = [
      { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] },
    ];
    const response = await post(t, { model: 'claude-sonnet@developer', messages: audio });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().error.code, 'invalid_request');
    assert.match(response.json().error.message, /input_audio/);
    assert.equal(t.sim.received.length, before, 'nothing reached the upstream');
    const [row] = await t.settledUsage(1);
    assert.deepEqual([row?.status, row?.cost_micros], ['error', 0]);
    // The same body goes to an upstream of the client's own API as it is.
    const forwarded = await post(t, { model: 'gpt-5.4@developer', messages: audio });
    assert.equal(forwarded.statusCode, 200, forwarded.body);
  });

  test('a content-filter refusal is 400 content_filter', async (t) => {
    const upstreamUrl = await localUpstream(t, (_request, response) => {
      const body = JSON.stringify({
        error: {
          code: 'content_filter',
          message: 'The prompt was filtered by the content policy.',
          type: null,
        },
      });
      response.writeHead(400, { 'content-type': 'application/json' }).end(body);
    });
    const gateway = await app({ endpoint: { baseUrl: upstreamUrl } });
    const response = await post(gateway, { model: 'gpt-5.4@cloud_c', messages });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().error.code, 'content_filter');
    assert.match(response.json().error.message, /content policy/);
  });
});

describe('X-Gateway-Applied reports the tier the upstream served', () => {
  test('flex asked, standard served: tier=standard, charged at the standard price', async (t) => {
    const upstreamUrl = await localUpstream(t, (request, response) => {
      if (request.headers.accept === 'text/event-stream') {
        const chunk = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
        const base = { id: 'chatcmpl-tier', object: 'chat.completion.chunk', created: 1, model: 'm' };
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          chunk({ ...base, service_tier: 'default', choices: [{ index: 0, delta: { content: 'ok' } }] }) +
            chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
            chunk({ ...base, choices: [], usage: { prompt_tokens: 200_000, completion_tokens: 0 } }) +
            'data: [DONE]\n\n',
        );
        return;
      }
      const body = chatCompletionBody(
        { prompt_tokens: 200_000, completion_tokens: 0 },
        { model: 'gpt-5.4-2026-03-05', service_tier: 'default' },
      );
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    const gateway = await startChatApp({ endpoint: { baseUrl: upstreamUrl } });
    t.after(() => gateway.close());
    const response = await post(gateway, { model: 'gpt-5.4:flex@developer', messages });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['x-gateway-applied']), /tier=standard/);
    const streamed = await post(gateway, { model: 'gpt-5.4:flex@developer', messages, stream: true });
    assert.equal(streamed.statusCode, 200, streamed.body);
    assert.match(String(streamed.headers['x-gateway-applied']), /tier=standard/, 'streamed too');
    const rows = await gateway.settledUsage(2);
    assert.deepEqual(
      rows.map((row) => row.cost_micros),
      [500_000, 500_000],
      '200,000 input tokens at the standard $2.50 per million, not the flex $1.25, streamed or not',
    );
  });
});

describe('hostile bodies', () => {
  test('5,000 levels of nesting: 400 before anything is reserved or sent (was a 500 holding budget)', async (t) => {
    const gateway = await startChatApp();
    t.after(() => gateway.close());
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const at of ['metadata', 'tools']) {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: gateway.headers({ 'content-type': 'application/json' }),
        payload: `{"model":"gpt-5.4@developer","messages":[{"role":"user","content":"hi"}],"${at}":${deep}}`,
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().error.code, 'invalid_request');
      assert.match(response.json().error.message, /deeper than 128 levels/);
    }
    assert.deepEqual(await gateway.settledUsage(0), [], 'no reservation was made');
    assert.equal(gateway.sim.received.length, 0);
  });
});

describe('a wild usage figure from an upstream', () => {
  test('is charged at what the request could produce, counted, and the ledger stays readable', async (t) => {
    const upstreamUrl = await localUpstream(t, (_request, response) => {
      const body = chatCompletionBody({ prompt_tokens: 12, completion_tokens: 2 ** 60 });
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    const gateway = await startChatApp({ endpoint: { baseUrl: upstreamUrl } });
    t.after(() => gateway.close());
    const response = await post(gateway, { model: 'gpt-5.4@developer', messages, max_tokens: 100, n: 2 });
    assert.equal(response.statusCode, 200, response.body);
    const [row] = await gateway.settledUsage(1);
    assert.equal(row?.completion_tokens, 200, 'the bound: 100 tokens for each of the 2 completions');
    // gpt-5.4: 12 input tokens at $2.50 and 200 output tokens at $15 per million.
    assert.equal(row?.cost_micros, Math.ceil(12 * 2.5 + 200 * 15));
    for (const url of ['/v1/account', '/v1/models']) {
      const read = await gateway.app.inject({ url, headers: gateway.headers() });
      assert.equal(read.statusCode, 200, `${url}: ${read.body}`);
    }
    const metrics = await gateway.app.inject({ url: '/metrics' });
    assert.match(metrics.body, /gateway_usage_anomalies_total\{provider="developer"\} 1/);
  });
});

describe('the overall deadline of a call', () => {
  test('an upstream trickling keep-alive comments forever ends at the deadline: 504, budget returned', async (t) => {
    const open = new Set<NodeJS.Timeout>();
    let closed = 0;
    const upstreamUrl = await localUpstream(t, (request, response) => {
      // Headers at once, then a comment (or a space) every 30 ms: no idle timeout ever trips.
      response.writeHead(200, {
        'content-type':
          request.headers.accept === 'text/event-stream' ? 'text/event-stream' : 'application/json',
      });
      const timer = setInterval(
        () => response.write(request.headers.accept === 'text/event-stream' ? ': ping\n\n' : ' '),
        30,
      );
      open.add(timer);
      response.on('close', () => {
        clearInterval(timer);
        closed++;
      });
    });
    t.after(() => {
      for (const timer of open) clearInterval(timer);
    });
    const gateway = await startChatApp({
      endpoint: { baseUrl: upstreamUrl },
      upstream: { requestDeadlineMs: 300, streamKeepAliveMs: 100 },
    });
    t.after(() => gateway.close());
    const json = await post(gateway, { model: 'gpt-5.4@developer', messages });
    assert.equal(json.statusCode, 504, json.body);
    assert.equal(json.json().error.code, 'upstream_timeout');
    const stream = await post(gateway, { model: 'gpt-5.4@developer', messages, stream: true });
    assert.equal(stream.statusCode, 200);
    const last = sseEvents(stream.body).at(-1) as { data?: { error?: { code: string } } };
    assert.equal(last.data?.error?.code, 'upstream_timeout', stream.body);
    const rows = await gateway.settledUsage(2);
    assert.deepEqual(
      rows.map((row) => [row.status, row.cost_micros]),
      [
        ['error', 0],
        ['error', 0],
      ],
    );
    assert.equal(closed, 2, 'both upstream calls were cut');
  });
});

describe('upstream messages reach the client scrubbed', () => {
  test("the report's case: a key id, an IPv6 address, a path and an internal host are not passed on", async (t) => {
    const gateway = await startChatApp();
    t.after(() => gateway.close());
    const failMessage =
      'Invalid value for temperature: aws AKIAIOSFODNN7EXAMPLE at fd00::1 /home/svc/app.py on mock-internal-host.example';
    for (const stream of [false, true]) {
      const response = await post(gateway, {
        model: 'gpt-5.4@developer',
        messages,
        stream,
        x_simulator: { fail_status: 400, fail_message: failMessage },
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().error.message, /Invalid value for temperature/);
      assert.doesNotMatch(response.body, /AKIA|fd00|\/home|mock-internal-host/);
    }
  });
});
