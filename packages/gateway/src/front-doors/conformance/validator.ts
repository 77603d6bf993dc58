/**
 * Validators over the committed schema subsets (./schemas/<vendor>.json, written by
 * extract-schemas.ts): `check(vendor, root, value)` gives the errors of `value` against that
 * vendor's schema `root`, none when it conforms. Test support only (ajv is a devDependency).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { SCHEMAS_DIR } from './extract-schemas.ts';

interface SchemaFile {
  readonly source: Record<string, unknown>;
  readonly roots: readonly string[];
  readonly $defs: Record<string, unknown>;
}

const compiled = new Map<string, ValidateFunction>();
const files = new Map<string, SchemaFile>();
const ajvs = new Map<string, Ajv2020>();

export function schemaFile(vendor: string): SchemaFile {
  let file = files.get(vendor);
  if (!file) {
    file = JSON.parse(readFileSync(join(SCHEMAS_DIR, `${vendor}.json`), 'utf8')) as SchemaFile;
    files.set(vendor, file);
  }
  return file;
}

function ajvFor(vendor: string): Ajv2020 {
  let ajv = ajvs.get(vendor);
  if (!ajv) {
    // strict off: OpenAPI documents carry formats (int64, binary, ...) and keyword combinations
    // ajv's strict mode rejects though they are valid JSON Schema; formats are not checked.
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const file = schemaFile(vendor);
    ajv.addSchema({ $id: vendor, $defs: file.$defs });
    ajvs.set(vendor, ajv);
  }
  return ajv;
}

function validator(vendor: string, root: string): ValidateFunction {
  const key = `${vendor}#${root}`;
  let validate = compiled.get(key);
  if (!validate) {
    const ajv = ajvFor(vendor);
    if (!ajv.getSchema(`${vendor}#/$defs/${root}`)) throw new Error(`${vendor} has no schema ${root}`);
    validate = ajv.compile({ $ref: `${vendor}#/$defs/${root}` });
    compiled.set(key, validate);
  }
  return validate;
}

type Schema = { readonly anyOf?: ReadonlyArray<{ readonly $ref?: string }>; readonly properties?: Json };
type Json = Record<string, unknown>;

/** Whether `def` is an object schema whose `type` property admits `type`. */
function admitsType(def: Schema | undefined, type: unknown): boolean {
  const property = def?.properties?.type as { const?: unknown; enum?: unknown[] } | undefined;
  return property?.const === type || (property?.enum?.includes(type) ?? false);
}

/**
 * The member of the union `root` whose `type` constant is the value's, if exactly one is: the
 * union's discriminator, so that errors name the fields of that member and not of all forty.
 */
function variant(vendor: string, root: string, value: unknown): string {
  const defs = schemaFile(vendor).$defs as Record<string, Schema>;
  const type = (value as Json | null)?.type;
  const members = (defs[root]?.anyOf ?? [])
    .map((member) => member.$ref?.replace('#/$defs/', ''))
    .filter((name): name is string => name !== undefined && admitsType(defs[name], type));
  return members.length === 1 ? (members[0] as string) : root;
}

/** The errors of `value` against `root` as readable lines; [] when it conforms. */
export function check(vendor: string, root: string, value: unknown): string[] {
  const validate = validator(vendor, root);
  if (validate(value)) return [];
  const member = variant(vendor, root, value);
  const precise = member === root ? validate : validator(vendor, member);
  precise(value);
  return (precise.errors ?? validate.errors ?? []).map(
    (error) =>
      `${member} ${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
  );
}
