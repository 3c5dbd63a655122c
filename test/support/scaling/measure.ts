/**
 * Measures what each scaling case reads in a company of a given size: a database of its own
 * (a sequential scan reads every company's rows, so the sizes must not share tables), filled
 * with `jobs` jobs of history, the probe job made through the API, then each case sent a few
 * times with its statements' plans recorded.
 */
import knex from 'knex';
import { openDatabase } from '../../../src/infrastructure/db/connect';
import { as, createCompany, startApp, type TestApp } from '../app';
import { fillCompany } from './filler';
import { makeProbe, scalingCases, type ScalingCase } from './cases';
import { buffersOf, explainingUrl, PlanRecorder, rowsRead, type StatementPlan } from './plans';
import { migrateToLatest } from '../../../src/database';

export interface CaseFigures {
  name: string;
  statements: number;
  rowsRead: number;
  buffers: number;
  /** The statements of the cheapest run, for a closer look. */
  plans: StatementPlan[];
}

const RUNS = 3;

function databaseNamed(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a new database of its own, dropped afterwards. */
export async function withDatabase<T>(
  databaseUrl: string,
  name: string,
  work: (url: string) => Promise<T>,
): Promise<T> {
  const server = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  const drop = () => server.raw('drop database if exists ?? with (force)', [name]);
  try {
    await drop();
    await server.raw('create database ??', [name]);
    const url = databaseNamed(databaseUrl, name);
    const db = await openDatabase({ databaseUrl: url, dataDir: null });
    await migrateToLatest(db);
    await db.destroy();
    return await work(url);
  } finally {
    await drop();
    await server.destroy();
  }
}

async function writeKeyId(t: TestApp, companyId: string, key: string): Promise<string> {
  return (
    await t
      .db('api_keys')
      .where({ company_id: companyId, prefix: key.slice(0, 12) })
      .first('id')
  ).id;
}

/** Starts the service on `databaseUrl`, fills a company with `jobs` jobs and measures every case. */
export async function measureCompany(
  databaseUrl: string,
  jobs: number,
  only?: (c: ScalingCase) => boolean,
): Promise<Map<string, CaseFigures>> {
  const t = await startApp({ DATABASE_URL: explainingUrl(databaseUrl) });
  try {
    const co = await createCompany(t, { credits: 1000 });
    const status = await t.db('statuses').where({ company_id: co.id }).orderBy('position').first('id');
    await fillCompany(t.db, {
      companyId: co.id,
      personId: co.people[0].id,
      keyId: await writeKeyId(t, co.id, co.writeKey),
      statusId: status.id,
      jobs,
    });
    await t.db.raw('vacuum analyze');
    const probe = await makeProbe(t, co);
    // Connections opened from here on report their plans to the recorder.
    await t.db.destroy();
    t.db.initialize();
    const recorder = new PlanRecorder(t.db);
    const api = as(t, co.writeKey);
    const figures = new Map<string, CaseFigures>();
    const cases = scalingCases(t, co).filter(only ?? (() => true));
    for (let run = 0; run < RUNS; run++) {
      for (const scalingCase of cases) {
        const made = (await scalingCase.before?.(api, probe)) ?? {};
        let answer: { status: number; body: unknown } = { status: 0, body: null };
        const plans = await recorder.during(async () => {
          answer = await scalingCase.send(api, probe, made);
        });
        if (answer.status >= 300)
          throw new Error(`${scalingCase.name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        const measured: CaseFigures = {
          name: scalingCase.name,
          statements: plans.length,
          rowsRead: sum(plans.map((p) => rowsRead(p.plan))),
          buffers: sum(plans.map((p) => buffersOf(p.plan))),
          plans,
        };
        const earlier = figures.get(scalingCase.name);
        if (!earlier || measured.rowsRead < earlier.rowsRead) figures.set(scalingCase.name, measured);
      }
    }
    return figures;
  } finally {
    await t.close();
  }
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
