/**
 * The scripts the containers run besides the services: the HTTP health check script of our images
 * (against real HTTP servers) and Traefik's entrypoint, which renders the static configuration
 * with CERT_EMAIL. The worker's own health check is tested with it (services/worker/test).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { repoRoot } from './helpers/compose.js';
import { freePort, runCheck } from './helpers/processes.js';

const HEALTHCHECK = join(repoRoot, 'compose/healthcheck.mjs');

describe('compose/healthcheck.mjs http', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/ok' ? 200 : req.url === '/loading' ? 503 : 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('passes on 200 only', async () => {
    expect((await runCheck([process.execPath, HEALTHCHECK, 'http', `${base}/ok`], {})).ok).toBe(true);
    const loading = await runCheck([process.execPath, HEALTHCHECK, 'http', `${base}/loading`], {});
    expect(loading).toEqual({ ok: false, output: expect.stringContaining('answered 503') });
  });

  it('fails when nothing listens, and without a URL', async () => {
    const port = await freePort();
    expect(
      (await runCheck([process.execPath, HEALTHCHECK, 'http', `http://127.0.0.1:${port}/`], {})).ok,
    ).toBe(false);
    expect((await runCheck([process.execPath, HEALTHCHECK, 'http'], {})).ok).toBe(false);
    expect((await runCheck([process.execPath, HEALTHCHECK, 'nonsense'], {})).ok).toBe(false);
  });
});

describe('traefik/entrypoint.sh', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'traefik-entrypoint-'));
    // A stand-in `traefik` that prints its arguments and the file it was given.
    const fake = join(dir, 'traefik');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    writeFileSync(fake, '#!/bin/sh\necho "args: $*"\ncat "${1#--configFile=}"\n');
    chmodSync(fake, 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (email: string | undefined) =>
    runCheck(['/bin/sh', join(repoRoot, 'traefik/entrypoint.sh')], {
      PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      STATIC_TEMPLATE: join(repoRoot, 'traefik/traefik.yml'),
      STATIC_CONFIG: join(dir, 'traefik.yml'),
      ...(email === undefined ? {} : { CERT_EMAIL: email }),
    });

  it('runs Traefik with the static configuration, CERT_EMAIL filled in', async () => {
    const result = await run('ops+captions@example.org');
    expect(result.ok).toBe(true);
    expect(result.output).toContain(`args: --configFile=${join(dir, 'traefik.yml')}`);
    const rendered = parse(readFileSync(join(dir, 'traefik.yml'), 'utf8')) as {
      certificatesResolvers: { letsencrypt: { acme: { email: string } } };
    };
    expect(rendered.certificatesResolvers.letsencrypt.acme.email).toBe('ops+captions@example.org');
  });

  it('refuses a missing or unusual e-mail address instead of rendering it', async () => {
    for (const email of [undefined, '', 'not-an-address', 'a@b.org|x', 'a&b@example.org', 'a@b.org\nc: d']) {
      const result = await run(email);
      expect([email, result.ok]).toEqual([email, false]);
      expect(result.output).toContain('CERT_EMAIL must be a plain e-mail address');
    }
  });
});
