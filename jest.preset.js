// Shared by every package's jest.config.js: TypeScript through SWC as native ESM, workspace
// packages resolved to their sources so tests never depend on a prior build.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

/** @param {string} dir  the package directory */
export function preset(dir, overrides = {}) {
  return {
    rootDir: dir,
    displayName: dir.slice(root.length),
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
      ],
    },
    moduleNameMapper: {
      '^@live-captions/([a-z-]+)$': `${root}packages/$1/src/index.ts`,
      // Subpath exports (`@live-captions/relay-client/node`) name their source file in each package.json.
      '^@live-captions/([a-z-]+)/([a-z-]+)$': `${root}packages/$1/src/$2.ts`,
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
    ...overrides,
  };
}
