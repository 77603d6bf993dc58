/**
 * The compression corpus, generated deterministically (a seeded PRNG, no files to ship): 56
 * conversations in the internal model of a call, in four kinds that gateway traffic has:
 * - agent transcripts (20, plus 2 over 100k tokens): tool loops reading source files (some read
 *   again unchanged), test logs, pretty-printed JSON from APIs, directory listings, Python and
 *   diffs (which compression must leave alone), with the agent's own short notes;
 * - retrieval prompts (12): a question over retrieved records sent as indented JSON;
 * - long chats (12): 20-80 turns of prose with lists, code fences and stray whitespace;
 * - code reviews (10): unified diffs with review comments.
 * Same seed, same corpus: `node bench/compression/corpus.ts` prints its statistics.
 */
import type { ModelRequest, Part, TextPart, Turn } from '@app/provider-adapters';

export type Kind = 'agent' | 'retrieval' | 'chat' | 'review';

export interface Conversation {
  readonly id: string;
  readonly kind: Kind;
  readonly request: ModelRequest;
}

/** mulberry32: small, fast, and the same sequence on every machine. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, int, pick };
}
type Random = ReturnType<typeof prng>;

const WORDS = (
  'the asset meter reading voltage current grid battery inverter pump site operator schedule ' +
  'forecast load peak tariff export import charge discharge state error warning value range ' +
  'between after before within limit threshold report daily hourly average maximum minimum ' +
  'request response token model provider budget cache retry timeout handler service client ' +
  'we should check whether this that because then also only never always update remove add'
).split(' ');
const IDENTS = ['reading', 'asset', 'meter', 'site', 'limit', 'schedule', 'forecast', 'tariff', 'load'];

function sentence(r: Random, min = 6, max = 18): string {
  const words = Array.from({ length: r.int(min, max) }, () => r.pick(WORDS));
  const text = words.join(' ');
  return `${text[0]?.toUpperCase()}${text.slice(1)}.`;
}

function paragraph(r: Random, sentences = r.int(2, 6)): string {
  return Array.from({ length: sentences }, () => sentence(r)).join(' ');
}

/** Prose as people and agents send it: stray trailing spaces, runs of blank lines, lists. */
function untidy(r: Random, paragraphs: number): string {
  const out: string[] = [];
  for (let index = 0; index < paragraphs; index += 1) {
    if (r.next() < 0.25)
      out.push(
        Array.from({ length: r.int(2, 5) }, () => `- ${sentence(r, 3, 9)}${r.next() < 0.3 ? '  ' : ''}`).join(
          '\n',
        ),
      );
    else out.push(`${paragraph(r)}${r.next() < 0.3 ? ' ' : ''}`);
    out.push('\n'.repeat(r.int(1, 4)));
  }
  return out.join('\n');
}

function tsFile(r: Random, lines: number): string {
  const out = [`import { ${r.pick(IDENTS)}Store } from './${r.pick(IDENTS)}-store.ts';`, ''];
  while (out.length < lines) {
    const name = `${r.pick(IDENTS)}${r.pick(['Total', 'Window', 'Peak', 'Check', 'Rate'])}${r.int(1, 99)}`;
    out.push(`/** ${sentence(r, 5, 12)} */`, `export function ${name}(input: readonly number[]): number {`);
    out.push(`  let total = 0;${r.next() < 0.2 ? '  ' : ''}`, '  for (const value of input) {');
    out.push(
      `    if (value > ${r.int(1, 500)}) total += value * ${r.int(2, 9)};`,
      '  }',
      '  return total;',
      '}',
      '',
    );
    if (r.next() < 0.15) out.push('');
  }
  return out.join('\n');
}

function pyFile(r: Random, lines: number): string {
  const out = ['import json', ''];
  while (out.length < lines)
    out.push(
      `def ${r.pick(IDENTS)}_${r.int(1, 99)}(rows):`,
      '    total = 0',
      '    for row in rows:',
      `        total += row["${r.pick(IDENTS)}"]`,
      '    return total',
      '',
      '',
    );
  return out.join('\n');
}

function jsonRecords(r: Random, count: number): string {
  const records = Array.from({ length: count }, (_, index) => ({
    id: `${r.pick(IDENTS)}-${r.int(1000, 9999)}`,
    index,
    site: { name: `${r.pick(WORDS)} ${r.pick(WORDS)}`, region: r.pick(['north', 'south', 'east', 'west']) },
    readings: Array.from({ length: r.int(2, 6) }, () => ({
      at: `2026-0${r.int(1, 9)}-1${r.int(0, 9)}T0${r.int(0, 9)}:00:00Z`,
      kwh: r.int(0, 90000) / 100,
    })),
    note: sentence(r, 4, 12),
  }));
  return JSON.stringify({ results: records, total: count, page: 1 }, null, 2);
}

function testLog(r: Random, lines: number): string {
  const out: string[] = [];
  for (let index = 0; index < lines; index += 1) {
    const ok = r.next() < 0.9;
    out.push(`${ok ? '✔' : '✖'} ${sentence(r, 3, 8)} (${r.int(1, 900)}ms)${r.next() < 0.3 ? '   ' : ''}`);
    if (r.next() < 0.1) out.push('', '', '');
  }
  return out.join('\n');
}

