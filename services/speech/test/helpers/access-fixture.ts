/**
 * What the access tests need besides a gateway: a relay-tokens file as `make secrets` writes it,
 * and one request per API route, each valid apart from the token.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { createApp } from '../../src/app.js';
import { pcmBody, sine } from './wav.js';

const oneSecond = pcmBody(sine(16000, 1, 440, 0.3));

/** Writes a relay-tokens file in a temp folder; returns its path. */
export function writeRelayTokens(): string {
  const relayFile = join(mkdtempSync(join(tmpdir(), 'speech-access-')), 'relay-tokens.env');
  writeFileSync(
    relayFile,
    [
      'RELAY_ADDRESS=wss://relay.example/ws',
      'RELAY_SITE=https://ui.example/',
      'RELAY_ROOM=source',
      'RELAY_OUTPUT_ROOM=output',
      'RELAY_SOURCE_READ=source-read',
      'RELAY_SOURCE_WRITE=source-write',
      'RELAY_OUTPUT_READ=output-read',
    ].join('\n'),
  );
  return relayFile;
}

type Route = [string, (app: ReturnType<typeof createApp>['app']) => request.Test];

/** One request per API route, each valid apart from the token. */
export const routes: Route[] = [
  ['GET /health', (app) => request(app).get('/health')],
  ['GET /v1/models', (app) => request(app).get('/v1/models')],
  ['GET /relay-config', (app) => request(app).get('/relay-config')],
  [
    'POST /transcribe',
    (app) =>
      request(app)
        .post('/transcribe')
        .set({ 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' })
        .send(oneSecond),
  ],
  ...(['/v1/audio/transcriptions', '/v1/audio/translations'] as const).map(
    (path): Route => [
      `POST ${path}`,
      (app) => request(app).post(path).attach('file', Buffer.from('x'), 'a.wav').field('model', 'whisper-1'),
    ],
  ),
  ['DELETE /streams/{id}', (app) => request(app).delete('/streams/stream-auth').set('X-Caption-Local', '1')],
];
