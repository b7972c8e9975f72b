/**
 * One access line per request with its correlation id (the client's X-Request-ID when it is a
 * plain id, else a fresh one), without the query string and never with the token.
 */
import { describe, expect, it } from '@jest/globals';
import { createLogger } from '@live-captions/runtime';
import { logCapture } from '@live-captions/test-services';
import { day, ROOT, tokens, useTestApi } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const logs = logCapture();
const api = useTestApi({ logger: createLogger('calendar', { level: 'debug' }, logs.stream) });

const accessLines = () => logs.matching(/^request( failed)?$/);

describe('calendar access lines', () => {
  it('logs a request once with its X-Request-ID, its path and status, never its token', async () => {
    await api.request
      .post(`${ROOT}/events`)
      .set({ ...api.as('admin'), 'X-Request-ID': 'calendar-write-0001' })
      .send({ title: 'Logged', start_date: day(1), end_date: day(1, '11:00:00') })
      .expect(201);
    await api.request
      .get(`${ROOT}/events?search=${tokens.editor}`)
      .set({ ...api.as('editor'), 'X-Request-ID': 'calendar-read-0001' })
      .expect(200);

    const write = accessLines().filter((line) => line.correlationId === 'calendar-write-0001');
    expect(write).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: `${ROOT}/events`,
        status: 201,
        ms: expect.any(Number),
      }),
    ]);
    const read = accessLines().filter((line) => line.correlationId === 'calendar-read-0001');
    expect(read).toEqual([expect.objectContaining({ method: 'GET', path: `${ROOT}/events`, status: 200 })]);
    for (const token of Object.values(tokens)) expect(logs.text()).not.toContain(token);
  });

  it('gives a request without a usable X-Request-ID a fresh id', async () => {
    const before = accessLines().length;
    await api.request.get(`${ROOT}/events/999999`).set('X-Request-ID', 'x').expect(404);
    await api.request.get(`${ROOT}/events/999998`).expect(404);
    const [short, none] = accessLines().slice(before);
    expect(short).toMatchObject({ path: `${ROOT}/events/999999`, status: 404 });
    expect(short!.correlationId).toMatch(UUID);
    expect(none!.correlationId).toMatch(UUID);
    expect(none!.correlationId).not.toBe(short!.correlationId);
  });
});
