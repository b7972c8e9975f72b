/**
 * The audience page's link and its QR code (pure). The link carries the output room's read token
 * in the fragment only, like the overlay's; the QR code is made here, in the browser, by
 * qrcode-generator (no external service ever sees the link).
 */
import qrcode from 'qrcode-generator';
import { ORIGINAL } from './languages.js';
import { loopbackHost as loopback } from './loopback.js';
import { fragment } from './params.js';

/**
 * `site`: the UI's base URL with a trailing slash; `ln`: the language the page opens in (a track,
 * languages.ts; none or `original` for what was spoken).
 */
export function audienceUrl(
  site: string,
  relayUrl: string,
  room: string,
  readToken: string,
  ln?: string,
): string {
  const language = ln && ln !== ORIGINAL ? ln : undefined;
  return `${new URL('audience.html', site).href}#${fragment({ relayUrl, room, relayReadToken: readToken, ln: language })}`;
}

/**
 * Why phones in the room cannot open the audience link, or undefined when they can: its page (the
 * hub's own site) or its relay at a loopback address. The fix: a public address, which for a
 * phone also means https (browsers and the relay's origin rule allow plain http for loopback only).
 */
export function phoneProblem(site: string, relayUrl: string): string | undefined {
  const where = [
    loopback(new URL(site).hostname) ? `this page (${new URL(site).host})` : undefined,
    loopback(new URL(relayUrl).hostname) ? `the relay (${new URL(relayUrl).host})` : undefined,
  ].filter(Boolean);
  if (where.length === 0) return undefined;
  return (
    `Phones cannot open this link: ${where.join(' and ')} ${where.length > 1 ? 'are' : 'is'} at localhost, on this computer only. ` +
    'For an audience, run the stack at a public HTTPS address: set UI_HOST and RELAY_HOST in .env.production ' +
    "and start it as the README's Production section says, then open this hub at https://UI_HOST/."
  );
}

/**
 * The QR code of `text` as rows of dark (true) and light modules, without the quiet zone. Error
 * correction M: a printed code still reads when a little of it is damaged or glared over.
 */
export function qrModules(text: string): boolean[][] {
  const code = qrcode(0, 'M');
  code.addData(text, 'Byte');
  code.make();
  const count = code.getModuleCount();
  return Array.from({ length: count }, (_, row) =>
    Array.from({ length: count }, (_, col) => code.isDark(row, col)),
  );
}
