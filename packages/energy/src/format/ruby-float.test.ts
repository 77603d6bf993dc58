import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rubyFloat, rubyFloatGeneral } from './ruby-float.ts';

test('writes floats as Ruby Float#to_s does', () => {
  const cases: Array<[number, string]> = [
    [12, '12.0'],
    [12.5, '12.5'],
    [0, '0.0'],
    [-3, '-3.0'],
    [0.1, '0.1'],
    [0.0001, '0.0001'],
    [0.00001, '1.0e-05'],
    [0.000012345, '1.2345e-05'],
    [1e-100, '1.0e-100'],
    [123456789.125, '123456789.125'],
    [1e15, '1000000000000000.0'],
    [1e16, '1.0e+16'],
    [1.5e16, '1.5e+16'],
    [-2.5e-7, '-2.5e-07'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
  ];
  for (const [value, expected] of cases) assert.equal(rubyFloat(value), expected, String(value));
});

test('round-trips: parsing the text gives the same float back', () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
      const text = rubyFloat(value);
      assert.ok(/^-?\d+\.\d+(e[+-]\d{2,3})?$/.test(text), text);
      assert.ok(Object.is(Number(text), value), `${value} -> ${text}`);
    }),
  );
});

test('refuses non-finite values, which Rails never stored', () => {
  assert.throws(() => rubyFloat(Number.NaN), RangeError);
  assert.throws(() => rubyFloat(Number.POSITIVE_INFINITY), RangeError);
});

test('the fast path agrees with the general algorithm', () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e17, max: 1e17 }), (value) => {
      assert.equal(rubyFloat(value), rubyFloatGeneral(value));
    }),
    { numRuns: 2000 },
  );
  for (const value of [1e-4, 0.00009999, 1e16 - 2, 0.1 + 0.2, -123.456]) {
    assert.equal(rubyFloat(value), rubyFloatGeneral(value), String(value));
  }
});
