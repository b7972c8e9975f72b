import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';
import { isTimezone, toWall, type WallTime, wallAsUtc } from '../dates.js';
import { type ImportedEvent, type ImportedSchedule, ImportFileError, type ParseOptions } from './model.js';

/*
 * The schedule export of frab, pretalx and pentabarf (the C3VOC "schedule" format): rooms hold
 * events per day; the event `guid` is stable across exports (pentabarf's numeric `id` stands in
 * where there is no guid). Both the JSON and the XML are checked against one zod schema of an
 * event, so their errors name the member or element that is wrong.
 */

const clock = /^(\d{1,3}):([0-5]\d)(?::([0-5]\d))?$/;
const optionalText = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((value) => (value == null ? '' : String(value)));

const person = z.union([
  z.string(),
  z.object({
    public_name: z.string().optional(),
    name: z.string().optional(),
    '#text': z.string().optional(),
  }),
]);

const frabEvent = z
  .object({
    guid: z.string().min(1).optional(),
    id: z.union([z.string().min(1), z.number()]).optional(),
    date: z.string().optional(),
    start: z.string().regex(clock, 'must be HH:MM'),
    duration: z.string().regex(clock, 'must be HH:MM'),
    room: z.string().optional(),
    title: z.string(),
    subtitle: optionalText,
    abstract: optionalText,
    description: optionalText,
    url: optionalText,
    persons: z.array(person).nullish(),
  })
  .refine((event) => event.guid !== undefined || event.id !== undefined, {
    message: 'needs a guid (or an id)',
  });
type FrabEvent = z.infer<typeof frabEvent>;

const frabJson = z.object({
  schedule: z.object({
    conference: z.object({
      acronym: optionalText,
      time_zone_name: z.string().optional(),
      days: z.array(
        z.object({
          date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD'),
          rooms: z.record(z.string(), z.array(z.unknown())),
        }),
      ),
    }),
  }),
});

/** `["schedule","conference","days",0,"rooms","Janson",3,"start"]` -> `schedule.conference.days[0].rooms["Janson"][3].start` */
function jsonPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) =>
      typeof part === 'number'
        ? `[${part}]`
        : /^[A-Za-z_]\w*$/.test(String(part))
          ? `${i === 0 ? '' : '.'}${String(part)}`
          : `[${JSON.stringify(String(part))}]`,
    )
    .join('');
}

function check<T>(schema: z.ZodType<T>, value: unknown, pathOf: (path: readonly PropertyKey[]) => string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = pathOf(issue.path);
  const message =
    issue.code === 'invalid_type' && issue.input === undefined
      ? `is missing (${issue.expected})`
      : issue.message;
  throw new ImportFileError(message, { path });
}

function zoneOf(name: string | undefined, path: string, options: ParseOptions): string {
  if (name === undefined || name.trim() === '') return options.siteTimezone;
  if (!isTimezone(name.trim())) throw new ImportFileError('is not an IANA time zone', { path });
  return name.trim();
}

const seconds = (text: string) => {
  const [, h, m, s] = clock.exec(text)!;
  return Number(h) * 3600 + Number(m) * 60 + Number(s ?? 0);
};

/** One frab event, read in the conference's zone. `path` names it in errors. */
function toImported(
  event: FrabEvent,
  day: string,
  room: string,
  timezone: string,
  path: string,
): ImportedEvent {
  let start: WallTime;
  if (event.date) {
    const instant = new Date(event.date);
    if (Number.isNaN(instant.getTime()))
      throw new ImportFileError('is not an ISO date', { path: `${path}.date` });
    // The date carries its offset: the same moment on the conference's clock.
    start = /[zZ]|[+-]\d\d:?\d\d$/.test(event.date)
      ? toWall(instant, timezone)
      : toWall(new Date(`${event.date.slice(0, 19)}Z`), 'UTC');
  } else {
    const [, h, m] = clock.exec(event.start)!;
    const [year, month, dayOfMonth] = day.split('-').map(Number);
    start = { year: year!, month: month!, day: dayOfMonth!, hour: Number(h), minute: Number(m), second: 0 };
  }
  const end = toWall(new Date(wallAsUtc(start) + seconds(event.duration) * 1000), 'UTC');
  const speakers = (event.persons ?? [])
    .map((p) => (typeof p === 'string' ? p : (p.public_name ?? p.name ?? p['#text'] ?? '')))
    .filter((name) => name.trim() !== '');
  const description = [
    speakers.length > 0 ? `Speakers: ${speakers.join(', ')}` : '',
    event.abstract,
    event.description,
  ]
    .filter((part) => part.trim() !== '')
    .join('\n\n');
  return {
    key: event.guid ?? `id:${event.id}`,
    title: event.title.trim() || '(untitled)',
    description,
    excerpt: event.subtitle,
    start,
    end,
    timezone,
    allDay: false,
    venue: (event.room ?? room).trim() || undefined,
    website: event.url.trim() || undefined,
    cancelled: false,
    sequence: 0,
  };
}

