export {
  DEFAULT_MODEL_BASE_URL,
  defaultModelDir,
  MODEL_CATALOG,
  ModelError,
  type ModelErrorCode,
  type ModelSpec,
  modelFile,
  modelNames,
  modelSpec,
  type ResolvedModel,
  resolveModel,
  SILERO_VAD,
} from './catalog.js';
export {
  type DownloadEvent,
  type DownloadOptions,
  downloadModel,
  type EnsureModelOptions,
  ensureModel,
  sha1File,
} from './download.js';
