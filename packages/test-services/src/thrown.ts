/**
 * The error `run` throws, checked to be a `kind` (ConfigError, RelayConfigError, ...): another
 * error propagates, and a `run` that returns fails, so a test of a refusal cannot pass on an
 * accepted input.
 */
export function errorThrown<E extends Error>(
  run: () => unknown,
  kind: abstract new (...args: never[]) => E,
): E {
  try {
    run();
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`expected a ${kind.name}, nothing was thrown`);
}
