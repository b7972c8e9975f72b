/**
 * Every image: multi-stage, a pinned base on the current Node LTS, a lockfile-exact build that
 * downloads only in `pnpm fetch` and runs offline after it, pnpm deploy of only the service's
 * production dependencies, a non-root user, a health check (in the image or in compose), and
 * nothing secret or heavy in the build context. The images are built and run for real by
 * e2e/containers (`pnpm test:containers`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ComposeConfig,
  composeConfig,
  environmentOf,
  HOSTS,
  healthcheckArgv,
  repoRoot,
} from './helpers/compose.js';
import {
  type Dockerfile,
  finalUser,
  imageStage,
  isRootUser,
  parseDockerfile,
  stageEnv,
} from './helpers/dockerfile.js';

/** The HTTP services' check script (compose/healthcheck.mjs), and the worker's own command. */
const HTTP_CHECK = '/app/healthcheck.mjs';
const WORKER_CHECK = '/app/dist/health.js';

/** The four plain Node services share one Dockerfile: one target each, built for its package. */
const NODE_SERVICES = 'services/node-services.Dockerfile';

const IMAGES = [
  { service: 'speech', dockerfile: 'services/speech/Dockerfile', port: '8765', health: HTTP_CHECK },
  { service: 'relay', dockerfile: NODE_SERVICES, target: 'relay', port: '8080', health: HTTP_CHECK },
  { service: 'ui', dockerfile: NODE_SERVICES, target: 'ui', port: '8081', health: HTTP_CHECK },
  { service: 'calendar', dockerfile: NODE_SERVICES, target: 'calendar', port: '8082', health: HTTP_CHECK },
  { service: 'outputs', dockerfile: NODE_SERVICES, target: 'outputs', port: '8083', health: HTTP_CHECK },
  // The HTTP API, then the push listeners (RTMP, the SRT sources' UDP range), published by compose.
  {
    service: 'sources',
    dockerfile: NODE_SERVICES,
    target: 'sources',
    port: '8084',
    expose: ['8084', '1935 9000-9015/udp'],
    health: HTTP_CHECK,
  },
  { service: 'worker', dockerfile: 'services/worker/Dockerfile', port: undefined, health: WORKER_CHECK },
  { service: 'worker', dockerfile: 'services/worker/Dockerfile.cuda', port: undefined, health: WORKER_CHECK },
] as {
  service: string;
  dockerfile: string;
  target?: string;
  port: string | undefined;
  expose?: string[];
  health: string;
}[];

/** The Node major of the images: the current LTS line (24 from October 2025 to October 2026, then 24 stays maintenance-LTS until April 2028). */
const NODE_LTS = '24';

const read = (path: string): Dockerfile => parseDockerfile(readFileSync(join(repoRoot, path), 'utf8'));

