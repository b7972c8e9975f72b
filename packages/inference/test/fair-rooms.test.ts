/**
 * Decode slots at a conference: one room's flood of windows never holds another room's window
 * back behind all of it (the real engine on a synthetic model, one slot).
 */
import { createInProcessQueue, type InferenceQueue } from '../src/index.js';
import { engineConfig, later, request, seconds } from './fixtures.js';

describe('in-process queue, fair across caption rooms', () => {
  let queue: InferenceQueue;

  beforeAll(async () => {
    queue = createInProcessQueue({ engine: engineConfig({ decodeSlots: 1, threadsPerSlot: 1 }) });
    await queue.start();
  });
  afterAll(() => queue.close());

  it("decodes a quiet room's window after at most one more of a busy room's, not after its whole backlog", async () => {
    const order: string[] = [];
    const submit = (room: string, stream: string) =>
      queue
        .submit(request({ room, streamId: stream }), seconds(2), { startDeadline: later(60_000) })
        .then(() => order.push(`${room}/${stream}`));
    // Room A: five streams (a capture page, sources, a resend) all waiting; then room B's one window.
    const busy = ['a1', 'a2', 'a3', 'a4', 'a5'].map((stream) => submit('hall-a', stream));
    const quiet = submit('hall-b', 'b1');
    await Promise.all([...busy, quiet]);
    // a1 held the slot and hall-a's turn came before hall-b had one: one more A window, then B's,
    // ahead of the three A windows that were waiting before it (one FIFO line puts it last).
    expect(order).toEqual(['hall-a/a1', 'hall-a/a2', 'hall-b/b1', 'hall-a/a3', 'hall-a/a4', 'hall-a/a5']);
  }, 60_000);

  it('keeps one FIFO line for streams that name no room, each its own group', async () => {
    const order: string[] = [];
    const submit = (stream: string) =>
      queue
        .submit(request({ streamId: stream }), seconds(2), { startDeadline: later(60_000) })
        .then(() => order.push(stream));
    await Promise.all(['s1', 's2', 's3'].map(submit));
    expect(order).toEqual(['s1', 's2', 's3']);
  }, 60_000);
});
