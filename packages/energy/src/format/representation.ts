import { create } from 'xmlbuilder2';
import { rubyFloat } from './ruby-float.ts';

type XMLBuilder = ReturnType<typeof create>;

export type FieldType = 'integer' | 'float' | 'string' | 'boolean' | 'datetime';

export interface Field {
  readonly name: string;
  readonly type: FieldType;
}

export type Scalar = string | number | boolean | null;

/** A record as the API shows it: field name -> value, nulls included. */
export type ApiRecord = Readonly<Record<string, Scalar>>;

/** How one resource is written: its XML element names and its fields in the spec's order. */
export interface Representation {
  /** XML root of one record (`operation`, `fan-control`). */
  readonly element: string;
  /** XML root of a list (`operations`, `fan-controls`). */
  readonly listElement: string;
  readonly fields: readonly Field[];
}

const ISO_PREFIX = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;

/** ISO 8601 UTC to the second, as the Rails service wrote datetimes: `2013-07-26T16:09:43Z`. */
export function isoSeconds(value: string): string {
  const utc = ISO_PREFIX.test(value) && value.endsWith('Z') ? value : new Date(value).toISOString();
  return `${utc.slice(0, 19)}Z`;
}

/** The text of a non-null value, shared by JSON (after quoting) and XML. */
function text(type: FieldType, value: string | number | boolean): string {
  switch (type) {
    case 'float':
      return rubyFloat(Number(value));
    case 'integer':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'datetime':
      return isoSeconds(String(value));
    case 'string':
      return String(value);
  }
}

const JSON_VALUE: Readonly<Record<FieldType, (value: string | number | boolean) => string>> = {
  integer: (value) => String(value),
  float: (value) => rubyFloat(Number(value)),
  boolean: (value) => (value ? 'true' : 'false'),
  string: (value) => JSON.stringify(String(value)),
  // ISO text needs no JSON escaping: only digits, '-', ':', 'T' and 'Z'.
  datetime: (value) => `"${isoSeconds(String(value))}"`,
};

/**
 * A JSON writer for one representation. JSON.stringify cannot write `12.0` (it writes `12`,
 * which Ruby and Python clients read back as an integer), so the record is assembled from
 * pre-quoted keys and a value writer chosen per field type; strings still go through
 * JSON.stringify.
 */
export function jsonWriter(fields: readonly Field[]): (record: ApiRecord) => string {
  const keys = fields.map((field, index) => ({
    name: field.name,
    prefix: `${index === 0 ? '' : ','}${JSON.stringify(field.name)}:`,
    write: JSON_VALUE[field.type],
  }));
  return (record) => {
    let out = '{';
    for (const key of keys) {
      const value = record[key.name] ?? null;
      out += key.prefix + (value === null ? 'null' : key.write(value));
    }
    return `${out}}`;
  };
}

const jsonWriters = new WeakMap<Representation, (record: ApiRecord) => string>();

function jsonOf(representation: Representation): (record: ApiRecord) => string {
  let writer = jsonWriters.get(representation);
  if (!writer) {
    writer = jsonWriter(representation.fields);
    jsonWriters.set(representation, writer);
  }
  return writer;
}

export function toJson(representation: Representation, record: ApiRecord): string {
  return jsonOf(representation)(record);
}

export function toJsonList(representation: Representation, records: readonly ApiRecord[]): string {
  return `[${records.map(jsonOf(representation)).join(',')}]`;
}

export function xmlName(name: string): string {
  return name.replaceAll('_', '-');
}

function newDocument(): XMLBuilder {
  return create({ version: '1.0', encoding: 'UTF-8' });
}

/** Rails' to_xml layout: declaration, two-space indentation, trailing newline. */
function finish(document: XMLBuilder): string {
  return `${document.end({ prettyPrint: true, indent: '  ', newline: '\n' })}\n`;
}

const PLACEHOLDER = '\uE000';

/** Markup rendered by xmlbuilder2 around a placeholder text: `[open tag, close tag]`. */
function tags(name: string, attributes: Record<string, string>): [string, string] {
  const markup = create().ele(name, attributes).txt(PLACEHOLDER).end({ headless: true });
  const [open = '', close = ''] = markup.split(PLACEHOLDER);
  return [open, close];
}

