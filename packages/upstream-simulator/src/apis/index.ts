/** Every upstream API the simulator speaks; the first whose `matches` accepts a request answers it. */
import { googleTokenApi } from './google-token.ts';
import { azureOpenAIApi, openAIApi, openAICompatibleApi } from './openai.ts';
import type { SimApi } from './types.ts';
import { anthropicApi, vertexClaudeApi } from './anthropic.ts';
import { bedrockApi } from './bedrock.ts';
import { geminiApi, vertexGeminiApi } from './gemini.ts';

export const SIM_APIS: readonly SimApi[] = [
  openAICompatibleApi,
  openAIApi,
  azureOpenAIApi,
  googleTokenApi,
  anthropicApi,
  vertexClaudeApi,
  bedrockApi,
  geminiApi,
  vertexGeminiApi,
];
