/**
 * A gateway with tracing on, exporting to a local OTLP receiver, for the tracing tests; and the
 * requests they send.
 */
import type { TestContext } from 'node:test';
import {
  type ChatTestApp,
  type ChatTestOptions,
  localUpstream,
  startChatApp,
} from '../front-doors/chat-completions/testing.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './testing.ts';

export const SERVER = 2;
export const CLIENT = 3;
export const ERROR = 2;
export const PROMPT = 'Tell me about the secret llama 7731';

export async function tracedApp(
  t: TestContext,
  telemetry: Record<string, unknown>,
  options: ChatTestOptions = {},
): Promise<{ chat: ChatTestApp; receiver: OtlpReceiver; close: () => Promise<void> }> {
  const receiver = await startOtlpReceiver(t);
  const chat = await startChatApp({ ...options, telemetry: { endpoint: receiver.url, ...telemetry } });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await chat.close(); // shuts the SDK down: every queued span is exported first
  };
  t.after(close);
  return { chat, receiver, close };
}

export function chat(app: ChatTestApp, model: string, extra: Record<string, unknown> = {}, headers = {}) {
  return app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers({ 'content-type': 'application/json', ...headers }),
    payload: JSON.stringify({
      model,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 64,
      ...extra,
    }),
  });
}

/** `developer`'s OpenAI models on a local upstream that fails every call with `status`. */
export async function failingDeveloper(t: TestContext, status: number): Promise<ChatTestOptions> {
  const url = await localUpstream(t, (request, response) => {
    request.resume();
    request.on('end', () =>
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `failed with ${status}`, type: 'server_error' } })),
    );
  });
  return {
    behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 },
    allocations: { developer: 1_000, cloud_c: 100 },
    editUpstreams: (file) => {
      const developer = file.providers.developer;
      if (developer) developer.vendors.openai = { adapter: 'openai-compatible', baseUrl: url };
    },
  };
}

export const byKind = (spans: readonly ReceivedSpan[], kind: number) =>
  spans.filter((span) => span.kind === kind);
