/**
 * Per-attempt series, recorded once a request is over from what its CallContext holds (one
 * onResponse hook; for streams it runs when the stream has ended). The hook is on every
 * request's path, so it builds nothing per request: a label combination's running totals are
 * found in nested maps keyed by the label values themselves and are plain numbers, added to the
 * counters only when Prometheus scrapes (prom-client hashes the labels on every increment).
 */
import type { Usage } from '@app/provider-adapters';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptRecord, CallContext } from '../pipeline/call-context.ts';
import { failureKindLabel, type ProjectLabels } from './labels.ts';

/** LLM calls take from a fraction of a second to minutes (long reasoning, slow tiers). */
const LATENCY_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

const TOKEN_TYPES = ['input', 'cached', 'cache_write', 'output', 'reasoning'] as const;

type Timer = ReturnType<Histogram<string>['labels']>;

/** What one (provider, model, project) was charged since the last scrape. */
interface UsageSeries {
  readonly labels: Readonly<Record<'provider' | 'model' | 'project', string>>;
  /** The `tokens_total` labels of each type, in TOKEN_TYPES order (made once). */
  readonly typed: ReadonlyArray<Readonly<Record<string, string>>>;
  /** Tokens per type, in TOKEN_TYPES order. */
  readonly tokens: number[];
  /** Whole micro-dollars, as the ledger charges them. */
  costMicros: number;
  /** Shown in a scrape yet (then at zero too, so that a series exists from its first call). */
  tokensShown: boolean;
  costShown: boolean;
}

interface ErrorSeries {
  readonly labels: Readonly<Record<'provider' | 'kind', string>>;
  count: number;
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
  const usage: UsageSeries[] = [];
  const failures: ErrorSeries[] = [];
  new Counter({
    name: 'gateway_tokens_total',
    help: 'Tokens charged, by provider, model, project and type (input, cached, cache_write, output, reasoning)',
    labelNames: ['provider', 'model', 'project', 'type'] as const,
    registers,
    collect() {
      for (const series of usage)
        for (let i = 0; i < TOKEN_TYPES.length; i++) {
          const count = series.tokens[i] ?? 0;
          if (count === 0 && series.tokensShown) continue;
          series.tokens[i] = 0;
          this.inc(series.typed[i] ?? {}, count);
        }
      for (const series of usage) series.tokensShown = true;
    },
  });
  new Counter({
    name: 'gateway_cost_usd_total',
    help: 'US dollars charged to the allocation buckets, by provider, model and project',
    labelNames: ['provider', 'model', 'project'] as const,
    registers,
    collect() {
      for (const series of usage) {
        if (series.costMicros === 0 && series.costShown) continue;
        this.inc(series.labels, series.costMicros / 1_000_000);
        series.costMicros = 0;
        series.costShown = true;
      }
    },
  });
  new Counter({
    name: 'gateway_upstream_errors_total',
    help: 'Upstream calls that failed, by provider and kind of failure',
    labelNames: ['provider', 'kind'] as const,
    registers,
    collect() {
      for (const series of failures) {
        if (series.count === 0) continue;
        this.inc(series.labels, series.count);
        series.count = 0;
      }
    },
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
        const labels = { provider, model, project };
        const series: UsageSeries = {
          labels,
          typed: TOKEN_TYPES.map((type) => ({ ...labels, type })),
          tokens: TOKEN_TYPES.map(() => 0),
          costMicros: 0,
          tokensShown: false,
          costShown: false,
        };
        usage.push(series);
        return series;
      }),
    ),
  );
  const errorSeries = memo((provider) =>
    memo((kind): ErrorSeries => {
      const series = { labels: { provider, kind }, count: 0 };
      failures.push(series);
      return series;
    }),
  );
  const headerTimer = memo((provider): Timer => headers.labels({ provider }));
  const firstTokenTimer = memo((provider): Timer => firstToken.labels({ provider }));

  function recordUsage(attempt: AttemptRecord, charged: Usage, project: string): void {
    const series = usageSeries(attempt.provider)(deps.modelLabel(attempt.model))(project);
    const tokens = series.tokens;
    tokens[0] = (tokens[0] ?? 0) + charged.inputTokens;
    tokens[1] = (tokens[1] ?? 0) + charged.cachedReadTokens;
    tokens[2] = (tokens[2] ?? 0) + charged.cacheWriteTokens;
    tokens[3] = (tokens[3] ?? 0) + charged.outputTokens;
    tokens[4] = (tokens[4] ?? 0) + charged.reasoningTokens;
    // What the ledger charges: whole micro-dollars, rounded up per attempt.
    const micros = attempt.costMicros ?? 0;
    if (micros > 0) series.costMicros += Math.ceil(micros);
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
      if (kind !== undefined) errorSeries(provider)(kind).count++;
      if (attempt.usage !== undefined) recordUsage(attempt, attempt.usage, project);
    }
  };
}
