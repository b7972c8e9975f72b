/**
 * The capture page's realtime session and its protocol without a DOM, for Node harnesses that
 * drive it as the page would: the quality benchmark (the rolling windows' policy is its own
 * package, `@live-captions/capture`). Only from sources (the `@live-captions/source` condition, as
 * `pnpm bench` runs): the package's build compiles its Node side only, the pages are bundled by
 * esbuild.
 */
export { type RealtimeSocket, realtimeUrl } from './browser/lib/realtime-protocol.js';
export { RealtimeSession } from './browser/lib/realtime-session.js';
