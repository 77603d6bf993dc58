/**
 * Prompt and answer text on spans, only when the operator opted in
 * (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true): `gen_ai.system_instructions`,
 * `gen_ai.input.messages` and `gen_ai.output.messages` in the conventions' JSON form
 * (`[{role, parts: [{type: 'text', content}]}]`), read from any front door's body and
 * non-streamed answer (streamed ones: stream-content.ts). Bounded: the last messages only, each
 * text part cut to a maximum.
 */
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
} from '@opentelemetry/semantic-conventions/incubating';

const MAX_MESSAGES = 20;
/** Characters kept of one text part (prompt or answer, JSON or streamed). */
export const MAX_PART_CHARS = 2_000;

interface Part {
  readonly type: string;
  readonly content?: string;
}
interface Message {
  readonly role: string;
  readonly parts: Part[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function textPart(text: string): Part {
  return { type: 'text', content: text.length > MAX_PART_CHARS ? `${text.slice(0, MAX_PART_CHARS)}…` : text };
}

/** A content value of any door: a string, or blocks with `text` (others named by their type). */
function parts(content: unknown): Part[] {
  if (typeof content === 'string') return [textPart(content)];
  return list(content).map((block) => {
    if (typeof block === 'string') return textPart(block);
    if (!isObject(block)) return { type: 'unknown' };
    if (typeof block.text === 'string') return textPart(block.text);
    return { type: typeof block.type === 'string' ? block.type : 'unknown' };
  });
}

/** Gemini calls the assistant `model`. */
const role = (value: unknown): string =>
  value === 'model' ? 'assistant' : typeof value === 'string' ? value : 'user';

function messagesOf(body: Json): Message[] {
  if (Array.isArray(body.contents))
    return body.contents
      .filter(isObject)
      .map((item) => ({ role: role(item.role), parts: parts(item.parts) }));
  const input = body.messages ?? body.input;
  if (typeof input === 'string') return [{ role: 'user', parts: [textPart(input)] }];
  return list(input)
    .filter(isObject)
    .map((item) => ({ role: role(item.role), parts: parts(item.content ?? item.output) }));
}

function systemOf(body: Json): Part[] {
  const system =
    body.system ??
    body.instructions ??
    (isObject(body.systemInstruction) ? body.systemInstruction.parts : undefined);
  return system === undefined ? [] : parts(system);
}

/** The prompt of a client's body as span attributes. */
export function inputContent(body: unknown): Attributes {
  if (!isObject(body)) return {};
  const attributes: Attributes = {};
  const messages = messagesOf(body).slice(-MAX_MESSAGES);
  if (messages.length > 0) attributes[ATTR_GEN_AI_INPUT_MESSAGES] = JSON.stringify(messages);
  const system = systemOf(body);
  if (system.length > 0) attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = JSON.stringify(system);
  return attributes;
}

/** The assistant's parts of a non-streamed answer of any door. */
function answerParts(answer: Json): Part[] {
  const choice = list(answer.choices)[0];
  if (isObject(choice) && isObject(choice.message)) return parts(choice.message.content);
  if (Array.isArray(answer.output))
    return answer.output
      .filter(isObject)
      .flatMap((item) => (item.type === 'message' ? parts(item.content) : []));
  const candidate = list(answer.candidates)[0];
  if (isObject(candidate) && isObject(candidate.content)) return parts(candidate.content.parts);
  return parts(answer.content);
}

/** The answer sent to the client (a JSON payload) as span attributes; nothing for streams. */
export function outputContent(payload: string): Attributes {
  let answer: unknown;
  try {
    answer = JSON.parse(payload);
  } catch {
    return {};
  }
  if (!isObject(answer) || isObject(answer.error)) return {};
  const found = answerParts(answer).slice(0, MAX_MESSAGES);
  if (found.length === 0) return {};
  return { [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([{ role: 'assistant', parts: found }]) };
}
