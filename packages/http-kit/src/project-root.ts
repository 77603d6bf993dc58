import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

function isWorkspaceRoot(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return false;
  try {
    return 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object);
  } catch {
    return false;
  }
}

/**
 * The project directory: the nearest ancestor of this file whose package.json declares the
 * workspaces (the repository root). Relative paths in the configuration (the data directory,
 * a SQLite file) are resolved from here, not from the current directory, so the services and
 * the CLIs run from any subdirectory find the same data.
 */
export function findProjectRoot(from: string = import.meta.dirname): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (isWorkspaceRoot(dir)) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

export const PROJECT_ROOT = findProjectRoot();

/** A relative path made absolute from the project directory; absolute paths pass through. */
export function fromProjectRoot(path: string): string {
  return resolve(PROJECT_ROOT, path);
}
