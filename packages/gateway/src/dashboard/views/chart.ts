/**
 * A bar chart of spend per day as inline SVG, rendered on the server: no script, no external
 * file, nothing the Content-Security-Policy must allow. Every text goes through `html`, so it
 * is escaped; colours come from dashboard.css (classes), not inline styles.
 */
import { formatUsd } from '../../money.ts';
import type { DaySpend } from '../usage-data.ts';
import { type Html, html } from '@app/http-kit';

const WIDTH = 640;
const HEIGHT = 200;
const LEFT = 84;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 28;

/** A round ceiling for the axis: 1, 2 or 5 times a power of ten, in micro-dollars. */
export function axisMax(micros: number): number {
  if (micros <= 0) return 10_000;
  const power = 10 ** Math.floor(Math.log10(micros));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= micros) ?? 10;
  return step * power;
}

/** One sentence for screen readers: the period, the total and the busiest day. */
export function describeSpend(days: readonly DaySpend[]): string {
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const total = days.reduce((sum, day) => sum + day.micros, 0);
  if (total === 0) return `No spend from ${first} to ${last} (UTC days).`;
  const top = days.reduce((best, day) => (day.micros > best.micros ? day : best));
  return `Spend per UTC day from ${first} to ${last}: ${formatUsd(total)} in all, most on ${top.day} (${formatUsd(top.micros)}).`;
}

export function spendChart(input: { id: string; title: string; days: readonly DaySpend[] }): Html {
  const { id, days } = input;
  const max = axisMax(Math.max(0, ...days.map((day) => day.micros)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, days.length);
  const y = (micros: number) => TOP + plotHeight - (micros / max) * plotHeight;
  const bars = days.map((day, index) => {
    const height = (day.micros / max) * plotHeight;
    const x = LEFT + index * slot + slot * 0.15;
    return html`<rect
      class="chart-bar"
      x="${x.toFixed(1)}"
      y="${(TOP + plotHeight - height).toFixed(1)}"
      width="${(slot * 0.7).toFixed(1)}"
      height="${height.toFixed(1)}"
      data-day="${day.day}"
      data-micros="${day.micros}"
      ><title>${day.day}: ${formatUsd(day.micros)}</title></rect
    >`;
  });
  const grid = [0, max / 2, max].map(
    (value) =>
      html`<line
          class="chart-grid"
          x1="${LEFT}"
          x2="${WIDTH - RIGHT}"
          y1="${y(value).toFixed(1)}"
          y2="${y(value).toFixed(1)}"
        />
        <text class="chart-label" x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end"
          >${formatUsd(value)}</text
        >`,
  );
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  return html`<svg
    class="chart"
    id="${id}"
    role="img"
    aria-labelledby="${id}-title"
    aria-describedby="${id}-desc"
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title id="${id}-title">${input.title}</title>
    <desc id="${id}-desc">${describeSpend(days)}</desc>
    ${grid} ${bars}
    <text class="chart-label" x="${LEFT}" y="${HEIGHT - 8}">${first}</text>
    <text class="chart-label" x="${WIDTH - RIGHT}" y="${HEIGHT - 8}" text-anchor="end">${last}</text>
  </svg>`;
}
