import { formatWall } from '../dates.js';
import type { ImportedEvent } from './model.js';

/** An event stored by an earlier import of the same source, as the plan compares it. */
export interface StoredImport {
  id: number;
  key: string;
  sequence: number;
  status: string;
  cancelled: boolean;
  title: string;
  description: string;
  excerpt: string;
  start_local: string;
  end_local: string;
  timezone: string;
  all_day: boolean;
  venue: string | null;
  website: string | null;
  start_utc: Date;
}

export type EventAction = 'create' | 'update' | 'cancel' | 'unchanged' | 'skip';

export interface PlannedEvent {
  action: EventAction;
  key: string;
  title: string;
  start_date: string;
  timezone: string;
  /** The stored event (update, cancel, unchanged). */
  id?: number;
  /** Fields an update changes. */
  changes?: string[];
  /** Why nothing is done (skip, or unchanged for a reason other than equality). */
  reason?: string;
  /** What the feed says (every action but a cancel by absence). */
  event?: ImportedEvent;
}

/** The columns an import owns, compared field by field. */
const compared = (e: ImportedEvent) => ({
  title: e.title,
  description: e.description,
  excerpt: e.excerpt,
  start_date: formatWall(e.start),
  end_date: formatWall(e.end),
  timezone: e.timezone,
  all_day: e.allDay,
  venue: (e.venue ?? '').toLowerCase(),
  website: e.website ?? '',
  cancelled: e.cancelled,
});

const storedFields = (s: StoredImport): ReturnType<typeof compared> => ({
  title: s.title,
  description: s.description,
  excerpt: s.excerpt,
  start_date: s.start_local,
  end_date: s.end_local,
  timezone: s.timezone,
  all_day: s.all_day,
  venue: (s.venue ?? '').toLowerCase(),
  website: s.website ?? '',
  cancelled: s.cancelled,
});

/**
 * What an import does, event by event: create what is new, update what changed, cancel what the
 * feed cancels or no longer lists (unless it started before `keepBefore`: past events, and
 * occurrences that left the recurrence window, are history), leave the rest. An event moved to
 * the trash here stays there; a revision older (lower SEQUENCE) than the stored one is ignored; a
 * new event the feed already cancels is not created.
 */
export function planImport(
  incoming: ImportedEvent[],
  stored: StoredImport[],
  keepBefore: Date,
): PlannedEvent[] {
  const byKey = new Map(stored.map((s) => [s.key, s]));
  const seen = new Set<string>();
  const out: PlannedEvent[] = [];
  for (const event of incoming) {
    seen.add(event.key);
    const planned = {
      key: event.key,
      title: event.title,
      start_date: formatWall(event.start),
      timezone: event.timezone,
    };
    const current = byKey.get(event.key);
    if (!current) {
      out.push(
        event.cancelled
          ? { ...planned, action: 'skip', reason: 'cancelled in the feed' }
          : { ...planned, action: 'create', event },
      );
      continue;
    }
    const kept = { ...planned, id: current.id, event };
    if (current.status === 'trash') {
      out.push({ ...kept, action: 'unchanged', reason: 'in the trash' });
      continue;
    }
    if (event.sequence < current.sequence) {
      out.push({ ...kept, action: 'unchanged', reason: `older revision (SEQUENCE ${event.sequence})` });
      continue;
    }
    const now = compared(event);
    const before = storedFields(current);
    const changes = (Object.keys(now) as (keyof typeof now)[]).filter((name) => now[name] !== before[name]);
    if (changes.length === 0) out.push({ ...kept, action: 'unchanged' });
    else
      out.push({
        ...kept,
        action: event.cancelled && !current.cancelled ? 'cancel' : 'update',
        changes,
        event,
      });
  }
  for (const current of stored) {
    if (seen.has(current.key) || current.cancelled || current.status === 'trash') continue;
    if (current.start_utc < keepBefore) continue;
    out.push({
      action: 'cancel',
      key: current.key,
      title: current.title,
      start_date: current.start_local,
      timezone: current.timezone,
      id: current.id,
      reason: 'no longer in the feed',
    });
  }
  return out;
}
