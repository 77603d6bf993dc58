/**
 * Prompt-cache writes as the Messages API reports them. The simulator keeps no cache, so a
 * request's breakpoints (`cache_control`) only ever write, never read: the prompt up to the last
 * breakpoint is written, the part up to the last `ttl: "1h"` breakpoint for an hour, the rest of
 * it for five minutes (the default TTL). As on the real API, the prefix is cached in the order
 * tools, system, messages, and one under 1,024 tokens is not cached at all.
 */
type Body = Readonly<Record<string, unknown>>;

/** Anthropic's smallest cacheable prefix for most models (Haiku's is larger; one figure here). */
export const MIN_CACHEABLE_TOKENS = 1024;

export interface CacheWrites {
  readonly fiveMinutes: number;
  readonly oneHour: number;
}

export const NO_CACHE_WRITES: CacheWrites = Object.freeze({ fiveMinutes: 0, oneHour: 0 });

interface Walk {
  chars: number;
  /** Characters up to the last breakpoint, and up to the last one-hour breakpoint. */
  last: number;
  lastHour: number;
}

function blocks(value: unknown): Body[] {
  return Array.isArray(value)
    ? value.filter((item): item is Body => typeof item === 'object' && item !== null)
    : [];
}

function visit(walk: Walk, block: Body, chars: number): void {
  walk.chars += chars;
  const control = block.cache_control;
  if (typeof control !== 'object' || control === null) return;
  walk.last = walk.chars;
  if ((control as Body).ttl === '1h') walk.lastHour = walk.chars;
}

function textLength(block: Body): number {
  return typeof block.text === 'string' ? block.text.length : JSON.stringify(block).length;
}

/** The writes of a Messages body whose prompt counts `promptTokens`, shared out by characters. */
export function cacheWrites(body: Body, promptTokens: number): CacheWrites {
  const walk: Walk = { chars: 0, last: 0, lastHour: 0 };
  for (const tool of blocks(body.tools)) visit(walk, tool, JSON.stringify(tool).length);
  if (typeof body.system === 'string') walk.chars += body.system.length;
  for (const block of blocks(body.system)) visit(walk, block, textLength(block));
  for (const message of blocks(body.messages)) {
    if (typeof message.content === 'string') walk.chars += message.content.length;
    for (const block of blocks(message.content)) visit(walk, block, textLength(block));
  }
  if (walk.last === 0 || walk.chars === 0) return NO_CACHE_WRITES;
  const tokens = (chars: number) => Math.min(promptTokens, Math.ceil((promptTokens * chars) / walk.chars));
  const written = tokens(walk.last);
  if (written < MIN_CACHEABLE_TOKENS) return NO_CACHE_WRITES;
  const oneHour = tokens(walk.lastHour);
  return { fiveMinutes: written - oneHour, oneHour };
}
