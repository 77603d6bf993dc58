/**
 * `compact`: meaning-preserving and deterministic per part, with references only to earlier
 * content, so compacting a conversation that grew by a turn yields the previous compacted
 * conversation plus the new turn. An automatic prefix cache (OpenAI, Gemini) keeps hitting as
 * long as the client keeps the level.
 */
import type { ModelRequest, Part, TextPart, ToolResultPart, Turn } from '@app/provider-adapters';
import { type Frozen, isFrozenPart } from './frozen.ts';
import { contentKey } from './keys.ts';
import { compactText } from './text.ts';

/** Shorter repeats are cheaper to keep than to replace by a reference. */
export const MIN_REPEAT_CHARS = 200;

function sameText<T extends { readonly text: string }>(part: T, text: string): T {
  return text === part.text ? part : { ...part, text };
}

function resultText(part: ToolResultPart): string | undefined {
  if (!part.content.every((item) => item.type === 'text')) return undefined;
  return part.content.map((item) => (item as TextPart).text).join('');
}

class Compactor {
  /** Raw tool result text (its contentKey) -> the call whose result it was first. */
  readonly #results = new Map<string, string>();
  readonly #systemTexts = new Set<string>();

  readonly frozen: Frozen;

  constructor(frozen: Frozen) {
    this.frozen = frozen;
  }

  system(parts: readonly TextPart[]): TextPart[] {
    const out: TextPart[] = [];
    for (const [index, part] of parts.entries()) {
      const key = contentKey(part.text);
      const repeated = this.#systemTexts.has(key);
      if (part.text.length >= MIN_REPEAT_CHARS) this.#systemTexts.add(key);
      if (index < this.frozen.system) out.push(part);
      // An exact repeat of a system prompt adds nothing: dropped.
      else if (!repeated || part.text.length < MIN_REPEAT_CHARS)
        out.push(sameText(part, compactText(part.text)));
    }
    return out;
  }

  turn(turn: Turn, turnIndex: number): Turn {
    let changed = false;
    const content = turn.content.map((part, index) => {
      const next = isFrozenPart(this.frozen, turnIndex, index) ? this.remember(part) : this.part(part);
      changed ||= next !== part;
      return next;
    });
    return changed ? { ...turn, content } : turn;
  }

  private remember(part: Part): Part {
    if (part.type === 'tool_result') {
      const text = resultText(part);
      const key = text !== undefined && text.length >= MIN_REPEAT_CHARS ? contentKey(text) : undefined;
      if (key !== undefined && !this.#results.has(key)) this.#results.set(key, part.callId);
    }
    return part;
  }

  private part(part: Part): Part {
    if (part.type === 'text') {
      if (part.text.length >= MIN_REPEAT_CHARS && this.#systemTexts.has(contentKey(part.text)))
        return { ...part, text: '[The system prompt again: left out by the gateway.]' };
      return sameText(part, compactText(part.text));
    }
    if (part.type !== 'tool_result') return part;
    const text = resultText(part);
    if (text !== undefined && text.length >= MIN_REPEAT_CHARS) {
      const key = contentKey(text);
      const first = this.#results.get(key);
      if (first !== undefined)
        return {
          ...part,
          content: [
            {
              type: 'text',
              text: `[Identical to the result of tool call ${first}: left out by the gateway.]`,
            },
          ],
        };
      this.#results.set(key, part.callId);
    }
    let changed = false;
    const content = part.content.map((item) => {
      if (item.type !== 'text') return item;
      const next = sameText(item, compactText(item.text));
      changed ||= next !== item;
      return next;
    });
    return changed ? { ...part, content } : part;
  }
}

export function compactRequest(request: ModelRequest, frozen: Frozen): ModelRequest {
  const compactor = new Compactor(frozen);
  const system = compactor.system(request.system);
  const turns = request.turns.map((turn, index) => compactor.turn(turn, index));
  return { ...request, system, turns };
}
