import { preset } from '../jest.preset.js';

// Cross-service suites, one folder each (deploy/, browser/, ...). containers/ runs on its own
// (`pnpm test:containers`, e2e/containers/jest.config.js): it needs root and a Docker engine.
export default preset(import.meta.dirname, {
  testMatch: ['<rootDir>/*/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/containers/'],
});
