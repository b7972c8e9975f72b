/**
 * Every request of the container test goes on a connection of its own (`Connection: close`).
 * The harness runs docker synchronously, which blocks this process's event loop for seconds to
 * minutes at a time (`make build`, `make down`); a pooled keep-alive connection that its server
 * closed meanwhile (the services keep idle ones 95 s) still looks usable when the loop resumes,
 * and the next request on it fails with "other side closed" before it reaches the server. That is
 * an accident of this client, not something the services do: a proxy's or a browser's pool sees
 * the close as it happens.
 */
const pooledFetch = globalThis.fetch;

globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers);
  if (!headers.has('connection')) headers.set('connection', 'close');
  return pooledFetch(input, { ...init, headers });
};
