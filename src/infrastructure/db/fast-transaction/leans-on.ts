/**
 * The versions of the packages the fast transaction was written and measured against. A test
 * (test/platform/fast-path-versions.unit.test.ts) fails when the installed ones differ: pg's
 * pipeline mode and knex's `.connection()` are public, but what they cost and how they behave
 * together was measured on these.
 */
export const FAST_TRANSACTION_MEASURED_ON = { knex: '3.3.0', pg: '8.23.1' } as const;
