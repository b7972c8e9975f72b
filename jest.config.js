export default {
  projects: ['<rootDir>/packages/*', '<rootDir>/services/*'],
  maxWorkers: 2,
  testTimeout: 30_000,
};
