/**
 * The links hub's links (pure). Tokens go into fragments only and each link carries only what its
 * page needs: capture writes the source room; the editor reads the source room and writes the
 * output room (and carries the output read token, when given, for its "Copy overlay link"); the
 * overlay reads the output room. The service access token is never put in a link.
 */
import { fragment } from './params.js';

export interface RelaySettings {
  relayUrl: string;
  sourceRoom: string;
  outputRoom: string;
  sourceReadToken?: string | null;
  sourceWriteToken?: string | null;
  outputReadToken?: string | null;
  outputWriteToken?: string | null;
}

export interface OverlayOptions {
  /** The track shown (languages.ts): none or `original` for what was spoken, else a language. */
  ln?: string;
  maxlines?: number;
  clear?: boolean;
  showtime?: number;
  dual?: boolean;
  fontsize?: number;
  color?: string;
  /** OBS native captions: the local OBS WebSocket port and password (fragment only). */
  obsPort?: number;
  obsPassword?: string;
  /** A name of `OVERLAY_FONTS` (overlay-look.ts). */
  font?: string;
  bg?: string;
  position?: 'top' | 'bottom';
}

export interface Links {
  capture: string | null;
  editor: string | null;
  overlay: string | null;
}

/**
 * `site`: UI base URL with trailing slash; `captureUrl`: capture host with trailing slash (or
 * null when there is none). A link is null when its page lacks a token.
 */
export function buildLinks(
  site: string,
  captureUrl: string | null,
  relay: RelaySettings,
  overlay: OverlayOptions = {},
): Links {
  const capture =
    captureUrl && relay.sourceWriteToken
      ? `${new URL(captureUrl).href}#${fragment({
          relayUrl: relay.relayUrl,
          room: relay.sourceRoom,
          relayWriteToken: relay.sourceWriteToken,
        })}`
      : null;
  const editor =
    relay.sourceReadToken && relay.outputWriteToken
      ? `${new URL('editor.html', site).href}#${fragment({
          relayUrl: relay.relayUrl,
          sourceRoom: relay.sourceRoom,
          sourceReadToken: relay.sourceReadToken,
          outputRoom: relay.outputRoom,
          outputWriteToken: relay.outputWriteToken,
          // "Copy overlay link" in the editor: the output read token and the overlay's look.
          outputReadToken: relay.outputReadToken,
          overlay: overlayQuery(overlay),
        })}`
      : null;
  const overlayLink = relay.outputReadToken
    ? overlayUrl(site, relay.relayUrl, relay.outputRoom, relay.outputReadToken, overlay)
    : null;
  return { capture, editor, overlay: overlayLink };
}

/** The overlay's address: display options in the query (OBS users edit them), the token in the fragment. */
export function overlayUrl(
  site: string,
  relayUrl: string,
  room: string,
  readToken: string,
  options: OverlayOptions = {},
): string {
  const obs = options.obsPort ? { port: options.obsPort, password: options.obsPassword } : undefined;
  return overlayLink(site, overlayQuery(options), relayUrl, room, readToken, obs);
}

/** The overlay's display options as its query string. */
export function overlayQuery(options: OverlayOptions): string {
  return fragment({
    ln: options.ln && options.ln !== 'original' ? options.ln : undefined,
    maxlines: options.maxlines,
    clear: options.clear,
    showtime: options.showtime,
    dual: options.dual,
    fontsize: options.fontsize,
    color: options.color,
    font: options.font,
    bg: options.bg,
    position: options.position,
  });
}

/** The overlay's address from a query string already built (the editor keeps the hub's). */
export function overlayLink(
  site: string,
  query: string,
  relayUrl: string,
  room: string,
  readToken: string,
  obs?: { port: number; password?: string | undefined },
): string {
  const url = new URL('overlay.html', site);
  url.search = query;
  // The OBS password is a secret like the token; the port goes with it (no password without a port).
  const forObs = obs ? { obs: obs.port, obspw: obs.password } : {};
  return `${url.href}#${fragment({ relayUrl, room, relayReadToken: readToken, ...forObs })}`;
}
