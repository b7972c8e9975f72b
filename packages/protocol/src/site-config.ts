/**
 * `window.SITE_CONFIG`, written by the UI service's `/site-config.js` for the pages it serves:
 * the public addresses the pages need (never a secret).
 */
export interface SiteConfig {
  relayUrl: string | null;
  captureUrl: string | null;
  /** The outputs service's base (YouTube, Zoom, transcript archive), ending with `/`; null: none. */
  outputsUrl: string | null;
  /** The stream sources service's base (live streams captioned without a browser), ending with `/`; null: none. */
  sourcesUrl: string | null;
  /**
   * The relay's HTTP API base (caption rooms: `rooms`, `public/rooms`), ending with `/`; null:
   * the pages show no rooms.
   */
  relayApiUrl: string | null;
  /**
   * The calendar's events REST API base (The Events Calendar REST v1: `venues`, `events`), ending
   * with `/`; null: the pages show no venues or talks.
   */
  calendarApiUrl: string | null;
}
