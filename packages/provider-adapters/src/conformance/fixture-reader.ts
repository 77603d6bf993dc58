/** Test support: an adapter's recorded exchanges, read from its `fixtures/` folder. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FixtureReader {
  text(name: string): string;
  bytes(name: string): Uint8Array;
}

export function fixtureReader(dir: string): FixtureReader {
  return {
    text: (name) => readFileSync(join(dir, name), 'utf8'),
    bytes: (name) => new Uint8Array(readFileSync(join(dir, name))),
  };
}
