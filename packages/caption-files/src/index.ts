export { type Cue, type CueTiming, cuesOf, MAX_CUE_MS, MIN_CUE_MS, type TimedCaption } from './cues.js';
export { CaptionFileError, parseSrt, parseWebVtt } from './parse.js';
export { clockOf, msOf } from './timestamps.js';
export { CAPTION_FILE_TYPES, type CaptionFileFormat, captionFile, toSrt, toText, toWebVtt } from './write.js';
