import { describe, expect, it } from '@jest/globals';
import { checkFeedUrl, isPublicAddress } from '../src/adapters/fetch-feed.js';
import { formatWall } from '../src/domain/dates.js';
import { parseFrabJson, parseFrabXml } from '../src/domain/import/frab.js';
import { parseIcal } from '../src/domain/import/ical.js';
import { defaultParseOptions, ImportFileError } from '../src/domain/import/model.js';
import { planImport } from '../src/domain/import/plan.js';
import { churchFeed, frabJson, frabXml, ics, smallConference } from './import-fixtures.js';

const options = defaultParseOptions('UTC', new Date('2027-01-01T00:00:00Z'));
const byKey = <T extends { key: string }>(list: T[]) => Object.fromEntries(list.map((e) => [e.key, e]));

describe('iCalendar', () => {
  it('reads TZID wall times, LOCATION, URL, escaped text and the highest SEQUENCE of a UID', () => {
    const events = byKey(parseIcal(churchFeed(2), options).events);
    const opening = events['opening@fixture']!;
    expect(formatWall(opening.start)).toBe('2027-01-11 11:00:00');
    expect(opening.timezone).toBe('Europe/Brussels');
    expect(opening.title).toBe('Opening (moved)');
    expect(opening.sequence).toBe(1);
    const first = byKey(parseIcal(churchFeed(1), options).events)['opening@fixture']!;
    expect(first.description).toBe('Welcome, everyone.\nSecond line.');
    expect(first.venue).toBe('Room A');
    expect(first.website).toBe('https://example.org/opening');
  });

  it('expands RRULE on the wall clock across the DST change, minus EXDATE', () => {
    const events = parseIcal(churchFeed(1), options).events.filter((e) => e.key.startsWith('service@'));
    expect(events.map((e) => e.key)).toEqual([
      'service@fixture#20270314T090000',
      'service@fixture#20270328T090000',
      'service@fixture#20270404T090000',
    ]);
    expect(events.map((e) => `${formatWall(e.start)}-${formatWall(e.end).slice(11)}`)).toEqual([
      '2027-03-14 09:00:00-10:30:00',
      '2027-03-28 09:00:00-10:30:00',
      '2027-04-04 09:00:00-10:30:00',
    ]);
  });

  it('bounds a rule without end to the horizon', () => {
    const feed = ics([
      'BEGIN:VCALENDAR',
      'BEGIN:VEVENT',
      'UID:daily',
      'DTSTART:20200101T080000Z',
      'DTEND:20200101T090000Z',
      'RRULE:FREQ=DAILY',
      'SUMMARY:Daily',
      'END:VEVENT',
      'END:VCALENDAR',
    ]);
    const events = parseIcal(feed, { ...options, pastDays: 1, horizonDays: 10 }).events;
    expect(events).toHaveLength(11);
    expect(formatWall(events[0]!.start)).toBe('2026-12-31 08:00:00');
  });

  it('reads STATUS:CANCELLED, all-day dates, UTC times in the calendar zone', () => {
    const events = byKey(parseIcal(churchFeed(1), options).events);
    expect(events['dead@fixture']).toMatchObject({ cancelled: true, allDay: true });
    expect(formatWall(events['dead@fixture']!.end)).toBe('2027-01-15 23:59:59');
    expect(events['vanishing@fixture']).toMatchObject({ timezone: 'UTC' });
    expect(formatWall(events['vanishing@fixture']!.start)).toBe('2027-01-13 12:00:00');
  });

  it('names the line of what it cannot read', () => {
    const broken = churchFeed(1).replace('SUMMARY:Late talk', 'SUMMARY Late talk');
    const line = broken.split('\r\n').indexOf('SUMMARY Late talk') + 1;
    expect(() => parseIcal(broken, options)).toThrow(new RegExp(`^line ${line}: `));
    const noStart = ics([
      'BEGIN:VCALENDAR',
      'BEGIN:VEVENT',
      'UID:x',
      'SUMMARY:x',
      'END:VEVENT',
      'END:VCALENDAR',
    ]);
    expect(() => parseIcal(noStart, options)).toThrow('line 2: VEVENT without DTSTART');
    const badDate = ics([
      'BEGIN:VCALENDAR',
      'BEGIN:VEVENT',
      'UID:x',
      'DTSTART:tomorrow',
      'END:VEVENT',
      'END:VCALENDAR',
    ]);
    expect(() => parseIcal(badDate, options)).toThrow(/^line 4: DTSTART/);
    expect(() => parseIcal('hello', options)).toThrow(ImportFileError);
  });
});

