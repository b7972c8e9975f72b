/** `/site-config.js`: the public addresses the pages need (never a secret). */
import type { SiteConfig } from '@live-captions/protocol';

/** A script that sets `window.SITE_CONFIG`; JSON with `<` escaped so it can never close a tag. */
export function siteConfigScript(config: SiteConfig): string {
  const json = JSON.stringify({
    relayUrl: config.relayUrl,
    captureUrl: config.captureUrl,
    outputsUrl: config.outputsUrl,
    sourcesUrl: config.sourcesUrl,
    relayApiUrl: config.relayApiUrl,
    calendarApiUrl: config.calendarApiUrl,
  }).replace(/</g, '\\u003c');
  return `window.SITE_CONFIG = Object.freeze(${json});\n`;
}

/**
 * The local OBS's WebSocket: the overlay, running inside OBS as a browser source, sends it the
 * captions as CEA-608 (its `obs` option). Loopback only, any port (OBS's setting).
 */
export const OBS_WEBSOCKET_SOURCE = 'ws://127.0.0.1:*';

/**
 * CSP `connect-src` beyond 'self': the relay (WebSocket), the capture host (the links hub reads
 * its /relay-config), the outputs service (the editor's destinations), the stream sources
 * service (the links hub's sources), the relay's HTTP API (the caption rooms), the calendar's API
 * (the rooms' talks) and the local OBS WebSocket. Origins only.
 */
export function connectSources(config: SiteConfig): string[] {
  const sources = new Set<string>();
  for (const value of [
    config.relayUrl,
    config.captureUrl,
    config.outputsUrl,
    config.sourcesUrl,
    config.relayApiUrl,
    config.calendarApiUrl,
  ]) {
    if (!value) continue;
    const url = new URL(value);
    sources.add(`${url.protocol}//${url.host}`);
  }
  sources.add(OBS_WEBSOCKET_SOURCE);
  return [...sources];
}
