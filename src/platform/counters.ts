import type { Knex } from 'knex';

export type CounterName = 'job_number' | 'change_seq';

/** The company's next value of a counter. Its row stays locked until the transaction ends. */
export async function nextCounterValue(trx: Knex.Transaction, companyId: string, name: CounterName, step = 1): Promise<number> {
  const [counter] = await trx('counters').where({ company_id: companyId, name }).increment('value', step).returning('value');
  return Number(counter.value);
}

export async function createCounters(trx: Knex.Transaction, companyId: string): Promise<void> {
  const names: CounterName[] = ['job_number', 'change_seq'];
  await trx('counters').insert(names.map((name) => ({ company_id: companyId, name, value: 0 })));
}
