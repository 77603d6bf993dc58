/**
 * A node:test reporter (used by run-tests.ts beside the usual one) that writes one JSON line
 * per skipped test or suite: its file, name, kind and reason. A skipped suite's body never runs,
 * so its tests are not in node's counts; run-tests names such suites instead of hiding them.
 */
import type { TestEvent } from 'node:test/reporters';

export interface Skipped {
  readonly file: string;
  readonly name: string;
  readonly kind: 'test' | 'suite';
  readonly reason: string;
}

export default async function* skipReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file, details } = event.data;
    if (skip === undefined || skip === false) continue;
    const skipped: Skipped = {
      file: file ?? '',
      name,
      kind: details.type === 'suite' ? 'suite' : 'test',
      reason: typeof skip === 'string' ? skip : 'skipped',
    };
    yield `${JSON.stringify(skipped)}\n`;
  }
}
