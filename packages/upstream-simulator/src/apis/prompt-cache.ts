/**
 * Prompt-cache writes as Anthropic's Messages API and Bedrock Converse report them. The
 * simulator keeps no cache, so a request's breakpoints (Messages `cache_control`, Converse
 * `cachePoint`) only ever write, never read: the prompt up to the last breakpoint is written,
 * the part up to the last one-hour breakpoint (`ttl: "1h"`) for an hour, the rest of it for five
 * minutes (the default TTL). The prefix runs in the APIs' cache order (tools, system, messages),
 * its tokens shared out by characters; as on the real APIs, one under 1,024 tokens is not cached.
 */
type Body = Readonly<Record<string, unknown>>;

/** Anthropic's smallest cacheable prefix for most models (Haiku's is larger; one figure here). */
export const MIN_CACHEABLE_TOKENS = 1024;

export interface CacheWrites {
  readonly fiveMinutes: number;
  readonly oneHour: number;
}

export const NO_CACHE_WRITES: CacheWrites = Object.freeze({ fiveMinutes: 0, oneHour: 0 });

/** A stretch of the prompt, in cache order, and the breakpoint that ends it, if any. */
interface Segment {
  readonly chars: number;
  readonly breakpoint?: { readonly ttl: unknown };
}

function list(value: unknown): Body[] {
  return Array.isArray(value)
    ? value.filter((item): item is Body => typeof item === 'object' && item !== null)
    : [];
}

function text(block: Body): number {
  return typeof block.text === 'string' ? block.text.length : JSON.stringify(block).length;
}

function writes(segments: readonly Segment[], promptTokens: number): CacheWrites {
  let chars = 0;
  let last = 0;
  let lastHour = 0;
  for (const segment of segments) {
    chars += segment.chars;
    if (segment.breakpoint === undefined) continue;
    last = chars;
    if (segment.breakpoint.ttl === '1h') lastHour = chars;
  }
  if (last === 0 || chars === 0) return NO_CACHE_WRITES;
  const tokens = (upTo: number) => Math.min(promptTokens, Math.ceil((promptTokens * upTo) / chars));
  const written = tokens(last);
  if (written < MIN_CACHEABLE_TOKENS) return NO_CACHE_WRITES;
  const oneHour = tokens(lastHour);
  return { fiveMinutes: written - oneHour, oneHour };
}

/** Messages: a block with `cache_control` ends a breakpoint after itself. */
function messagesSegment(block: Body, chars: number): Segment {
  const control = block.cache_control;
  return typeof control === 'object' && control !== null
    ? { chars, breakpoint: { ttl: (control as Body).ttl } }
    : { chars };
}

/** The writes of a Messages body whose prompt counts `promptTokens`. */
export function messagesCacheWrites(body: Body, promptTokens: number): CacheWrites {
  const segments: Segment[] = list(body.tools).map((tool) =>
    messagesSegment(tool, JSON.stringify(tool).length),
  );
  if (typeof body.system === 'string') segments.push({ chars: body.system.length });
  for (const block of list(body.system)) segments.push(messagesSegment(block, text(block)));
  for (const message of list(body.messages)) {
    if (typeof message.content === 'string') segments.push({ chars: message.content.length });
    for (const block of list(message.content)) segments.push(messagesSegment(block, text(block)));
  }
  return writes(segments, promptTokens);
}

/** Converse: a `cachePoint` block is the breakpoint, after what precedes it. */
function converseSegment(block: Body, chars: number): Segment {
  const point = block.cachePoint;
  return typeof point === 'object' && point !== null
    ? { chars: 0, breakpoint: { ttl: (point as Body).ttl } }
    : { chars };
}

/** The writes of a Converse body whose prompt counts `promptTokens`. */
export function converseCacheWrites(body: Body, promptTokens: number): CacheWrites {
  const config =
    typeof body.toolConfig === 'object' && body.toolConfig !== null ? (body.toolConfig as Body) : {};
  const segments: Segment[] = list(config.tools).map((entry) =>
    converseSegment(entry, JSON.stringify(entry).length),
  );
  for (const block of list(body.system)) segments.push(converseSegment(block, text(block)));
  for (const message of list(body.messages))
    for (const block of list(message.content)) segments.push(converseSegment(block, text(block)));
  return writes(segments, promptTokens);
}
