import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatUsd } from './money.ts';

describe('formatUsd', () => {
  it('shows every stored micro-dollar and at least cents', () => {
    const cases: Array<[number, string]> = [
      [0, '$0.00'],
      [1, '$0.000001'],
      [100, '$0.0001'],
      [2_600, '$0.0026'],
      [10_000, '$0.01'],
      [25_000_000, '$25.00'],
      [1_234_567, '$1.234567'],
      [1_500_000, '$1.50'],
      [1_000_000_000_000_000, '$1000000000.00'],
      [-2_600, '-$0.0026'],
    ];
    for (const [micros, text] of cases) assert.equal(formatUsd(micros), text, String(micros));
  });

  it('round-trips: the text parsed as dollars is the stored amount', () => {
    for (let micros = 0; micros < 3_000_000; micros += 7_919) {
      assert.equal(Math.round(Number(formatUsd(micros).slice(1)) * 1_000_000), micros);
    }
  });
});
