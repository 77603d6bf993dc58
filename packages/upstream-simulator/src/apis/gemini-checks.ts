/**
 * What Google refuses in a generateContent request, as the simulator checks it: unknown
 * fields, thinking settings a model does not take, Gemini 3 function calls sent back without
 * the thought signature they came with, and flex where it is not served.
 */
import { createHmac, randomBytes } from 'node:crypto';

export interface GoogleError {
  readonly code: number;
  readonly status: string;
  readonly message: string;
  readonly details?: readonly unknown[];
}

interface ModelRules {
  /** Accepted `thinkingLevel` values; empty when the model takes none (2.5). */
  readonly levels: readonly string[];
  /** Accepted `thinkingBudget` range; -1 (dynamic) is accepted everywhere. */
  readonly budget: readonly [number, number];
  /** Gemini 3 validates thought signatures on function calls. */
  readonly signatures: boolean;
}

/**
 * providers.md section 5 gives the 2.5 ranges and the 3.x levels. Google keeps taking
 * `thinkingBudget` on Gemini 3 for backward compatibility, so the simulator accepts it there
 * with the range of the model's 2.5 predecessor (Pro cannot switch thinking off).
 */
export const GEMINI_MODELS: Readonly<Record<string, ModelRules>> = {
  'gemini-3.1-pro-preview': { levels: ['LOW', 'MEDIUM', 'HIGH'], budget: [128, 32768], signatures: true },
  'gemini-3.5-flash': { levels: ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'], budget: [0, 24576], signatures: true },
  'gemini-2.5-pro': { levels: [], budget: [128, 32768], signatures: false },
  'gemini-2.5-flash': { levels: [], budget: [0, 24576], signatures: false },
};

/** Google's documented value for calls it never issued (history moved from another model). */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';
const SIGNING_KEY = randomBytes(32);

/** A signature bound to the call it was issued with, so only an echo of it validates. */
export function issueSignature(model: string, name: string, args: string): string {
  const mac = createHmac('sha256', SIGNING_KEY).update(`${model}\n${name}\n${args}`).digest('base64');
  return `Cs${mac}`;
}

export function invalidArgument(message: string): GoogleError {
  return { code: 400, status: 'INVALID_ARGUMENT', message };
}

type Body = Readonly<Record<string, unknown>>;

function object(value: unknown): Body | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

const COMMON_FIELDS = [
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
  'safetySettings',
  'cachedContent',
];
/**
 * `@google/genai` 3.x sends `serviceTier` in the body on Vertex too, so Vertex takes it
 * beside the `X-Vertex-AI-LLM-Shared-Request-Type` header that providers.md documents.
 */
export const GEMINI_API_FIELDS = new Set([...COMMON_FIELDS, 'serviceTier']);
export const VERTEX_FIELDS = new Set([...COMMON_FIELDS, 'serviceTier', 'labels']);

export function checkFields(body: unknown, allowed: ReadonlySet<string>): GoogleError | undefined {
  const fields = object(body);
  if (!fields) return invalidArgument('Invalid JSON payload received. Expected an object.');
  const unknown = Object.keys(fields).find((name) => !allowed.has(name));
  if (unknown !== undefined)
    return invalidArgument(`Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
  const contents = list(fields.contents);
  if (contents.length === 0)
    return invalidArgument('* GenerateContentRequest.contents: contents is not specified\n');
  for (const content of contents) {
    const role = object(content)?.role;
    if (role !== undefined && role !== 'user' && role !== 'model')
      return invalidArgument(`Please use a valid role: user, model.`);
  }
  return undefined;
}

export function checkThinking(model: string, body: Body): GoogleError | undefined {
  const rules = GEMINI_MODELS[model];
  const thinking = object(object(body.generationConfig)?.thinkingConfig);
  if (!rules || !thinking) return undefined;
  const { thinkingBudget: budget, thinkingLevel: level } = thinking;
  if (budget !== undefined && level !== undefined)
    return invalidArgument('thinking_budget and thinking_level cannot be set at the same time.');
  if (level !== undefined) {
    if (rules.levels.length === 0) return invalidArgument('Thinking level is not supported for this model.');
    if (typeof level !== 'string' || !rules.levels.includes(level.toUpperCase()))
      return invalidArgument(
        `Invalid thinking level ${JSON.stringify(level)} for ${model}; supported: ${rules.levels.join(', ')}.`,
      );
  }
  if (budget !== undefined) {
    const [min, max] = rules.budget;
    const ok =
      typeof budget === 'number' &&
      Number.isInteger(budget) &&
      (budget === -1 || (budget >= min && budget <= max));
    if (!ok)
      return invalidArgument(
        `The thinking budget ${String(budget)} is invalid. Please choose a value between ${min} and ${max}.`,
      );
  }
  return undefined;
}

/** A user turn that is more than function results starts a new turn; older turns are not validated. */
function currentTurnStart(contents: readonly unknown[]): number {
  for (let i = contents.length - 1; i >= 0; i--) {
    const content = object(contents[i]);
    if (content?.role === 'model') continue;
    if (list(content?.parts).some((part) => object(part)?.functionResponse === undefined)) return i;
  }
  return 0;
}

/** Gemini 3: the first function call of every model step in the current turn carries its signature. */
export function checkSignatures(model: string, body: Body): GoogleError | undefined {
  if (!GEMINI_MODELS[model]?.signatures) return undefined;
  const contents = list(body.contents);
  for (let i = currentTurnStart(contents); i < contents.length; i++) {
    const content = object(contents[i]);
    if (content?.role !== 'model') continue;
    const first = list(content.parts)
      .map(object)
      .find((part) => part?.functionCall !== undefined);
    const call = object(first?.functionCall);
    if (!first || !call) continue;
    const signature = first.thoughtSignature;
    const expected = issueSignature(model, String(call.name), JSON.stringify(call.args ?? {}));
    if (signature !== expected && signature !== SKIP_SIGNATURE)
      return invalidArgument(
        `Function call \`${String(call.name)}\` in content ${i} is missing its thought_signature, or it was altered. ` +
          'Send back the thoughtSignature that came with the call.',
      );
  }
  return undefined;
}

const TIERS = new Set(['standard', 'flex', 'priority']);

export function checkGeminiTier(body: Body): GoogleError | undefined {
  const tier = body.serviceTier;
  if (tier === undefined || (typeof tier === 'string' && TIERS.has(tier.toLowerCase()))) return undefined;
  return invalidArgument(`Invalid value at 'service_tier', ${JSON.stringify(tier)}`);
}

/** The tier a Vertex request asks for: the header, else the body's `serviceTier`. */
export function vertexTier(header: unknown, body: Body): string | undefined {
  const tier = typeof header === 'string' ? header : body.serviceTier;
  return typeof tier === 'string' ? tier.toLowerCase() : undefined;
}

/** Flex and Priority PayGo are served on the global endpoint only. */
export function checkVertexTier(tier: string | undefined, location: string): GoogleError | undefined {
  if (tier === undefined || tier === 'standard' || tier === 'unspecified') return undefined;
  if (tier !== 'flex' && tier !== 'priority') return invalidArgument(`Invalid service tier: ${tier}.`);
  if (location !== 'global')
    return invalidArgument(
      `${tier} PayGo is only supported on the global endpoint, not in location ${location}.`,
    );
  return undefined;
}