/** A frab/pretalx `schedule.json`. Errors name the JSON member (`schedule.conference.days[0]...`). */
export function parseFrabJson(content: string, options: ParseOptions): ImportedSchedule {
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch (error) {
    throw new ImportFileError(`is not JSON: ${(error as Error).message}`, { path: '$' });
  }
  const schedule = check(frabJson, data, jsonPath).schedule.conference;
  const timezone = zoneOf(schedule.time_zone_name, 'schedule.conference.time_zone_name', options);
  const events: ImportedEvent[] = [];
  schedule.days.forEach((day, d) => {
    for (const [room, list] of Object.entries(day.rooms)) {
      list.forEach((raw, i) => {
        const at = ['schedule', 'conference', 'days', d, 'rooms', room, i];
        const event = check(frabEvent, raw, (path) => jsonPath([...at, ...path]));
        events.push(toImported(event, day.date, room, timezone, jsonPath(at)));
      });
    }
  });
  return { name: schedule.acronym || undefined, events };
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

type XmlNode = Record<string, unknown>;

/** A frab/pentabarf `schedule.xml`. Errors name the line (malformed XML) or the element path. */
export function parseFrabXml(content: string, options: ParseOptions): ImportedSchedule {
  // A schedule has no DOCTYPE; one could define entities that expand without bound.
  const doctype = /<!DOCTYPE/i.exec(content);
  if (doctype) {
    const line = content.slice(0, doctype.index).split('\n').length;
    throw new ImportFileError('a DOCTYPE declaration is not accepted', { line });
  }
  const valid = XMLValidator.validate(content);
  if (valid !== true) throw new ImportFileError(valid.err.msg, { line: valid.err.line });
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // The five XML entities and character references only (documents with a DOCTYPE are refused).
    processEntities: true,
    htmlEntities: false,
    isArray: (_name, jpath) =>
      [
        'schedule.day',
        'schedule.day.room',
        'schedule.day.room.event',
        'schedule.day.room.event.persons.person',
      ].includes(String(jpath)),
  });
  const root = (parser.parse(content) as XmlNode).schedule as XmlNode | undefined;
  if (!root || typeof root !== 'object') throw new ImportFileError('no <schedule> element', { path: '/' });
  const conference = (root.conference ?? {}) as XmlNode;
  const timezone = zoneOf(
    typeof conference.time_zone_name === 'string' ? conference.time_zone_name : undefined,
    'schedule/conference/time_zone_name',
    options,
  );
  const events: ImportedEvent[] = [];
  asArray(root.day as XmlNode[]).forEach((day, d) => {
    const dayPath = `schedule/day[${d + 1}]`;
    const date = String(day['@date'] ?? '');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      throw new ImportFileError('its date attribute must be YYYY-MM-DD', { path: dayPath });
    }
    asArray(day.room as XmlNode[]).forEach((room, r) => {
      const roomName = String(room['@name'] ?? '');
      const roomPath = `${dayPath}/room[${r + 1}]`;
      asArray(room.event as XmlNode[]).forEach((node, e) => {
        const path = `${roomPath}/event[${e + 1}]`;
        const persons = node.persons as XmlNode | undefined;
        const raw = {
          ...Object.fromEntries(Object.entries(node).filter(([k]) => !k.startsWith('@'))),
          guid: node['@guid'] ?? undefined,
          id: node['@id'] ?? undefined,
          persons: persons && typeof persons === 'object' ? asArray(persons.person as unknown[]) : undefined,
        };
        const event = check(frabEvent, raw, (p) => [path, ...p.map(String)].join('/'));
        events.push(toImported(event, date, roomName, timezone, path));
      });
    });
  });
  const acronym = conference.acronym;
  return { name: typeof acronym === 'string' && acronym !== '' ? acronym : undefined, events };
}
