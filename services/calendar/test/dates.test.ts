import { describe, expect, it } from '@jest/globals';
import { formatInstant, fromWall, parseDate, toWall } from '../src/domain/dates.js';
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

describe('dateBounds', () => {
  const base = { strict_dates: false };

  it('defaults to yesterday 00:00 until now + 24 months (site time)', () => {
    const bounds = dateBounds(base, 'UTC', now);
    expect(fmt(bounds.startFrom)).toBe('2030-06-14 00:00:00');
    expect(fmt(bounds.endUntil)).toBe('2032-06-15 12:00:00');
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
        extra: { params: expect.objectContaining({ start_date: expect.any(String) }) },
      }),
    );
  });
});
