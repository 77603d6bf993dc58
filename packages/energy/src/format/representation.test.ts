import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { create } from 'xmlbuilder2';
import { parseXmlParams } from '../input/xml-params.ts';
import {
  type ApiRecord,
  escapeText,
  type Representation,
  toJson,
  toJsonList,
  toXml,
  toXmlList,
  xmlError,
  xmlErrorList,
  xmlName,
} from './representation.ts';
import { rubyFloat } from './ruby-float.ts';

const sample: Representation = {
  element: 'sample',
  listElement: 'samples',
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'display_name', type: 'string' },
    { name: 'ratio', type: 'float' },
    { name: 'is_default', type: 'boolean' },
    { name: 'created_at', type: 'datetime' },
  ],
};

test('golden: nulls, floats, escaping, datetimes to the second', () => {
  const record = {
    id: 3,
    display_name: 'A & <B>',
    ratio: 0.00001,
    is_default: null,
    created_at: '2013-07-26T16:09:43.512Z',
  };
  assert.equal(
    toXml(sample, record),
    `<?xml version="1.0" encoding="UTF-8"?>
<sample>
  <id type="integer">3</id>
  <display-name type="string">A &amp; &lt;B&gt;</display-name>
  <ratio type="float">1.0e-05</ratio>
  <is-default type="boolean" nil="true"/>
  <created-at type="datetime">2013-07-26T16:09:43Z</created-at>
</sample>
`,
  );
  assert.equal(
    toJson(sample, record),
    '{"id":3,"display_name":"A & <B>","ratio":1.0e-05,"is_default":null,"created_at":"2013-07-26T16:09:43Z"}',
  );
});

test('golden: lists, the empty list, and an empty string', () => {
  assert.equal(toXmlList(sample, []), '<?xml version="1.0" encoding="UTF-8"?>\n<samples type="array"/>\n');
  assert.equal(toJsonList(sample, []), '[]');
  const record = { id: 1, display_name: '', ratio: 12, is_default: true, created_at: '2013-07-26T16:09:43Z' };
  assert.equal(
    toXmlList(sample, [record]),
    `<?xml version="1.0" encoding="UTF-8"?>
<samples type="array">
  <sample>
    <id type="integer">1</id>
    <display-name type="string"></display-name>
    <ratio type="float">12.0</ratio>
    <is-default type="boolean">true</is-default>
    <created-at type="datetime">2013-07-26T16:09:43Z</created-at>
  </sample>
</samples>
`,
  );
  assert.equal(toJsonList(sample, [record, record]), `[${toJson(sample, record)},${toJson(sample, record)}]`);
});

test('golden: error bodies', () => {
  assert.equal(
    xmlErrorList(['Name is too long', 'Total occupants is not a number']),
    '<?xml version="1.0" encoding="UTF-8"?>\n<errors>\n  <error>Name is too long</error>\n' +
      '  <error>Total occupants is not a number</error>\n</errors>\n',
  );
  assert.equal(
    xmlError('not_found', 'Unsupported operation'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<error>\n  <code>not_found</code>\n  <message>Unsupported operation</message>\n</error>\n',
  );
});

test('characters XML cannot carry are replaced, never written raw', () => {
  assert.equal(escapeText('a\u0000b\u001fc&'), 'a\ufffdb\ufffdc&amp;');
});

/** The reference: the same document built as an xmlbuilder2 DOM, as Rails' Builder would lay it out. */
function oracleXml(records: readonly ApiRecord[]): string {
  const document = create({ version: '1.0', encoding: 'UTF-8' });
  const list = document.ele(sample.listElement, { type: 'array' });
  for (const record of records) {
    const node = list.ele(sample.element);
    for (const field of sample.fields) {
      const value = record[field.name] ?? null;
      if (value === null) node.ele(xmlName(field.name), { type: field.type, nil: 'true' });
      else
        node
          .ele(xmlName(field.name), { type: field.type })
          .txt(field.type === 'float' ? rubyFloat(Number(value)) : String(value));
    }
  }
  return `${document.end({ prettyPrint: true, indent: '  ', newline: '\n' })}\n`;
}

const arbitraryRecord = fc.record({
  id: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  display_name: fc.option(
    fc
      .string({ minLength: 1, unit: 'grapheme' })
      .filter((text) => text.trim() === text && text.trim() !== ''),
    { nil: null },
  ),
  ratio: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
  is_default: fc.option(fc.boolean(), { nil: null }),
  created_at: fc.constant('2013-07-26T16:09:43Z'),
});

test('the template writer writes exactly what an xmlbuilder2 DOM writes, and reads back', () => {
  fc.assert(
    fc.property(fc.array(arbitraryRecord, { minLength: 1, maxLength: 4 }), (records) => {
      const xml = toXmlList(sample, records);
      assert.equal(xml, oracleXml(records));
      const parsed = parseXmlParams(`<wrapper>${xml.replace(/^<\?xml[^>]*>/, '')}</wrapper>`);
      const back = (parsed.samples as Array<Record<string, unknown>>).map((row) => ({ ...row }));
      assert.deepEqual(
        back.map((row) => [row.id, row.display_name, row.ratio, row.is_default]),
        records.map((row) => [
          row.id,
          row.display_name,
          row.ratio === null ? null : Number(rubyFloat(row.ratio)),
          row.is_default,
        ]),
      );
    }),
    { numRuns: 200 },
  );
});
