import assert from 'node:assert/strict';
import { test } from 'node:test';
import { castBoolean, castFloat, castInteger, castString, castTime } from './scalars.ts';

test('every time form of the decisions normalises to HHMM', () => {
  const forms: Array<[unknown, string]> = [
    ['8:00 am', '0800'],
    ['8am', '0800'],
    ['8 AM', '0800'],
    ['8:00 p.m.', '2000'],
    ['8:30pm', '2030'],
    ['12:00 am', '0000'],
    ['12 pm', '1200'],
    ['12:15 p.m.', '1215'],
    ['20:00', '2000'],
    ['7:05', '0705'],
    ['0800', '0800'],
    ['800', '0800'],
    [800, '0800'],
    [2100, '2100'],
    [0, '0000'],
    [30, '0030'],
    [2359, '2359'],
  ];
  for (const [input, expected] of forms)
    assert.deepEqual(castTime(input), { ok: true, value: expected }, String(input));
});

test('invalid times are errors, never null', () => {
  for (const input of [
    '25:00',
    '24:00',
    '2400',
    '0860',
    '13pm',
    '0am',
    '8:00 xm',
    'noon',
    '8.00',
    'abc',
    2400,
    799.5,
    -100,
    true,
    {},
    '12345',
  ]) {
    const cast = castTime(input);
    assert.equal(cast.ok, false, String(input));
  }
  assert.deepEqual(castTime(''), { ok: true, value: null });
  assert.deepEqual(castTime(null), { ok: true, value: null });
});

test('booleans: exactly the forms of the decisions', () => {
  for (const input of [true, 't', 'true', 'TRUE', '1', 1])
    assert.deepEqual(castBoolean(input), { ok: true, value: true });
  for (const input of [false, 'f', 'false', '0', 0])
    assert.deepEqual(castBoolean(input), { ok: true, value: false });
  for (const input of ['yes', 'no', 2, 'tru', [], 'on'])
    assert.equal(castBoolean(input).ok, false, String(input));
});

test('numbers must be numbers or numeric strings', () => {
  assert.deepEqual(castFloat('12.5'), { ok: true, value: 12.5 });
  assert.deepEqual(castFloat(' 1e-5 '), { ok: true, value: 0.00001 });
  assert.deepEqual(castFloat(3), { ok: true, value: 3 });
  assert.deepEqual(castFloat('abc'), { ok: false, message: 'is not a number' });
  assert.deepEqual(castFloat('12abc'), { ok: false, message: 'is not a number' });
  assert.deepEqual(castFloat('Infinity'), { ok: false, message: 'is not a number' });
  assert.deepEqual(castFloat(true), { ok: false, message: 'is not a number' });
  assert.deepEqual(castInteger('42'), { ok: true, value: 42 });
  assert.deepEqual(castInteger('42.0'), { ok: true, value: 42 });
  assert.deepEqual(castInteger('4.5'), { ok: false, message: 'must be an integer' });
  assert.deepEqual(castInteger('abc'), { ok: false, message: 'is not a number' });
  assert.deepEqual(castInteger(2 ** 31), { ok: false, message: 'is out of range' });
});

test('strings: numbers are written out, other types and control characters refused', () => {
  assert.deepEqual(castString('Main', 10), { ok: true, value: 'Main' });
  assert.deepEqual(castString(12, 10), { ok: true, value: '12' });
  assert.equal(castString(true, 10).ok, false);
  assert.equal(castString('a\u0000b', 10).ok, false);
  assert.deepEqual(castString('x'.repeat(11), 10), {
    ok: false,
    message: 'is too long (maximum is 10 characters)',
  });
});
