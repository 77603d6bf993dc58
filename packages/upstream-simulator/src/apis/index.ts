/** Every upstream API the simulator speaks; the first whose `matches` accepts a request answers it. */
import { azureManagementApi } from './azure-resource.ts';
import { googleTokenApi } from './google-token.ts';
import { azureOpenAIApi, openAIApi, openAICompatibleApi } from './openai.ts';
import { azureResponsesApi, openAIResponsesApi } from './openai-responses.ts';
import type { SimApi } from './types.ts';
import { anthropicApi, vertexClaudeApi } from './anthropic.ts';
import { anthropicCountTokensApi, vertexCountTokensApi } from './anthropic-count.ts';
import { bedrockApi } from './bedrock.ts';
import { bedrockInvokeApi } from './bedrock-invoke.ts';
import { geminiEmbeddingsApi } from './gemini-embeddings.ts';
import { azureEmbeddingsApi, openAIEmbeddingsApi } from './openai-embeddings.ts';
import { vertexPredictApi } from './vertex-predict.ts';
import { geminiApi, vertexGeminiApi } from './gemini.ts';
import { geminiCountTokensApi, vertexGeminiCountTokensApi } from './gemini-count.ts';

export const SIM_APIS: readonly SimApi[] = [
  openAICompatibleApi,
  openAIApi,
  azureOpenAIApi,
  openAIResponsesApi,
  azureResponsesApi,
  googleTokenApi,
  azureManagementApi,
  anthropicApi,
  anthropicCountTokensApi,
  vertexCountTokensApi,
  vertexClaudeApi,
  bedrockApi,
  geminiApi,
  vertexGeminiApi,
  geminiCountTokensApi,
  vertexGeminiCountTokensApi,
  openAIEmbeddingsApi,
  azureEmbeddingsApi,
  geminiEmbeddingsApi,
  vertexPredictApi,
  bedrockInvokeApi,
];
