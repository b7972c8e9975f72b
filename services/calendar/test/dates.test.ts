import { describe, expect, it } from '@jest/globals';
import { parseDate } from '../src/domain/date-parse.js';
import { formatInstant, formatWall, fromWall, toWall, type WallTime } from '../src/domain/dates.js';
import { dateBounds } from '../src/domain/listing.js';

const now = new Date('2030-06-15T12:00:00Z'); // a Saturday
const fmt = (d: Date | undefined) => (d ? formatInstant(d, 'UTC') : undefined);

describe('parseDate', () => {
  it('reads relative English through chrono, in the site timezone', () => {
    expect(parseDate('tomorrow 9am', 'UTC', now)).toEqual({
      kind: 'wall',
      wall: { year: 2030, month: 6, day: 16, hour: 9, minute: 0, second: 0 },
    });
    expect(parseDate('+5 days 11am', 'UTC', now)).toMatchObject({ wall: { day: 20, hour: 11 } });
    expect(parseDate('next wednesday 4pm', 'UTC', now)).toMatchObject({
      wall: { month: 6, day: 19, hour: 16 },
    });
  });

  it('reads unix timestamps, plain dates and ISO 8601 with offsets', () => {
    expect(parseDate('1900000000', 'UTC', now)).toEqual({
      kind: 'instant',
      instant: new Date(1_900_000_000_000),
    });
    expect(parseDate('2030-01-02', 'UTC', now)).toMatchObject({
      wall: { year: 2030, month: 1, day: 2, hour: 0 },
    });
    expect(parseDate('2030-01-02 13:45', 'UTC', now)).toMatchObject({
      wall: { hour: 13, minute: 45, second: 0 },
    });
    const iso = parseDate('2030-01-02T10:00:00+02:00', 'UTC', now);
    expect(iso).toEqual({ kind: 'instant', instant: new Date('2030-01-02T08:00:00Z') });
  });

  it('refuses text that is not a date', () => {
    expect(parseDate('not a date', 'UTC', now)).toBeUndefined();
    expect(parseDate('2030-02-31', 'UTC', now)).toBeUndefined();
    expect(parseDate('', 'UTC', now)).toBeUndefined();
  });

  it('converts wall time across DST with the zone rules', () => {
    const summer = fromWall({ year: 2030, month: 7, day: 1, hour: 12, minute: 0, second: 0 }, 'Europe/Paris');
    const winter = fromWall({ year: 2030, month: 1, day: 1, hour: 12, minute: 0, second: 0 }, 'Europe/Paris');
    expect(summer.toISOString()).toBe('2030-07-01T10:00:00.000Z');
    expect(winter.toISOString()).toBe('2030-01-01T11:00:00.000Z');
    expect(toWall(summer, 'America/New_York').hour).toBe(6);
  });
});

describe('parseDate: what strtotime refuses or reads differently', () => {
  it('refuses impossible dates instead of swapping day and month', () => {
    for (const text of [
      '2030-13-01',
      '2031-13-03',
      '2030/13/01',
      '13/01/2030',
      '2030-01-32',
      '2030-02-30',
      '2030-13-01 10:00',
      '2030-01-01 25:00',
      '2030-01-01 23:60',
    ]) {
      expect([text, parseDate(text, 'UTC', now)]).toEqual([text, undefined]);
    }
    expect(parseDate('01/13/2030', 'UTC', now)).toMatchObject({ wall: { month: 1, day: 13 } });
  });

  it('refuses dates outside years 1000-9999, in UTC or in the zone', () => {
    for (const text of ['99999999999999', '-99999999999', '0999-12-31', '10000-01-01', '+8000 years']) {
      expect([text, parseDate(text, 'UTC', now)]).toEqual([text, undefined]);
    }
    expect(parseDate('9999-12-31 23:59:59', 'America/New_York', now)).toBeUndefined();
    expect(parseDate('1000-01-01', 'Asia/Tokyo', now)).toBeUndefined();
    expect(parseDate('253402300799', 'UTC', now)).toEqual({
      kind: 'instant',
      instant: new Date('9999-12-31T23:59:59Z'),
    });
    expect(parseDate('1000-01-01', 'UTC', now)).toMatchObject({ wall: { year: 1000 } });
  });

  const at = new Date('2030-06-15T12:34:56Z'); // 14:34:56 in Paris
  const wallAt = (text: string, timeZone = 'UTC') => {
    const parsed = parseDate(text, timeZone, at);
    return parsed?.kind === 'wall' ? formatWall(parsed.wall) : parsed;
  };

  it('keeps the time of day of now for day, week and month shifts', () => {
    expect(wallAt('+5 days')).toBe('2030-06-20 12:34:56');
    expect(wallAt('10 days ago')).toBe('2030-06-05 12:34:56');
    expect(wallAt('+1 week', 'Europe/Paris')).toBe('2030-06-22 14:34:56');
    expect(wallAt('next month', 'Europe/Paris')).toBe('2030-07-15 14:34:56');
    expect(wallAt('+5 days 11am')).toBe('2030-06-20 11:00:00');
  });

  it('reads today, tomorrow, yesterday, weekdays and midnight as 00:00', () => {
    expect(wallAt('today')).toBe('2030-06-15 00:00:00');
    expect(wallAt('tomorrow')).toBe('2030-06-16 00:00:00');
    expect(wallAt('yesterday')).toBe('2030-06-14 00:00:00');
    expect(wallAt('next wednesday')).toBe('2030-06-19 00:00:00');
    expect(wallAt('midnight', 'Europe/Paris')).toBe('2030-06-15 00:00:00');
    expect(wallAt('tomorrow midnight')).toBe('2030-06-16 00:00:00');
    expect(wallAt('+5 days midnight')).toBe('2030-06-20 00:00:00');
    expect(wallAt('tomorrow 9am')).toBe('2030-06-16 09:00:00');
  });

  it('reads hours and minutes from now as elapsed time, whatever the zone', () => {
    expect(parseDate('2 hours ago', 'Europe/Paris', at)).toEqual({
      kind: 'instant',
      instant: new Date('2030-06-15T10:34:56Z'),
    });
    expect(parseDate('+1 hour', 'America/New_York', at)).toEqual({
      kind: 'instant',
      instant: new Date('2030-06-15T13:34:56Z'),
    });
    expect(parseDate('now', 'Europe/Paris', at)).toEqual({ kind: 'instant', instant: at });
  });
});

