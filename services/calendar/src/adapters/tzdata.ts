import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Time zone abbreviations from the tz database files (TZif, RFC 8536) of the system: `JST` for
 * Asia/Tokyo where Intl only knows `GMT+9`. PHP (and so The Events Calendar) prints the same
 * abbreviations from its bundled copy of that database.
 */

const ZONEINFO = '/usr/share/zoneinfo';

interface Zone {
  /** Transition instants (ms), ascending, and the local time type each one starts. */
  times: number[];
  types: number[];
  infos: { offsetMs: number; abbr: string }[];
  /** After the last transition: the POSIX TZ rule's standard and daylight names and offset. */
  rule?: { std: string; stdOffsetMs: number; dst?: string };
}

const zones = new Map<string, Zone | null>();

function parseRule(footer: string): Zone['rule'] {
  const match = /^(<[^>]+>|[A-Za-z]+)([+-]?\d+(?::\d+){0,2})(<[^>]+>|[A-Za-z]+)?/.exec(footer);
  if (!match) return undefined;
  const [h = '0', m = '0'] = match[2]!.replace(/^[+-]/, '').split(':');
  const sign = match[2]!.startsWith('-') ? 1 : -1; // POSIX offsets are west-positive
  return {
    std: match[1]!.replace(/[<>]/g, ''),
    stdOffsetMs: sign * (Number(h) * 60 + Number(m)) * 60_000,
    dst: match[3]?.replace(/[<>]/g, ''),
  };
}

/** Parses the 64-bit (version 2+) data block of a TZif file. */
function parseTzif(data: Buffer): Zone | null {
  if (data.toString('latin1', 0, 4) !== 'TZif' || data[4] === 0) return null;
  const counts = (at: number) => [0, 1, 2, 3, 4, 5].map((i) => data.readUInt32BE(at + 20 + i * 4));
  const [isut1, isstd1, leap1, time1, type1, char1] = counts(0) as [number, ...number[]];
  const v1Size = time1! * 5 + type1! * 6 + char1! + leap1! * 8 + isstd1! + isut1;
  const start = 44 + v1Size;
  const [isut, isstd, leap, timecnt, typecnt, charcnt] = counts(start) as number[];
  let at = start + 44;
  const times: number[] = [];
  for (let i = 0; i < timecnt!; i++) times.push(Number(data.readBigInt64BE(at + i * 8)) * 1000);
  at += timecnt! * 8;
  const types = [...data.subarray(at, at + timecnt!)];
  at += timecnt!;
  const raw: { offset: number; index: number }[] = [];
  for (let i = 0; i < typecnt!; i++) {
    raw.push({ offset: data.readInt32BE(at + i * 6), index: data[at + i * 6 + 5]! });
  }
  at += typecnt! * 6;
  const chars = data.toString('latin1', at, at + charcnt!);
  at += charcnt! + leap! * 12 + isstd! + isut!;
  const infos = raw.map(({ offset, index }) => ({
    offsetMs: offset * 1000,
    abbr: chars.slice(index, chars.indexOf('\0', index)),
  }));
  const footer = data.toString('latin1', at).split('\n')[1] ?? '';
  return { times, types, infos, rule: parseRule(footer) };
}

function zone(name: string): Zone | null {
  let found = zones.get(name);
  if (found === undefined) {
    try {
      // Only tz names reach here (validated), never a path of the caller's choosing.
      found = /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(name)
        ? parseTzif(readFileSync(join(ZONEINFO, name)))
        : null;
    } catch {
      found = null;
    }
    zones.set(name, found);
  }
  return found;
}

/**
 * The tz database's abbreviation of `timeZone` at `instant` when it is a name (`JST`, `CEST`);
 * undefined for numeric ones (`-03`) and zones the system does not have. `offsetMs` is the zone's
 * offset at that instant, to pick standard or daylight time past the last listed transition.
 */
export function tzAbbreviation(timeZone: string, instant: Date, offsetMs: number): string | undefined {
  const z = zone(timeZone);
  if (!z) return undefined;
  const ms = instant.getTime();
  let abbr: string | undefined;
  if (z.rule && (z.times.length === 0 || ms >= z.times.at(-1)!)) {
    abbr = offsetMs === z.rule.stdOffsetMs || !z.rule.dst ? z.rule.std : z.rule.dst;
  } else {
    let lo = 0;
    let hi = z.times.length - 1;
    let index = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (z.times[mid]! <= ms) {
        index = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    abbr = z.infos[index >= 0 ? z.types[index]! : 0]?.abbr;
  }
  return abbr && /^[A-Za-z]+$/.test(abbr) ? abbr : undefined;
}
