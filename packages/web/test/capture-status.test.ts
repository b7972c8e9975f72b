import { describe, expect, test } from '@jest/globals';
import type { SessionStatus } from '@live-captions/capture';
import { sessionLine } from '../src/browser/pages/capture-status.js';

const status = (fields: Partial<SessionStatus>): SessionStatus => ({
  state: 'capturing',
  inFlight: false,
  bufferedSeconds: 23.5,
  committedSeconds: 40,
  retrying: false,
  maxBufferedSeconds: 120,
  droppedSeconds: 0,
  ...fields,
});

describe('the capture status line', () => {
  test('through an outage: what is kept, its bound, and the next try', () => {
    expect(sessionLine(status({ retrying: true, message: 'retrying in 4.0 s' }))).toEqual({
      text: 'Listening · retrying in 4.0 s · 23.5 s of audio kept (up to 120.0 s)',
      tone: 'warn',
    });
    expect(sessionLine(status({ retrying: true, message: 'x', droppedSeconds: 3 })).text).toMatch(
      /3\.0 s dropped \(buffer full\)$/,
    );
  });

  test('a refusal: either transport carries on capturing; Retry and Discard continue', () => {
    const refused = sessionLine(status({ state: 'failed', message: 'Refused' }));
    expect(refused.text).toMatch(/^Listening · sending stopped, audio kept/);
    expect(refused.failure).toMatch(/Capture carries on.*Retry sends it again and continues/);
  });
});
