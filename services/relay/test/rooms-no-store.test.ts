/**
 * A relay started without a rooms store (no RELAY_DATA_DIR, no DATABASE_URL) serves its file's
 * rooms and says, to the pages that ask for `/rooms`, why there are none to manage.
 */
import { describe, expect, it } from '@jest/globals';
import { createRelay, parseRelayConfig } from '../src/app.js';
import { configFile } from './helpers.js';

describe('caption rooms API without a store', () => {
  it('a relay without a store says so to the pages: a JSON 404 with CORS for their origins, and its preflight', async () => {
    const relay = createRelay({ config: parseRelayConfig(configFile()) });
    const port = await relay.listen(0, '127.0.0.1');
    try {
      const origin = 'http://localhost:8081';
      const answer = await fetch(`http://127.0.0.1:${port}/rooms`, { headers: { origin } });
      expect(answer.status).toBe(404);
      expect(answer.headers.get('access-control-allow-origin')).toBe(origin);
      expect(await answer.json()).toEqual({
        error: { message: expect.stringMatching(/keeps no caption rooms/), code: 'no_rooms_store' },
      });
      const preflight = await fetch(`http://127.0.0.1:${port}/activity/rooms`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET' },
      });
      expect(preflight.status).toBe(204);
      const foreign = await fetch(`http://127.0.0.1:${port}/rooms`, {
        headers: { origin: 'https://evil.example' },
      });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await relay.close();
    }
  });
});
