/**
 * `compressed`, after `compact`: lossy shrinking until the prompt fits the budget. Kept whole:
 * the system prompt, the first user turn, the last turns and the cached prefix; thinking is never
 * edited. First the longest tool outputs of the middle turns are cut head-and-tail, then middle
 * turns are removed from the middle outwards, each cut replaced by a marker saying how many
 * tokens were left out. A tool call and its result are removed together or not at all.
 */
import type { ModelRequest, Part, TextPart, ToolResultPart, Turn } from '@app/provider-adapters';
import { requestTokens, turnTokens } from './count.ts';
import type { Frozen } from './frozen.ts';
import type { Tokenizer } from './tokenizers.ts';

/** A cut tool output keeps at least this much of its head and tail together. */
const MIN_KEEP_TOKENS = 64;
/** What a marker costs, with room to spare. */
const MARKER_TOKENS = 24;

export interface CutOptions {
  readonly budget: number;
  readonly tokenizer: Tokenizer;
  readonly frozen: Frozen;
  /** The last turns kept whole (the question being asked and what it answers). */
  readonly keepLastTurns: number;
  /** Throws when the request's time is up (called between steps). */
  readonly check?: () => void;
}

/** The turns that may be cut: after the first user turn and the cached prefix, before the last turns. */
export function middleRange(request: ModelRequest, frozen: Frozen, keepLastTurns: number): [number, number] {
  const firstUser = request.turns.findIndex((turn) => turn.role === 'user');
  const cached = frozen.parts > 0 ? frozen.turns + 1 : frozen.turns;
  return [Math.max(firstUser + 1, cached, 1), Math.max(0, request.turns.length - keepLastTurns)];
}

export function marker(tokens: number, what: string): string {
  return `[${what}${tokens.toLocaleString('en-US')} tokens left out by the gateway.]`;
}

function cutText(text: string, keep: number, tokens: number, tokenizer: Tokenizer): string {
  const half = Math.floor(((keep / 2) * text.length) / tokens);
  let headEnd = half;
  const newline = text.lastIndexOf('\n', half);
  if (newline > half * 0.8) headEnd = newline;
  let tailStart = text.length - half;
  const next = text.indexOf('\n', tailStart);
  if (next !== -1 && next < tailStart + half * 0.2) tailStart = next + 1;
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  const left = Math.max(0, tokens - tokenizer.count(head) - tokenizer.count(tail));
  return `${head}\n${marker(left, '... ')}\n${tail}`;
}

interface Output {
  readonly turn: number;
  readonly part: number;
  readonly text: string;
  readonly tokens: number;
}

function toolOutputs(request: ModelRequest, [lo, hi]: [number, number], tokenizer: Tokenizer): Output[] {
  const out: Output[] = [];
  for (let turn = lo; turn < hi; turn += 1) {
    for (const [part, value] of (request.turns[turn]?.content ?? []).entries()) {
      if (value.type !== 'tool_result' || !value.content.every((item) => item.type === 'text')) continue;
      const text = value.content.map((item) => (item as TextPart).text).join('');
      const tokens = tokenizer.count(text);
      if (tokens > MIN_KEEP_TOKENS + MARKER_TOKENS) out.push({ turn, part, text, tokens });
    }
  }
  return out;
}

/** The largest per-output cap that saves `over` tokens (or the smallest cap when none does). */
function capFor(outputs: readonly Output[], over: number): number {
  const saving = (cap: number) =>
    outputs.reduce((sum, output) => sum + Math.max(0, output.tokens - cap - MARKER_TOKENS), 0);
  let low = MIN_KEEP_TOKENS;
  let high = Math.max(...outputs.map((output) => output.tokens));
  if (saving(low) < over) return low;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (saving(middle) >= over) low = middle;
    else high = middle - 1;
  }
  return low;
}

function cutToolOutputs(request: ModelRequest, over: number, range: [number, number], tokenizer: Tokenizer) {
  const outputs = toolOutputs(request, range, tokenizer);
  if (outputs.length === 0) return request;
  const cap = capFor(outputs, over);
  const turns = request.turns.map((turn) => ({ ...turn, content: [...turn.content] }));
  for (const output of outputs) {
    if (output.tokens <= cap + MARKER_TOKENS) continue;
    const content = turns[output.turn]?.content as Part[];
    const part = content[output.part] as ToolResultPart;
    const text = cutText(output.text, cap, output.tokens, tokenizer);
    content[output.part] = { ...part, content: [{ type: 'text', text }] };
  }
  return { ...request, turns };
}

