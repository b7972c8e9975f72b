/// <reference lib="dom" />
/**
 * The capture page's audio input: the list of microphones, the microphone opened raw (no echo
 * cancellation, noise suppression or gain control: the model wants the room as it is) into the
 * capture AudioWorklet, and the screen kept awake while it runs.
 */

export interface AudioInput {
  stream: MediaStream;
  context: AudioContext;
  node: AudioWorkletNode;
}

export interface WakeLock {
  release(): Promise<void>;
}

/** Lists the microphones in `select`, keeping the `wanted` one selected when it is still there. */
export async function listMicrophones(select: HTMLSelectElement, wantedNow: () => string): Promise<void> {
  const devices = await navigator.mediaDevices.enumerateDevices().catch(() => []);
  const wanted = wantedNow();
  select.replaceChildren(new Option('System default', ''));
  let index = 0;
  for (const device of devices) {
    if (device.kind !== 'audioinput' || device.deviceId === 'default' || !device.deviceId) continue;
    index += 1;
    select.append(new Option(device.label || `Microphone ${index}`, device.deviceId));
  }
  select.value = Array.from(select.options).some((option) => option.value === wanted) ? wanted : '';
}

/** The microphone `deviceId` ('' for the system's default); rejects when it cannot be opened. */
export function openMicrophone(deviceId: string): Promise<MediaStream> {
  return navigator.mediaDevices.getUserMedia({
    audio: {
      ...(deviceId ? { deviceId: { exact: deviceId } } : {}),
      channelCount: 1,
      echoCancellation: false,
      noiseSuppression: false,
      autoGainControl: false,
    },
  });
}

/** `stream` into the capture worklet (served at `workletUrl`) in a context at `sampleRate`. */
export async function connectWorklet(
  stream: MediaStream,
  sampleRate: number,
  workletUrl: URL,
): Promise<AudioInput> {
  const context = new AudioContext({ sampleRate });
  await context.audioWorklet.addModule(workletUrl);
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, 'capture-processor', { numberOfOutputs: 1, channelCount: 1 });
  source.connect(node);
  node.connect(context.destination);
  return { stream, context, node };
}

/** Keeps the screen on while capturing, where the browser allows it. */
export function keepScreenAwake(): Promise<WakeLock | undefined> {
  const wakeLock = (navigator as Navigator & { wakeLock?: { request(type: 'screen'): Promise<WakeLock> } })
    .wakeLock;
  return wakeLock?.request('screen').catch(() => undefined) ?? Promise.resolve(undefined);
}

/** Stops the microphone and closes the context. */
export async function closeAudio(input: AudioInput): Promise<void> {
  input.node.port.onmessage = null;
  for (const track of input.stream.getTracks()) track.stop();
  await input.context.close().catch(() => undefined);
}
