/** `HH:MM:SS.mmm` (WebVTT) or `HH:MM:SS,mmm` (SRT) for milliseconds; hours grow past 99. */
export function clockOf(ms: number, separator: '.' | ','): string {
  const whole = Math.max(0, Math.round(ms));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor(whole / 60_000) % 60;
  const seconds = Math.floor(whole / 1000) % 60;
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${separator}${pad(whole % 1000, 3)}`;
}

/** Milliseconds of `HH:MM:SS.mmm`, `MM:SS.mmm` (WebVTT) or `HH:MM:SS,mmm` (SRT); undefined if malformed. */
export function msOf(clock: string): number | undefined {
  const match = /^(?:(\d{2,}):)?([0-5]\d):([0-5]\d)[.,](\d{3})$/.exec(clock);
  if (!match) return undefined;
  const [, hours = '0', minutes = '0', seconds = '0', millis = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(millis);
}
