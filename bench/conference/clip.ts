// The clip every room's publisher loops: the committed JFK speech clip, then silence.
import { prepareSpeechClip, type SpeechClip } from '../lib/speech-clip.js';

export const SILENCE_S = 6;

export const prepareClip = (dir: string): SpeechClip => prepareSpeechClip(dir, SILENCE_S);
export type Clip = SpeechClip;
