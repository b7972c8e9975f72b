/**
 * Schemas of what the inference workers send back through Redis (job results, progress, their
 * announced status), checked where the gateway reads them: a worker of another version, or a
 * corrupted key, becomes a clear failure instead of a wrong answer. Each is typed as the
 * interface it checks, so the two cannot drift apart. Kept apart from `jobs.ts` and `health.ts`,
 * whose types the pages use without zod.
 */
import { z } from 'zod';
import type { EngineInfo, WorkerStatus } from './health.js';
import type {
  GuardCounts,
  InferenceProgress,
  InferenceResult,
  ResultSegment,
  ResultToken,
  TaskMode,
} from './jobs.js';

const taskMode: z.ZodType<TaskMode> = z.enum(['transcribe', 'translate', 'both']);
const seconds = z.number().min(0);

const resultToken: z.ZodType<ResultToken> = z.object({
  id: z.int(),
  text: z.string(),
  start: z.number(),
  end: z.number(),
  logprob: z.number(),
});

const resultSegment: z.ZodType<ResultSegment> = z.object({
  start: z.number(),
  end: z.number(),
  text: z.string(),
  tokens: z.array(resultToken),
  temperature: z.number(),
  noSpeechProbability: z.number(),
});

const count = z.int().min(0);

const guardCounts: z.ZodType<GuardCounts> = z.object({
  nonSpeechSeconds: seconds,
  phrasesDropped: count,
  loopsCut: count,
  unsureDropped: count,
});

export const inferenceResultSchema: z.ZodType<InferenceResult> = z.object({
  text: z.string(),
  transcript: z.string(),
  translation: z.string(),
  language: z.string().nullable(),
  outputLanguage: z.string().nullable(),
  translationLanguage: z.string().nullable(),
  mode: taskMode,
  audioSeconds: seconds,
  committedSeconds: seconds,
  queueSeconds: seconds,
  inferenceSeconds: seconds,
  segments: z.array(resultSegment).optional(),
  guards: guardCounts.optional(),
});

export const inferenceProgressSchema: z.ZodType<InferenceProgress> = z.object({
  offset: z.int().min(0),
  segments: z.array(resultSegment),
});

const engineInfo: z.ZodType<EngineInfo> = z.object({
  model: z.string(),
  device: z.enum(['cpu', 'cuda']),
  computeType: z.string(),
  multilingual: z.boolean(),
  languages: z.array(z.string()),
  modes: z.array(taskMode),
  translationTarget: z.literal('en').nullable(),
  decodeSlots: z.int().min(1),
  threadsPerSlot: z.int().min(1),
  beamSize: z.int().min(1),
});

export const workerStatusSchema: z.ZodType<WorkerStatus> = z.object({
  id: z.string(),
  engine: engineInfo,
  ready: z.boolean(),
  running: z.int().min(0),
  completed: z.int().min(0),
  queueTimeouts: z.int().min(0),
  startedAt: z.number(),
  updatedAt: z.number(),
});
