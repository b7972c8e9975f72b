// Shared by every package's jest.config.js: TypeScript through SWC as native ESM, workspace
// packages resolved to their sources (the `@live-captions/source` export condition of their
// package.json, as for tsc and `node --conditions`) so tests never depend on a prior build.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

/** @param {string} dir  the package directory */
export function preset(dir, overrides = {}) {
  return {
    rootDir: dir,
    displayName: dir.slice(root.length),
    testEnvironment: 'node',
    // jest-environment-node's own conditions, plus the workspace's source condition.
    testEnvironmentOptions: { customExportConditions: ['node', 'node-addons', '@live-captions/source'] },
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
      ],
    },
    moduleNameMapper: {
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
    ...overrides,
  };
}
