/**
 * The Gemini CLI harness (gemini-cli.ts) against a scripted Gemini API on 127.0.0.1: it proves the
 * facts the Gemini front door and its end-to-end test rely on. The CLI sends the model verbatim in
 * the path, the token as x-goog-api-key, streams with ?alt=sse, offers `run_shell_command`, runs an
 * allow-listed command and sends its output back as a functionResponse, refuses any other
 * command, and makes exactly one request per model turn.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { geminiCliMissing, type GeminiCliRequest, runGeminiCli } from './gemini-cli.ts';

interface Part {
  text?: string;
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  thoughtSignature?: string;
  functionResponse?: { name?: string; id?: string; response?: Record<string, unknown> };
}
interface Body {
  contents?: Array<{ role?: string; parts?: Part[] }>;
  systemInstruction?: { parts?: Part[] };
  tools?: Array<{ functionDeclarations?: Array<{ name?: string; parametersJsonSchema?: unknown }> }>;
  generationConfig?: Record<string, unknown>;
}

const TOKEN = 'test-pat-gemini';
const MODEL = 'gemini-2.5-flash:high@cloud_b';
const FILES = ['marker-one.txt', 'marker-two.md'];
const CALL_ID = 'call_scripted_1';
const SIGNATURE = 'c2NyaXB0ZWQtc2lnbmF0dXJl';

/** The parts the scripted model answers with: a command when asked to run one, then a quote. */
function scriptedParts(body: Body, listed: string): Part[] {
  const last = body.contents?.at(-1)?.parts ?? [];
  const result = last.find((part) => part.functionResponse)?.functionResponse?.response;
  if (result) return [{ text: 'The tool returned: ' }, { text: JSON.stringify(result) }];
  const asked = last.map((part) => part.text ?? '').join(' ');
  const command = /\brun cat\b/i.test(asked) ? `cat ${listed}/${FILES[0]}` : `ls ${listed}`;
  if (/\brun\b/i.test(asked))
    return [
      {
        functionCall: { id: CALL_ID, name: 'run_shell_command', args: { command } },
        thoughtSignature: SIGNATURE,
      },
    ];
  return [{ text: 'Hello from ' }, { text: 'the scripted model.' }];
}

function answer(req: IncomingMessage, res: ServerResponse, listed: string): void {
  let raw = '';
  req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  req.on('end', () => {
    const parts = scriptedParts(JSON.parse(raw || '{}') as Body, listed);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [i, part] of parts.entries()) {
      const last = i === parts.length - 1;
      const chunk = {
        candidates: [
          { content: { role: 'model', parts: [part] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
        ],
        ...(last
          ? { usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 7, totalTokenCount: 107 } }
          : {}),
        modelVersion: 'gemini-2.5-flash',
        responseId: `r${i}`,
      };
      res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    }
    res.end();
  });
}

function bodyOf(request: GeminiCliRequest | undefined): Body {
  return (request?.body ?? {}) as Body;
}

function functionResponses(request: GeminiCliRequest | undefined): Part['functionResponse'][] {
  return (bodyOf(request).contents ?? []).flatMap((content) =>
    (content.parts ?? []).flatMap((part) => (part.functionResponse ? [part.functionResponse] : [])),
  );
}

function toolNames(request: GeminiCliRequest | undefined): string[] {
  return (bodyOf(request).tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => declaration.name ?? ''),
  );
}

const missing = geminiCliMissing();

describe('the Gemini CLI 0.61.0 harness against a scripted Gemini API', { skip: missing }, () => {
  let server: Server;
  let baseUrl: string;
  let base: string;
  let project: string;
  let listed: string;
  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'gemini-cli-harness-'));
    project = join(base, 'project');
    // Outside the workspace: the CLI lists its workspace in every prompt, so only the tool's
    // output can carry these names to the model.
    listed = join(base, 'listed');
    mkdirSync(project);
    mkdirSync(listed);
    for (const name of FILES) writeFileSync(join(listed, name), `${name}\n`);
    server = createServer((req, res) => answer(req, res, listed));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(base, { recursive: true, force: true });
  });

  test('a text turn is one streamed request: model verbatim in the path, token as x-goog-api-key', async () => {
    const run = await runGeminiCli({
      baseUrl,
      token: TOKEN,
      model: MODEL,
      prompt: 'Say hello',
      cwd: project,
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(run.answer, 'Hello from the scripted model.');
    assert.equal(run.result?.status, 'success');
    assert.equal(run.requests.length, 1);
    const [request] = run.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
    assert.equal(request?.headers['x-goog-api-key'], TOKEN);
    assert.equal(request?.headers.authorization, undefined);
    assert.match(String(request?.headers['user-agent']), new RegExp(`^GeminiCLI[^/]*/0\\.61\\.0/${MODEL} `));
    const body = bodyOf(request);
    assert.deepEqual(body.contents?.at(-1)?.parts?.at(-1), { text: 'Say hello' });
    assert.ok(body.systemInstruction?.parts?.[0]?.text, 'a system instruction');
    // Headless and with no allow list, the shell tool is not even offered.
    assert.ok(toolNames(request).includes('read_file'));
    assert.ok(!toolNames(request).includes('run_shell_command'));
    assert.deepEqual(body.generationConfig?.thinkingConfig, { includeThoughts: true });
  });

  test('a tool turn runs the allow-listed command and sends its output back', async () => {
    const prompt = 'Please run ls to list the files.';
    const run = await runGeminiCli({
      baseUrl,
      token: TOKEN,
      model: MODEL,
      prompt,
      cwd: project,
      allowedCommand: 'ls',
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(run.requests.length, 2);
    const shell = bodyOf(run.requests[0]).tools?.[0]?.functionDeclarations?.find(
      (tool) => tool.name === 'run_shell_command',
    );
    assert.deepEqual((shell?.parametersJsonSchema as { required?: string[] } | undefined)?.required, [
      'command',
    ]);
    // The call comes back as it was given, signature and id included, and the result names the id.
    const contents = bodyOf(run.requests[1]).contents ?? [];
    assert.deepEqual(contents.at(-2)?.parts?.[0], {
      functionCall: { id: CALL_ID, name: 'run_shell_command', args: { command: `ls ${listed}` } },
      thoughtSignature: SIGNATURE,
    });
    const results = functionResponses(run.requests[1]);
    assert.equal(results.length, 1);
    assert.deepEqual([results[0]?.name, results[0]?.id], ['run_shell_command', CALL_ID]);
    const output = String(results[0]?.response?.output);
    for (const name of FILES) assert.ok(output.includes(name), `${name} in the tool output: ${output}`);
    for (const name of FILES) assert.ok(run.answer.includes(name), `${name} in the answer: ${run.answer}`);
    assert.deepEqual(
      run.events.filter((event) => event.type === 'tool_result').map((event) => event.status),
      ['success'],
    );
  });

  test('a command outside the allow list is refused; bearer adds Authorization', async () => {
    const prompt = 'Please run cat on the first file.';
    const run = await runGeminiCli({
      ...{ baseUrl, token: TOKEN, model: MODEL, prompt, cwd: project },
      ...{ allowedCommand: 'ls', credential: 'bearer' },
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    assert.equal(run.requests.length, 2);
    assert.deepEqual(functionResponses(run.requests[1])[0]?.response, {
      error: 'Tool execution denied by policy.',
    });
    for (const request of run.requests) {
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(request.headers['x-goog-api-key'], TOKEN);
    }
  });
});
