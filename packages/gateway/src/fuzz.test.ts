/**
 * The gateway under requests derived from its own OpenAPI document: no 5xx, the OpenAI error
 * envelope, nothing internal in a body, and the process healthy afterwards; the model API with
 * a personal access token, the admin API with an admin key.
 * `FUZZ_RUNS=5000 FUZZ_SEED=n npm run fuzz` runs it longer.
 */
import { after, before, test } from 'node:test';
import { fuzzOperations } from '@app/http-kit/fuzz.ts';
import type { LightMyRequestResponse } from 'fastify';
import { type AdminTestApp, startAdminApp } from './admin-api/testing.ts';
import { type ChatTestApp, startChatApp } from './front-doors/chat-completions/testing.ts';

function errorOf(response: LightMyRequestResponse): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(response.body) as { error?: unknown };
    return typeof parsed.error === 'object' && parsed.error !== null
      ? (parsed.error as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** OpenAI's envelope (Anthropic's has the same `error.type` and `error.message`). */
function isOpenAIError(response: LightMyRequestResponse): boolean {
  const error = errorOf(response);
  return typeof error?.message === 'string' && typeof error.type === 'string';
}

/**
 * The model API answers in its client's envelope: OpenAI's (and Anthropic's) or, on the Gemini
 * door's paths, Google's `{error: {code, message, status}}` with the HTTP status as `code`.
 */
function isModelApiError(response: LightMyRequestResponse): boolean {
  if (isOpenAIError(response)) return true;
  const error = errorOf(response);
  const url = response.raw.req.url ?? '';
  return (
    /^\/v1(beta)?\/models\/./.test(url) &&
    error?.code === response.statusCode &&
    typeof error.message === 'string' &&
    typeof error.status === 'string'
  );
}

let t: ChatTestApp;
before(async () => {
  t = await startChatApp({ allocations: { developer: 1000, cloud_a: 1000, cloud_b: 1000, cloud_c: 1000 } });
});
after(() => t.close());

test('every operation of the OpenAPI document, hostile inputs: sane answers, healthy process', async () => {
  await fuzzOperations(t.app, {
    pathPrefix: '/v1/',
    credentials: t.headers(),
    isServiceError: isModelApiError,
  });
});

let admin: AdminTestApp;
let adminKey: string;
before(async () => {
  admin = await startAdminApp('sqlite');
  ({ key: adminKey } = await admin.newKey());
  // Something to find: a user with a pending membership, so requests reach past "unknown".
  await admin.call(adminKey, 'POST', '/users', { email: 'fuzz@example.com' });
  await admin.call(adminKey, 'POST', '/projects', { slug: 'fuzz' });
  await admin.call(adminKey, 'POST', '/projects/fuzz/members', { email: 'fuzz@example.com' });
});
after(() => admin.close());

test('every operation of the admin API (/admin/v1), hostile inputs: sane answers, healthy process', async () => {
  await fuzzOperations(admin.app, {
    pathPrefix: '/admin/v1/',
    credentials: { authorization: `Bearer ${adminKey}` },
    isServiceError: isOpenAIError,
  });
});
