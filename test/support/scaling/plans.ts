/**
 * The plans PostgreSQL really ran for a request, with the rows each statement read. The service's
 * connections are opened with auto_explain loaded for the session (a superuser setting sent at
 * connect time, no server change), which reports every statement's EXPLAIN (ANALYZE, BUFFERS)
 * plan back to the client as a notice, nested statements (triggers, foreign-key checks) included.
 */
import type { Knex } from 'knex';

/** One node of a JSON plan, as auto_explain writes it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
  [detail: string]: unknown;
}

export interface StatementPlan {
  query: string;
  plan: PlanNode;
}

/** The session settings that make a connection report its plans. */
const AUTO_EXPLAIN = [
  'session_preload_libraries=auto_explain',
  'auto_explain.log_min_duration=0',
  'auto_explain.log_analyze=on',
  'auto_explain.log_buffers=on',
  'auto_explain.log_timing=off',
  'auto_explain.log_nested_statements=on',
  'auto_explain.log_level=notice',
  'auto_explain.log_format=json',
];

/** The database URL whose connections report their plans. */
export function explainingUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('options', AUTO_EXPLAIN.map((setting) => `-c ${setting}`).join(' '));
  return url.toString();
}

/** Nodes that read rows of a table (an index alone is counted by the heap rows it leads to). */
const TABLE_READS = new Set([
  'Seq Scan',
  'Index Scan',
  'Index Only Scan',
  'Bitmap Heap Scan',
  'Tid Scan',
  'Tid Range Scan',
  'Sample Scan',
]);

/** Rows a plan read from tables: those it kept and those it read and threw away, in every loop. */
export function rowsRead(node: PlanNode): number {
  const own = TABLE_READS.has(node['Node Type'])
    ? ((node['Actual Rows'] ?? 0) +
        (node['Rows Removed by Filter'] ?? 0) +
        (node['Rows Removed by Index Recheck'] ?? 0)) *
      (node['Actual Loops'] ?? 1)
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

/** Shared buffers a plan touched (the root's counts include its children's). */
export function buffersOf(node: PlanNode): number {
  return (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);
}

interface NoticeSource {
  on(event: 'notice', listener: (notice: { message?: string }) => void): void;
}

/**
 * Collects the plans of every statement the knex instance's connections run from now on. The
 * pool opens connections lazily, so it is attached before the first query.
 */
export class PlanRecorder {
  private plans: StatementPlan[] = [];

  constructor(db: Knex) {
    const pool = (
      db.client as {
        pool: { on(event: 'createSuccess', listener: (id: number, connection: NoticeSource) => void): void };
      }
    ).pool;
    pool.on('createSuccess', (_id, connection) =>
      connection.on('notice', (notice) => this.take(notice.message ?? '')),
    );
  }

  private take(message: string): void {
    const start = message.indexOf('{');
    if (!message.startsWith('duration:') || start < 0) return;
    const parsed = JSON.parse(message.slice(start)) as { 'Query Text': string; Plan: PlanNode };
    this.plans.push({ query: parsed['Query Text'], plan: parsed.Plan });
  }

  /** The plans of the statements `work` ran. */
  async during(work: () => Promise<unknown>): Promise<StatementPlan[]> {
    this.plans = [];
    await work();
    // A notice arrives before its statement's answer: nothing of this work is still on its way.
    const taken = this.plans;
    this.plans = [];
    return taken;
  }
}

/** A plan as EXPLAIN prints it, one node a line, with the rows it read and the buffers it touched. */
export function planText(node: PlanNode, depth = 0): string[] {
  const on = node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
  const using = node['Index Name'] ? ` using ${node['Index Name']}` : '';
  const condition = ['Index Cond', 'Recheck Cond', 'Filter', 'Hash Cond', 'Join Filter']
    .map((key) => (node[key] ? ` ${key.toLowerCase()}: ${String(node[key])}` : ''))
    .join('');
  const removed = node['Rows Removed by Filter'] ? ` removed=${node['Rows Removed by Filter']}` : '';
  const line = `${'  '.repeat(depth)}${depth ? '-> ' : ''}${node['Node Type']}${using}${on} (rows=${node['Actual Rows'] ?? 0} loops=${node['Actual Loops'] ?? 1}${removed} buffers=${buffersOf(node)})${condition}`;
  return [line, ...(node.Plans ?? []).flatMap((child) => planText(child, depth + 1))];
}
