/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  maxWorkers: 2,
  testTimeout: 30000,
};
