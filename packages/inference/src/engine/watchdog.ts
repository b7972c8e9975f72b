import { InferenceError } from '../queue.js';

/** How long a decode may run before the watchdog fails it, unless configured otherwise. */
export const WATCHDOG_MS = 90_000;

/**
 * The decode watchdog: a decode still running after `limitMs` fails at once with
 * `inference_failed`, and `onTrip` deals with the stuck decode (it holds its decode state until
 * aborted). The timer goes with the decode, whichever way it ends.
 */
export async function underWatchdog<T>(
  decoding: Promise<T>,
  limitMs: number,
  onTrip: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new InferenceError('inference_failed', 'the decode exceeded the watchdog limit'));
      onTrip();
    }, limitMs);
  });
  try {
    return await Promise.race([decoding, watchdog]);
  } finally {
    clearTimeout(timer);
  }
}
