/** `stream` absent or false: one JSON completion, settled from its usage. */

import { isAppError } from '@app/http-kit';
import { AdapterParseError, type ChatCompletion, isJsonObject } from '@app/provider-adapters';
import { TransportError } from '../upstream/index.ts';
import { failureFromTransport } from './failures.ts';
import type { UpstreamCall } from './upstream-call.ts';

/** Characters of generated text, for estimating output tokens when the upstream sent no usage. */
function generatedChars(completion: ChatCompletion): number {
  let chars = 0;
  for (const choice of completion.choices) {
    const message = isJsonObject(choice.message) ? choice.message : {};
    if (typeof message.content === 'string') chars += message.content.length;
    if (Array.isArray(message.tool_calls)) chars += JSON.stringify(message.tool_calls).length;
  }
  return chars;
}

/** Resolves to the completion to send, or undefined when the client has gone away. */
export async function respondJson(call: UpstreamCall): Promise<ChatCompletion | undefined> {
  const { adapter, plan, meter } = call.init;
  let body: string;
  try {
    const response = await call.send();
    if (response.status < 200 || response.status >= 300) throw await call.failFromResponse(response);
    body = await response.text();
  } catch (error) {
    if (isAppError(error)) throw error;
    if (!(error instanceof TransportError)) throw error;
    if (error.kind === 'aborted') {
      // The upstream had the prompt; it is charged, nothing was generated for the client.
      meter.settle(undefined, 'aborted');
      return undefined;
    }
    throw call.fail(failureFromTransport(error));
  }
  try {
    const { completion, usage } = adapter.parseResponse(body, { model: plan.model, includeUsage: false });
    meter.settle(usage, 'ok', usage ? 0 : generatedChars(completion));
    call.report('ok');
    return completion;
  } catch (error) {
    if (!(error instanceof AdapterParseError)) throw error;
    throw call.fail({ kind: 'server', status: 502, message: `${error.message}.` });
  }
}
