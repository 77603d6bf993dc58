/**
 * Named-event streams (Anthropic Messages, OpenAI Responses) sent at the pace and with the faults
 * the behaviour asks for, as respond.ts does for Chat Completions: delays before the first and
 * every later event, a cut connection or an API-shaped failure event after N tokens.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Behaviour } from '../faults.ts';
import type { SimState } from '../respond.ts';
import type { SimEvent } from './anthropic-reply.ts';

export interface PacedStream {
  readonly headers?: Record<string, string>;
  /** The API's own mid-stream failure event (deliberately internal-looking text). */
  readonly failure: string;
}

export async function pacedEvents(
  state: SimState,
  res: ServerResponse,
  events: readonly SimEvent[],
  behaviour: Behaviour,
  stream: PacedStream,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...stream.headers,
  });
  res.flushHeaders();
  if (behaviour.hang === 'body') return;
  let tokens = 0;
  for (const [index, event] of events.entries()) {
    const wait = index === 0 ? (behaviour.firstTokenDelayMs ?? 0) : (behaviour.tokenDelayMs ?? 0);
    if (wait > 0) await sleep(wait, undefined, { signal: state.closing }).catch(() => {});
    if (res.destroyed || state.closing.aborted) return;
    if (event.token && tokens === behaviour.dropAfterTokens) {
      res.destroy();
      return;
    }
    if (event.token && tokens === behaviour.failAfterTokens) {
      res.end(stream.failure);
      return;
    }
    if (event.token) tokens++;
    res.write(event.text);
  }
  res.end();
}