describe('frab schedules', () => {
  it('reads the JSON and the XML export alike: rooms, guids, the conference zone', () => {
    const json = parseFrabJson(frabJson(smallConference('fix')), options);
    const xml = parseFrabXml(frabXml(smallConference('fix')), options);
    expect(json.name).toBe('fix');
    expect(xml.events).toEqual(json.events);
    expect(json.events).toHaveLength(8);
    expect(json.events[0]).toMatchObject({
      key: 'fix-talk-1',
      title: 'Talk 1: Janson & friends',
      excerpt: 'Subtitle 1',
      description: 'Speakers: Speaker 1\n\nAbstract of talk 1.',
      timezone: 'Europe/Brussels',
      venue: 'Janson',
      website: 'https://example.org/fix/talk/1',
    });
    expect(formatWall(json.events[1]!.start)).toBe('2027-02-06 09:30:00');
    expect(formatWall(json.events[1]!.end)).toBe('2027-02-06 09:55:00');
  });

  it('names the JSON member or the XML element that is wrong', () => {
    const json = JSON.parse(frabJson(smallConference('fix')));
    delete json.schedule.conference.days[0].rooms['K.1.105'][1].start;
    expect(() => parseFrabJson(JSON.stringify(json), options)).toThrow(
      'schedule.conference.days[0].rooms["K.1.105"][1].start: is missing',
    );
    const xml = frabXml(smallConference('fix')).replace('<title>Talk 3: K.1.105 &amp; friends</title>', '');
    expect(() => parseFrabXml(xml, options)).toThrow('schedule/day[1]/room[2]/event[1]/title: is missing');
    expect(() => parseFrabXml('<schedule>\n<day>\n</schedule>', options)).toThrow(/^line 3: /);
    expect(() => parseFrabJson('{"schedule": ', options)).toThrow(/^\$: is not JSON/);
    const bomb = '<?xml version="1.0"?>\n<!DOCTYPE s [<!ENTITY a "aaaa">]>\n<schedule>&a;</schedule>';
    expect(() => parseFrabXml(bomb, options)).toThrow('line 2: a DOCTYPE declaration is not accepted');
  });
});

describe('import plan', () => {
  it('creates, updates, cancels what vanished (not the past), skips cancelled news', () => {
    const events = parseIcal(churchFeed(1), options).events;
    const plan = planImport(events, [], new Date('2026-12-01T00:00:00Z'));
    expect(plan.filter((p) => p.action === 'create')).toHaveLength(6);
    expect(plan.find((p) => p.key === 'dead@fixture')).toMatchObject({ action: 'skip' });
  });
});

describe('feed addresses', () => {
  it('refuses private, loopback and link-local addresses, allows public ones', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.1.1',
      '172.20.0.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '100.64.0.1',
    ]) {
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
    }
    for (const ip of ['93.184.216.34', '2606:4700::1111']) expect(isPublicAddress(ip)).toBe(true);
  });

  it('applies the outputs rule: listed host:port may be http and private; others https and public', () => {
    const listed = new Set(['127.0.0.1:8099']);
    expect(checkFeedUrl('http://127.0.0.1:8099/feed.ics', listed).listed).toBe(true);
    expect(() => checkFeedUrl('http://127.0.0.1:8098/feed.ics', listed)).toThrow('must use https');
    expect(() => checkFeedUrl('https://10.0.0.1/feed.ics', listed)).toThrow('not public');
    expect(() => checkFeedUrl('https://user:pw@example.org/feed.ics', listed)).toThrow('userinfo');
    expect(() => checkFeedUrl('ftp://example.org/feed.ics', listed)).toThrow();
    expect(checkFeedUrl('https://example.org/feed.ics', listed).listed).toBe(false);
  });
});
