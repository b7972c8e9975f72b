/**
 * The only code that calls the platforms. Redirects are never followed (a listed host must not
 * bounce the request elsewhere), every request has a timeout, and no error message carries the
 * URL: it is the destination's secret.
 */
export interface PlatformAnswer {
  status: number;
  body: string;
}

/** A request that got no HTTP answer; `message` names the cause, never the URL. */
export class PlatformUnreachable extends Error {}

function causeOf(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code ? `connection failed (${code})` : 'connection failed';
}

export async function platformRequest(
  method: 'GET' | 'POST',
  url: string,
  options: { body?: string; contentType?: string; timeoutMs: number },
): Promise<PlatformAnswer> {
  try {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
      ...(options.body === undefined
        ? {}
        : {
            body: options.body,
            headers: { 'Content-Type': options.contentType ?? 'text/plain; charset=utf-8' },
          }),
    });
    const body = (await res.text()).slice(0, 4096);
    return { status: res.status, body };
  } catch (error) {
    throw new PlatformUnreachable(causeOf(error, options.timeoutMs));
  }
}
