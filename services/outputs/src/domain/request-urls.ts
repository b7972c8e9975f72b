/**
 * The platforms' request URLs from a destination's secret URL. Parameters are appended to the
 * query as given (never re-serialised: the signature covers the original text).
 */
export function appendQuery(url: string, params: Record<string, string | number>): string {
  const extra = Object.entries(params)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return `${url}${url.includes('?') ? '&' : '?'}${extra}`;
}

/** Zoom's `GET <base>/closedcaption/seq?<same params>`: the last seq Zoom accepted. */
export function zoomSeqUrl(url: string): string {
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  const query = at < 0 ? '' : url.slice(at);
  return `${path.replace(/\/$/, '')}/seq${query}`;
}
