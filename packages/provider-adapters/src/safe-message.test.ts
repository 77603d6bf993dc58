/**
 * The scrubber against a generated corpus of what upstream error messages leak: keys of every
 * provider's shape, tokens, hosts and internal names, IPv4 and IPv6 addresses, file paths, ARNs,
 * account and project ids, e-mail addresses. None may survive; the words about the client's
 * own request must.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { safeUpstreamMessage } from './safe-message.ts';

const alnum = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${min},${max}}$`));
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);
const TLDS = [
  'com',
  'net',
  'org',
  'io',
  'internal',
  'local',
  'example',
  'svc',
  'cluster',
  'corp',
  'lan',
  'cloud',
  'dev',
  'de',
  'eu',
];

const SECRETS: fc.Arbitrary<string> = fc.oneof(
  alnum(16, 16).map((s) => `AKIA${s.toUpperCase()}`),
  fc.stringMatching(/^[A-Za-z0-9/+]{40}$/),
  alnum(20, 48).map((s) => `sk-${s}`),
  alnum(20, 40).map((s) => `sk-ant-api03-${s}`),
  alnum(30, 35).map((s) => `AIza${s}`),
  fc.tuple(alnum(10, 30), alnum(10, 30), alnum(10, 30)).map(([a, b, c]) => `eyJ${a}.${b}.${c}`),
  alnum(8, 24).map((s) => `org-${s}`),
);
const PLACES: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.array(label, { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...TLDS),
      fc.option(fc.integer({ min: 1, max: 65535 })),
    )
    .map(([labels, tld, port]) => `${labels.join('.')}.${tld}${port === null ? '' : `:${port}`}`),
  fc.ipV4(),
  fc.ipV6().filter((address) => address.includes(':') && address.split(':').length > 2),
  fc.array(label, { minLength: 2, maxLength: 5 }).map((parts) => `/${parts.join('/')}.py`),
  fc.array(label, { minLength: 1, maxLength: 3 }).map((parts) => `C:\\${parts.join('\\')}\\key.pem`),
  fc
    .stringMatching(/^[0-9]{12}$/)
    .map((account) => `arn:aws:bedrock:us-east-1:${account}:inference-profile/x`),
  fc.stringMatching(/^[0-9]{12}$/),
  label.map((project) => `projects/${project}-prod/locations/global`),
  fc.tuple(label, label, fc.constantFrom(...TLDS)).map(([user, host, tld]) => `${user}@${host}.${tld}`),
  fc.webUrl(),
);

test('no generated secret or internal name survives, and the client-relevant words do', () => {
  fc.assert(
    fc.property(fc.oneof(SECRETS, PLACES), fc.constantFrom(' ', ', ', ' (', ": '"), (leak, glue) => {
      const message = `Invalid value for temperature${glue}${leak} is not allowed`;
      const shown = safeUpstreamMessage(message) ?? '';
      assert.ok(!shown.includes(leak), `${JSON.stringify(leak)} survived in ${JSON.stringify(shown)}`);
      assert.match(shown, /Invalid value for temperature/);
      assert.match(shown, /is not allowed$/);
    }),
    { numRuns: 2000, seed: 14 },
  );
});

test('the example of the report', () => {
  const shown = safeUpstreamMessage(
    'aws AKIAIOSFODNN7EXAMPLE at fd00::1 /home/svc/app.py on mock-internal-host.example',
  );
  assert.equal(shown, 'aws [redacted] at [address] [path] on [host]');
});

test('what the client needs stays: parameter names, model names, numbers, times', () => {
  for (const message of [
    'Unsupported parameter: max_tokens; use max_completion_tokens.',
    "Invalid type for 'messages[0].content': expected a string",
    'max_tokens: 70000 > 64000, which is the maximum allowed for claude-sonnet-4-5',
    'Rate limit reached for gpt-5.4 on tokens per min (TPM): limit 30000',
  ]) {
    assert.equal(safeUpstreamMessage(message), message);
  }
});

test('a stack trace is cut and a long message is bounded', () => {
  assert.equal(safeUpstreamMessage('boom\n    at handler (/srv/app.js:1:2)'), 'boom');
  assert.equal(safeUpstreamMessage('x '.repeat(400))?.length, 300);
});