/** Call ids made and answered in a turn. */
function callIds(turn: Turn): { calls: string[]; results: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  for (const part of turn.content) {
    if (part.type === 'tool_call') calls.push(part.id);
    else if (part.type === 'tool_result') results.push(part.callId);
  }
  return { calls, results };
}

/**
 * Turns a..b grown one at a time, with what removing them would cost: their tokens, and how many
 * tool calls inside have no result inside (or results no call), kept as running figures so each
 * step is constant work (re-checking the whole range each step was quadratic: 2 MiB of call and
 * result pairs took 3.9 s).
 */
class Span {
  tokens = 0;
  /** Call ids seen in the span whose partner (call or result) is not in it yet. */
  #open = new Set<string>();

  add(turn: Turn, tokens: number): void {
    this.tokens += tokens;
    const { calls, results } = callIds(turn);
    for (const id of [...calls, ...results]) {
      if (this.#open.has(id)) this.#open.delete(id);
      else this.#open.add(id);
    }
  }

  /** Removing the span leaves every tool call with its result and back. */
  get closed(): boolean {
    return this.#open.size === 0;
  }
}

/** The span may be removed as a whole: it starts with an assistant turn after a user turn, ends with a user turn. */
function removableEnds(turns: readonly Turn[], a: number, b: number): boolean {
  return turns[a]?.role === 'assistant' && turns[b]?.role === 'user' && turns[a - 1]?.role === 'user';
}

function dropMiddleTurns(
  request: ModelRequest,
  over: number,
  [lo, hi]: [number, number],
  tokenizer: Tokenizer,
) {
  if (hi - lo < 2) return request;
  const tokenOf = (index: number) => turnTokens(request.turns[index] as Turn, tokenizer);
  let a = Math.floor((lo + hi - 1) / 2);
  let b = a;
  const span = new Span();
  span.add(request.turns[a] as Turn, tokenOf(a));
  let best: { from: number; to: number; tokens: number } | undefined;
  for (let step = 0; ; step += 1) {
    if (span.closed && removableEnds(request.turns, a, b)) {
      best = { from: a, to: b, tokens: span.tokens };
      if (span.tokens >= over + MARKER_TOKENS) break;
    }
    // Middle-out: grow towards the end and the start in turn, so the cut stays centred.
    const towardsEnd = (step % 2 === 0 && b + 1 < hi) || a - 1 < lo;
    if (towardsEnd) b += 1;
    else a -= 1;
    if (a < lo || b >= hi) break;
    const added = towardsEnd ? b : a;
    span.add(request.turns[added] as Turn, tokenOf(added));
  }
  if (!best) return request;
  const { from, to } = best;
  const text = marker(best.tokens, `${to - from + 1} earlier turns, `);
  const before = request.turns[from - 1] as Turn;
  const note: TextPart = { type: 'text', text };
  const turns = [
    ...request.turns.slice(0, from - 1),
    { ...before, content: [...before.content, note] },
    ...request.turns.slice(to + 1),
  ];
  return { ...request, turns };
}

export function cutToBudget(request: ModelRequest, options: CutOptions): ModelRequest {
  const { budget, tokenizer, frozen, keepLastTurns } = options;
  const check = options.check ?? (() => {});
  const total = requestTokens(request, tokenizer, check);
  if (total <= budget) return request;
  const range = middleRange(request, frozen, keepLastTurns);
  check();
  const cut = cutToolOutputs(request, total - budget, range, tokenizer);
  check();
  const left = requestTokens(cut, tokenizer, check);
  if (left <= budget) return cut;
  check();
  const dropped = dropMiddleTurns(cut, left - budget, range, tokenizer);
  check();
  // Turns the drop could not take (a call and its result on both sides of the cut) get their
  // tool outputs cut further.
  const still = requestTokens(dropped, tokenizer, check);
  if (still <= budget) return dropped;
  const removed = cut.turns.length - dropped.turns.length;
  return cutToolOutputs(dropped, still - budget, [range[0], range[1] - removed], tokenizer);
}