const wall = (text: string): WallTime => {
  const [date = '', time = ''] = text.split(' ');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute] = time.split(':').map(Number);
  return { year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: 0 };
};

describe('DST transitions, resolved as PHP DateTime does', () => {
  it('moves a wall time in the spring gap forward by the gap, wall time and instant agreeing', () => {
    expect(fromWall(wall('2030-03-31 02:30'), 'Europe/Paris').toISOString()).toBe('2030-03-31T01:30:00.000Z');
    expect(fromWall(wall('2030-03-10 02:30'), 'America/New_York').toISOString()).toBe(
      '2030-03-10T07:30:00.000Z',
    );
    const parsed = parseDate('2030-03-31 02:30', 'Europe/Paris', now);
    expect(parsed).toEqual({ kind: 'wall', wall: wall('2030-03-31 03:30') });
    if (parsed?.kind !== 'wall') throw new Error('expected a wall time');
    expect(formatInstant(fromWall(parsed.wall, 'Europe/Paris'), 'Europe/Paris')).toBe('2030-03-31 03:30:00');
  });

  it('picks the earlier (summer time) instant of a wall time in the autumn overlap', () => {
    expect(fromWall(wall('2030-10-27 02:30'), 'Europe/Paris').toISOString()).toBe('2030-10-27T00:30:00.000Z');
    expect(fromWall(wall('2030-11-03 01:30'), 'America/New_York').toISOString()).toBe(
      '2030-11-03T05:30:00.000Z',
    );
    expect(fromWall(wall('2030-04-07 02:30'), 'Australia/Sydney').toISOString()).toBe(
      '2030-04-06T15:30:00.000Z',
    );
  });

  it('reads wall clocks before 1970 to the second', () => {
    expect(toWall(new Date(-1500), 'Europe/Paris')).toEqual({ ...wall('1970-01-01 00:59'), second: 58 });
  });
});

describe('dateBounds', () => {
  const base = { strict_dates: false };

  // Issue 44: TEC's defaults are its arguments' ('yesterday 23:59', '+24 months'), widened to
  // whole days like given dates (Archive_Event::get); the end used to be now + 24 months.
  it('defaults to yesterday 00:00 until the end of the day 24 months ahead (site time)', () => {
    const bounds = dateBounds(base, 'UTC', now);
    expect(fmt(bounds.startFrom)).toBe('2030-06-14 00:00:00');
    expect(fmt(bounds.endUntil)).toBe('2032-06-15 23:59:59');
    const strict = dateBounds({ strict_dates: true }, 'UTC', now);
    expect(fmt(strict.startFrom)).toBe('2030-06-14 23:59:00');
    expect(fmt(strict.endUntil)).toBe('2032-06-15 12:00:00');
  });

  it('computes the default window in the site timezone', () => {
    const bounds = dateBounds(base, 'America/New_York', now);
    expect(formatInstant(bounds.startFrom!, 'America/New_York')).toBe('2030-06-14 00:00:00');
  });

  it('widens to whole days unless strict_dates', () => {
    const loose = dateBounds(
      { ...base, start_date: '2030-07-01 15:00', end_date: '2030-07-02 09:00' },
      'UTC',
      now,
    );
    expect(fmt(loose.startFrom)).toBe('2030-07-01 00:00:00');
    expect(fmt(loose.endUntil)).toBe('2030-07-02 23:59:59');
    const strict = dateBounds(
      { strict_dates: true, start_date: '2030-07-01 15:00', end_date: '2030-07-02 09:00' },
      'UTC',
      now,
    );
    expect(fmt(strict.startFrom)).toBe('2030-07-01 15:00:00');
    expect(fmt(strict.endUntil)).toBe('2030-07-02 09:00:00');
  });

  it('drops the default window when a starts_/ends_ bound is given', () => {
    const bounds = dateBounds({ ...base, starts_after: '2030-01-01' }, 'UTC', now);
    expect(bounds.startFrom).toBeUndefined();
    expect(bounds.endUntil).toBeUndefined();
    expect(fmt(bounds.startsAfter)).toBe('2030-01-01 23:59:59');
    const kept = dateBounds({ ...base, ends_before: '2031-01-01', start_date: '2029-01-01' }, 'UTC', now);
    expect(fmt(kept.startFrom)).toBe('2029-01-01 00:00:00');
    expect(kept.endUntil).toBeUndefined();
  });

  it('answers 400 naming the parameter for an unparseable date', () => {
    expect(() => dateBounds({ ...base, start_date: 'someday maybe' }, 'UTC', now)).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'rest_invalid_param',
        extra: expect.objectContaining({
          params: expect.objectContaining({ start_date: expect.any(String) }),
        }),
      }),
    );
  });
});
