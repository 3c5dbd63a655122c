/**
 * `npm run bench:plans` (PostgreSQL, DATABASE_URL): the plan of every statement each tool runs,
 * as PostgreSQL ran it (EXPLAIN ANALYZE with buffers, through auto_explain), in a company of the
 * bench's size with a history behind every job (test/support/scaling). Written to
 * docs/query-plans.md, so that a change in a tool's plans shows in review.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureCompany, withDatabase } from '../test/support/scaling/measure';
import { planText } from '../test/support/scaling/plans';

const JOBS = 34_000;

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl)
    throw new Error('bench:plans needs DATABASE_URL (a PostgreSQL server whose user may create databases)');
  const figures = await withDatabase(databaseUrl, 'jms_plans', (url) => measureCompany(url, JOBS));
  const lines = [
    '# Query plans of every tool',
    '',
    `Made by \`npm run bench:plans\` on ${new Date().toISOString().slice(0, 10)}: a company of ${JOBS.toLocaleString('en-US')} jobs, each with its customer, three notes, two photos, feed entries and an undo record, and on every third an estimate and a drying log with readings (\`test/support/scaling/filler.ts\`). Each request is about a probe job made through the API. PostgreSQL's own plans (auto_explain, ANALYZE and BUFFERS), nested statements included: foreign-key checks and triggers. "rows" is what a node returned in each loop, "removed" what its filter read and dropped, "buffers" the pages it touched.`,
    '',
    '| tool | statements | rows read | buffers |',
    '|---|---:|---:|---:|',
    ...[...figures.values()].map((f) => `| ${f.name} | ${f.statements} | ${f.rowsRead} | ${f.buffers} |`),
    '',
  ];
  for (const f of figures.values()) {
    lines.push(`## ${f.name}`, '');
    for (const plan of f.plans)
      lines.push(
        '```',
        plan.query.replace(/\s+/g, ' ').trim().slice(0, 600),
        ...planText(plan.plan),
        '```',
        '',
      );
  }
  const file = path.resolve(__dirname, '..', 'docs', 'query-plans.md');
  writeFileSync(file, `${lines.join('\n')}\n`);
  console.log(`written: ${path.relative(process.cwd(), file)} (${figures.size} tools)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
