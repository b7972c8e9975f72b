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
});
