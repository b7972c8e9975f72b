/**
 * `docker compose up` for real (`pnpm test:containers`, after prepare.sh): every project image
 * built with the project's own command (`make build`), then the stack run twice on one Docker
 * engine, side by side - the local trial (`make local-secrets local-up`, reached through its
 * published ports) and production (`make secrets`, the README's compose command without Traefik,
 * whose image cannot be had here; the test plays Traefik from a container at its fixed address on
 * the edge network). The synthetic model (always says "test") is placed in each models volume and
 * the workers run with CAPTION_OFFLINE=1. `make down` of production must leave the local stack
 * running; at the end both go `down -v`, and nothing of theirs may remain.
 *
 * The stacks run from a copy of the working tree (tracked and unignored files), so that the
 * secrets and env files the operator's steps write never land in the checkout.
 */

import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  cleanUp,
  copyWorkingTree,
  figures,
  IMAGES,
  imageIds,
  LOCAL_PROJECT,
  MODEL_FILE,
  must,
  NODE_IMAGES,
  repoRoot,
  work,
} from './harness.js';
import { describeLocalTrial } from './local-trial.js';
import { describeProduction } from './production.js';

beforeAll(() => {
  copyWorkingTree();
  // Leftovers of an interrupted earlier run would make the stacks meet old state.
  cleanUp();
});

afterAll(() => {
  cleanUp();
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`\ncontainer test figures:\n${figures.map((line) => `  ${line}`).join('\n')}\n`);
});

/** The images as `make build` left them: what every later `make ... up` must reuse as they are. */
let built: Record<string, string> = {};

describe('the images', () => {
  it('build with `make build`, one at a time, on the current Node LTS', () => {
    expect(existsSync(join(repoRoot, 'models', MODEL_FILE))).toBe(true);
    for (const image of IMAGES) {
      const started = Date.now();
      must('make', ['build', `IMAGES=${image}`, `PROJECT=${LOCAL_PROJECT}`, 'ENV_FILE=compose/local.env']);
      const seconds = (Date.now() - started) / 1000;
      const bytes = Number(
        must('docker', ['image', 'inspect', '--format', '{{.Size}}', `live-captions/${image}:latest`]),
      );
      figures.push(`${image}: built in ${seconds.toFixed(0)} s, ${(bytes / 1e6).toFixed(0)} MB`);
      const user = must('docker', [
        'image',
        'inspect',
        '--format',
        '{{.Config.User}}',
        `live-captions/${image}:latest`,
      ]);
      if (!NODE_IMAGES.includes(image)) {
        // Debian's APy, as the package's own unprivileged user.
        expect([image, user.trim()]).toEqual([image, 'apertium']);
        continue;
      }
      const node = must('docker', [
        'run',
        '--rm',
        '--entrypoint',
        'node',
        `live-captions/${image}:latest`,
        '--version',
      ]);
      expect([image, node.trim()]).toEqual([image, expect.stringMatching(/^v24\./)]);
      expect([image, user.trim()]).toEqual([image, '1000:1000']);
    }
  });

  it('rebuild after a source change without compiling whisper.cpp again', () => {
    const before = imageIds();
    // Unique per run: the same change as an earlier run's would come from the cache entirely.
    const change = `// a change outside packages/whisper: ${randomBytes(8).toString('hex')}\n`;
    appendFileSync(join(work, 'services/worker/src/index.ts'), change);
    const started = Date.now();
    const output = must('make', [
      'build',
      'IMAGES=worker',
      `PROJECT=${LOCAL_PROJECT}`,
      'ENV_FILE=compose/local.env',
    ]);
    figures.push(`worker: rebuilt after a source change in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(imageIds().worker).not.toBe(before.worker);
    expect(output).not.toContain('building whisper addon');
    expect(output).toContain('whisper addon is up to date');
    // The other images take the whole tree as their context too: bring them up to date.
    must('make', ['build', `PROJECT=${LOCAL_PROJECT}`, 'ENV_FILE=compose/local.env']);
    built = imageIds();
  });
});

describeLocalTrial(() => built);
describeProduction();