describe('service images', () => {
  let config: ComposeConfig;
  beforeAll(() => {
    config = composeConfig();
  });

  for (const image of IMAGES) {
    describe(image.target ? `${image.dockerfile} --target ${image.target}` : image.dockerfile, () => {
      const dockerfile = read(image.dockerfile);
      const final = imageStage(dockerfile, image.target);
      const keywords = (keyword: string) => final.instructions.filter((item) => item.keyword === keyword);

      it('runs as a non-root user (uid 1000)', () => {
        const user = finalUser(final);
        expect(user).toBeDefined();
        expect(isRootUser(user!)).toBe(false);
        expect(user).toBe('1000:1000');
      });

      it('has a health check in the image or in compose', () => {
        const inImage = keywords('HEALTHCHECK').at(-1);
        const inCompose = healthcheckArgv(config.services[image.service]!);
        expect(inImage !== undefined && !/^NONE\b/i.test(inImage.args)).toBe(true);
        expect(inCompose).toBeDefined();
        // The image's check and compose's use the same script.
        expect(inImage!.args).toContain(image.health);
        expect(inCompose!.join(' ')).toContain(image.health);
      });

      it('builds in a separate stage and ships only the pnpm deploy output', () => {
        expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
        const build = dockerfile.stages.find((stage) => stage.name === 'build')!;
        // The build arguments compose passes (SERVICE for the shared Dockerfile) filled in.
        const buildArgs = config.services[image.service]!.build?.args ?? {};
        const runs = build.instructions
          .filter((item) => item.keyword === 'RUN')
          .map((item) => item.args.replace(/\$\{(\w+)\}/g, (text, name: string) => buildArgs[name] ?? text));
        const service = `@live-captions/${image.service}`;
        // The first pnpm step (the only one that downloads) is the fetch from the lockfile.
        expect(runs.find((args) => /\bpnpm /.test(args))).toBe('pnpm fetch --frozen-lockfile');
        expect(runs.join('\n')).toContain(`--filter "${service}..."`);
        // Legacy deploy re-resolves ranges (and fails offline); the injected deploy takes every
        // version from the lockfile.
        expect(runs.join('\n')).toContain(
          `pnpm --config.inject-workspace-packages=true --filter ${service} deploy --prod --offline --ignore-scripts /out`,
        );
        expect(runs.join('\n')).not.toContain('--legacy');
        // After the fetch nothing downloads: every install is frozen and offline.
        for (const run of runs.filter((args) => /pnpm (install|deploy)|\bdeploy\b/.test(args))) {
          for (const part of run.split('&&').filter((args) => /pnpm .*\b(install|deploy)\b/.test(args))) {
            expect(part).toContain('--offline');
          }
        }
        const copies = keywords('COPY').map((item) => item.args);
        expect(copies).toContain('--from=build /out /app');
        // The final stage copies nothing else from the context but the HTTP health check script
        // (the worker's check is part of its build).
        expect(copies.filter((args) => !args.startsWith('--from='))).toEqual(
          image.health === HTTP_CHECK ? ['compose/healthcheck.mjs /app/healthcheck.mjs'] : [],
        );
      });

      it('starts from pinned base images', () => {
        const args = Object.fromEntries(
          dockerfile.globalArgs.map((arg) => {
            const [key, value = ''] = arg.args.split('=');
            return [key, value];
          }),
        );
        expect(args.NODE_VERSION).toBe(NODE_LTS);
        for (const stage of dockerfile.stages) {
          const from = stage.from.replace(/\$\{(\w+)\}/g, (_, name: string) => args[name] ?? '');
          const named = dockerfile.stages.some((other) => other.name === from);
          if (!named) expect([stage.from, from]).toEqual([stage.from, expect.stringMatching(/:[^:]+$/)]);
          expect(from).not.toMatch(/:latest$/);
        }
      });

      if (image.port) {
        it('listens on all interfaces on the port compose routes to', () => {
          const env = stageEnv(final);
          const prefix = Object.keys(env)
            .find((key) => key.endsWith('_BIND'))!
            .replace(/_BIND$/, '');
          expect(env[`${prefix}_BIND`]).toBe('0.0.0.0');
          expect(env[`${prefix}_PORT`]).toBe(image.port);
          expect(keywords('EXPOSE').map((item) => item.args)).toEqual(image.expose ?? [image.port]);
          expect(environmentOf(config.services[image.service]!)[`${prefix}_PORT`]).toBe(image.port);
        });
      }
    });
  }

  it('builds whisper.cpp for a portable CPU in the CPU worker image', () => {
    const dockerfile = read('services/worker/Dockerfile');
    const build = dockerfile.stages.find((stage) => stage.name === 'build')!;
    expect(stageEnv(build)).toMatchObject({ WHISPER_CPU_TARGET: 'portable', WHISPER_CUDA: '0' });
    const runs = build.instructions.map((item) => item.args).join('\n');
    for (const tool of ['cmake', 'g++', 'make', 'python3']) expect(runs).toContain(` ${tool}`);
    // The addon must be in the deployed package.
    expect(runs).toContain('whisper_addon.node');
    const final = dockerfile.stages.at(-1)!;
    expect(final.from).toMatch(/^node:/);
    expect(stageEnv(final).CAPTION_MODEL_DIR).toBe('/models');
  });

  for (const file of ['services/worker/Dockerfile', 'services/worker/Dockerfile.cuda']) {
    it(`${file}: compiles whisper.cpp in a layer that only packages/whisper and the lockfile feed`, () => {
      const build = read(file).stages.find((stage) => stage.name === 'build')!;
      const steps = build.instructions.filter((item) => item.keyword === 'COPY' || item.keyword === 'RUN');
      const addon = steps.findIndex(
        (item) => item.keyword === 'RUN' && item.args.includes('--filter @live-captions/whisper'),
      );
      const everything = steps.findIndex((item) => item.keyword === 'COPY' && item.args === '. .');
      expect(addon).toBeGreaterThan(0);
      expect(everything).toBeGreaterThan(addon);
      const copiedBefore = steps
        .slice(0, addon)
        .filter((item) => item.keyword === 'COPY' && !item.args.startsWith('--from='))
        .flatMap((item) => item.args.split(' ').slice(0, -1));
      for (const source of copiedBefore) {
        expect([
          source,
          /^(package\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml|packages\/whisper\/.+)$/.test(source),
        ]).toEqual([source, true]);
      }
    });
  }

  it('builds whisper.cpp with CUDA on an NVIDIA CUDA base in the GPU worker image', () => {
    const dockerfile = read('services/worker/Dockerfile.cuda');
    const build = dockerfile.stages.find((stage) => stage.name === 'build')!;
    expect(build.from).toMatch(/^nvidia\/cuda:.*-devel-/);
    expect(stageEnv(build)).toMatchObject({ WHISPER_CUDA: '1' });
    // Machine code for T4 (sm_75) through H100 (sm_90), and PTX for what comes after.
    const architectures = stageEnv(build).WHISPER_CUDA_ARCHITECTURES!.split(';');
    for (const sm of ['75', '80', '86', '89', '90']) expect(architectures).toContain(`${sm}-real`);
    expect(architectures.some((arch) => arch.endsWith('-virtual'))).toBe(true);
    const final = dockerfile.stages.at(-1)!;
    expect(final.from).toMatch(/^nvidia\/cuda:.*-runtime-/);
    const env = stageEnv(final);
    expect(env.CAPTION_MODEL_DIR).toBe('/models');
    // The driver's compute cache is written to the models volume (the root is read-only).
    expect(env.CUDA_CACHE_PATH!.startsWith('/models/')).toBe(true);
  });

  it('never bakes models, secrets or local builds into an image (.dockerignore)', () => {
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    // At any depth: a pattern without **/ matches at the context root only.
    for (const entry of [
      '**/models',
      '**/secrets',
      '**/node_modules',
      '**/dist',
      '**/build',
      '.git',
      '**/.env.*',
    ]) {
      expect(ignored).toContain(entry);
    }
    for (const image of IMAGES) {
      const text = readFileSync(join(repoRoot, image.dockerfile), 'utf8');
      expect([image.dockerfile, /COPY[^\n]*\b(models|secrets)\//.test(text)]).toEqual([
        image.dockerfile,
        false,
      ]);
    }
    expect(existsSync(join(repoRoot, 'compose/healthcheck.mjs'))).toBe(true);
  });

  it('gives compose a build for every image it names, and the GPU overlay the CUDA file', () => {
    for (const image of IMAGES.filter((item) => !item.dockerfile.endsWith('.cuda'))) {
      const build = config.services[image.service]!.build;
      expect(build?.dockerfile).toBe(image.dockerfile);
      expect(build?.context).toBe(repoRoot);
      expect(build?.target).toBe(image.target);
      // The shared Dockerfile's build stage builds the package its target is the image of.
      if (image.target) expect(build?.args).toEqual({ SERVICE: image.target });
    }
    expect(composeConfig(HOSTS, ['gpu']).services.worker!.build?.dockerfile).toBe(
      'services/worker/Dockerfile.cuda',
    );
  });
});
