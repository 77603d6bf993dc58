/** The closing table of the gateway benchmark: each target of issue 12, measured, PASS or FAIL. */
export interface Verdict {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** The target: at most `max`, or at least `min`. */
  readonly max?: number;
  readonly min?: number;
}

const pass = (v: Verdict) =>
  Number.isFinite(v.value) &&
  (v.max === undefined || v.value <= v.max) &&
  (v.min === undefined || v.value >= v.min);

const figure = (value: number, unit: string) =>
  `${unit === 'x' ? value.toFixed(2) : unit === 'ms' ? value.toFixed(3) : value.toFixed(0)}${unit ? ` ${unit}` : ''}`;

export function printTargets(verdicts: readonly Verdict[]): void {
  console.log('Targets (issue 12)');
  console.log();
  console.log(`| ${'target'.padEnd(36)} | ${'measured'.padStart(11)} | ${'goal'.padStart(12)} | result |`);
  console.log(`|${'-'.repeat(38)}|${'-'.repeat(12)}:|${'-'.repeat(13)}:|--------|`);
  for (const v of verdicts) {
    const goal = v.max !== undefined ? `<= ${figure(v.max, v.unit)}` : `>= ${figure(v.min ?? 0, v.unit)}`;
    console.log(
      `| ${v.name.padEnd(36)} | ${figure(v.value, v.unit).padStart(11)} | ${goal.padStart(12)} | ${(pass(v) ? 'PASS' : 'FAIL').padEnd(6)} |`,
    );
  }
  console.log();
}
