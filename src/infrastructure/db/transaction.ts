/**
 * The transaction every write runs in: the fast transaction of ./fast-transaction on PostgreSQL
 * (unless FAST_WRITES=off), else knex's own. Both keep the same promises, tested on both
 * databases with the setting on and off (test/db/transaction.test.ts).
 */
import type { Knex } from 'knex';
import { hasFastTransactions, inFastTransaction } from './fast-transaction/transaction';

/** Runs `work` in a transaction: committed when it resolves, rolled back when it throws. */
export function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return hasFastTransactions(db) ? inFastTransaction(db, work) : db.transaction(work);
}
