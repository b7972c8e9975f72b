/**
 * The audience page's display settings (pure): text size and colours, kept on the device (localStorage) and read back defensively (an old or hand-edited value
 * falls back to the default).
 */
export const THEMES = ['light', 'dark', 'contrast'] as const;
export type Theme = (typeof THEMES)[number];

/** Text sizes in rem; phones start large. */
export const TEXT_SIZES = [1.25, 1.5, 1.75, 2, 2.5, 3, 3.5] as const;

export interface AudienceSettings {
  /** Index into TEXT_SIZES. */
  size: number;
  /** Unset: the device's light or dark preference. */
  theme?: Theme;
}

export const SETTINGS_KEY = 'live-captions.audience';
export const DEFAULT_SETTINGS: AudienceSettings = { size: 2 };

/** Settings from what storage held (`loadJson`'s object); each bad field falls back alone. */
export function parseSettings(raw: unknown): AudienceSettings {
  const value = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const size =
    Number.isInteger(value.size) && (value.size as number) >= 0 && (value.size as number) < TEXT_SIZES.length
      ? (value.size as number)
      : DEFAULT_SETTINGS.size;
  const theme = THEMES.find((t) => t === value.theme);
  return { size, ...(theme ? { theme } : {}) };
}

/** One step larger (+1) or smaller (-1), within the sizes. */
export function resize(settings: AudienceSettings, step: 1 | -1): AudienceSettings {
  const size = Math.min(TEXT_SIZES.length - 1, Math.max(0, settings.size + step));
  return { ...settings, size };
}

/** The text size as a percentage of the page's default, for the control's label. */
export function sizePercent(settings: AudienceSettings): number {
  return Math.round(((TEXT_SIZES[settings.size] ?? 1) / TEXT_SIZES[DEFAULT_SETTINGS.size]!) * 100);
}

/** Whether a scrolled view is at its live end (within `slack` pixels of the bottom). */
export function atLiveEdge(
  view: { scrollTop: number; clientHeight: number; scrollHeight: number },
  slack = 48,
): boolean {
  return view.scrollHeight - view.scrollTop - view.clientHeight <= slack;
}
