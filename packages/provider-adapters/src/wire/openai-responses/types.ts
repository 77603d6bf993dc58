/**
 * The OpenAI Responses wire format (`POST /v1/responses`), as far as the gateway reads and
 * writes it. Bodies are read defensively from `JsonObject`s: OpenAI adds item and event types at
 * will, and a passthrough forwards what it does not know.
 */
export const RESPONSES_API = 'openai-responses';

/** `resp_` ids for answers of other APIs; OpenAI's own pass through as they came. */
export interface ResponseEnvelope {
  readonly id: string;
  /** The model name the client is shown (the gateway's exact version). */
  readonly model: string;
  /** Seconds since the epoch. */
  readonly createdAt: number;
  /** The request's `tools` as sent, echoed as OpenAI echoes them (none when absent). */
  readonly tools?: readonly unknown[] | undefined;
  /** The request's `tool_choice` as sent ("auto" when absent). */
  readonly toolChoice?: unknown;
  /** The request's `instructions`, `temperature` and `top_p`, echoed (null when absent: OpenAI's schema requires them). */
  readonly instructions?: string | null | undefined;
  readonly temperature?: number | null | undefined;
  readonly topP?: number | null | undefined;
}
