import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { usdDecimal, usdOf } from './answer-cost.ts';

describe('the cost header: whole micro-dollars as a decimal string of dollars', () => {
  test('exact to the micro-dollar, no trailing zeros, never an exponent', () => {
    const cases = [
      [0, '0'],
      [1, '0.000001'],
      [123, '0.000123'],
      [100, '0.0001'],
      [120_000, '0.12'],
      [1_000_000, '1'],
      [1_500_000, '1.5'],
      [10_000_010, '10.00001'],
      [123_456_789, '123.456789'],
    ] as const;
    for (const [micros, text] of cases) assert.equal(usdDecimal(micros), text, String(micros));
  });

  test('the body number and the header string are the same amount', () => {
    for (const micros of [1, 7, 120_000, 1_500_000, 10_000_010])
      assert.equal(usdOf(micros), Number(usdDecimal(micros)));
  });
});
