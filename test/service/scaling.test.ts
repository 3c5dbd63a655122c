/**
 * The scaling gate: each write tool and the main reads, in a company of 1,000 jobs and in one of
 * 30,000, on PostgreSQL. What a request reads (rows of tables, from the plans PostgreSQL ran)
 * must not be more than 3× larger in the big company: work done, not time, so that a busy
 * machine cannot decide it. On PGlite there is no server to measure: skipped.
 */
import { measureCompany, withDatabase, type CaseFigures } from '../support/scaling/measure';
import { planText } from '../support/scaling/plans';
import { describeOnPostgres } from '../support/databases';

const databaseUrl = process.env.DATABASE_URL;
const SMALL = 1_000;
const LARGE = 30_000;
const MAX_RATIO = 3;

function report(small: Map<string, CaseFigures>, large: Map<string, CaseFigures>): string[] {
  const lines = [`case${' '.repeat(34)}statements  rows read at ${SMALL} → ${LARGE}  buffers`];
  for (const [name, one] of small) {
    const big = large.get(name)!;
    lines.push(
      `${name.padEnd(38)}${String(big.statements).padStart(10)}  ${String(one.rowsRead).padStart(14)} → ${String(big.rowsRead).padEnd(8)}  ${one.buffers} → ${big.buffers}`,
    );
  }
  return lines;
}

describeOnPostgres('scaling gate (PostgreSQL)', () => {
  jest.setTimeout(240_000);

  test(`no request reads more than ${MAX_RATIO}× as much at ${LARGE} jobs as at ${SMALL}`, async () => {
    const suffix = `${process.pid}`;
    const small = await withDatabase(databaseUrl!, `jms_scale_small_${suffix}`, (url) =>
      measureCompany(url, SMALL),
    );
    const large = await withDatabase(databaseUrl!, `jms_scale_large_${suffix}`, (url) =>
      measureCompany(url, LARGE),
    );
    const grown = [...small.values()].filter(
      (one) => large.get(one.name)!.rowsRead > MAX_RATIO * Math.max(one.rowsRead, 1),
    );
    const details = grown.flatMap((one) => [
      `\n${one.name}:`,
      ...large
        .get(one.name)!
        .plans.flatMap((p) => [`  ${p.query.replace(/\s+/g, ' ').slice(0, 300)}`, ...planText(p.plan, 2)]),
    ]);
    console.log([...report(small, large), ...details].join('\n'));
    expect(
      grown.map((one) => `${one.name}: ${one.rowsRead} → ${large.get(one.name)!.rowsRead} rows`),
    ).toEqual([]);
  });
});
