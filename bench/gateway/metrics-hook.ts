/**
 * Cost of the gateway's metrics hook per request (a script, not a test): what the onResponse
 * hook of packages/gateway/src/metrics does with a finished request's attempts, against, in the
 * same run and interleaved rounds,
 *   - the same series incremented through prom-client children (`counter.labels(...).inc()`,
 *     which hashes the label values on every call): the design the hook avoids,
 *   - what http-kit already did per request before this change (one counter and one histogram
 *     with method, route and status labels): the scale to read the hook's cost against.
 *
 *   node bench/gateway/metrics-hook.ts [--iterations 200000] [--rounds 5]
 */
import { parseArgs } from 'node:util';
import { usageFromMeters } from '@app/provider-adapters';
import { buildCatalog } from '@app/gateway/routing/catalog.ts';
import { DEFAULT_CATALOG_PATH, readJsonFile } from '@app/gateway/routing/index.ts';
import { callMetrics } from '@app/gateway/metrics/call-metrics.ts';
import { modelLabels, ProjectLabels } from '@app/gateway/metrics/labels.ts';
import { CallContext } from '@app/gateway/pipeline/call-context.ts';
import { Counter, Histogram, Registry } from 'prom-client';

const { values } = parseArgs({
  options: { iterations: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '5' } },
});
const N = Number(values.iterations);
const ROUNDS = Number(values.rounds);

const catalog = buildCatalog(readJsonFile(DEFAULT_CATALOG_PATH), DEFAULT_CATALOG_PATH);
const usage = usageFromMeters({ input: 200, cached_input: 1_000, output: 180, reasoning: 120 });

/** Finished requests as the hook sees them: 10 projects, a few models, one in four streamed. */
function requests(): CallContext[] {
  const models = ['gpt-5.4-2026-03-05', 'claude-sonnet-4-6', 'gemini-2.5-flash', 'gpt-5.4-mini-2026-03-17'];
  const providers = ['developer', 'cloud_a', 'cloud_b', 'cloud_c'] as const;
  return Array.from({ length: 64 }, (_, i) => {
    const call = new CallContext();
    call.facts.caller = { userId: 1, projectSlug: `project-${i % 10}`, tokenId: 't' };
    const attempt = call.attempt(providers[i % 4] ?? 'developer', models[i % 4] ?? 'gpt-5.4');
    attempt.outcome = 'ok';
    attempt.headersMs = 200 + i;
    if (i % 4 === 0) attempt.firstTokenMs = 300 + i;
    attempt.usage = usage;
    attempt.costMicros = 1234.5;
    return call;
  });
}

function hook(): (call: CallContext) => void {
  const registry = new Registry();
  return callMetrics({ registry, projects: new ProjectLabels(100), modelLabel: modelLabels(catalog.models) });
}

/** The same series through prom-client children, looked up per request. */
function childrenHook(): (call: CallContext) => void {
  const registers = [new Registry()];
  const labelNames = ['provider', 'model', 'project'] as const;
  const tokens = new Counter({ name: 't', help: 't', labelNames: [...labelNames, 'type'], registers });
  const cost = new Counter({ name: 'c', help: 'c', labelNames, registers });
  const latency = new Histogram({ name: 'l', help: 'l', labelNames: ['provider'], registers });
  const ttft = new Histogram({ name: 'f', help: 'f', labelNames: ['provider'], registers });
  const label = modelLabels(catalog.models);
  const projects = new ProjectLabels(100);
  return (call) => {
    const project = projects.of(call.facts.caller?.projectSlug);
    for (const attempt of call.attempts) {
      const provider = attempt.provider;
      if (attempt.headersMs !== undefined) latency.labels({ provider }).observe(attempt.headersMs / 1000);
      if (attempt.firstTokenMs !== undefined) ttft.labels({ provider }).observe(attempt.firstTokenMs / 1000);
      const u = attempt.usage;
      if (u === undefined) continue;
      const model = label(attempt.model);
      tokens.labels({ provider, model, project, type: 'input' }).inc(u.inputTokens);
      tokens.labels({ provider, model, project, type: 'cached' }).inc(u.cachedReadTokens);
      tokens.labels({ provider, model, project, type: 'cache_write' }).inc(u.cacheWriteTokens);
      tokens.labels({ provider, model, project, type: 'output' }).inc(u.outputTokens);
      tokens.labels({ provider, model, project, type: 'reasoning' }).inc(u.reasoningTokens);
      cost.labels({ provider, model, project }).inc(Math.ceil(attempt.costMicros ?? 0) / 1e6);
    }
  };
}

/** http-kit's per-request work, unchanged by this change. */
function httpHook(): (call: CallContext) => void {
  const registers = [new Registry()];
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'r', help: 'r', labelNames, registers });
  const duration = new Histogram({ name: 'd', help: 'd', labelNames, registers });
  return () => {
    const labels = { method: 'POST', route: '/v1/chat/completions', status: '200' };
    requests.inc(labels);
    duration.observe(labels, 0.012);
  };
}

const calls = requests();
const variants = { hook: hook(), children: childrenHook(), http: httpHook() };
const best: Record<string, number> = {};
for (let round = 0; round < ROUNDS; round++)
  for (const [name, record] of Object.entries(variants)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) record(calls[i & 63] as CallContext);
    const ns = Number(process.hrtime.bigint() - start) / N;
    best[name] = Math.min(best[name] ?? Infinity, ns);
  }
const { hook: ours = 0, children = 0, http = 0 } = best;
console.log(`metrics hook, ns per request (best of ${ROUNDS} rounds of ${N}; 1 attempt, 1 in 4 streamed)`);
console.log(`  gateway metrics hook (plain totals)   ${ours.toFixed(0)} ns`);
console.log(
  `  same series via prom-client children  ${children.toFixed(0)} ns  (${(children / ours).toFixed(1)}x the hook)`,
);
console.log(
  `  http-kit per-request metrics (before) ${http.toFixed(0)} ns  (the hook is ${(ours / http).toFixed(2)}x this)`,
);
