/**
 * Reading /metrics in tests the way Prometheus does: the text format parsed by a real parser
 * (prom2javascript), then one sample looked up by name and labels.
 */
import type { App } from '@app/http-kit';
import { getMetricsFromIterator, type PromHistogramData, type PromMetrics } from 'prom2javascript';

export type { PromMetrics };

export async function scrape(app: App): Promise<PromMetrics> {
  const response = await app.inject({ url: '/metrics' });
  if (response.statusCode !== 200) throw new Error(`/metrics answered ${response.statusCode}`);
  // prom2javascript reads no NaN, which Prometheus reads and prom-client writes (`Nan`) for the
  // event-loop lag gauges before their first sample: those samples are left out.
  const lines = response.body.split('\n').filter((line) => !/ nan$/i.test(line));
  return getMetricsFromIterator(lines[Symbol.iterator]());
}

const matches = (labels: Record<string, string>, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([name, value]) => labels[name] === value);

/** The value of a counter or gauge sample (0 when the series does not exist yet). */
export function sample(metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number {
  const data = metrics[name]?.data ?? [];
  let total = 0;
  for (const entry of data) if ('value' in entry && matches(entry.labels, labels)) total += entry.value;
  return total;
}

/** The observation count of a histogram's series (0 when it does not exist yet). */
export function observations(metrics: PromMetrics, name: string, labels: Record<string, string>): number {
  const data = (metrics[name]?.data ?? []) as PromHistogramData[];
  return data.filter((entry) => matches(entry.labels, labels)).reduce((sum, entry) => sum + entry.count, 0);
}

/** Every label set of a metric's samples. */
export function labelSets(metrics: PromMetrics, name: string): Array<Record<string, string>> {
  return (metrics[name]?.data ?? []).map((entry) => entry.labels);
}
