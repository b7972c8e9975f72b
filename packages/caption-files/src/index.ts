export { type Cue, type CueTiming, cuesOf, type TimedCaption } from './cues.js';
export { CaptionFileError, parseSrt, parseWebVtt } from './parse.js';
export { clockOf, msOf } from './timestamps.js';
export { CAPTION_FILE_TYPES, type CaptionFileFormat, captionFile, toSrt, toText, toWebVtt } from './write.js';
