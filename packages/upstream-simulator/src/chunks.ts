/** The simulator's replies in OpenAI's wire shapes: one completion, or the chunks of a stream. */
import type { Reply } from './reply.ts';

export interface Envelope {
  readonly id: string;
  readonly model: string;
  readonly created: number;
  readonly serviceTier: string;
}

const FINGERPRINT = 'fp_simulator';

export function completionBody(reply: Reply, envelope: Envelope): string {
  const message =
    reply.toolCalls.length > 0
      ? {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: reply.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : { role: 'assistant', content: reply.tokens.join(''), refusal: null };
  return JSON.stringify({
    id: envelope.id,
    object: 'chat.completion',
    created: envelope.created,
    model: envelope.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
    service_tier: envelope.serviceTier,
    system_fingerprint: FINGERPRINT,
  });
}

/** `data:` lines of a stream, in order; each string is one SSE event including its blank line. */
export function streamEvents(reply: Reply, envelope: Envelope, includeUsage: boolean): string[] {
  const event = (choices: unknown[], usage?: unknown) =>
    `data: ${JSON.stringify({
      id: envelope.id,
      object: 'chat.completion.chunk',
      created: envelope.created,
      model: envelope.model,
      service_tier: envelope.serviceTier,
      system_fingerprint: FINGERPRINT,
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    })}\n\n`;
  const delta = (value: unknown, finish: string | null = null) => [
    { index: 0, delta: value, logprobs: null, finish_reason: finish },
  ];
  const events: string[] = [];
  if (reply.toolCalls.length > 0) {
    events.push(event(delta({ role: 'assistant', content: null })));
    for (const [index, call] of reply.toolCalls.entries()) {
      const head = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
      events.push(event(delta({ tool_calls: [head] })));
      for (const piece of argumentPieces(call.arguments)) {
        events.push(event(delta({ tool_calls: [{ index, function: { arguments: piece } }] })));
      }
    }
  } else {
    events.push(event(delta({ role: 'assistant', content: '', refusal: null })));
    for (const token of reply.tokens) events.push(event(delta({ content: token })));
  }
  events.push(event(delta({}, reply.finishReason)));
  if (includeUsage) events.push(event([], reply.usage));
  events.push('data: [DONE]\n\n');
  return events;
}

/** Tool-call arguments in three pieces, as models stream them. */
export function argumentPieces(args: string): string[] {
  const third = Math.max(1, Math.ceil(args.length / 3));
  const pieces: string[] = [];
  for (let at = 0; at < args.length; at += third) pieces.push(args.slice(at, at + third));
  return pieces;
}

export function errorBody(message: string, type: string, code: string | null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}
