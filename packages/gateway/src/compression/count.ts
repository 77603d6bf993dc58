/**
 * The prompt's size in tokens as the header reports it: the tokenizer's count of every text the
 * model reads (system, turns, tool calls and results, thinking, tool definitions) plus a few
 * tokens per turn for the chat template. Images and documents are not counted (compression
 * never touches them, so they do not change the difference).
 */
import type { ModelRequest, Part, Tool } from '@app/provider-adapters';
import type { Tokenizer } from './tokenizers.ts';

/** Role markers and separators per turn, as OpenAI documents for its chat template. */
export const TOKENS_PER_TURN = 4;

export function partTokens(part: Part, tokenizer: Tokenizer): number {
  switch (part.type) {
    case 'text':
    case 'thinking':
      return tokenizer.count(part.text);
    case 'tool_call':
      return tokenizer.count(part.name) + tokenizer.count(part.arguments);
    case 'tool_result':
      return part.content.reduce(
        (sum, item) => sum + (item.type === 'text' ? tokenizer.count(item.text) : 0),
        0,
      );
    case 'server_tool_call':
    case 'server_tool_result':
      return tokenizer.count(JSON.stringify(part.payload));
    default:
      return 0;
  }
}

export function turnTokens(turn: { readonly content: readonly Part[] }, tokenizer: Tokenizer): number {
  return turn.content.reduce((sum, part) => sum + partTokens(part, tokenizer), TOKENS_PER_TURN);
}

function toolTokens(tool: Tool, tokenizer: Tokenizer): number {
  if (tool.type !== 'function') return 0;
  return tokenizer.count(`${tool.name}\n${tool.description ?? ''}\n${JSON.stringify(tool.parameters)}`);
}

export function systemTokens(request: ModelRequest, tokenizer: Tokenizer): number {
  if (request.system.length === 0) return 0;
  return request.system.reduce((sum, part) => sum + tokenizer.count(part.text), TOKENS_PER_TURN);
}

/** `check` is called between turns: it throws when the request's compression time is up. */
export function requestTokens(request: ModelRequest, tokenizer: Tokenizer, check?: () => void): number {
  let total = systemTokens(request, tokenizer);
  for (const turn of request.turns) {
    total += turnTokens(turn, tokenizer);
    check?.();
  }
  for (const tool of request.tools) total += toolTokens(tool, tokenizer);
  return total;
}

/** Characters of text the request carries (what compressing it reads): a cheap bound on its work. */
export function requestChars(request: ModelRequest): number {
  let chars = 0;
  for (const part of request.system) chars += part.text.length;
  for (const turn of request.turns)
    for (const part of turn.content) {
      if (part.type === 'text' || part.type === 'thinking') chars += part.text.length;
      else if (part.type === 'tool_call') chars += part.arguments.length;
      else if (part.type === 'tool_result')
        for (const item of part.content) if (item.type === 'text') chars += item.text.length;
    }
  return chars;
}
