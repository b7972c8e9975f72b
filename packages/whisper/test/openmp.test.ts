import { spawnSync } from 'node:child_process';
import { FROM_SOURCE } from '@live-captions/test-services';
import {
  checkSpinCount,
  DEFAULT_SPIN_COUNT,
  LIBGOMP_SPIN_COUNT,
  libgompEnvironment,
  MAX_SPIN_COUNT,
} from '../src/openmp.js';
import { repoRoot } from './fixtures.js';

describe('the decode threads’ spin count', () => {
  it('is ours unless configured, and goes to libgomp as GOMP_SPINCOUNT', () => {
    expect(DEFAULT_SPIN_COUNT).toBeLessThan(LIBGOMP_SPIN_COUNT);
    expect(libgompEnvironment(DEFAULT_SPIN_COUNT, false, {})).toEqual({
      variables: { GOMP_SPINCOUNT: String(DEFAULT_SPIN_COUNT) },
      setting: { spinCount: DEFAULT_SPIN_COUNT, from: 'default' },
    });
    expect(libgompEnvironment(0, true, {})).toEqual({
      variables: { GOMP_SPINCOUNT: '0' },
      setting: { spinCount: 0, from: 'configured' },
    });
  });

  it('leaves libgomp alone when the operator set its own variables', () => {
    expect(libgompEnvironment(DEFAULT_SPIN_COUNT, true, { GOMP_SPINCOUNT: '77' })).toEqual({
      variables: {},
      setting: { spinCount: 77, from: 'GOMP_SPINCOUNT' },
    });
    expect(libgompEnvironment(DEFAULT_SPIN_COUNT, false, { OMP_WAIT_POLICY: 'active' })).toEqual({
      variables: {},
      setting: { spinCount: null, from: 'OMP_WAIT_POLICY' },
    });
  });

  it('is a whole number of spins within libgomp’s range', () => {
    expect(checkSpinCount(0)).toBe(0);
    expect(checkSpinCount(MAX_SPIN_COUNT)).toBe(MAX_SPIN_COUNT);
    for (const wrong of [-1, 1.5, Number.NaN, MAX_SPIN_COUNT + 1]) {
      expect(() => checkSpinCount(wrong)).toThrow(RangeError);
    }
  });
});

/**
 * A fresh process loads the addon and libgomp prints the settings it read (OMP_DISPLAY_ENV):
 * the only way to see what libgomp took, as it reads its environment once, while loading.
 */
function libgompSettings(script: string, env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(process.execPath, [...FROM_SOURCE, '--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { ...process.env, GOMP_SPINCOUNT: '', OMP_WAIT_POLICY: '', ...env, OMP_DISPLAY_ENV: 'verbose' },
    encoding: 'utf8',
  });
  expect(run.stderr).not.toMatch(/Error/);
  return {
    spinCount: /GOMP_SPINCOUNT = '(\d+)'/.exec(run.stderr)?.[1],
    printed: run.stdout.trim(),
  };
}

describe('loading the addon', () => {
  const load = (before = '') =>
    `import * as w from '@live-captions/whisper';${before} w.engineBuildInfo(); ` +
    'console.log(JSON.stringify({ left: process.env.GOMP_SPINCOUNT ?? null, spin: w.currentSpinSetting() }));';

  it('hands libgomp our spin count and takes it out of the environment again', () => {
    const { spinCount, printed } = libgompSettings(load());
    expect(spinCount).toBe(String(DEFAULT_SPIN_COUNT));
    // children (ffmpeg, whisper-cli) keep their own defaults
    expect(JSON.parse(printed)).toEqual({
      left: null,
      spin: { spinCount: DEFAULT_SPIN_COUNT, from: 'default' },
    });
  });

  it('hands libgomp the configured count, set before the first load; later it cannot change', () => {
    const script = `${load(' w.setSpinCount(1234);')} console.log(JSON.stringify(w.setSpinCount(5)));`;
    const { spinCount, printed } = libgompSettings(script);
    expect(spinCount).toBe('1234');
    const [loaded, later] = printed.split('\n').map((line) => JSON.parse(line));
    expect(loaded.spin).toEqual({ spinCount: 1234, from: 'configured' });
    expect(later).toEqual({ spinCount: 1234, from: 'configured' });
  });

  it('leaves an operator’s GOMP_SPINCOUNT in force', () => {
    const { spinCount, printed } = libgompSettings(load(' w.setSpinCount(1234);'), { GOMP_SPINCOUNT: '77' });
    expect(spinCount).toBe('77');
    expect(JSON.parse(printed).spin).toEqual({ spinCount: 77, from: 'GOMP_SPINCOUNT' });
  });
});
