/**
 * The cached prefix: everything up to and including the last prompt-caching breakpoint
 * (Anthropic `cache_control`, Bedrock `cachePoint`) in the provider's order (tools, system,
 * turns). A provider bills a cache hit only for a byte-identical prefix, so no level edits it.
 * Tools are never edited, so only breakpoints in the system prompt and the turns matter.
 */
import type { ModelRequest, Part } from '@app/provider-adapters';

export interface Frozen {
  /** System parts with an index below this are left as they are. */
  readonly system: number;
  /** Turns with an index below this are left as they are... */
  readonly turns: number;
  /** ...and so are the parts of turn `turns` with an index below this. */
  readonly parts: number;
}

function hasBreakpoint(part: Part): boolean {
  if (part.type === 'tool_result') return part.cache !== undefined || part.content.some((item) => item.cache);
  return 'cache' in part && part.cache !== undefined;
}

export function frozenPrefix(request: ModelRequest): Frozen {
  for (let turn = request.turns.length - 1; turn >= 0; turn -= 1) {
    const content = request.turns[turn]?.content ?? [];
    for (let part = content.length - 1; part >= 0; part -= 1) {
      const candidate = content[part];
      if (candidate && hasBreakpoint(candidate))
        return { system: request.system.length, turns: turn, parts: part + 1 };
    }
  }
  const lastSystem = request.system.findLastIndex((part) => part.cache !== undefined);
  return { system: lastSystem + 1, turns: 0, parts: 0 };
}

export function isFrozenPart(frozen: Frozen, turn: number, part: number): boolean {
  return turn < frozen.turns || (turn === frozen.turns && part < frozen.parts);
}
