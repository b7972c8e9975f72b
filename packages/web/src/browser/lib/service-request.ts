/**
 * How a page calls one of the stack's JSON services with a bearer token (the outputs service with
 * a room's token, the stream sources service with the service access token): never cookies or
 * cache, and every failure an error carrying the service's own `{error:{message}}` or, when the
 * answer is not the service's JSON (a proxy's error page), its status.
 */

export class ServiceRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ServiceRequestError';
  }
}

/** What a panel's status line says when a request failed: the service's message, never a stack. */
export function requestProblem(error: unknown): string {
  return error instanceof ServiceRequestError ? error.message : 'Unexpected error';
}

/** `service` names it in the messages ("The outputs service cannot be reached"). */
export async function serviceRequest(
  service: string,
  fetcher: typeof fetch,
  url: URL,
  token: string,
  init: RequestInit = {},
): Promise<Response> {
  let response: Response;
  try {
    response = await fetcher(url, {
      ...init,
      headers: { ...init.headers, Authorization: `Bearer ${token}` },
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ServiceRequestError(`The ${service} cannot be reached`, 0);
  }
  if (response.ok) return response;
  let message = `The ${service} answered ${response.status}`;
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // Not our JSON: the status says enough.
  }
  throw new ServiceRequestError(message, response.status);
}
