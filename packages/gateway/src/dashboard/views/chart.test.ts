import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axisMax, describeSpend, spendChart } from './chart.ts';

const days = [
  { day: '2026-01-01', micros: 0 },
  { day: '2026-01-02', micros: 1_234 },
  { day: '2026-01-03', micros: 600 },
];

describe('the spend chart', () => {
  test('scales to a round axis maximum (a cent when nothing was spent)', () => {
    assert.equal(axisMax(0), 10_000);
    assert.equal(axisMax(1_234), 2_000);
    assert.equal(axisMax(4_100), 5_000);
    assert.equal(axisMax(7_000_000), 10_000_000);
    assert.equal(axisMax(1_000), 1_000);
  });

  test('describes the period, the total and the busiest day to the micro-dollar', () => {
    assert.equal(
      describeSpend(days),
      'Spend per UTC day from 2026-01-01 to 2026-01-03: $0.001834 in all, most on 2026-01-02 ($0.001234).',
    );
    assert.equal(
      describeSpend([{ day: '2026-01-01', micros: 0 }]),
      'No spend from 2026-01-01 to 2026-01-01 (UTC days).',
    );
  });

  test('draws one bar per day, proportional to its spend, and escapes the title', () => {
    const svg = spendChart({ id: 'c', title: 'Spend of token <script>"x"', days }).text;
    assert.match(svg, /<title id="c-title">Spend of token &lt;script&gt;&quot;x&quot;<\/title>/);
    assert.ok(!svg.includes('<script>'));
    const heights = [...svg.matchAll(/height="([\d.]+)"\s+data-day/g)].map((match) => Number(match[1]));
    assert.equal(heights.length, 3);
    assert.equal(heights[0], 0);
    // 1234 of an axis of 2000 over a plot 160 units high.
    assert.equal(heights[1], 98.7);
    assert.equal(heights[2], 48);
  });
});
