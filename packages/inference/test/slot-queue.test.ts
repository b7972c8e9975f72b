import { SlotQueue } from '../src/engine/slot-queue.js';

const timeout = () => new Error('queue timeout');
const later = (ms: number) => Date.now() + ms;

describe('SlotQueue', () => {
  it('hands free slots out at once, then serves waiters in arrival order', async () => {
    const queue = new SlotQueue(['a'], timeout);
    const first = await queue.acquire(later(1000));
    const order: number[] = [];
    const waiting = [1, 2, 3].map((n) =>
      queue.acquire(later(1000)).then((slot) => {
        order.push(n);
        return slot;
      }),
    );
    expect([queue.busy, queue.pending]).toEqual([1, 3]);
    queue.release(first);
    queue.release(await waiting[0]!);
    queue.release(await waiting[1]!);
    await waiting[2];
    expect(order).toEqual([1, 2, 3]);
    expect([queue.busy, queue.pending]).toEqual([1, 0]);
  });

  it('never gives a released slot to a newcomer while others wait', async () => {
    const queue = new SlotQueue(['a', 'b'], timeout);
    const [a] = await Promise.all([queue.acquire(later(1000)), queue.acquire(later(1000))]);
    const waiter = queue.acquire(later(1000));
    queue.release(a!);
    expect(await waiter).toBe('a');
    expect(queue.busy).toBe(2);
  });

  it('refuses a waiter whose start deadline passes, and one already past it', async () => {
    const queue = new SlotQueue(['a'], timeout);
    await queue.acquire(later(1000));
    await expect(queue.acquire(later(20))).rejects.toThrow('queue timeout');
    expect(queue.pending).toBe(0);
    await expect(queue.acquire(Date.now() - 1)).rejects.toThrow('queue timeout');
  });

  it('refuses waiters and later acquires once closed; released slots still return', async () => {
    const queue = new SlotQueue(['a'], timeout);
    const slot = await queue.acquire(later(1000));
    const waiter = queue.acquire(later(1000));
    queue.close(new Error('closing'));
    await expect(waiter).rejects.toThrow('closing');
    await expect(queue.acquire(later(1000))).rejects.toThrow('closing');
    queue.release(slot);
    expect(queue.busy).toBe(0);
  });

  it('hands slots round robin across groups, first come first served within one', async () => {
    const queue = new SlotQueue(['a'], timeout);
    const held = await queue.acquire(later(1000), 'busy-room');
    const order: string[] = [];
    const wait = (group: string, name: string) =>
      queue.acquire(later(1000), group).then((slot) => {
        order.push(name);
        return slot;
      });
    // One room floods the line first; two rooms come after it with one window each.
    const flood = [1, 2, 3, 4].map((n) => wait('busy-room', `busy ${n}`));
    const quiet = [wait('room-b', 'b 1'), wait('room-c', 'c 1'), wait('room-b', 'b 2')];
    expect(queue.pending).toBe(7);
    let slot = held;
    for (const next of [flood[0], quiet[0], quiet[1], flood[1], quiet[2], flood[2], flood[3]]) {
      queue.release(slot);
      slot = await next!;
    }
    expect(order).toEqual(['busy 1', 'b 1', 'c 1', 'busy 2', 'b 2', 'busy 3', 'busy 4']);
    expect(queue.pending).toBe(0);
  });

  it('takes a timed-out waiter out of its group and its group out of the turns', async () => {
    const queue = new SlotQueue(['a'], timeout);
    const held = await queue.acquire(later(1000), 'x');
    const gone = queue.acquire(later(20), 'late');
    const kept = queue.acquire(later(1000), 'y');
    await expect(gone).rejects.toThrow('queue timeout');
    expect(queue.pending).toBe(1);
    queue.release(held);
    expect(await kept).toBe('a');
    queue.release('a');
    expect([queue.busy, queue.pending]).toEqual([0, 0]);
  });
});
