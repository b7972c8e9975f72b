import type {
  Translation,
  TranslationEngineKind,
  TranslationLanguages,
  TranslationState,
  Vocabulary,
} from '@live-captions/protocol';
import {
  EngineError,
  type EngineSettings,
  EngineSettingsError,
  emptyTrackState,
  maskKey,
} from '@live-captions/translation';
import { Router } from 'express';
import type { TranslationEngines } from '../adapters/translation-engines.js';
import {
  DuplicateTranslation,
  type TranslationRow,
  type TranslationsRepo,
} from '../adapters/translations-repo.js';
import type { VocabularyRepo } from '../adapters/vocabulary-repo.js';
import {
  bodyProblem,
  HttpError,
  newTranslationSchema,
  translationLanguagesSchema,
  vocabularySchema,
} from '../domain/api.js';
import type { RoomTokens } from '../domain/rooms.js';
import { jsonBody, requireId, requireToken } from './http.js';

export interface TranslationRoutesDeps {
  repo: TranslationsRepo;
  vocabulary: VocabularyRepo;
  engines: TranslationEngines;
  rooms: () => Map<string, RoomTokens>;
  /** The translator's own state when this replica runs the target. */
  liveState(id: string): TranslationState | undefined;
  /** Runs the supervisor's check (starts or stops translators); resolves when it is done. */
  check(): Promise<void>;
}

const OBJECT = 'body: must be a JSON object';
const ENGINE_NAMES: Record<TranslationEngineKind, string> = {
  apertium: 'Apertium',
  libretranslate: 'LibreTranslate',
  deepl: 'DeepL',
};

/**
 * A target's state: the translator's own when this replica runs it, else what the database says
 * (another replica translates, or the room's reader is starting).
 */
function stateOf(row: TranslationRow, deps: TranslationRoutesDeps): TranslationState {
  if (!deps.rooms().has(row.room)) return 'stopped';
  const live = deps.liveState(row.id);
  if (live) return live;
  if (row.failing) return 'failing';
  if (row.behind > 0 && row.lastError !== null) return 'waiting';
  return row.sent > 0 ? 'translating' : 'starting';
}

function viewOf(row: TranslationRow, deps: TranslationRoutesDeps): Translation {
  let endpoint: string;
  try {
    endpoint = deps.engines.endpoint(settingsOf(row));
  } catch {
    // The operator no longer allows the stored address: shown as stored (the translator fails).
    endpoint = row.url ?? '';
  }
  return {
    id: row.id,
    target: row.target,
    source: row.source,
    engine: row.engine,
    endpoint,
    key: maskKey(row.key),
    state: stateOf(row, deps),
    behind: row.behind,
    sent: row.sent,
    lastError:
      row.lastError === null || row.lastErrorAt === null
        ? null
        : { at: new Date(row.lastErrorAt).toISOString(), message: row.lastError },
  };
}

/** A stored target's engine settings. */
export function settingsOf(row: Pick<TranslationRow, 'engine' | 'url' | 'key'>): EngineSettings {
  return {
    kind: row.engine,
    ...(row.url === null ? {} : { url: row.url }),
    ...(row.key === null ? {} : { key: row.key }),
  };
}

/** Settings from a checked body: Apertium takes no key (APy is the operator's own). */
function settingsFrom(body: { engine: TranslationEngineKind; url?: string; key?: string }): EngineSettings {
  if (body.engine === 'apertium' && body.key !== undefined)
    throw new HttpError(400, 'invalid_request', 'key: Apertium takes no key');
  return {
    kind: body.engine,
    ...(body.url === undefined ? {} : { url: body.url }),
    ...(body.key === undefined ? {} : { key: body.key }),
  };
}

/**
 * An engine's refusal as the API answers it: settings the rule refuses are the client's (400,
 * or 422 for an address), a key the engine refuses is a 400 naming `key`, and an engine that
 * cannot answer is a 502 saying so. EngineError messages never hold a key or an address.
 */
function engineProblem(error: unknown): never {
  if (error instanceof EngineSettingsError)
    throw error.status === 422
      ? new HttpError(422, 'engine_address_not_allowed', `${error.message}`)
      : new HttpError(400, 'invalid_request', error.message);
  if (error instanceof EngineError) {
    if (error.code === 'engine_auth') throw new HttpError(400, 'invalid_request', `key: ${error.message}`);
    throw new HttpError(
      502,
      'engine_unavailable',
      `The engine could not list its languages: ${error.message}`,
    );
  }
  throw error;
}

