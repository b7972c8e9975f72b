export default {
  projects: ['<rootDir>/packages/*', '<rootDir>/services/*'],
  maxWorkers: 2,
};
