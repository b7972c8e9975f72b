export {
  DEFAULT_MODEL_BASE_URL,
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
export { type ModelSettings, modelSettings, resolveModelDir } from './config.js';
export {
  type DownloadEvent,
  type DownloadOptions,
  downloadModel,
  type EnsureModelOptions,
  ensureModel,
  sha1File,
} from './download.js';
export { syntheticModel } from './synthetic-file.js';
