import { preset } from '../jest.preset.js';

// Cross-service suites, one folder each (deploy/, browser/, ...).
export default preset(import.meta.dirname, { testMatch: ['<rootDir>/*/**/*.test.ts'] });
