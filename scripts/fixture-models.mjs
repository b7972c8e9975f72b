#!/usr/bin/env node
// `pnpm fixtures`: puts the model files the tests need into fixtures/models (git-ignored: models
// are fetched, never committed). Each file of fixtures/models/manifest.json is kept when its
// SHA-256 matches; otherwise it is copied from a local folder (CAPTION_FIXTURE_MODELS, or a
// `shared/models` folder beside the checkout), or downloaded from its pinned source in
// whisper.cpp's repository (or CAPTION_FIXTURE_BASE_URL, a mirror of raw.githubusercontent.com).
// Every file is checked against the manifest before it is renamed
// into place, so the tests never run on a wrong file.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'fixtures/models');
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const localSources = [process.env.CAPTION_FIXTURE_MODELS, join(root, '../shared/models')].filter(Boolean);
// A mirror with raw.githubusercontent.com's layout (<repo>/<commit>/<path>), e.g. behind a proxy.
const rawBase = (process.env.CAPTION_FIXTURE_BASE_URL ?? 'https://raw.githubusercontent.com').replace(
  /\/+$/,
  '',
);

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const fits = (path, entry) => existsSync(path) && sha256(readFileSync(path)) === entry.sha256;

async function fetchSource(entry) {
  const { repo, commit, path } = entry.source;
  const url = `${rawBase}/${repo}/${commit}/${path}`;
  const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

let failed = 0;
for (const entry of manifest) {
  const target = join(dir, entry.file);
  if (fits(target, entry)) continue;
  const local = localSources.map((source) => join(source, entry.file)).find((path) => fits(path, entry));
  try {
    const partial = `${target}.part`;
    if (local) copyFileSync(local, partial);
    else writeFileSync(partial, await fetchSource(entry));
    if (!fits(partial, entry)) {
      rmSync(partial, { force: true });
      throw new Error('SHA-256 differs from fixtures/models/manifest.json');
    }
    renameSync(partial, target);
    console.log(`fixtures/models/${entry.file}: ${local ? `copied from ${dirname(local)}` : 'downloaded'}`);
  } catch (error) {
    failed += 1;
    console.error(`fixtures/models/${entry.file}: ${error.message}`);
  }
}
if (failed > 0) {
  console.error(
    '\nThe tests need these model files. Without network access to github.com, put them in a folder and set CAPTION_FIXTURE_MODELS to it.',
  );
  process.exit(1);
}
