/** The canonical exchange every adapter's fixtures record, and a request to build from. */
import type { BuildInput } from '../adapter.ts';
import type { OfferProfile } from '../model/profile.ts';
import type { ModelRequest } from '../model/request.ts';

export const CANONICAL = {
  text: 'The capital of France is Paris.',
  tools: [
    { name: 'get_weather', arguments: { city: 'Paris' } },
    { name: 'get_time', arguments: { city: 'Paris' } },
  ],
  retryAfter: '7',
  /** Put in no request: proves the gateway's own values never reach an upstream body. */
  secretLookalike: 'sk-gateway-internal',
} as const;

export const CANONICAL_REQUEST: ModelRequest = {
  system: [{ type: 'text', text: 'You are terse.' }],
  turns: [
    { role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] },
    {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          callId: 'call_1',
          name: 'get_weather',
          content: [{ type: 'text', text: 'sunny' }],
        },
      ],
    },
  ],
  tools: [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  maxOutputTokens: 2048,
  stream: false,
};

export const CANONICAL_OFFER: OfferProfile = {
  upstreamModel: 'upstream-model-id',
  efforts: { none: { kind: 'omit' } },
  tiers: ['standard'],
  defaultMaxOutputTokens: 4096,
  maxOutputTokens: 64000,
};

export function canonicalBuildInput(stream: boolean): BuildInput {
  return {
    request: { ...CANONICAL_REQUEST, stream },
    source: undefined,
    offer: CANONICAL_OFFER,
    endpoint: {
      baseUrl: 'http://127.0.0.1:9/base',
      region: 'us-east-1',
      project: 'proj',
      apiVersion: '2024-10-21',
    },
    reasoning: { kind: 'omit' },
    tier: 'standard',
  };
}
