// The capture page's path in the ingest bench: the capture policy the page runs, fed the clip in
// real time as a microphone would, its captions published to the source room.
import {
  CaptureSession,
  captionFrames,
  hasText,
  randomId,
  rms,
  SENSITIVITY,
  windowCaption,
} from '@live-captions/capture';
import { createPublisher } from '@live-captions/relay-client/node';
import { API_KEY, ROOM, sleep, TOKENS } from '../../services/sources/test/helpers/stack.js';
import { FRAME, SAMPLE_RATE } from '../lib/speech-clip.js';

/** The capture page's path: the capture policy fed the clip in real time, captions to the room. */
export function pagePath(
  gatewayUrl: string,
  relayPort: number,
  clip: { samples: Float32Array; speechEnd: number; period: number },
  loops: number,
): { done: Promise<void>; speechEnds: number[] } {
  const publisher = createPublisher({
    url: `ws://127.0.0.1:${relayPort}/ws`,
    room: ROOM,
    token: TOKENS.write,
  });
  let n = 0;
  const session = new CaptureSession({
    baseUrl: `${gatewayUrl}/`,
    streamId: randomId('page').slice(0, 40),
    language: 'en',
    mode: 'transcribe',
    apiKey: API_KEY,
    threshold: SENSITIVITY.normal,
    intervalSeconds: 3,
    onResult: (result) => {
      const caption = windowCaption(result, 'transcribe');
      if (!hasText(caption)) return;
      n += 1;
      for (const frame of captionFrames(caption, `pagepath-${n}`)) publisher.publish(frame);
    },
  });
  const speechEnds: number[] = [];
  const done = (async () => {
    const start = Date.now();
    const perLoop = Math.floor(clip.samples.length / FRAME);
    for (let loop = 0; loop < loops; loop++) {
      for (let f = 0; f < perLoop; f++) {
        // Real time: each frame at its own time, as a microphone delivers it.
        const due = start + ((loop * perLoop + f + 1) * FRAME * 1000) / SAMPLE_RATE;
        const wait = due - Date.now();
        if (wait > 0) await sleep(wait);
        const frame = clip.samples.slice(f * FRAME, (f + 1) * FRAME);
        session.push(frame, rms(frame));
        if ((f + 1) * FRAME === Math.round(clip.speechEnd * SAMPLE_RATE)) speechEnds.push(Date.now());
      }
    }
    await session.stop();
    await sleep(2000);
    publisher.close();
  })();
  return { done, speechEnds };
}
