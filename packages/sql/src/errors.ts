/**
 * Which PostgreSQL errors are about the data, not the database: the statement can never succeed
 * with these values, so retrying it (as after an outage) would only repeat the refusal. Classes of
 * SQLSTATE (PostgreSQL's "Appendix A. Error Codes"): 22 data exception (a NUL in text is 22021, a
 * number out of range 22003), 23 integrity constraint violation (a CHECK, NOT NULL, unique or
 * foreign key refused the row), 54 program limit exceeded (a value too large for an index row).
 * Everything else (connection failures, shutdowns 57P*, no resources 53*, timeouts) is an outage:
 * the same statement may succeed later.
 */
const DATA_CLASSES = new Set(['22', '23', '54']);

/** The SQLSTATE of a driver error, when it carries one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** True when PostgreSQL refused the values of a statement (see above), false for an outage. */
export function isDataError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && DATA_CLASSES.has(state.slice(0, 2));
}
