/// <reference lib="dom" />
/**
 * A QR code drawn on a canvas from qrcode-generator's modules (audience-link.ts), in the browser:
 * no service outside the stack ever sees the link it holds.
 */
import { qrModules } from './audience-link.js';

/** Quiet zone around the code, in modules (the QR standard's 4). */
const QUIET = 4;
/** Pixels per module: large enough to print and to read off a projected slide. */
const MODULE_PX = 8;

/** Draws `text`'s QR code on `canvas`, dark on white whatever the page's colours. */
export function drawQr(canvas: HTMLCanvasElement, text: string): void {
  const modules = qrModules(text);
  const size = (modules.length + 2 * QUIET) * MODULE_PX;
  canvas.width = size;
  canvas.height = size;
  const context = canvas.getContext('2d');
  if (!context) return;
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, size, size);
  context.fillStyle = '#000000';
  modules.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) context.fillRect((x + QUIET) * MODULE_PX, (y + QUIET) * MODULE_PX, MODULE_PX, MODULE_PX);
    });
  });
}
