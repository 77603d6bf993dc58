/**
 * A client's request at its compression level, for every use of it: the call's upstream request
 * (prepare-call.ts) and a token count (count-tokens.ts) compress the same way, so a count is that
 * of the prompt as it would go upstream. Each records its counts for X-Gateway-Compression.
 */
import type { ModelRequest, SourceBody } from '@app/provider-adapters';
import { compress, compressedSource, type Tokenizer, type WorkLimits } from '../compression/index.ts';
import type { Compression } from '../contracts.ts';
import { type AppliedState, noteCompression } from './applied.ts';
import type { ClientRequest, PipelineDeps } from './prepare-call.ts';

/** A request as it goes upstream: source undefined when only the internal model can say it. */
export interface CallRequest {
  readonly source: SourceBody | undefined;
  decode(): ModelRequest;
}

export interface CompressSettings {
  readonly level: Compression;
  /** Tokens the prompt may take: the context window less the output reserved. */
  readonly budget: number;
  /** Undefined only with level `off` (loading it is the caller's, tens of MiB on first use). */
  readonly tokenizer: Tokenizer | undefined;
  readonly targetRatio?: number | undefined;
  readonly limits?: WorkLimits | undefined;
}

/** The configured bound on compression work (both settings have defaults in the config). */
export function workLimits(config: PipelineDeps['compression']): WorkLimits | undefined {
  if (config?.workBudget === undefined || config.deadlineMs === undefined) return undefined;
  return { workBudget: config.workBudget, deadlineMs: config.deadlineMs };
}

/**
 * `compact` / `compressed`: the request as compressed, counted for X-Gateway-Compression. A
 * same-API body gets its conversation re-encoded from the compressed model (source
 * undefined: the adapter translates the model). `off` returns the client's request untouched.
 */
export function compressedRequest(
  client: ClientRequest,
  settings: CompressSettings,
  applied: AppliedState,
): CallRequest {
  const { level, tokenizer, limits } = settings;
  if (level === 'off' || tokenizer === undefined) return client;
  const result = compress({
    request: client.decode(),
    level,
    budget: settings.budget,
    tokenizer,
    targetRatio: settings.targetRatio,
    ...(limits ? { limits } : {}),
  });
  if ('fallback' in result) {
    // Past the work budget the prompt goes as sent, and the headers say so.
    noteCompression(applied, result);
    return client;
  }
  noteCompression(applied, { before: result.before, after: result.after });
  return { source: compressedSource(client.source, result.request), decode: () => result.request };
}
