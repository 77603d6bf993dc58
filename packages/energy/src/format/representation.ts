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

function jsonValue(type: FieldType, value: Scalar): string {
  if (value === null) return 'null';
  if (type === 'float' || type === 'integer' || type === 'boolean') return text(type, value);
  return JSON.stringify(text(type, value));
}

/**
 * A JSON writer for one representation. JSON.stringify cannot write `12.0` (it writes `12`,
 * which Ruby and Python clients read back as an integer), so the record is assembled from
 * pre-quoted keys and per-type value text; strings still go through JSON.stringify.
 */
export function jsonWriter(fields: readonly Field[]): (record: ApiRecord) => string {
  const keys = fields.map((field) => ({ ...field, prefix: `${JSON.stringify(field.name)}:` }));
  return (record) => {
    let out = '{';
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as (typeof keys)[number];
      if (index > 0) out += ',';
      out += key.prefix + jsonValue(key.type, record[key.name] ?? null);
    }
    return `${out}}`;
  };
}

export function toJson(representation: Representation, record: ApiRecord): string {
  return jsonWriter(representation.fields)(record);
}

export function toJsonList(representation: Representation, records: readonly ApiRecord[]): string {
  const write = jsonWriter(representation.fields);
  return `[${records.map(write).join(',')}]`;
}

export function xmlName(name: string): string {
  return name.replaceAll('_', '-');
}

function appendRecord(
  parent: XMLBuilder,
  element: string,
  fields: readonly Field[],
  record: ApiRecord,
): void {
  const node = parent.ele(element);
  for (const field of fields) {
    const value = record[field.name] ?? null;
    if (value === null) node.ele(xmlName(field.name), { type: field.type, nil: 'true' });
    else node.ele(xmlName(field.name), { type: field.type }).txt(text(field.type, value));
  }
}

/** Rails' to_xml layout: declaration, two-space indentation, trailing newline. */
function finish(document: XMLBuilder): string {
  return `${document.end({ prettyPrint: true, indent: '  ', newline: '\n' })}\n`;
}

function newDocument(): XMLBuilder {
  return create({ version: '1.0', encoding: 'UTF-8' });
}

export function toXml(representation: Representation, record: ApiRecord): string {
  const document = newDocument();
  appendRecord(document, representation.element, representation.fields, record);
  return finish(document);
}

export function toXmlList(representation: Representation, records: readonly ApiRecord[]): string {
  const document = newDocument();
  const list = document.ele(representation.listElement, { type: 'array' });
  for (const record of records) appendRecord(list, representation.element, representation.fields, record);
  return finish(document);
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
