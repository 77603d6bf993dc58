/**
 * `generationConfig.thinkingConfig` both ways: the gateway effort a Gemini client asks for
 * (read like the other front doors read `reasoning.effort`), and the gateway's effort written
 * into a client's body forwarded to Gemini as sent.
 */
import { AdapterRequestError } from '../../adapter.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { Effort, EffortExpression } from '../../model/profile.ts';
import { GeminiDecodeError } from './decode-error.ts';
import { thinkingConfig } from './request.ts';

/**
 * The budgets Google's own effort mapping gives each effort (its OpenAI-compatible endpoint,
 * Gemini 2.5); a client's budget means the effort whose budget is nearest on a log scale.
 */
const BUDGETS: ReadonlyArray<readonly [Effort, number]> = [
  ['minimal', 512],
  ['low', 1024],
  ['medium', 8192],
  ['high', 24576],
  ['xhigh', 32768],
];

const LEVELS: Readonly<Record<string, Effort>> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
};

export function effortOfBudget(budget: number): Effort | undefined {
  if (budget === 0) return 'none';
  // -1 is "dynamic": the model decides, i.e. no effort asked for.
  if (budget < 0) return undefined;
  let best: readonly [Effort, number] = BUDGETS[0] ?? ['minimal', 512];
  for (const entry of BUDGETS)
    if (Math.abs(Math.log(budget / entry[1])) < Math.abs(Math.log(budget / best[1]))) best = entry;
  return best[0];
}

function thinkingConfigOf(body: JsonObject): JsonObject | undefined {
  const config = isJsonObject(body.generationConfig) ? body.generationConfig : undefined;
  return config && isJsonObject(config.thinkingConfig) ? config.thinkingConfig : undefined;
}

/**
 * The gateway effort the client's `thinkingConfig` asks for: `thinkingLevel` by name,
 * `thinkingBudget` 0 as none, -1 (dynamic) as no effort, another budget as the nearest effort.
 * Both together are refused, as Google refuses them.
 */
export function thinkingEffort(body: JsonObject): Effort | undefined {
  const config = thinkingConfigOf(body);
  if (config === undefined) return undefined;
  const { thinkingLevel: level, thinkingBudget: budget } = config;
  if (level !== undefined && budget !== undefined)
    throw new GeminiDecodeError('thinkingConfig takes thinkingBudget or thinkingLevel, not both.');
  if (typeof level === 'string') {
    const effort = LEVELS[level.toLowerCase()];
    if (effort === undefined) throw new GeminiDecodeError(`thinkingLevel '${level}' is not known.`);
    return effort;
  }
  if (typeof budget === 'number' && Number.isInteger(budget)) return effortOfBudget(budget);
  if (level !== undefined || budget !== undefined)
    throw new GeminiDecodeError('thinkingBudget must be an integer and thinkingLevel a level name.');
  return undefined;
}

/** Whether the client asked to see thought summaries (Google sends none otherwise). */
export function includesThoughts(body: JsonObject): boolean {
  return thinkingConfigOf(body)?.includeThoughts === true;
}

/**
 * The gateway's effort in a body forwarded as sent: `omit` leaves the client's thinkingConfig
 * (the model default it asked for); any other expression replaces its budget or level, keeping
 * `includeThoughts`, because the gateway's effort decision wins.
 */
export function applyThinking(body: JsonObject, reasoning: EffortExpression): void {
  if (reasoning.kind === 'omit') return;
  if (reasoning.kind !== 'gemini-budget' && reasoning.kind !== 'gemini-level')
    throw new AdapterRequestError(`this model's effort setting (${reasoning.kind}) is not a Gemini one.`);
  const config: JsonObject = isJsonObject(body.generationConfig) ? { ...body.generationConfig } : {};
  const current: JsonObject = isJsonObject(config.thinkingConfig) ? { ...config.thinkingConfig } : {};
  delete current.thinkingBudget;
  delete current.thinkingLevel;
  config.thinkingConfig = { ...current, ...thinkingConfig(reasoning) };
  body.generationConfig = config;
}
