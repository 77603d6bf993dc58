/**
 * `compact` on texts built to make a line scanner slow: brackets at every line start that never
 * close (each would send the JSON block search to the end of the text), unterminated strings
 * after them, and nested openers. Prints the best CPU time at two sizes and how it grows: a
 * growth near 4 for 4 times the lines is linear, near 16 quadratic. Prose of the same size is the
 * baseline in the same run.
 *
 *   node bench/compression/adversarial.ts [--lines 10000] [--rounds 20]
 */
import { parseArgs } from 'node:util';
import { compactText } from '@app/gateway/compression/text.ts';

const { values } = parseArgs({
  options: { lines: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '20' } },
});
const LINES = Number(values.lines);

const PATTERNS: Record<string, string> = {
  prose: 'Check the meter reading before the peak.',
  'unclosed {': '{ x',
  'unclosed [': '[',
  'unterminated string': '{"',
  'JSON Lines': '{"id": 1, "note": "a line of its own"}',
};

function bestMs(text: string): number {
  let best = Infinity;
  for (let round = 0; round < Number(values.rounds); round += 1) {
    const start = process.cpuUsage();
    compactText(text);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

console.log(
  `| Lines of | ${LINES.toLocaleString('en-US')} lines | ${(4 * LINES).toLocaleString('en-US')} lines | Growth |`,
);
console.log('| --- | ---: | ---: | ---: |');
let worst = 0;
for (const [name, line] of Object.entries(PATTERNS)) {
  const small = bestMs(`Intro:\n${`${line}\n`.repeat(LINES)}`);
  const large = bestMs(`Intro:\n${`${line}\n`.repeat(4 * LINES)}`);
  worst = Math.max(worst, large / small);
  console.log(
    `| ${name} | ${small.toFixed(2)} ms | ${large.toFixed(2)} ms | ${(large / small).toFixed(1)} |`,
  );
}
console.log(`worst growth for 4 times the lines: ${worst.toFixed(1)} (linear: 4, quadratic: 16)`);
process.exitCode = worst < 8 ? 0 : 1;
