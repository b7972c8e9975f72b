import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { RelaySettings, TranscribeResponse } from '@live-captions/protocol';
import {
  apiKeyIn,
  CALENDAR_TOKEN,
  checkSecretOwners,
  cleanUp,
  compose,
  figures,
  grantCalendarWriter,
  LOCAL_PROJECT,
  MODEL_SETTINGS,
  must,
  PRODUCTION_SERVICES,
  PROJECT,
  placeModel,
  projectContainers,
  projectObjects,
  psql,
  run,
  storedTitles,
  tryCompose,
  waitHealthy,
  work,
} from './harness.js';
import { outputRoomIn } from './outputs.js';
import {
  EDGE_NETWORK,
  EVENT,
  HOSTS,
  LOCAL,
  PRODUCTION_EVENT,
  probe,
  TRAEFIK_ADDRESS,
  transcriptionBody,
  upgradeHeaders,
  viaTraefik,
} from './requests.js';
import { sourceRoomIn, translateFromOutputs } from './streams.js';

/** Production: `make secrets` and the README's compose command, with the test playing Traefik. */
export function describeProduction(): void {
  describe('production (make secrets, compose without Traefik) beside the local trial', () => {
    let apiKey: string;

    beforeAll(async () => {
      copyFileSync(join(work, '.env.production.example'), join(work, '.env.production'));
      // The tracked example names no host: both the secrets and the composition stop on it.
      const secrets = run('make', ['secrets']);
      expect(secrets.status).not.toBe(0);
      expect(`${secrets.stdout}${secrets.stderr}`).toContain('CAPTURE_HOST is missing');
      const config = tryCompose(false, ['config']);
      expect(config.status).not.toBe(0);
      expect(config.stderr).toMatch(/(CERT_EMAIL|CAPTURE_HOST|RELAY_HOST|UI_HOST) is missing/);

      let env = readFileSync(join(work, '.env.production'), 'utf8');
      for (const [key, value] of Object.entries(HOSTS))
        env = env.replace(new RegExp(`^${key}=$`, 'm'), `${key}=${value}`);
      writeFileSync(join(work, '.env.production'), env + MODEL_SETTINGS);
      must('make', ['secrets']);
      grantCalendarWriter(join(work, 'secrets'));
      compose(false, ['up', '--no-start', ...PRODUCTION_SERVICES]);
      placeModel(PROJECT);
      const started = Date.now();
      compose(false, ['up', '-d', ...PRODUCTION_SERVICES]);
      await waitHealthy(PROJECT, PRODUCTION_SERVICES.length);
      figures.push(`production stack: up and healthy in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      apiKey = apiKeyIn(join(work, 'secrets'));
    });

    it('writes secrets/ owned by uid 1000 with the production origins', () => {
      checkSecretOwners(join(work, 'secrets'));
      const relay = readFileSync(join(work, 'secrets/relay.private.json'), 'utf8');
      expect(relay).toContain(`https://${HOSTS.UI_HOST}`);
      expect(relay).toContain(`https://${HOSTS.CAPTURE_HOST}`);
    });

    it('speech behind Traefik: capture page, token-checked health, relay settings for UI_HOST, a /v1 transcription', () => {
      const { contentType, body } = transcriptionBody();
      const [page, noToken, health, relayConfig, transcription] = probe(
        [
          { url: 'http://speech:8765/', headers: viaTraefik(HOSTS.CAPTURE_HOST) },
          { url: 'http://speech:8765/health', headers: viaTraefik(HOSTS.CAPTURE_HOST) },
          {
            url: 'http://speech:8765/health',
            headers: viaTraefik(HOSTS.CAPTURE_HOST, { Authorization: `Bearer ${apiKey}` }),
          },
          {
            url: 'http://speech:8765/relay-config',
            headers: viaTraefik(HOSTS.CAPTURE_HOST, {
              Authorization: `Bearer ${apiKey}`,
              Origin: `https://${HOSTS.UI_HOST}`,
            }),
          },
          {
            method: 'POST',
            url: 'http://speech:8765/v1/audio/transcriptions',
            headers: viaTraefik(HOSTS.CAPTURE_HOST, {
              Authorization: `Bearer ${apiKey}`,
              'Content-Type': contentType,
            }),
            bodyBase64: body.toString('base64'),
          },
        ],
        TRAEFIK_ADDRESS,
      );
      expect([page!.status, page!.headers['content-type']]).toEqual([
        200,
        expect.stringMatching(/text\/html/),
      ]);
      expect(noToken!.status).toBe(401);
      expect(health!.status).toBe(200);
      expect(relayConfig!.status).toBe(200);
      expect(relayConfig!.headers['access-control-allow-origin']).toBe(`https://${HOSTS.UI_HOST}`);
      const relay = JSON.parse(relayConfig!.body) as RelaySettings;
      expect(relay.relayUrl).toMatch(new RegExp(`^wss://${HOSTS.RELAY_HOST.replace(/\./g, '\\.')}(/ws)?$`));
      expect(relay.links.overlay?.startsWith(`https://${HOSTS.UI_HOST}/overlay.html#`)).toBe(true);
      expect(transcription!.status).toBe(200);
      expect((JSON.parse(transcription!.body) as TranscribeResponse).text.toLowerCase()).toContain('test');
    });

    it('relay behind Traefik: the production origins pass, others are refused', () => {
      const [ui, capture, foreign] = probe(
        [`https://${HOSTS.UI_HOST}`, `https://${HOSTS.CAPTURE_HOST}`, 'https://evil.example'].map(
          (origin) => ({
            url: 'http://relay:8080/ws',
            headers: { ...viaTraefik(HOSTS.RELAY_HOST), ...upgradeHeaders(origin) },
          }),
        ),
        TRAEFIK_ADDRESS,
      );
      expect([ui!.status, capture!.status, foreign!.status]).toEqual([101, 101, 403]);
    });

    it('ui behind Traefik: the links hub and /site-config.js with the public addresses', () => {
      const [home, site] = probe(
        [
          { url: 'http://ui:8081/', headers: viaTraefik(HOSTS.UI_HOST) },
          { url: 'http://ui:8081/site-config.js', headers: viaTraefik(HOSTS.UI_HOST) },
        ],
        TRAEFIK_ADDRESS,
      );
      expect(home!.status).toBe(200);
      expect(home!.body).toContain('<title>Links · Live captions</title>');
      expect(site!.body).toContain(`"relayUrl":"wss://${HOSTS.RELAY_HOST}"`);
      expect(site!.body).toContain(`"captureUrl":"https://${HOSTS.CAPTURE_HOST}/"`);
      // The calendar on the UI host: the pages read it same-origin.
      expect(site!.body).toContain(`"calendarApiUrl":"https://${HOSTS.UI_HOST}/wp-json/cal/events/v1/"`);
    });

    it('calendar behind Traefik: a write on PostgreSQL, read back with https:// links', () => {
      const base = 'http://calendar:8082/wp-json/cal/events/v1';
      const [created] = probe(
        [
          {
            method: 'POST',
            url: `${base}/events`,
            headers: viaTraefik(HOSTS.UI_HOST, {
              Authorization: `Bearer ${CALENDAR_TOKEN}`,
              'Content-Type': 'application/json',
            }),
            body: JSON.stringify(PRODUCTION_EVENT),
          },
        ],
        TRAEFIK_ADDRESS,
      );
      expect(created!.status).toBe(201);
      const { id } = JSON.parse(created!.body) as { id: number };
      const [read, list] = probe(
        [
          { url: `${base}/events/${id}`, headers: viaTraefik(HOSTS.UI_HOST) },
          { url: `${base}/events`, headers: viaTraefik(HOSTS.UI_HOST) },
        ],
        TRAEFIK_ADDRESS,
      );
      const api = `https://${HOSTS.UI_HOST}/wp-json/cal/events/v1`;
      expect(JSON.parse(read!.body)).toMatchObject({
        title: PRODUCTION_EVENT.title,
        rest_url: `${api}/events/${id}`,
      });
      expect((JSON.parse(list!.body) as { rest_url: string }).rest_url.startsWith(`${api}/events`)).toBe(
        true,
      );
      expect(storedTitles(false)).toEqual([PRODUCTION_EVENT.title]);
      // The forwarded scheme is believed from Traefik's address only.
      const [other] = probe([{ url: `${base}/events/${id}`, headers: viaTraefik(HOSTS.UI_HOST) }]);
      expect((JSON.parse(other!.body) as { rest_url: string }).rest_url).toBe(
        `http://${HOSTS.UI_HOST}/wp-json/cal/events/v1/events/${id}`,
      );
    });

    it('outputs behind Traefik: the output room’s writer manages destinations, a reader cannot', () => {
      const room = outputRoomIn(join(work, 'secrets'));
      // Traefik strips /outputs: the service sees /rooms/...
      const url = `http://outputs:8083/rooms/${encodeURIComponent(room.room)}/destinations`;
      const [health, refused, added, listed] = probe(
        [
          { url: 'http://outputs:8083/health', headers: viaTraefik(HOSTS.UI_HOST) },
          { url, headers: viaTraefik(HOSTS.UI_HOST, { Authorization: `Bearer ${room.read}` }) },
          {
            method: 'POST',
            url,
            headers: viaTraefik(HOSTS.UI_HOST, {
              Authorization: `Bearer ${room.write}`,
              'Content-Type': 'application/json',
            }),
            body: JSON.stringify({ kind: 'archive' }),
          },
          { url, headers: viaTraefik(HOSTS.UI_HOST, { Authorization: `Bearer ${room.write}` }) },
        ],
        TRAEFIK_ADDRESS,
      );
      expect(JSON.parse(health!.body)).toMatchObject({ db: 'ok', redis: 'ok' });
      expect([refused!.status, added!.status, listed!.status]).toEqual([401, 201, 200]);
      expect(JSON.parse(listed!.body).destinations.map((item: { kind: string }) => item.kind)).toEqual([
        'archive',
      ]);
      expect(psql(false, 'select count(*) from out_destinations')).toBe('1');
    });

    it('apertium translates for the outputs service; sources behind Traefik and its RTMP port on the host', async () => {
      expect(translateFromOutputs(false, 'spa', 'The meeting is open.')).toBe('La reunión es abierta.');
      const [health, refused, added] = probe(
        [
          { url: 'http://sources:8084/health', headers: viaTraefik(HOSTS.UI_HOST) },
          { url: 'http://sources:8084/sources', headers: viaTraefik(HOSTS.UI_HOST) },
          {
            method: 'POST',
            url: 'http://sources:8084/sources',
            headers: viaTraefik(HOSTS.UI_HOST, {
              Authorization: `Bearer ${apiKey}`,
              'Content-Type': 'application/json',
            }),
            body: JSON.stringify({
              room: sourceRoomIn(join(work, 'secrets')).room,
              name: 'OBS',
              input: { kind: 'rtmp-push' },
            }),
          },
        ],
        TRAEFIK_ADDRESS,
      );
      expect(JSON.parse(health!.body)).toMatchObject({
        status: 'ok',
        db: 'ok',
        redis: 'ok',
        push: { rtmp: 1935 },
      });
      expect(refused!.status).toBe(401);
      expect(added!.status).toBe(201);
      const { push } = JSON.parse(added!.body) as { push: { url: string; streamKey: string } };
      expect(push.url).toBe(`rtmp://${HOSTS.CAPTURE_HOST}:1935/live/${push.streamKey}`);
      // The RTMP listener answers on the host's published port.
      await new Promise<void>((resolve, reject) => {
        const socket = connect(1935, '127.0.0.1', () => {
          socket.destroy();
          resolve();
        });
        socket.once('error', reject);
      });
      expect(psql(false, 'select count(*) from src_sources')).toBe('1');
    });

    it('keeps its own volumes and edge network: neither stack sees the other’s writes', () => {
      expect(storedTitles(true)).toEqual([EVENT.title]);
      expect(storedTitles(false)).toEqual([PRODUCTION_EVENT.title]);
      const networks = must('docker', ['network', 'ls', '--format', '{{.Name}}']).split('\n');
      expect(networks).toContain(EDGE_NETWORK);
      expect(networks).toContain('live-captions-local-edge');
      expect(projectObjects('volume', PROJECT)).toContain(`${PROJECT}_postgres-data`);
    });

    it('`make down` stops production and leaves the local stack running', async () => {
      const started = Date.now();
      must('make', ['down', `PROJECT=${PROJECT}`]);
      figures.push(`make down (production): ${((Date.now() - started) / 1000).toFixed(0)} s`);
      expect(projectContainers(PROJECT)).toEqual([]);
      expect((await fetch(`${LOCAL.ui}/`)).status).toBe(200);
      // The volumes outlive `make down` (the README's promise); `down -v` below removes them.
      expect(projectObjects('volume', PROJECT)).toContain(`${PROJECT}_postgres-data`);
    });

    it('`make local-down`, then `down -v`, leave nothing of either stack', () => {
      must('make', ['local-down', `PROJECT=${PROJECT}`]);
      expect(projectContainers(LOCAL_PROJECT)).toEqual([]);
      cleanUp();
      for (const project of [PROJECT, LOCAL_PROJECT]) {
        for (const kind of ['volume', 'network'] as const) {
          expect([project, kind, projectObjects(kind, project)]).toEqual([project, kind, []]);
        }
      }
    });
  });
}
