// `pnpm fixtures` on a clone that has no model files and no ../shared beside it: each file comes
// from its pinned path in whisper.cpp's repository, SHA-256 checked. The test serves that layout
// (<repo>/<commit>/<path>, as raw.githubusercontent.com does) from loopback, with the real files
// or with a corrupt one, and runs the real script in a bare copy of the repository's layout.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FixtureEntry, fixturesDir, modelsDir, modelsManifest } from '../src/fixtures.js';

const repoRoot = join(fixturesDir, '..');
const entries = modelsManifest() as (FixtureEntry & { source: { repo: string; commit: string } })[];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Serves each manifest entry at its source path; `corrupt` names a file served with a flipped byte. */
async function mirror(corrupt?: string): Promise<{ url: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const entry = entries.find((e) => req.url === `/${e.source.repo}/${e.source.commit}/${e.source.path}`);
    if (!entry) return void res.writeHead(404).end();
    const bytes = Buffer.from(readFileSync(join(modelsDir, entry.file)));
    if (entry.file === corrupt) bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    res.writeHead(200, { 'Content-Length': bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests, server };
}

/** A bare repository layout: the script and the manifest, no model files, nothing beside it. */
function bareClone(): string {
  const root = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
  mkdirSync(join(root, 'repo/scripts'), { recursive: true });
  mkdirSync(join(root, 'repo/fixtures/models'), { recursive: true });
  copyFileSync(join(repoRoot, 'scripts/fixture-models.mjs'), join(root, 'repo/scripts/fixture-models.mjs'));
  copyFileSync(join(modelsDir, 'manifest.json'), join(root, 'repo/fixtures/models/manifest.json'));
  return root;
}

/** Runs the script as a child (asynchronously: the mirror answers from this process). */
function runFixtures(
  root: string,
  baseUrl: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CAPTION_FIXTURE_BASE_URL: baseUrl };
  delete env.CAPTION_FIXTURE_MODELS;
  const child = spawn(process.execPath, [join(root, 'repo/scripts/fixture-models.mjs')], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('pnpm fixtures on a fresh clone', () => {
  it('downloads every model file from its pinned path and checks it', async () => {
    const { url, requests, server } = await mirror();
    const root = bareClone();
    try {
      const run = await runFixtures(root, url);
      expect(run.status).toBe(0);
      const dir = join(root, 'repo/fixtures/models');
      for (const entry of entries) {
        expect([entry.file, sha256(readFileSync(join(dir, entry.file)))]).toEqual([entry.file, entry.sha256]);
        expect(run.stdout).toContain(`fixtures/models/${entry.file}: downloaded`);
      }
      expect(requests).toHaveLength(entries.length);
      // A second run finds them in place and asks for nothing.
      expect((await runFixtures(root, url)).status).toBe(0);
      expect(requests).toHaveLength(entries.length);
    } finally {
      server.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses a file whose SHA-256 differs, keeps nothing of it, and says how to proceed offline', async () => {
    const corrupt = entries[0]!.file;
    const { url, server } = await mirror(corrupt);
    const root = bareClone();
    try {
      const run = await runFixtures(root, url);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        `fixtures/models/${corrupt}: SHA-256 differs from fixtures/models/manifest.json`,
      );
      expect(run.stderr).toContain('CAPTION_FIXTURE_MODELS');
      const left = readdirSync(join(root, 'repo/fixtures/models'));
      expect(left).not.toContain(corrupt);
      expect(left.filter((file) => file.endsWith('.part'))).toEqual([]);
      expect(existsSync(join(root, 'repo/fixtures/models', entries[1]!.file))).toBe(true);
    } finally {
      server.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
