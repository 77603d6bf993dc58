/**
 * The scripted tool turn: a coding agent's smallest real task, one tool call and an answer, made
 * deterministic for end-to-end tests of real agent CLIs. The default reply (actions.ts) decides
 * from the user's words whether and which tool to call, with the arguments it can infer; with a
 * tool turn configured the simulator calls only the named tool, with exactly the given input,
 * whatever the prompt says, and answers its result by quoting it, so a test can tell that the
 * tool ran and that its output came back through every hop. Off unless a request or the
 * configuration asks for it.
 */

/** The tool to call (by name, as the client offers it) and the input to call it with. */
export interface ToolTurn {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** What opens the final answer; the tool's output follows it. */
export const TOOL_TURN_ANSWER = 'The tool returned:';

/** Words of the tool output quoted at most (an agent's tool may print a lot). */
export const TOOL_TURN_QUOTED_WORDS = 64;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool turn from a configuration object, a body's `tool_turn` object or an `x-sim-tool-turn`
 * header (the same object as JSON); anything else is no tool turn.
 */
export function parseToolTurn(value: unknown): ToolTurn | undefined {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  if (!isRecord(parsed) || typeof parsed.name !== 'string' || parsed.name === '') return undefined;
  const input = parsed.input ?? {};
  return isRecord(input) ? { name: parsed.name, input } : undefined;
}

interface Offer {
  readonly messages: ReadonlyArray<{ role?: unknown }>;
  readonly tools?: ReadonlyArray<{ function?: { name?: unknown } }>;
  readonly tool_choice?: unknown;
}

/**
 * What the scripted turn does with this request: `answer` once the last turn is a tool result,
 * `call` when the named tool is offered (and tools are not refused), otherwise `reply` (the
 * ordinary text reply: an agent's side calls, such as a title, get no tool call at all).
 */
export function toolTurnStep(request: Offer, turn: ToolTurn): 'answer' | 'call' | 'reply' {
  if (request.messages.at(-1)?.role === 'tool') return 'answer';
  const offered = (request.tools ?? []).some((tool) => tool.function?.name === turn.name);
  return offered && request.tool_choice !== 'none' ? 'call' : 'reply';
}

/** The final answer's tokens: the opening, then the tool output's words, one token each. */
export function toolTurnAnswer(output: string): string[] {
  const words = output.split(/\s+/).filter(Boolean).slice(0, TOOL_TURN_QUOTED_WORDS);
  return [TOOL_TURN_ANSWER, ...words.map((word) => ` ${word}`)];
}
