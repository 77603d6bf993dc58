/**
 * Azure OpenAI: OpenAI's translation with Azure's paths. The v1 API
 * (`<resource>/openai/v1/chat/completions`, the deployment as `model`) unless the endpoint
 * names an `api-version`, which selects classic deployments
 * (`<resource>/openai/deployments/<deployment>/chat/completions?api-version=...`, where the
 * path's deployment wins over the body's model). The deployment is the endpoint's mapping for
 * the offer, else the catalog's upstream model (deployments.ts). The signer adds `api-key` or an Entra token. Responses clients are forwarded
 * as sent to `<resource>/openai/v1/responses` (classic: `<resource>/openai/responses?api-version=`),
 * the deployment as `model` in both.
 */
import type { BuildInput, ProviderAdapter, UpstreamHttpRequest } from '../adapter.ts';
import type { EmbeddingsTarget } from '../model/embeddings.ts';
import { openAIEmbeddings } from '../openai/embeddings.ts';
import { openAIChatAdapter } from '../openai/index.ts';
import { isStream, openAIBody, openAIHeaders } from '../openai/request.ts';
import { withResponses } from '../openai/responses.ts';
import { azureDeployment, azureDeployments } from './deployments.ts';

const deploymentFor = (input: BuildInput) => azureDeployment(input.offer.upstreamModel, input.endpoint);

function buildAzureRequest(input: BuildInput): UpstreamHttpRequest {
  const { baseUrl, apiVersion } = input.endpoint;
  const deployment = deploymentFor(input);
  const url =
    apiVersion === undefined
      ? `${baseUrl}/v1/chat/completions`
      : `${baseUrl}/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${encodeURIComponent(apiVersion)}`;
  return {
    method: 'POST',
    url,
    headers: openAIHeaders(isStream(input)),
    body: JSON.stringify(openAIBody(input, deployment)),
  };
}

function responsesUrl(input: BuildInput): string {
  const { baseUrl, apiVersion } = input.endpoint;
  return apiVersion === undefined
    ? `${baseUrl}/v1/responses`
    : `${baseUrl}/responses?api-version=${encodeURIComponent(apiVersion)}`;
}

/** Embeddings at the same two kinds of path as chat: `/v1/embeddings`, or the deployment's. */
function embeddingsUrl(target: EmbeddingsTarget): string {
  const { baseUrl, apiVersion } = target.endpoint;
  const deployment = azureDeployment(target.upstreamModel, target.endpoint);
  return apiVersion === undefined
    ? `${baseUrl}/v1/embeddings`
    : `${baseUrl}/deployments/${encodeURIComponent(deployment)}/embeddings?api-version=${encodeURIComponent(apiVersion)}`;
}

export const azureOpenAIAdapter: ProviderAdapter = {
  ...withResponses(
    { ...openAIChatAdapter, id: 'azure-openai', buildRequest: buildAzureRequest },
    { url: responsesUrl, model: deploymentFor },
  ),
  deployments: azureDeployments,
  embeddings: openAIEmbeddings({
    url: embeddingsUrl,
    model: (target) => azureDeployment(target.upstreamModel, target.endpoint),
  }),
};
