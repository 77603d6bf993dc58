/**
 * The completion text of a streamed answer, for `gen_ai.output.messages` when message content is
 * captured (content.ts does the JSON answers). The stream the client gets is tapped on its way
 * out, so every door and every upstream (translated or passed through) is read the same way:
 * as the client's own events. Only the text is kept, bounded like a JSON answer's: once it holds
 * the maximum, the tap stops reading (chunks still pass). Without the opt-in no tap exists.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Attributes } from '@opentelemetry/api';
import { ATTR_GEN_AI_OUTPUT_MESSAGES } from '@opentelemetry/semantic-conventions/incubating';
import { MAX_PART_CHARS, textPart } from './content.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : undefined;
}

/**
 * The answer text in one event of any door's stream: a Chat Completions chunk, a Messages
 * `content_block_delta`, a Responses `response.output_text.delta`, a Gemini chunk (its thoughts
 * left out). Anything else (tool calls, reasoning, usage) adds nothing.
 */
export function eventText(event: unknown): string {
  if (!isObject(event)) return '';
  const choice = firstOf(event.choices);
  if (isObject(choice))
    return isObject(choice.delta) && typeof choice.delta.content === 'string' ? choice.delta.content : '';
  if (event.type === 'content_block_delta' && isObject(event.delta) && event.delta.type === 'text_delta')
    return typeof event.delta.text === 'string' ? event.delta.text : '';
  if (event.type === 'response.output_text.delta') return typeof event.delta === 'string' ? event.delta : '';
  const candidate = firstOf(event.candidates);
  if (!isObject(candidate) || !isObject(candidate.content) || !Array.isArray(candidate.content.parts))
    return '';
  let text = '';
  for (const part of candidate.content.parts)
    if (isObject(part) && part.thought !== true && typeof part.text === 'string') text += part.text;
  return text;
}

/**
 * The JSON of one line of a stream: an SSE `data:` line, or an element of Gemini's JSON array
 * (the gateway writes each on its own line, after `[` or `,`). Undefined for anything else.
 */
function lineJson(line: string): unknown {
  const body = line.startsWith('data:') ? line.slice(5).trim() : line.trim().replace(/^[[,]/, '');
  if (!body.startsWith('{')) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads a stream's text as it passes, up to the bound. */
export class StreamedText {
  #text = '';
  #partial = '';
  #full = false;

  push(chunk: string): void {
    if (this.#full) return;
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      this.#text += eventText(lineJson(line));
      if (this.#text.length > MAX_PART_CHARS) {
        this.#full = true;
        this.#partial = '';
        return;
      }
    }
  }

  /** `gen_ai.output.messages` of what was read; nothing when the answer had no text. */
  attributes(): Attributes {
    if (!this.#full && this.#partial !== '') this.push('\n');
    if (this.#text === '') return {};
    return {
      [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([{ role: 'assistant', parts: [textPart(this.#text)] }]),
    };
  }
}

/** A pass-through stream that shows every chunk to `text` on the way. */
export function textTap(text: StreamedText): Transform {
  // A character split across two chunks is decoded whole.
  const decoder = new StringDecoder('utf8');
  return new Transform({
    transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback) {
      text.push(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      done(null, chunk);
    },
  });
}