function diff(r: Random, hunks: number): string {
  const out = [
    `diff --git a/src/${r.pick(IDENTS)}.ts b/src/${r.pick(IDENTS)}.ts`,
    '--- a/src/x.ts',
    '+++ b/src/x.ts',
  ];
  for (let index = 0; index < hunks; index += 1) {
    out.push(`@@ -${r.int(1, 400)},7 +${r.int(1, 400)},8 @@`);
    for (let line = 0; line < 7; line += 1)
      out.push(`${r.pick([' ', ' ', '-', '+'])}  const ${r.pick(IDENTS)} = ${r.int(0, 99)};`);
    out.push(' ');
  }
  return out.join('\n');
}

const text = (value: string): TextPart => ({ type: 'text', text: value });

function systemPrompt(r: Random, kind: Kind): TextPart[] {
  return [text(`You are a ${kind} assistant for an energy company.   \n\n\n${untidy(r, 6)}`)];
}

function agent(r: Random, rounds: number): ModelRequest {
  const turns: Turn[] = [{ role: 'user', content: [text(untidy(r, 2))] }];
  const files: string[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const id = `call_${round}`;
    const tool = r.pick([
      'read_file',
      'read_file',
      'read_file',
      'run_tests',
      'http_get',
      'list_dir',
      'read_py',
      'git_diff',
    ]);
    const said: Part[] =
      r.next() < 0.6 ? [text(`${paragraph(r, r.int(1, 3))}${r.next() < 0.4 ? '  \n\n\n' : ''}`)] : [];
    turns.push({
      role: 'assistant',
      content: [
        ...said,
        {
          type: 'tool_call',
          id,
          name: tool,
          arguments: JSON.stringify({ path: `src/${r.pick(IDENTS)}.ts` }),
        },
      ],
    });
    let output: string;
    if (tool === 'read_file' && files.length > 0 && r.next() < 0.35) output = r.pick(files);
    else if (tool === 'read_file') files.push((output = tsFile(r, r.int(40, 160))));
    else if (tool === 'run_tests') output = testLog(r, r.int(20, 120));
    else if (tool === 'http_get') output = jsonRecords(r, r.int(3, 14));
    else if (tool === 'read_py') output = pyFile(r, r.int(30, 100));
    else if (tool === 'git_diff') output = diff(r, r.int(2, 8));
    else
      output = Array.from({ length: r.int(10, 60) }, () => `src/${r.pick(IDENTS)}-${r.int(1, 99)}.ts`).join(
        '\n',
      );
    turns.push({
      role: 'user',
      content: [{ type: 'tool_result', callId: id, name: tool, content: [text(output)] }],
    });
  }
  turns.push(
    { role: 'assistant', content: [text(paragraph(r))] },
    { role: 'user', content: [text(untidy(r, 1))] },
  );
  return { system: systemPrompt(r, 'agent'), turns, tools: [], stream: false };
}

function retrieval(r: Random): ModelRequest {
  const question = untidy(r, 1);
  const documents = jsonRecords(r, r.int(5, 30));
  return {
    system: systemPrompt(r, 'retrieval'),
    turns: [{ role: 'user', content: [text(`Answer from these records.\n\n${documents}`), text(question)] }],
    tools: [],
    stream: false,
  };
}

function chat(r: Random): ModelRequest {
  const turns: Turn[] = [];
  const count = 2 * r.int(10, 40);
  for (let index = 0; index < count; index += 1) {
    let body = untidy(r, r.int(1, 5));
    if (r.next() < 0.15) body += `\n\`\`\`ts\n${tsFile(r, 12)}\n\`\`\`\n`;
    turns.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: [text(body)] });
  }
  return { system: systemPrompt(r, 'chat'), turns, tools: [], stream: false };
}

function review(r: Random): ModelRequest {
  const turns: Turn[] = [];
  for (let round = 0; round < r.int(2, 6); round += 1) {
    turns.push({
      role: 'user',
      content: [text(`Please review:\n\n${diff(r, r.int(3, 12))}`), text(untidy(r, 1))],
    });
    turns.push({ role: 'assistant', content: [text(untidy(r, r.int(2, 5)))] });
  }
  turns.push({ role: 'user', content: [text('Anything else?  ')] });
  return { system: systemPrompt(r, 'review'), turns, tools: [], stream: false };
}

export function buildCorpus(seed = 20261124): Conversation[] {
  const r = prng(seed);
  const out: Conversation[] = [];
  const add = (kind: Kind, request: ModelRequest) =>
    out.push({ id: `${kind}-${out.length + 1}`, kind, request });
  for (let index = 0; index < 20; index += 1) add('agent', agent(r, r.int(4, 30)));
  add('agent', agent(r, 160));
  add('agent', agent(r, 220));
  for (let index = 0; index < 12; index += 1) add('retrieval', retrieval(r));
  for (let index = 0; index < 12; index += 1) add('chat', chat(r));
  for (let index = 0; index < 10; index += 1) add('review', review(r));
  // As the gateway receives it, parsed from a request body: every text a flat string, not the
  // ropes the generator's concatenations can leave (the previous `compact` took 2 to 4 % longer
  // on those; the ratio between two versions came out the same either way).
  return JSON.parse(JSON.stringify(out)) as Conversation[];
}

if (import.meta.main) {
  const { tokenizerFor } = await import('@app/gateway/compression/tokenizers.ts');
  const { requestTokens } = await import('@app/gateway/compression/count.ts');
  const o200k = await tokenizerFor('openai');
  for (const entry of buildCorpus())
    console.log(entry.id.padEnd(14), String(requestTokens(entry.request, o200k)).padStart(8), 'o200k tokens');
}
