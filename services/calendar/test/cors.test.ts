/**
 * The API's reads answer any origin (CORS), as WordPress's REST API does: the UI's pages under
 * `pnpm start` (another port) and a conference's own site read the venues and the talks. Only
 * reads: a cross-origin write, which needs a preflight for its token, is not granted one.
 */
import { describe, expect, it } from '@jest/globals';
import { ROOT, useTestApi } from './helpers.js';

const api = useTestApi({ cacheTtlMs: 60_000 });
const ORIGIN = 'http://localhost:8081';

describe('CORS on the public reads', () => {
  it('lists, single records and errors are readable from any origin, with the paging headers', async () => {
    const venue = await api.by('editor').post('venues', { venue: 'Janson' }).expect(201);
    for (const path of ['venues?per_page=50', `venues/${venue.body.id}`, 'events', 'events/999999']) {
      // Twice: the second answer comes from the response cache and must say the same.
      for (let round = 0; round < 2; round += 1) {
        const res = await api.request.get(`${ROOT}/${path}`).set('Origin', ORIGIN);
        expect([path, res.headers['access-control-allow-origin']]).toEqual([path, '*']);
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      }
    }
    const list = await api.request.get(`${ROOT}/venues`).set('Origin', ORIGIN).expect(200);
    expect(list.headers['access-control-expose-headers']).toContain('X-WP-TotalPages');
    expect(list.headers['x-wp-totalpages']).toBe('1');
  });

  it('grants no preflight: a write with a token stays with same-origin and server clients', async () => {
    const preflight = await api.request
      .options(`${ROOT}/events`)
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
    const write = await api.by('editor').post('venues', { venue: 'K.1.105' }).set('Origin', ORIGIN);
    expect(write.status).toBe(201);
    expect(write.headers['access-control-allow-origin']).toBeUndefined();
  });
});
