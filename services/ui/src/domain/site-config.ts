/** `/site-config.js`: the public addresses the pages need (never a secret). */
import type { SiteConfig } from '@live-captions/protocol';

/** A script that sets `window.SITE_CONFIG`; JSON with `<` escaped so it can never close a tag. */
export function siteConfigScript(config: SiteConfig): string {
  const json = JSON.stringify({ relayUrl: config.relayUrl, captureUrl: config.captureUrl }).replace(
    /</g,
    '\\u003c',
  );
  return `window.SITE_CONFIG = Object.freeze(${json});\n`;
}

/**
 * CSP `connect-src` beyond 'self': the relay (WebSocket) and the capture host (the links hub reads
 * its /relay-config). Origins only.
 */
export function connectSources(config: SiteConfig): string[] {
  const sources = new Set<string>();
  for (const value of [config.relayUrl, config.captureUrl]) {
    if (!value) continue;
    const url = new URL(value);
    sources.add(`${url.protocol}//${url.host}`);
  }
  return [...sources];
}
