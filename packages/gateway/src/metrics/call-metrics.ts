/**
 * Per-attempt series, recorded once a request is over from what its CallContext holds (one
 * onResponse hook; for streams it runs when the stream has ended). The hook is on every
 * request's path, so it builds nothing per request: child series are looked up in nested maps
 * keyed by the label values themselves, made once per label combination.
 */
import type { Usage } from '@app/provider-adapters';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptRecord, CallContext } from '../pipeline/call-context.ts';
import { failureKindLabel, type ProjectLabels } from './labels.ts';

/** LLM calls take from a fraction of a second to minutes (long reasoning, slow tiers). */
const LATENCY_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

type Child = ReturnType<Counter<string>['labels']>;
type Timer = ReturnType<Histogram<string>['labels']>;

/** The counters of one (provider, model, project). */
interface UsageSeries {
  readonly input: Child;
  readonly cached: Child;
  readonly cacheWrite: Child;
  readonly output: Child;
  readonly reasoning: Child;
  readonly cost: Child;
}

/** Map of maps: the lookup of a label combination builds no key string. */
function memo<V>(make: (key: string) => V): (key: string) => V {
  const cache = new Map<string, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = make(key);
      cache.set(key, value);
    }
    return value;
  };
}

export interface CallMetricsDeps {
  readonly registry: Registry;
  readonly projects: ProjectLabels;
  /** Exact model version -> the `model` label (its canonical name). */
  readonly modelLabel: (model: string) => string;
}

export function callMetrics(deps: CallMetricsDeps): (call: CallContext) => void {
  const registers = [deps.registry];
  const tokens = new Counter({
    name: 'gateway_tokens_total',
    help: 'Tokens charged, by provider, model, project and type (input, cached, cache_write, output, reasoning)',
    labelNames: ['provider', 'model', 'project', 'type'] as const,
    registers,
  });
  const cost = new Counter({
    name: 'gateway_cost_usd_total',
    help: 'US dollars charged to the allocation buckets, by provider, model and project',
    labelNames: ['provider', 'model', 'project'] as const,
    registers,
  });
  const errors = new Counter({
    name: 'gateway_upstream_errors_total',
    help: 'Upstream calls that failed, by provider and kind of failure',
    labelNames: ['provider', 'kind'] as const,
    registers,
  });
  const headers = new Histogram({
    name: 'gateway_upstream_latency_seconds',
    help: 'Time from sending an upstream call to its response headers, by provider',
    labelNames: ['provider'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const firstToken = new Histogram({
    name: 'gateway_time_to_first_token_seconds',
    help: 'Time from sending a streamed upstream call to the first content sent to the client, by provider',
    labelNames: ['provider'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const usageSeries = memo((provider) =>
    memo((model) =>
      memo((project): UsageSeries => {
        const typed = (type: string) => tokens.labels({ provider, model, project, type });
        return {
          input: typed('input'),
          cached: typed('cached'),
          cacheWrite: typed('cache_write'),
          output: typed('output'),
          reasoning: typed('reasoning'),
          cost: cost.labels({ provider, model, project }),
        };
      }),
    ),
  );
  const errorSeries = memo((provider) => memo((kind): Child => errors.labels({ provider, kind })));
  const headerTimer = memo((provider): Timer => headers.labels({ provider }));
  const firstTokenTimer = memo((provider): Timer => firstToken.labels({ provider }));

  function recordUsage(attempt: AttemptRecord, usage: Usage, project: string): void {
    const series = usageSeries(attempt.provider)(deps.modelLabel(attempt.model))(project);
    series.input.inc(usage.inputTokens);
    series.cached.inc(usage.cachedReadTokens);
    series.cacheWrite.inc(usage.cacheWriteTokens);
    series.output.inc(usage.outputTokens);
    series.reasoning.inc(usage.reasoningTokens);
    // What the ledger charges: whole micro-dollars, rounded up per attempt.
    const micros = attempt.costMicros ?? 0;
    series.cost.inc(micros > 0 ? Math.ceil(micros) / 1_000_000 : 0);
  }

  return (call) => {
    const attempts = call.attempts;
    if (attempts.length === 0) return;
    const project = deps.projects.of(call.facts.caller?.projectSlug);
    for (let i = 0; i < attempts.length; i++) {
      const attempt = attempts[i];
      if (attempt === undefined) continue;
      const provider = attempt.provider;
      if (attempt.headersMs !== undefined) headerTimer(provider).observe(attempt.headersMs / 1000);
      if (attempt.firstTokenMs !== undefined) firstTokenTimer(provider).observe(attempt.firstTokenMs / 1000);
      const kind = failureKindLabel(attempt.outcome);
      if (kind !== undefined) errorSeries(provider)(kind).inc();
      if (attempt.usage !== undefined) recordUsage(attempt, attempt.usage, project);
    }
  };
}
