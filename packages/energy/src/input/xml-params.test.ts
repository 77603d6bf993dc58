import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseXmlParams as parseToDictionaries, XmlInputError } from './xml-params.ts';

/** The parser builds null-prototype objects; compare their content as plain JSON data. */
function parseXmlParams(xml: string): unknown {
  return JSON.parse(JSON.stringify(parseToDictionaries(xml)));
}

test('Hash.from_xml rules: types cast, nil is null, dashes undasherized, root dropped', () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<operation>
  <name>Office &amp; Lab &#65;&#x42; &amp;#65;</name>
  <total-occupants type="integer">120</total-occupants>
  <misc-electric-load type="float">1.5</misc-electric-load>
  <misc-gas-load type="float" nil="true"/>
  <weekdays-open type="boolean">true</weekdays-open>
  <saturday-open type="boolean">0</saturday-open>
  <weekday-open-time type="integer">800</weekday-open-time>
  <sunday-open-time/>
  <empty-string type="string"></empty-string>
  <ids type="array"><id type="integer">1</id><id type="integer">2</id></ids>
  <one type="array"><id type="integer">7</id></one>
</operation>`;
  assert.deepEqual(parseXmlParams(xml), {
    name: 'Office & Lab AB &#65;',
    total_occupants: 120,
    misc_electric_load: 1.5,
    misc_gas_load: null,
    weekdays_open: true,
    saturday_open: false,
    weekday_open_time: 800,
    sunday_open_time: null,
    empty_string: '',
    ids: [1, 2],
    one: [7],
  });
});

test('values that do not cast stay text so validation can refuse them', () => {
  assert.deepEqual(
    parseXmlParams('<operation><total-occupants type="integer">abc</total-occupants></operation>'),
    {
      total_occupants: 'abc',
    },
  );
  assert.deepEqual(parseXmlParams('<operation><weekdays-open type="boolean">t</weekdays-open></operation>'), {
    weekdays_open: 't',
  });
});

test('nested elements become nested hashes; a scalar root keeps its name', () => {
  assert.deepEqual(
    parseXmlParams('<request><token>abc</token><operation><name>X</name></operation></request>'),
    {
      token: 'abc',
      operation: { name: 'X' },
    },
  );
  assert.deepEqual(parseXmlParams('<token>abc</token>'), { token: 'abc' });
  assert.deepEqual(parseXmlParams('  '), {});
});

test('attacks and malformed documents are refused', () => {
  const attacks = [
    '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><operation><name>&xxe;</name></operation>',
    '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><operation><name>&lol2;</name></operation>',
    '<operation><!ENTITY x "y"><name>a</name></operation>',
    '<operation><name>a</operation>',
    '<operation><name>a</name></operation><second/>',
    'not xml at all',
    '<operation><name type="yaml">--- !ruby/object</name></operation>',
    '<operation><name type="symbol">x</name></operation>',
    '<operation><__proto__><polluted>1</polluted></__proto__></operation>',
    '<operation><name>&#x110000;</name></operation>',
    `${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`,
  ];
  for (const xml of attacks) assert.throws(() => parseXmlParams(xml), XmlInputError, xml.slice(0, 60));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('reserved names are refused at any depth, and every hash has no prototype', () => {
  for (const name of ['constructor', 'prototype']) {
    assert.throws(() => parseToDictionaries(`<operation><a><${name}><x>1</x></${name}></a></operation>`), {
      name: 'XmlInputError',
      message: `Parameter name '${name}' is not accepted.`,
    });
  }
  const parsed = parseToDictionaries('<request><operation><name>X</name></operation></request>');
  assert.equal(Object.getPrototypeOf(parsed), null);
  assert.equal(Object.getPrototypeOf(parsed.operation), null);
});
