import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { REDACTED, SECRET_RUN, SecretRedactor } from './secret-redactor.ts';

const KEY = 'mock-secret-KEY0123456789';

function withKey(): SecretRedactor {
  const redactor = new SecretRedactor();
  redactor.add(KEY);
  return redactor;
}

describe('SecretRedactor', () => {
  test('a secret, and any run of 8 or more of its characters, is replaced; shorter runs stay', () => {
    const redactor = withKey();
    assert.equal(redactor.redact(`key ${KEY} refused`), `key ${REDACTED} refused`);
    assert.equal(redactor.redact('quota of secret-KEY01 used'), `quota of ${REDACTED} used`);
    assert.equal(redactor.redact(`(${KEY.slice(3, 3 + SECRET_RUN)})`), `(${REDACTED})`);
    const short = KEY.slice(0, SECRET_RUN - 1);
    assert.equal(redactor.redact(`just ${short} here`), `just ${short} here`);
    assert.equal(redactor.redact('nothing to see'), 'nothing to see');
  });

  test('adjacent and overlapping hits are one replacement; separate ones each their own', () => {
    const redactor = withKey();
    assert.equal(redactor.redact(`${KEY}${KEY}`), REDACTED);
    assert.equal(redactor.redact(`a ${KEY} b ${KEY.slice(5)} c`), `a ${REDACTED} b ${REDACTED} c`);
    assert.equal(redactor.redact(KEY.slice(2, 14)), REDACTED);
  });

  test('several secrets of different kinds', () => {
    const redactor = new SecretRedactor();
    redactor.add('AKIASIMABCDEF123456');
    redactor.add('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
    redactor.add(undefined);
    const text = 'keys AKIASIMABCDEF123456 and XUtnFEMI/K7MD in one line';
    assert.equal(redactor.redact(text), `keys ${REDACTED} and ${REDACTED} in one line`);
  });

  test('a token obtained at run time is redacted until two refreshes later', () => {
    const redactor = new SecretRedactor();
    const tokens = redactor.obtained();
    tokens.update(['ya29.first-token-abcdef']);
    tokens.update(['ya29.second-token-ghijkl']);
    assert.equal(redactor.redact('first-token-abcdef'), REDACTED, 'the previous generation stays');
    tokens.update(['ya29.third-token-mnopqr']);
    assert.equal(redactor.redact('first-token-abcdef'), 'first-token-abcdef', 'forgotten');
    assert.equal(redactor.redact('second-token-ghijkl third-token-mnopqr'), `${REDACTED} ${REDACTED}`);
    tokens.update(['ya29.third-token-mnopqr']);
    assert.equal(redactor.redact('second-token-ghijkl'), REDACTED, 'the same token again is no refresh');
  });

  test('a configured secret outlives a run-time token that shares its characters', () => {
    const redactor = new SecretRedactor();
    redactor.add(KEY);
    const tokens = redactor.obtained();
    tokens.update([`${KEY}-session`]);
    tokens.update(['other-token-1']);
    tokens.update(['other-token-2']);
    assert.equal(redactor.redact(KEY), REDACTED);
  });

  test('property: no run of SECRET_RUN characters of any secret survives', () => {
    const token = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', 'K'), minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 3 }), fc.array(token), (secrets, noise) => {
        const redactor = new SecretRedactor();
        for (const secret of secrets) redactor.add(secret);
        const text = [...noise, ...secrets].join(' ');
        const out = redactor.redact(text);
        for (const secret of secrets)
          for (let at = 0; at + SECRET_RUN <= secret.length; at++)
            assert.ok(!out.includes(secret.slice(at, at + SECRET_RUN)), `${out} keeps part of ${secret}`);
      }),
    );
  });

  test('linear: a long text costs one lookup per position, whatever the number of secrets', () => {
    const redactor = new SecretRedactor();
    for (let i = 0; i < 1_000; i++) redactor.add(`secret-number-${i}-${'x'.repeat(40)}`);
    const text = 'y'.repeat(200_000);
    let lookups = 0;
    const grams = Map.prototype.has;
    Map.prototype.has = function counted(this: Map<unknown, unknown>, key: unknown) {
      lookups += 1;
      return grams.call(this, key);
    };
    try {
      assert.equal(redactor.redact(text), text);
    } finally {
      Map.prototype.has = grams;
    }
    assert.equal(lookups, text.length - SECRET_RUN + 1);
  });
});
