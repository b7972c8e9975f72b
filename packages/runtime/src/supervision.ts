/**
 * What the outputs and stream sources services' supervisors share: a check of what this replica
 * should run (`tick`), at start, every `tickMs` (a quarter of the lease time) and at once when
 * asked (`check`, after their API changed something), one at a time (`CheckLoop`). A check reads
 * the wanted work from the database first (`read`): while that fails nothing changes, and `dbOk`
 * says so to the health answer. What runs, and under which leases, is each service's own.
 */
import { CheckLoop } from './check-loop.js';
import type { Logger } from './logger.js';
import { reloadOnHangup } from './service.js';

export abstract class Supervision {
  /** False while the database cannot be read (health). */
  dbOk = true;
  private readonly loop: CheckLoop;

  constructor(tickMs: number) {
    this.loop = new CheckLoop(() => this.tick(), tickMs);
  }

  start(): void {
    this.loop.start();
  }

  /** Runs a check now; resolves when it is done. */
  check(): Promise<void> {
    return this.loop.run();
  }

  /** No check starts after this; once the one running has ended, everything running is stopped. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.stopAll();
  }

  /** One check: the wanted work read, then started, kept or stopped. */
  protected abstract tick(): Promise<void>;

  /** Stops everything this replica runs (releasing its leases). */
  protected abstract stopAll(): Promise<void>;

  /** The database's answer to `query`, or undefined (and `dbOk` false) while it cannot answer. */
  protected async read<T>(query: () => Promise<T>): Promise<T | undefined> {
    try {
      const answer = await query();
      this.dbOk = true;
      return answer;
    } catch {
      this.dbOk = false;
      return undefined;
    }
  }
}

/** The relay rooms a service follows (`RoomsWatch.follow` of @live-captions/relay-client). */
export interface FollowedRooms {
  rooms(): ReadonlyMap<string, unknown>;
  onChange(callback: () => void): void;
  /** Reads the relay's file again; throws on an invalid one. */
  reloadFile(): void;
}

/**
 * A service that joins the relay's rooms by itself (outputs, stream sources) checks them at once
 * (`check`, its supervisor's) when they change: a room added starts its work, a room removed
 * stops it, a room's new token restarts it; and on SIGHUP, once the relay's file is read again
 * (an invalid file keeps the running rooms, and the log says why).
 */
export function superviseRooms(logger: Logger, rooms: FollowedRooms, check: () => Promise<void>): void {
  rooms.onChange(() => void check());
  reloadOnHangup(logger, 'rooms', () => {
    rooms.reloadFile();
    void check();
    return { rooms: rooms.rooms().size };
  });
}
