/**
 * The error catalogue pattern shared by both services: every error a service can answer with
 * is declared once (code, HTTP status, message template) and raised as an AppError. Each
 * service renders AppErrors in its own wire format through one error handler.
 */
export interface ErrorDefinition<P = Record<string, unknown>> {
  readonly status: number;
  /** OpenAI-style error type or any service-specific classification. */
  readonly type: string;
  readonly message: (params: P) => string;
}

export type ErrorCatalogue = Readonly<Record<string, ErrorDefinition<never>>>;

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  /** Extra fields a service renders (e.g. per-field validation messages); never internals. */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** Response headers that belong to this error (e.g. Retry-After). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(init: {
    code: string;
    status: number;
    type: string;
    message: string;
    param?: string | null;
    details?: Record<string, unknown>;
    headers?: Record<string, string>;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'AppError';
    this.code = init.code;
    this.status = init.status;
    this.type = init.type;
    this.param = init.param ?? null;
    this.details = init.details;
    this.headers = init.headers ?? {};
  }
}

type ParamsOf<D> = D extends ErrorDefinition<infer P> ? P : never;

export interface RaiseOptions {
  param?: string | null;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * Builds a typed factory over a catalogue: `errors.create('model_not_found', { model })`
 * type-checks the code and its template parameters.
 */
export function defineErrors<C extends Record<string, ErrorDefinition<never>>>(catalogue: C) {
  const frozen = Object.freeze({ ...catalogue });
  return {
    catalogue: frozen,
    create<K extends keyof C & string>(
      code: K,
      params: ParamsOf<C[K]>,
      options: RaiseOptions = {},
    ): AppError {
      const def = frozen[code] as unknown as ErrorDefinition<ParamsOf<C[K]>>;
      return new AppError({
        code,
        status: def.status,
        type: def.type,
        message: def.message(params),
        param: options.param ?? null,
        ...(options.details ? { details: options.details } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.cause === undefined ? {} : { cause: options.cause }),
      });
    },
  };
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
