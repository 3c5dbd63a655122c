/**
 * Which database run a file belongs to. `npm test` runs every file on the embedded PGlite; CI runs
 * them again with DATABASE_URL set (PostgreSQL).
 * - `describeOnPostgres`: what only proves its point with real connections (several nodes,
 *   concurrency, kill -9); skipped on PGlite.
 * - `describeOnEmbedded`: what always runs on the embedded database, whatever DATABASE_URL says
 *   (npm start as a user runs it, the bench's quick mode); run once, in the PGlite run.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

export const describeOnPostgres = onPostgres ? describe : describe.skip;
export const describeOnEmbedded = onPostgres ? describe.skip : describe;
