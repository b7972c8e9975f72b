import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { churchFeed } from './import-fixtures.js';

/** A clock the tests move: "fifteen minutes later" without waiting for them. */
export class TestClock {
  private at: number;
  constructor(start: string) {
    this.at = Date.parse(start);
  }
  readonly now = () => new Date(this.at);
  date = () => new Date(this.at);
  /** The ISO time now, or `minutes` from now. */
  iso = (minutes = 0) => new Date(this.at + minutes * 60_000).toISOString();
  advance(minutes: number) {
    this.at += minutes * 60_000;
  }
}

/** A feed on loopback: serves `content` (or answers `status`), counting the requests. */
export interface FeedServer {
  content: string;
  status: number;
  hits: number;
  origin: string;
  /** `127.0.0.1:port`, for the allowed hosts. */
  host: string;
  close(): Promise<void>;
}

export async function feedServer(content: string): Promise<FeedServer> {
  const state = { content, status: 200, hits: 0 };
  const server = createServer((req, res) => {
    state.hits++;
    if (req.url === '/404') {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.statusCode = state.status;
    res.setHeader('content-type', 'text/calendar');
    res.end(state.status === 200 ? state.content : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    origin: `http://${host}`,
    host,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

/**
 * Revision 2 of the church feed (the opening moved, one talk cancelled, one gone) with a talk
 * that is new; `opening` retitles the moved opening (the same SEQUENCE: an update still).
 */
export function movedCancelledNew(opening = 'Opening (moved)'): string {
  const added = [
    'BEGIN:VEVENT',
    'UID:new@fixture',
    'DTSTART;TZID=Europe/Brussels:20270116T100000',
    'DTEND;TZID=Europe/Brussels:20270116T110000',
    'SUMMARY:New talk',
    'LOCATION:Room A',
    'END:VEVENT',
  ].join('\r\n');
  return churchFeed(2)
    .replace('SUMMARY:Opening (moved)', `SUMMARY:${opening}`)
    .replace('END:VCALENDAR', `${added}\r\nEND:VCALENDAR`);
}
