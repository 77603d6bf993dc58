import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { createSigner } from './index.ts';

const VENDOR_LIBRARIES =
  /@azure\/identity|google-auth-library|@aws-sdk\/credential-providers|@smithy\/signature-v4/;

/** The modules a fresh process resolves while importing the credentials and building a signer. */
function modulesLoadedBy(script: string): string[] {
  const probe = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen.push(found.url); return found; } });
    ${script}
    console.log(JSON.stringify(seen));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
    cwd: import.meta.dirname,
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '[]') as string[];
}

test('no vendor credential library is loaded at start-up, even for the signers that use one', () => {
  const index = new URL('./index.ts', import.meta.url).href;
  const loaded = modulesLoadedBy(`
    const { createSigner } = await import(${JSON.stringify(index)});
    createSigner({ type: 'aws-sigv4', region: 'us-east-1', accessKeyId: 'env:K', secretAccessKey: 'env:S' }, { env: { K: 'AKIAEXAMPLE', S: 'secret' } });
    createSigner({ type: 'azure-managed-identity' }, { env: {} });
    createSigner({ type: 'google-adc' }, { env: {} });
    createSigner({ type: 'aws-default-chain' }, { env: {}, region: 'us-east-1' });
  `);
  assert.ok(loaded.some((url) => url.endsWith('/credentials/index.ts')));
  assert.deepEqual(
    loaded.filter((url) => VENDOR_LIBRARIES.test(url)),
    [],
  );
});

test('the library is loaded at the first request of a signer that needs it', async () => {
  const signer = createSigner(
    { type: 'aws-sigv4', region: 'us-east-1', accessKeyId: 'env:K', secretAccessKey: 'env:S' },
    { env: { K: 'AKIAEXAMPLE', S: 'secret' } },
  );
  const headers = await signer.sign({
    method: 'POST',
    url: 'https://bedrock.example/x',
    headers: {},
    body: '{}',
  });
  assert.match(headers.authorization ?? '', /^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE\//);
  await signer.close();
});
