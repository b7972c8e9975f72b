/**
 * The audience page's link and its QR code (pure). The link carries the output room's read token
 * in the fragment only, like the overlay's; the QR code is made here, in the browser, by
 * qrcode-generator (no external service ever sees the link).
 */
import qrcode from 'qrcode-generator';
import { fragment } from './params.js';

/** `site`: the UI's base URL with a trailing slash. */
export function audienceUrl(site: string, relayUrl: string, room: string, readToken: string): string {
  return `${new URL('audience.html', site).href}#${fragment({ relayUrl, room, relayReadToken: readToken })}`;
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