/** An empty element as xmlbuilder2 writes it: `<name type="float" nil="true"/>`. */
function emptyTag(name: string, attributes: Record<string, string>): string {
  return create().ele(name, attributes).end({ headless: true });
}

// Characters XML 1.0 cannot carry at all; input validation keeps them out, this keeps the output well-formed.
// eslint-disable-next-line no-control-regex -- these are the characters being replaced
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const TEXT_SPECIAL = /[&<>]/g;
// eslint-disable-next-line no-control-regex -- these are the characters being escaped
const NEEDS_ESCAPING = /[&<>\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function escapeText(value: string): string {
  if (!NEEDS_ESCAPING.test(value)) return value;
  return value.replace(NOT_XML, '\ufffd').replace(TEXT_SPECIAL, (char) => ESCAPES[char] ?? char);
}

interface CompiledXml {
  readonly record: (record: ApiRecord, indent: string) => string;
  readonly listOpen: string;
  readonly listClose: string;
  readonly emptyList: string;
}

/**
 * An XML writer for one representation. Every tag is rendered once by xmlbuilder2 (names,
 * attributes, quoting); per record only values are escaped and slotted in. Building a DOM per
 * response cost ~8 ms for a 50-record list, this costs well under one; the test suite checks
 * that both produce the same bytes.
 */
function compileXml(representation: Representation): CompiledXml {
  const [recordOpen, recordClose] = tags(representation.element, {});
  const fields = representation.fields.map((field) => {
    const [open, close] = tags(xmlName(field.name), { type: field.type });
    const nil = emptyTag(xmlName(field.name), { type: field.type, nil: 'true' });
    // Only strings can hold markup or control characters: numbers, booleans and ISO datetimes
    // are written from characters that never need escaping, so they skip the scan.
    const escape = field.type === 'string' ? escapeText : (value: string) => value;
    return { ...field, open, close: `${close}\n`, nil: `${nil}\n`, escape };
  });
  const [listOpen, listClose] = tags(representation.listElement, { type: 'array' });
  return {
    record(record, indent) {
      const inner = `${indent}  `;
      let out = `${indent}${recordOpen}\n`;
      for (const field of fields) {
        const value = record[field.name] ?? null;
        out +=
          value === null
            ? inner + field.nil
            : inner + field.open + field.escape(text(field.type, value)) + field.close;
      }
      return `${out}${indent}${recordClose}\n`;
    },
    listOpen,
    listClose,
    emptyList: emptyTag(representation.listElement, { type: 'array' }),
  };
}

const compiled = new WeakMap<Representation, CompiledXml>();

function xmlOf(representation: Representation): CompiledXml {
  let writer = compiled.get(representation);
  if (!writer) {
    writer = compileXml(representation);
    compiled.set(representation, writer);
  }
  return writer;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

export function toXml(representation: Representation, record: ApiRecord): string {
  return XML_DECLARATION + xmlOf(representation).record(record, '');
}

export function toXmlList(representation: Representation, records: readonly ApiRecord[]): string {
  const writer = xmlOf(representation);
  if (records.length === 0) return `${XML_DECLARATION}${writer.emptyList}\n`;
  let out = `${XML_DECLARATION}${writer.listOpen}\n`;
  for (const record of records) out += writer.record(record, '  ');
  return `${out}${writer.listClose}\n`;
}

/** `<errors><error>Field message</error>...</errors>`, the shape ActiveResource reads on a 422. */
export function xmlErrorList(messages: readonly string[]): string {
  const document = newDocument();
  const list = document.ele('errors');
  for (const message of messages) list.ele('error').txt(message);
  return finish(document);
}

/** Any other error: `<error><code>..</code><message>..</message></error>`, mirroring the JSON body. */
export function xmlError(code: string, message: string): string {
  const document = newDocument();
  const node = document.ele('error');
  node.ele('code').txt(code);
  node.ele('message').txt(message);
  return finish(document);
}
