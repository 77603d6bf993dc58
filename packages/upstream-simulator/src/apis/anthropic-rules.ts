/**
 * What the Messages API refuses, per model and API version, as providers.md section 3 records
 * it: the required max_tokens, thinking types and budgets, effort values, sampling rules.
 */

export interface ModelRules {
  /** Thinking types the model takes (`disabled` aside). */
  readonly thinking: readonly ('enabled' | 'adaptive')[];
  /** `output_config.effort` values; empty: the parameter is refused. */
  readonly efforts: readonly string[];
  /** Opus 4.7 and later accept only the default temperature. */
  readonly fixedTemperature: boolean;
  /** AWS lists Opus 4.7 as refusing `thinking: {type: "disabled"}` too. */
  readonly refusesDisabled: boolean;
}

const ADAPTIVE_ONLY: ModelRules = {
  thinking: ['adaptive'],
  efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
  fixedTemperature: true,
  refusesDisabled: true,
};
const ADAPTIVE: ModelRules = {
  thinking: ['enabled', 'adaptive'],
  efforts: ['low', 'medium', 'high', 'max'],
  fixedTemperature: false,
  refusesDisabled: false,
};
const BUDGET_ONLY: ModelRules = {
  thinking: ['enabled'],
  efforts: [],
  fixedTemperature: false,
  refusesDisabled: false,
};

export const ANTHROPIC_MODELS: Readonly<Record<string, ModelRules>> = {
  'claude-opus-4-8': ADAPTIVE_ONLY,
  'claude-opus-4-7': ADAPTIVE_ONLY,
  'claude-sonnet-4-6': ADAPTIVE,
  'claude-sonnet-4-5-20250929': BUDGET_ONLY,
  'claude-haiku-4-5-20251001': BUDGET_ONLY,
};

export const VERTEX_MODELS: Readonly<Record<string, ModelRules>> = {
  'claude-opus-4-8': ADAPTIVE_ONLY,
  'claude-opus-4-7': ADAPTIVE_ONLY,
  'claude-sonnet-4-6': ADAPTIVE,
  'claude-sonnet-4-5@20250929': BUDGET_ONLY,
  'claude-haiku-4-5@20251001': BUDGET_ONLY,
};

/** API versions: the SDK 1.x one refuses sampling parameters. */
export const VERSIONS = new Set(['2023-06-01', '2026-10-21']);
export const VERTEX_VERSIONS = new Set(['vertex-2023-10-16', '2026-10-21']);
const STRICT_VERSION = '2026-10-21';

export interface Refusal {
  readonly status: number;
  readonly message: string;
}

type Body = Readonly<Record<string, unknown>>;

function object(value: unknown): Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : {};
}

function structure(body: Body): Refusal | undefined {
  const max = body.max_tokens;
  if (max === undefined) return { status: 400, message: 'max_tokens: Field required' };
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1)
    return { status: 400, message: 'max_tokens: Input should be a valid integer greater than or equal to 1' };
  if (!Array.isArray(body.messages)) return { status: 400, message: 'messages: Field required' };
  return undefined;
}

function sampling(body: Body, version: string, rules: ModelRules): Refusal | undefined {
  if (version === STRICT_VERSION) {
    for (const name of ['temperature', 'top_p', 'top_k'])
      if (body[name] !== undefined)
        return {
          status: 400,
          message: `${name}: Extra inputs are not permitted in API version ${STRICT_VERSION}`,
        };
  }
  if (rules.fixedTemperature && body.temperature !== undefined && body.temperature !== 1)
    return { status: 400, message: 'temperature: this model only supports the default value of 1.0' };
  return undefined;
}

function thinkingRules(body: Body, rules: ModelRules): Refusal | undefined {
  const thinking = object(body.thinking);
  const type = thinking.type;
  if (type === undefined) return undefined;
  if (type === 'disabled')
    return rules.refusesDisabled
      ? { status: 400, message: 'thinking.type: "disabled" is not supported for this model' }
      : undefined;
  if (type !== 'enabled' && type !== 'adaptive')
    return { status: 400, message: `thinking.type: Input tag '${String(type)}' is not supported` };
  if (!rules.thinking.includes(type))
    return {
      status: 400,
      message: `thinking.type: "${type}" is not supported for this model; use "${rules.thinking[0]}"`,
    };
  if (type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024)
      return {
        status: 400,
        message: 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
      };
    if (budget >= (body.max_tokens as number))
      return { status: 400, message: '`max_tokens` must be greater than `thinking.budget_tokens`' };
  }
  if (body.temperature !== undefined && body.temperature !== 1)
    return { status: 400, message: 'temperature may only be set to 1 when thinking is enabled' };
  if (body.top_k !== undefined)
    return { status: 400, message: 'top_k is not supported when thinking is enabled' };
  const choice = object(body.tool_choice).type;
  if (choice === 'any' || choice === 'tool')
    return { status: 400, message: 'Thinking may not be enabled when tool_choice forces tool use.' };
  return undefined;
}

function effortRules(body: Body, rules: ModelRules): Refusal | undefined {
  const effort = object(body.output_config).effort;
  if (effort === undefined) return undefined;
  if (rules.efforts.length === 0)
    return {
      status: 400,
      message: 'output_config.effort: This model does not support the effort parameter.',
    };
  if (!rules.efforts.includes(String(effort)))
    return {
      status: 400,
      message: `output_config.effort: Input should be ${rules.efforts.map((e) => `'${e}'`).join(', ')}`,
    };
  return undefined;
}

/** The first thing the API would refuse about this request, if any. */
export function refusal(body: Body, version: string, rules: ModelRules): Refusal | undefined {
  return (
    structure(body) ??
    sampling(body, version, rules) ??
    thinkingRules(body, rules) ??
    effortRules(body, rules)
  );
}

/** Whether the request turns thinking on, and the effort the simulated reply spends on it. */
export function thinkingEffort(body: Body): string | undefined {
  const thinking = object(body.thinking);
  const effort = object(body.output_config).effort;
  if (thinking.type === 'adaptive') return typeof effort === 'string' ? effort : 'high';
  if (thinking.type !== 'enabled') return undefined;
  const budget = typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : 0;
  return budget <= 1024 ? 'low' : budget <= 2048 ? 'medium' : budget <= 8192 ? 'high' : 'max';
}
