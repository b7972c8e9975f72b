import { existsSync, readdirSync } from 'node:fs';

// Every workspace package and service with a jest.config.js, plus the cross-service suites in e2e/.
const projects = ['packages', 'services']
  .flatMap((group) => readdirSync(group).map((name) => `${group}/${name}`))
  .concat('e2e')
  .filter((dir) => existsSync(`${dir}/jest.config.js`))
  .map((dir) => `<rootDir>/${dir}`);

export default {
  projects,
  maxWorkers: 2,
  globalSetup: '<rootDir>/jest.global-setup.mjs',
  globalTeardown: '<rootDir>/jest.global-teardown.mjs',
  testTimeout: 30_000,
};
