/** A job is named by its id (`job_…`) or its number (`16`, `#16`) wherever `{job_id}` appears. */

/** The job number a reference gives, or null for an id. */
export function jobNumberOf(ref: string): number | null {
  const byNumber = /^#?(\d+)$/.exec(ref);
  return byNumber ? Number(byNumber[1]) : null;
}
