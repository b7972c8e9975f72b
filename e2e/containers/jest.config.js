import { preset } from '../../jest.preset.js';

// `pnpm test:containers` only (run.sh): the images built and the stack run in Docker. Not part of
// `pnpm test` (e2e/jest.config.js leaves this folder out): it needs root and a Docker engine, and
// takes minutes.
export default preset(import.meta.dirname, {
  testMatch: ['<rootDir>/*.test.ts'],
  setupFiles: ['<rootDir>/one-connection-per-request.ts'],
  testTimeout: 30 * 60_000,
});
