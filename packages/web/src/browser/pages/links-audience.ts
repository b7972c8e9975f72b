/// <reference lib="dom" />
/**
 * The links hub's audience part: the audience page's link (output room and its read token only,
 * and the language it opens in when one is chosen) and its QR code, drawn on a canvas from qrcode-generator's modules, so the link never leaves
 * the browser; "Save QR code" downloads it as a PNG for printing.
 */

import { audienceUrl, phoneProblem } from '../lib/audience-link.js';
import { byId } from '../lib/dom.js';
import { drawQr } from '../lib/qr-canvas.js';

/** Shows the audience link and its QR code, or clears both when the room or token is missing. */
export function updateAudienceLink(
  site: string,
  relayUrl: string | null,
  outputRoom: string,
  outputReadToken: string | null,
  ln?: string,
): string | null {
  const input = byId<HTMLInputElement>('audience-link');
  const canvas = byId<HTMLCanvasElement>('audience-qr');
  const save = byId<HTMLButtonElement>('audience-qr-save');
  const link =
    relayUrl && outputRoom && outputReadToken
      ? audienceUrl(site, relayUrl, outputRoom, outputReadToken, ln)
      : null;
  input.value = link ?? '';
  canvas.hidden = !link;
  save.disabled = !link;
  if (link) drawQr(canvas, link);
  // A link phones cannot open is worse than none: said beside the code, with the way out.
  const warning = byId('audience-warning');
  const problem = link && relayUrl ? phoneProblem(site, relayUrl) : undefined;
  warning.hidden = !problem;
  warning.textContent = problem ?? '';
  return link;
}

/** Wires "Save QR code" (a PNG made from the canvas; nothing is uploaded). */
export function wireAudienceQrSave(): void {
  byId<HTMLButtonElement>('audience-qr-save').addEventListener('click', () => {
    byId<HTMLCanvasElement>('audience-qr').toBlob((blob) => {
      if (!blob) return;
      const url = URL.createObjectURL(blob);
      const anchor = document.createElement('a');
      anchor.href = url;
      anchor.download = 'audience-captions-qr.png';
      document.body.append(anchor);
      anchor.click();
      anchor.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    }, 'image/png');
  });
}
