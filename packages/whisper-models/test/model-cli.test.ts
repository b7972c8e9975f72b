import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/catalog.js';
import { SHA1, sendFile, startServer, useScratch } from './helpers/model-server.js';

const scratch = useScratch();

describe('pnpm model (CLI)', () => {
  const tsx = join(repoRoot, 'node_modules/.bin/tsx');
  const script = join(repoRoot, 'packages/whisper-models/scripts/model.ts');

  function cli(args: string[], env: Record<string, string> = {}) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
      const child = spawn(tsx, [script, ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, CAPTION_MODEL_DIR: scratch.dir, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('error', fail);
      child.on('close', (code) => done({ code, stdout, stderr }));
    });
  }

  it('lists the catalog with sizes and SHA-1', async () => {
    const { code, stdout } = await cli(['--list']);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^ {2}base\.en +142 MiB +137c40403d78fd54d454da0f9bd998f78703390c +English-only$/m,
    );
    expect(stdout).toMatch(/large-v3-turbo-q5_0/);
  }, 30_000);

  it('exits 2 with the valid names on an unknown model or option', async () => {
    const unknown = await cli(['large-v9']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown model "large-v9": use one of tiny, tiny\.en, base,/);
    const option = await cli(['--frobnicate']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/Unknown option --frobnicate/);
  }, 30_000);

  it('exits 1 and names both digests when a download does not verify', async () => {
    scratch.server = await startServer((req, res) => sendFile(req, res));
    const { code, stdout, stderr } = await cli(['tiny'], { CAPTION_MODEL_BASE_URL: scratch.server.url });
    expect(code).toBe(1);
    expect(stdout).toMatch(/100\.0% +3\.0\/3\.0 MiB/); // plain progress lines when not a TTY
    expect(stderr).toMatch(`expected SHA-1 bd577a113a864445d4c299885e0cb97d4ba92b5f, got ${SHA1}`);
    expect(readdirSync(scratch.dir)).toEqual([]);
  }, 30_000);

  it('--verify exits 1 on a corrupt file and 0 when nothing is there to check', async () => {
    const empty = await cli(['--verify']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/No models in /);
    writeFileSync(join(scratch.dir, 'ggml-tiny.bin'), 'garbage');
    const { code, stdout, stderr } = await cli(['--verify']);
    expect(code).toBe(1);
    expect(`${stdout}${stderr}`).toMatch(/ggml-tiny\.bin: SHA-1 mismatch/);
  }, 30_000);
});
