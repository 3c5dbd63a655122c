/**
 * Two tiers (test/README.md says which a new test belongs to):
 * - unit: `*.unit.test.ts`, no database and no server; `npm run test:unit`, under a minute.
 * - service: every other file, each starting the real service (test/support/app.ts).
 * `npm test` runs both; `--selectProjects unit` or `service` runs one.
 */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  testTimeout: 30000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.unit.test.ts'],
      transform,
    },
    {
      displayName: 'service',
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['\\.unit\\.test\\.ts$'],
      transform,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/setup-service.ts'],
    },
  ],
};
