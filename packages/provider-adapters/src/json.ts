/** JSON values as the wire formats carry them; unknown fields travel as `unknown`. */
export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MAX_MODEL_CHARS = 200;

/**
 * `{ model }` when an answer names the model that served it (a dated snapshot, a deployment's
 * model), else nothing: for ModelResponse and the stream's start event.
 */
export function servedModel(value: unknown): { model?: string } {
  return typeof value === 'string' && value !== '' ? { model: value.slice(0, MAX_MODEL_CHARS) } : {};
}

/** Parses JSON text; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
