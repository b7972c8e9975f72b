/**
 * The stand-ins must catch what the platforms would refuse or get wrong: a stand-in that accepts
 * anything proves nothing about the service tested against it.
 */
import { startYouTubeStandIn, startZoomStandIn, youtubeBlocks } from '../src/index.js';

const post = (url: string, body: string, contentType = 'text/plain; charset=utf-8') =>
  fetch(url, { method: 'POST', body, headers: { 'Content-Type': contentType } });

describe('YouTube stand-in', () => {
  it('accepts seq +1, a retry with the same body, and records violations otherwise', async () => {
    const youtube = await startYouTubeStandIn({ skewMs: 5000 });
    try {
      const block = '2026-11-26T09:00:00.000\nHello<br>world\n';
      const first = await post(`${youtube.url}&seq=1`, block);
      expect(first.status).toBe(200);
      expect(Date.parse(`${(await first.text()).trim()}Z`) - Date.now()).toBeGreaterThan(3000);
      expect((await post(`${youtube.url}&seq=1`, block)).status).toBe(200);
      expect(youtube.counts.retries).toBe(1);
      expect(youtube.accepted).toHaveLength(1);
      expect(youtubeBlocks(youtube.accepted[0]!.body)).toEqual([
        { at: '2026-11-26T09:00:00.000', lines: ['Hello', 'world'] },
      ]);
      expect(youtube.violations).toEqual([]);

      expect((await post(`${youtube.url}&seq=1`, '2026-11-26T09:00:01.000\nOther\n')).status).toBe(200);
      expect((await post(`${youtube.url}&seq=3`, block)).status).toBe(403);
      expect((await post(`${youtube.url}&seq=2`, `2026-11-26 09:00\n${'x'.repeat(41)}\n`)).status).toBe(200);
      expect(youtube.violations).toEqual([
        'seq 1 repeated with a different body',
        'seq 3 after 1 (expected 2)',
        'seq 2: bad timestamp line "2026-11-26 09:00"',
        expect.stringMatching(/^seq 2: line over 40/),
      ]);
      expect((await post(`${youtube.url}&seq=3`, block, 'application/x-www-form-urlencoded')).status).toBe(
        400,
      );
      expect((await fetch(`${youtube.url}&seq=3`)).status).toBe(405);
      expect(
        (await post(`${youtube.url.replace(/signature=[^&]+/, 'signature=forged')}&seq=3`, block)).status,
      ).toBe(403);
    } finally {
      await youtube.close();
    }
  });

  it('plays scripted faults on new data only', async () => {
    const youtube = await startYouTubeStandIn();
    try {
      youtube.script({ status: 503 }, 'lose-answer');
      const block = '2026-11-26T09:00:00.000\nHi\n';
      expect((await post(`${youtube.url}&seq=1`, block)).status).toBe(503);
      expect(youtube.accepted).toHaveLength(0);
      await expect(post(`${youtube.url}&seq=1`, block)).rejects.toThrow();
      expect(youtube.accepted).toHaveLength(1);
      expect((await post(`${youtube.url}&seq=1`, block)).status).toBe(200);
      expect(youtube.counts.retries).toBe(1);
    } finally {
      await youtube.close();
    }
  });
});

describe('Zoom stand-in', () => {
  it("answers Zoom's codes: 405 not a POST, 403 bad seq or token, 400 before the meeting", async () => {
    const zoom = await startZoomStandIn({ started: false, lastSeq: 7 });
    try {
      const seqUrl = zoom.url.replace('/closedcaption?', '/closedcaption/seq?');
      expect((await fetch(seqUrl)).status).toBe(400);
      expect((await post(`${zoom.url}&seq=8&lang=en-US`, 'Hello')).status).toBe(400);
      zoom.start();
      expect(await (await fetch(seqUrl)).text()).toBe('7');
      expect((await fetch(`${zoom.url}&seq=8&lang=en-US`)).status).toBe(405);
      expect((await post(`${zoom.url}&lang=en-US`, 'Hello')).status).toBe(403);
      expect((await post(`${zoom.url}&seq=8`, 'Hello')).status).toBe(403);
      expect(
        (await post(`${zoom.url.replace(/signature=[^&]+/, 'signature=x')}&seq=8&lang=en-US`, 'Hi')).status,
      ).toBe(403);
      expect((await post(`${zoom.url}&seq=8&lang=en-US`, 'Hello\nworld')).status).toBe(200);
      expect(await (await fetch(seqUrl)).text()).toBe('8');
      expect(zoom.violations).toEqual([]);
      await post(`${zoom.url}&seq=9&lang=en-US`, '2026-11-26T09:00:00.000\nHello<br>world');
      expect(zoom.violations).toEqual(['seq 9: <br> in a Zoom body', 'seq 9: timestamp line in a Zoom body']);
    } finally {
      await zoom.close();
    }
  });
});
