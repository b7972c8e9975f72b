// The quality harness's realtime path: a real gateway process (same model, Silero VAD) and, per
// clip, the capture page's own RealtimeSession over a `ws` WebSocket to
// `/v1/realtime?intent=transcription`: 50 ms frames at 16 kHz, resampled to 24 kHz PCM16 by the
// page's code, paced at `speed` times real time, then Stop (commit, wait for every transcript).
// The completed transcripts, in spoken order, are the clip's text.
import { GATEWAY_ENTRY, gatewayPort, killAll, startServiceProcess } from '@live-captions/test-services';
import { RealtimeSession, type RealtimeSocket, realtimeUrl } from '@live-captions/web/capture-logic';
import { WebSocket } from 'ws';

const FRAME = 800; // the capture worklet's 50 ms frames at 16 kHz
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RealtimeGateway {
  url: string;
  /** The model name the gateway reports (what `session.update` names). */
  model: string;
  close(): Promise<void>;
}

export async function startRealtimeGateway(options: {
  modelPath: string;
  vadPath: string;
  threads: number;
}): Promise<RealtimeGateway> {
  const gateway = startServiceProcess(GATEWAY_ENTRY, {
    CAPTION_BIND: '127.0.0.1',
    CAPTION_MODEL: options.modelPath,
    CAPTION_REALTIME_VAD_MODEL: options.vadPath,
    CAPTION_THREADS: String(options.threads),
  });
  try {
    const port = await gatewayPort(gateway, 60_000);
    const base = `http://127.0.0.1:${port}/`;
    let health: { model?: string } | undefined;
    for (const deadline = Date.now() + 60_000; !health; await sleep(200)) {
      const response = await fetch(new URL('health', base)).catch(() => undefined);
      if (response?.ok) health = (await response.json()) as { model?: string };
      else if (Date.now() > deadline) throw new Error(`the gateway never became ready:\n${gateway.output()}`);
    }
    return { url: realtimeUrl(base), model: health.model ?? 'whisper-1', close: () => killAll([gateway]) };
  } catch (error) {
    await killAll([gateway]);
    throw error;
  }
}

/** Streams one clip (16 kHz float) as the capture page would; returns the finals joined. */
export async function transcribeRealtime(
  gateway: RealtimeGateway,
  audio: Float32Array,
  language: string,
  speed: number,
): Promise<string> {
  const texts: string[] = [];
  let failure: string | undefined;
  const session = new RealtimeSession({
    url: gateway.url,
    inputRate: 16_000,
    model: gateway.model,
    language,
    connect: (url, protocols) => new WebSocket(url, protocols) as unknown as RealtimeSocket,
    onFinal: (final) => texts.push(final.text),
    onStatus: (status) => {
      if (status.state === 'failed') failure = status.message;
    },
  });
  const started = performance.now();
  for (let at = 0, n = 1; at < audio.length; at += FRAME, n++) {
    session.push(audio.slice(at, at + FRAME));
    // Real-time pacing: frame n is due n × 50 ms / speed after the start.
    const due = started + (n * 50) / speed - performance.now();
    if (due > 0) await sleep(due);
  }
  await session.stop();
  if (failure) throw new Error(`realtime session failed: ${failure}`);
  return texts.join(' ');
}
