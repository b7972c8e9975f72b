/**
 * The overlay's look from its page parameters (pure): font size, family, colour, background and
 * position, as CSS custom properties (set through CSSOM: the page has no inline styles), with bad
 * values ignored so that a typo never blanks the overlay.
 */

/** Font families offered by the hub: names of system font stacks, never a download. */
export const OVERLAY_FONTS: Readonly<Record<string, string>> = {
  sans: 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif',
  serif: 'Georgia, "Times New Roman", "Noto Serif", serif',
  mono: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
  rounded: '"Arial Rounded MT Bold", "Nunito", "Varela Round", system-ui, sans-serif',
  condensed: '"Arial Narrow", "Roboto Condensed", "Noto Sans", sans-serif-condensed, sans-serif',
};

export type OverlayPosition = 'top' | 'bottom';

export interface OverlayLook {
  /** CSS custom property -> value. */
  properties: Record<string, string>;
  position: OverlayPosition;
}

const COLOUR = /^(#[0-9a-f]{3,8}|[a-z]{3,20})$/i;

/** `isColour`: the browser's check (CSS.supports) on top of the pattern. */
export function overlayLook(
  get: (name: string) => string | undefined,
  isColour: (value: string) => boolean,
): OverlayLook {
  const properties: Record<string, string> = {};
  const size = Number(get('fontsize'));
  if (Number.isFinite(size) && size >= 8 && size <= 200) properties['--caption-size'] = `${size}px`;
  for (const [name, property] of [
    ['color', '--caption-color'],
    ['bg', '--caption-background'],
  ] as const) {
    const value = get(name);
    if (value && COLOUR.test(value) && isColour(value)) properties[property] = value;
  }
  const font = OVERLAY_FONTS[get('font') ?? ''];
  if (font) properties['--caption-font'] = font;
  return { properties, position: get('position') === 'top' ? 'top' : 'bottom' };
}

/**
 * How many of the newest captions fit in `maxLines` visual lines, given each caption's height in
 * lines (oldest first). The newest is always kept: when it alone is taller, the page shows its
 * last lines.
 */
export function captionsThatFit(lineCounts: readonly number[], maxLines: number): number {
  let used = 0;
  let kept = 0;
  for (let index = lineCounts.length - 1; index >= 0; index -= 1) {
    used += Math.max(1, lineCounts[index]!);
    if (kept > 0 && used > maxLines) break;
    kept += 1;
  }
  return kept;
}

/**
 * The overlay's notice for its link's view (link-watch.ts): wrong link, relay unreachable or
 * silent (shown from the first failure until the link is back), or none.
 *
 * The overlay is on the broadcast: a relay blip there must not put a red line on air while the
 * captions already shown stay and the operator pages (capture, editor) say it. So "unreachable"
 * is shown only with `showLost` (the overlay's `notice=1`, for a preview or a rehearsal). A
 * refused link is always shown: it never captions anything, and it shows while OBS is set up.
 */
export function relayNotice(view: string, code?: number, showLost = false): string | undefined {
  if (view === 'stopped')
    return code === 1008
      ? 'Captions: this overlay link was refused (wrong or old token). Copy it again from the links hub.'
      : 'Captions: the relay refused this overlay. Copy its link again from the links hub.';
  if (view === 'lost' && showLost) return 'Captions: relay unreachable, retrying…';
  return undefined;
}
