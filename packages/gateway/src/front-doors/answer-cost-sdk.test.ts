/**
 * The official SDKs parse answers that carry the cost unchanged, and their caller reads it from
 * the objects they return: `openai` (chat and responses, JSON and stream), `@anthropic-ai/sdk`
 * (a message, and the `message_delta` event of a stream: its final message keeps only the token
 * counts), `@google/genai` (generateContent and its stream). Each cost is the request's ledger row.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { anthropicClient, type ChatTestApp, startChatApp } from './chat-completions/testing.ts';

let t: ChatTestApp;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;

before(async () => {
  t = await startChatApp({ behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0, replyTokens: 6 } });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
  anthropic = anthropicClient(url, t.token);
  genai = new GoogleGenAI({ apiKey: t.token, httpOptions: { baseUrl: url, apiVersion: 'v1beta' } });
});
after(() => t.close());

/** The cost the SDK caller read, next to the ledger row of the request it made. */
async function costAndRow(ask: () => Promise<unknown>): Promise<{ cost: unknown; micros: number }> {
  const before = (await t.settledUsage(0)).length;
  const cost = await ask();
  const [row] = (await t.settledUsage(before + 1)).slice(before);
  assert.ok(row && row.cost_micros > 0, JSON.stringify(row));
  return { cost, micros: row.cost_micros };
}

/** The `cost` an SDK kept on a usage object it does not declare it on. */
function costOf(usage: object | null | undefined): unknown {
  return (usage as { cost?: unknown } | null | undefined)?.cost;
}

const messages = [{ role: 'user' as const, content: 'What does the gateway cost?' }];

for (const model of ['gpt-5.4-mini@developer', 'claude-sonnet@cloud_a']) {
  test(`openai chat.completions (${model}): usage.cost, JSON and stream`, async () => {
    const json = await costAndRow(async () => {
      const completion = await openai.chat.completions.create({ model, messages });
      return costOf(completion.usage);
    });
    assert.equal(json.cost, json.micros / 1e6);
    const streamed = await costAndRow(async () => {
      const stream = await openai.chat.completions.create({
        model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let cost: unknown;
      for await (const chunk of stream) if (chunk.usage) cost = costOf(chunk.usage);
      return cost;
    });
    assert.equal(streamed.cost, streamed.micros / 1e6);
  });

  test(`openai responses (${model}): usage.cost, JSON and the stream's final response`, async () => {
    const json = await costAndRow(async () => {
      const response = await openai.responses.create({ model, input: 'What does the gateway cost?' });
      return costOf(response.usage);
    });
    assert.equal(json.cost, json.micros / 1e6);
    const streamed = await costAndRow(async () => {
      const stream = openai.responses.stream({ model, input: 'What does the gateway cost?' });
      return costOf((await stream.finalResponse()).usage);
    });
    assert.equal(streamed.cost, streamed.micros / 1e6);
  });
}

for (const model of ['claude-sonnet@developer', 'gpt-5.4-mini@developer']) {
  test(`@anthropic-ai/sdk messages (${model}): usage.cost, and on the stream's message_delta`, async () => {
    const json = await costAndRow(async () => {
      const message = await anthropic.messages.create({ model, max_tokens: 256, messages });
      return costOf(message.usage);
    });
    assert.equal(json.cost, json.micros / 1e6);
    const streamed = await costAndRow(async () => {
      const stream = anthropic.messages.stream({ model, max_tokens: 256, messages });
      let cost: unknown;
      stream.on('streamEvent', (event) => {
        if (event.type === 'message_delta') cost = costOf(event.usage);
      });
      const final = await stream.finalMessage();
      assert.ok(final.usage.output_tokens > 0, 'the SDK still reads the usage');
      return cost;
    });
    assert.equal(streamed.cost, streamed.micros / 1e6);
  });
}

for (const model of ['gemini-2.5-flash@developer', 'claude-sonnet@cloud_a']) {
  test(`@google/genai (${model}): usageMetadata.cost, generateContent and its stream`, async () => {
    const contents = 'What does the gateway cost?';
    const json = await costAndRow(async () => {
      const response = await genai.models.generateContent({ model, contents });
      return costOf(response.usageMetadata);
    });
    assert.equal(json.cost, json.micros / 1e6);
    const streamed = await costAndRow(async () => {
      let cost: unknown;
      const stream = await genai.models.generateContentStream({ model, contents });
      for await (const chunk of stream) cost = costOf(chunk.usageMetadata) ?? cost;
      return cost;
    });
    assert.equal(streamed.cost, streamed.micros / 1e6);
  });
}
