import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvCell, csvRecord } from './csv.ts';

describe('csv', () => {
  it('quotes fields with commas, quotes and line breaks; doubles quotes', () => {
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    assert.equal(csvCell('cr\rhere'), '"cr\rhere"');
  });

  it('prefixes text a spreadsheet would run as a formula', () => {
    for (const text of ['=1+2', '+1', '-2', '@SUM(A1)', '\tx']) assert.equal(csvCell(text), `'${text}`, text);
    assert.equal(csvCell('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvCell('a=b'), 'a=b');
  });

  it('writes numbers as numbers (negative too) and absent values empty', () => {
    assert.equal(csvCell(-5), '-5');
    assert.equal(csvCell(0.25), '0.25');
    assert.equal(csvCell(null), '');
    assert.equal(csvCell(undefined), '');
    assert.equal(csvCell(Number.NaN), '');
  });

  it('ends each record with CRLF', () => {
    assert.equal(csvRecord(['a', 1, null, 'b,c']), 'a,1,,"b,c"\r\n');
  });
});
