/**
 * What the supervisors share: a check whose database read fails changes nothing and says so
 * (`dbOk`), the next read that answers says so again, and stop waits for the running check
 * before stopping everything.
 */
import { describe, expect, test } from '@jest/globals';
import { Supervision } from '../src/index.js';

class Probe extends Supervision {
  events: string[] = [];
  fail = false;

  protected async tick(): Promise<void> {
    const work = await this.read(async () => {
      if (this.fail) throw new Error('database down');
      return 'work';
    });
    this.events.push(work ? `ran ${work}` : 'skipped');
  }

  protected async stopAll(): Promise<void> {
    this.events.push('stopped all');
  }
}

describe('Supervision', () => {
  test('a failed read skips the check and clears dbOk until a read answers again', async () => {
    const probe = new Probe(60_000);
    await probe.check();
    expect(probe.dbOk).toBe(true);
    probe.fail = true;
    await probe.check();
    expect(probe.dbOk).toBe(false);
    probe.fail = false;
    await probe.check();
    expect(probe.dbOk).toBe(true);
    expect(probe.events).toEqual(['ran work', 'skipped', 'ran work']);
  });

  test('stop lets the running check end, then stops everything; no check after it', async () => {
    const probe = new Probe(60_000);
    probe.start();
    await probe.check();
    await probe.stop();
    await probe.check();
    expect(probe.events).toEqual(['ran work', 'ran work', 'stopped all']);
  });
});
