#!/usr/bin/env node
// Builds the whisper.cpp addon at install time, offline: whisper.cpp comes from the nodejs-whisper
// npm package, Node-API headers from node-api-headers and node-addon-api. A stamp of the inputs
// (our native sources, build options, whisper.cpp version) skips the rebuild when nothing changed.
//
// Environment:
//   WHISPER_CUDA=1           build the CUDA backend (GPU hosts; needs nvcc)
//   WHISPER_CUDA_ARCHITECTURES=...  CMAKE_CUDA_ARCHITECTURES for that build, e.g. "75-real;90-virtual"
//                            (default: ggml's choice; images name theirs so that every GPU they
//                            support gets machine code instead of a driver-side PTX compile)
//   WHISPER_CPU_TARGET=...   native (default: -march=native) | portable (AVX2/FMA/F16C, for images)
//   WHISPER_BUILD_JOBS=N     parallel compile jobs (default: number of cores)
//   WHISPER_FORCE_REBUILD=1  ignore the stamp
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(pkgDir, 'package.json'));
const nativeDir = join(pkgDir, 'native');
const buildDir = join(pkgDir, 'build');
const stampFile = join(buildDir, 'stamp.json');
const addonFile = join(buildDir, 'Release', 'whisper_addon.node');

const whisperDir = join(dirname(require.resolve('nodejs-whisper/package.json')), 'cpp', 'whisper.cpp');
// node-addon-api reports its include dir relative to the current directory.
const includeDirs = [require('node-api-headers').include_dir, resolve(require('node-addon-api').include_dir)];

const cuda = process.env.WHISPER_CUDA === '1';
const cpuTarget = process.env.WHISPER_CPU_TARGET ?? 'native';
if (!['native', 'portable'].includes(cpuTarget)) {
  console.error(`WHISPER_CPU_TARGET must be "native" or "portable", not "${cpuTarget}"`);
  process.exit(1);
}
const cudaArchitectures = process.env.WHISPER_CUDA_ARCHITECTURES ?? '';
if (cudaArchitectures && !/^[0-9]+(-real|-virtual)?(;[0-9]+(-real|-virtual)?)*$/.test(cudaArchitectures)) {
  console.error(
    `WHISPER_CUDA_ARCHITECTURES must look like "75-real;86-real;90-virtual", not "${cudaArchitectures}"`,
  );
  process.exit(1);
}
const jobs = process.env.WHISPER_BUILD_JOBS ?? String(availableParallelism());

const cmakeFlags = [
  '-DCMAKE_BUILD_TYPE=Release',
  `-DWHISPER_CPP_DIR=${whisperDir}`,
  `-DNODE_API_INCLUDE_DIRS=${includeDirs.join(';')}`,
  `-DGGML_CUDA=${cuda ? 'ON' : 'OFF'}`,
  ...(cuda && cudaArchitectures ? [`-DCMAKE_CUDA_ARCHITECTURES=${cudaArchitectures}`] : []),
  ...(cpuTarget === 'native'
    ? ['-DGGML_NATIVE=ON']
    : [
        '-DGGML_NATIVE=OFF',
        '-DGGML_AVX=ON',
        '-DGGML_AVX2=ON',
        '-DGGML_FMA=ON',
        '-DGGML_F16C=ON',
        '-DGGML_BMI2=ON',
      ]),
];

function hashInputs() {
  const hash = createHash('sha256');
  for (const name of readdirSync(nativeDir).sort())
    hash.update(name).update(readFileSync(join(nativeDir, name)));
  hash.update(JSON.stringify(cmakeFlags));
  hash.update(readFileSync(join(whisperDir, 'CMakeLists.txt')));
  hash.update(process.versions.napi ?? '');
  return hash.digest('hex');
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args[0]} failed with exit code ${result.status}`);
}

const stamp = hashInputs();
if (
  process.env.WHISPER_FORCE_REBUILD !== '1' &&
  existsSync(addonFile) &&
  existsSync(stampFile) &&
  JSON.parse(readFileSync(stampFile, 'utf8')).stamp === stamp
) {
  console.log('whisper addon is up to date');
  process.exit(0);
}

const started = Date.now();
mkdirSync(buildDir, { recursive: true });
console.log(
  `building whisper addon (${cuda ? 'CUDA' : 'CPU'}, ${cpuTarget}, ${jobs} jobs) from ${whisperDir}`,
);
try {
  run('cmake', ['-S', nativeDir, '-B', buildDir, ...cmakeFlags]);
  run('cmake', ['--build', buildDir, '--config', 'Release', '--target', 'whisper_addon', '-j', jobs]);
} catch (error) {
  console.error(`whisper addon build failed: ${error.message}`);
  process.exit(1);
}
writeFileSync(
  stampFile,
  JSON.stringify({ stamp, cmakeFlags, seconds: (Date.now() - started) / 1000 }, null, 2),
);
console.log(`whisper addon built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
