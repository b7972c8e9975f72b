/** `/site-config.js`: the public addresses the pages need (never a secret). */
import type { SiteConfig } from '@live-captions/protocol';

/** A script that sets `window.SITE_CONFIG`; JSON with `<` escaped so it can never close a tag. */
export function siteConfigScript(config: SiteConfig): string {
  const json = JSON.stringify({
    relayUrl: config.relayUrl,
    captureUrl: config.captureUrl,
    outputsUrl: config.outputsUrl,
  }).replace(/</g, '\\u003c');
  return `window.SITE_CONFIG = Object.freeze(${json});\n`;
}

/**
 * CSP `connect-src` beyond 'self': the relay (WebSocket), the capture host (the links hub reads
 * its /relay-config) and the outputs service (the editor's destinations). Origins only.
 */
export function connectSources(config: SiteConfig): string[] {
  const sources = new Set<string>();
  for (const value of [config.relayUrl, config.captureUrl, config.outputsUrl]) {
    if (!value) continue;
    const url = new URL(value);
    sources.add(`${url.protocol}//${url.host}`);
  }
  return [...sources];
}
