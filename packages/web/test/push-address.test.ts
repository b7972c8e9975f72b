/**
 * A push source's address split as OBS asks for it, and the localhost warning (the panel itself
 * runs in chromium: e2e/browser/first-event-sources.test.ts).
 */
import { describe, expect, test } from '@jest/globals';
import { pushFields, pushHostProblem } from '../src/browser/lib/push-address.js';

const KEY = 'k3Y_abcdefghijklmnop';

describe('a push address', () => {
  test('RTMP: Server without the key, the key apart, and the whole address', () => {
    expect(pushFields({ url: `rtmp://captions.example.org:1935/live/${KEY}`, streamKey: KEY })).toEqual({
      server: 'rtmp://captions.example.org:1935/live',
      streamKey: KEY,
      whole: `rtmp://captions.example.org:1935/live/${KEY}`,
    });
  });

  test('SRT: the key is the passphrase inside the address, so Stream Key stays empty', () => {
    const url = `srt://captions.example.org:9001?passphrase=${KEY}&pbkeylen=32`;
    expect(pushFields({ url, streamKey: KEY })).toEqual({ server: url, streamKey: '', whole: url });
  });

  test('an address at localhost is warned of, a public one is not', () => {
    for (const url of [`rtmp://localhost:1935/live/${KEY}`, `srt://127.0.0.1:9000?passphrase=${KEY}`])
      expect(pushHostProblem(url)).toMatch(/Only an encoder on this computer.*SOURCES_PUBLIC_HOST/);
    expect(pushHostProblem(`rtmp://captions.example.org:1935/live/${KEY}`)).toBeUndefined();
    expect(pushHostProblem(`rtmp://10.0.0.5:1935/live/${KEY}`)).toBeUndefined();
  });
});
