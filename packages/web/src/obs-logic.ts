/**
 * The overlay's OBS native captions without a DOM (the 608 wrapping and the obs-websocket client),
 * for the real OBS test that drives OBS as the overlay does. Only from sources, like
 * `./capture-logic`.
 */
export { captionChunks } from './browser/lib/cea608-lines.js';
export { ObsWebSocket } from './browser/lib/obs-websocket.js';
