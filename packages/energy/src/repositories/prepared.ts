import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/**
 * A query built once with Kysely's typed builder and compiled once; each call runs the same
 * SQL with new parameter values, in the order they appear in the query. Building and
 * compiling a Kysely query costs ~20 us, about as much as running it, on every request of
 * the hot paths (token lookup, show, list). The declared parameter count is checked at
 * start-up, so a query that grows a parameter cannot silently shift values.
 */
export function prepared<Row, DB>(
  db: Kysely<DB>,
  query: Compilable<Row>,
  parameterCount: number,
): (...parameters: Array<string | number>) => Promise<Row[]> {
  const compiled = query.compile();
  if (compiled.parameters.length !== parameterCount) {
    throw new Error(
      `prepared query expects ${parameterCount} parameters, compiled ${compiled.parameters.length}`,
    );
  }
  return async (...parameters) => {
    const bound: CompiledQuery<Row> = { ...compiled, parameters };
    return (await db.executeQuery(bound)).rows;
  };
}