export function translationRoutes(deps: TranslationRoutesDeps): Router {
  const router = Router();
  const writer = requireToken(deps.rooms, 'write');

  router.get('/rooms/:room/translations', writer, async (req, res) => {
    const rows = await deps.repo.list(String(req.params.room));
    res.json({ translations: rows.map((row) => viewOf(row, deps)) });
  });

  router.post('/rooms/:room/translation-languages', writer, jsonBody, async (req, res) => {
    const parsed = translationLanguagesSchema.safeParse(req.body ?? {});
    if (!parsed.success) throw new HttpError(400, 'invalid_request', bodyProblem(parsed.error, OBJECT));
    const body = parsed.data;
    const settings = settingsFrom(body);
    let targets: TranslationLanguages['targets'];
    try {
      targets = await deps.engines.targets(settings, body.source);
    } catch (error) {
      engineProblem(error);
    }
    const answer: TranslationLanguages = { engine: body.engine, source: body.source, targets };
    res.json(answer);
  });

  router.post('/rooms/:room/translations', writer, jsonBody, async (req, res) => {
    const parsed = newTranslationSchema.safeParse(req.body ?? {});
    if (!parsed.success) throw new HttpError(400, 'invalid_request', bodyProblem(parsed.error, OBJECT));
    const body = parsed.data;
    const room = String(req.params.room);
    const settings = settingsFrom(body);
    let endpoint: string;
    let offered: TranslationLanguages['targets'];
    try {
      endpoint = deps.engines.endpoint(settings);
      offered = await deps.engines.targets(settings, body.source);
    } catch (error) {
      engineProblem(error);
    }
    const target = offered.find((option) => option.code.toLowerCase() === body.target.toLowerCase());
    if (!target) {
      const codes = offered.map((option) => option.code).join(', ') || 'none';
      throw new HttpError(
        400,
        'invalid_request',
        `target: ${ENGINE_NAMES[body.engine]} does not translate ${body.source} into ${body.target} (it offers: ${codes})`,
      );
    }
    let id: string;
    try {
      id = await deps.repo.add(
        room,
        {
          target: target.code,
          source: body.source,
          engine: body.engine,
          // The address in the form it is called at; null: the engine's default, read at each start.
          url: body.url === undefined ? null : endpoint,
          key: body.key ?? null,
        },
        JSON.stringify(emptyTrackState()),
      );
    } catch (error) {
      if (error instanceof DuplicateTranslation)
        throw new HttpError(409, 'conflict', `This room already has a ${target.code} translation`);
      throw error;
    }
    res.locals.logger.info(
      { room, translation: id, engine: body.engine, target: target.code, source: body.source },
      'translation added',
    );
    // Not awaited: the check may be stopping another room's work.
    void deps.check();
    const row = await deps.repo.get(id);
    if (!row) throw new HttpError(404, 'not_found', 'Translation removed meanwhile');
    res.status(201).json({ translation: viewOf(row, deps) });
  });

  const NO_TRANSLATION = 'No such translation in this room';
  router.delete(
    '/rooms/:room/translations/:id',
    writer,
    requireId('id', NO_TRANSLATION),
    async (req, res) => {
      const room = String(req.params.room);
      const id = String(req.params.id);
      if (!(await deps.repo.remove(room, id))) throw new HttpError(404, 'not_found', NO_TRANSLATION);
      res.locals.logger.info({ room, translation: id }, 'translation removed');
      // Awaited: once this answers, the removed target's translator has stopped.
      await deps.check();
      res.status(204).end();
    },
  );

  router.get('/rooms/:room/vocabulary', writer, async (req, res) => {
    const answer: Vocabulary = { terms: await deps.vocabulary.get(String(req.params.room)) };
    res.json(answer);
  });

  router.put('/rooms/:room/vocabulary', writer, jsonBody, async (req, res) => {
    const parsed = vocabularySchema.safeParse(req.body ?? {});
    if (!parsed.success) throw new HttpError(400, 'invalid_request', bodyProblem(parsed.error, OBJECT));
    const room = String(req.params.room);
    await deps.vocabulary.set(room, parsed.data.terms);
    // The count only: the terms are the room's (names), not the log's.
    res.locals.logger.info({ room, terms: parsed.data.terms.length }, 'vocabulary set');
    const answer: Vocabulary = { terms: parsed.data.terms };
    res.json(answer);
  });

  return router;
}
