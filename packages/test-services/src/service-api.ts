/** One call of a service's JSON API on 127.0.0.1 with a bearer token, as the suites and benches make it. */

export interface ApiAnswer {
  status: number;
  /** The body parsed, or undefined when it is not JSON (a 204, a proxy's page). */
  json: unknown;
  text: string;
}

export async function callApi(
  port: number,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}
