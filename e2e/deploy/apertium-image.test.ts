/**
 * The Apertium image (compose/apertium.Dockerfile): Apertium APy and the language pairs from a
 * pinned Debian's packages, run as an unprivileged user behind the launcher that keeps the caption
 * text out of its access log, checked by /listPairs in the image and in compose.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { composeConfig, environmentOf, healthcheckArgv, repoRoot } from './helpers/compose.js';
import { finalUser, imageStage, isRootUser, parseDockerfile, stageEnv } from './helpers/dockerfile.js';

const dockerfile = parseDockerfile(readFileSync(join(repoRoot, 'compose/apertium.Dockerfile'), 'utf8'));

describe('compose/apertium.Dockerfile (Apertium APy from Debian packages)', () => {
  const final = imageStage(dockerfile);
  const keywords = (keyword: string) => final.instructions.filter((item) => item.keyword === keyword);

  it('installs apertium-apy and the pairs of APERTIUM_PAIRS (English-Spanish and -Catalan by default) on a pinned Debian', () => {
    expect(final.from).toBe('debian:bookworm-slim');
    const pairs = final.instructions.find(
      (item) => item.keyword === 'ARG' && item.args.startsWith('APERTIUM_PAIRS='),
    );
    expect(pairs?.args).toBe('APERTIUM_PAIRS="apertium-eng-spa apertium-eng-cat"');
    const runs = keywords('RUN')
      .map((item) => item.args)
      .join('\n');
    expect(runs).toMatch(/apt-get install -y --no-install-recommends apertium-apy \$\{APERTIUM_PAIRS\}/);
    expect(runs).toContain('rm -rf /var/lib/apt/lists/*');
    // Through the launcher whose access log leaves out the query (the caption text).
    expect(keywords('COPY').map((item) => item.args)).toContain(
      'packages/apertium/src/apertium-loopback.py /usr/local/lib/apertium-serve.py',
    );
    expect(keywords('CMD').at(-1)?.args).toContain('python3 /usr/local/lib/apertium-serve.py 0.0.0.0');
  });

  it('runs as the unprivileged apertium user, checked by /listPairs in the image and in compose', () => {
    const user = finalUser(final);
    expect(user).toBe('apertium');
    expect(isRootUser(user!)).toBe(false);
    const config = composeConfig();
    expect(keywords('HEALTHCHECK').at(-1)?.args).toContain('/usr/local/bin/apertium-health');
    expect(healthcheckArgv(config.services.apertium!)).toEqual(['python3', '/usr/local/bin/apertium-health']);
    expect(readFileSync(join(repoRoot, 'compose/apertium-health.py'), 'utf8')).toContain('/listPairs');
    // The port the outputs service is given.
    expect(stageEnv(final).APERTIUM_PORT).toBe('2737');
    expect(environmentOf(config.services.outputs!).OUTPUTS_APERTIUM_URL).toBe('http://apertium:2737');
  });
});
