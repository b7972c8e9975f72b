/**
 * The capture page's logic that runs without a DOM (the rolling window, the realtime session and
 * its protocol), for Node harnesses that drive it as the page would: the quality benchmark. Only
 * from sources (the `@live-captions/source` condition, as `pnpm bench` runs): the package's build
 * compiles its Node side only, the pages are bundled by esbuild.
 */
export { type RealtimeSocket, realtimeUrl } from './browser/lib/realtime-protocol.js';
export { RealtimeSession } from './browser/lib/realtime-session.js';
export { RollingBuffer, SENSITIVITY } from './browser/lib/rolling-buffer.js';
