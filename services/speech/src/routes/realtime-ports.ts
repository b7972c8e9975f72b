/**
 * What a realtime session does outside its protocol: events out on its WebSocket, decodes
 * through the admission queue (same FIFO, deadlines and failure mapping as `/v1`), the loaded
 * model's language and task rules, and its log lines under the connection's correlation id.
 */
import type { EngineInfo } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import { WebSocket } from 'ws';
import type { Admission } from '../domain/admission.js';
import { HttpError } from '../domain/errors.js';
import { problem, type RealtimeProblem } from '../domain/realtime/events.js';
import type { SessionPorts } from '../domain/realtime/transcription-session.js';
import { checkLanguageAndMode } from '../domain/request.js';
import { trimmedByGuards } from '../domain/responses.js';

export interface PortOptions {
  admission: Admission;
  engine: EngineInfo;
  ws: WebSocket;
  streamId: string;
  correlationId: string;
  logger: Logger;
  /** This gateway's realtime decodes queued or running, shared by its sessions. */
  load: { inflight: number };
  /** Backlog past which a session skips waiting turns (CAPTION_LAG_BOUND_SECONDS). */
  lagBoundSeconds: number;
}

const SETTING_PARAMS: Record<string, string> = {
  language: 'session.audio.input.transcription.language',
  mode: 'session.audio.input.transcription.task',
};

function asProblem(error: unknown): RealtimeProblem {
  if (error instanceof HttpError) {
    const type =
      error.type === 'rate_limit_error' || error.type === 'server_error'
        ? error.type
        : 'invalid_request_error';
    return problem(error.code ?? 'transcription_failed', error.message, { type, param: error.param });
  }
  return problem('transcription_failed', 'Transcription failed', { type: 'server_error' });
}

export function realtimePorts(options: PortOptions): SessionPorts {
  const { admission, engine, ws, streamId, correlationId, logger, load } = options;
  return {
    lagBoundSeconds: options.lagBoundSeconds,
    backlog: (seconds) => admission.lag.backlog(streamId, seconds),
    skipped: (seconds) => admission.lag.onSkip('realtime', seconds),
    send(event) {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(event));
    },
    async decode(audio, settings, partial, previous) {
      // Re-decodes for deltas only use idle decode slots (of every ready worker: with Redis, a
      // second worker's slots count too): under load turns still complete on time, with fewer
      // deltas, instead of every session falling behind.
      const slots = partial ? await admission.decodeSlots().catch(() => 0) : 0;
      if (partial && load.inflight >= slots) {
        throw problem('partial_skipped', 'No idle decode slot for a re-decode', { type: 'server_error' });
      }
      load.inflight += 1;
      try {
        const result = await admission.decode(
          {
            language: settings.language ?? 'auto',
            mode: settings.task,
            window: false,
            // Only a turn's final decode is final (outside windows nothing else reads it): the
            // guard counters skip the re-decodes, so each turn is counted once.
            final: !partial,
            contextSeconds: 0,
            requestId: '',
            streamId,
            correlationId,
            // Partial re-decodes need no tokens; the final one carries them for logprobs.
            ...(settings.prompt ? { prompt: settings.prompt } : {}),
            ...(previous ? { previousText: previous } : {}),
            offline: { temperature: 0 },
          },
          audio,
        );
        const tokens = partial ? [] : (result.segments ?? []).flatMap((segment) => segment.tokens);
        return {
          text: result.text,
          tokens,
          audioSeconds: result.audioSeconds,
          trimmed: trimmedByGuards(result),
        };
      } catch (error) {
        throw asProblem(error);
      } finally {
        load.inflight -= 1;
      }
    },
    checkSettings(settings) {
      try {
        checkLanguageAndMode(settings.language ?? 'auto', settings.task, engine);
        return undefined;
      } catch (error) {
        const refused = asProblem(error);
        return { ...refused, param: SETTING_PARAMS[refused.param ?? ''] ?? refused.param };
      }
    },
    log(fields, message) {
      logger.info({ correlationId, ...fields }, message);
    },
  };
}
