/**
 * A packet that makes a draft estimate final while check_claim_readiness has high findings needs
 * the person to confirm those findings first: once final, the estimate cannot change, and the PDF
 * may go to the carrier. The person names each finding by its key (`confirm_findings`); a link
 * made or a build asked for with that confirmation carries a token of the keys (`cf`, signed with
 * the link), and finalising checks the token against the findings as they are then, so that a
 * finding that appeared since (or one confirmed that is gone) asks again.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../../sdk/src/schema';
import type { Caller } from '../../platform/caller';
import { ApiError } from '../../platform/errors';
import { checkClaimReadiness } from '../drying/claim-readiness';

type Finding = components['schemas']['ReadinessFinding'];
type ClaimReadiness = components['schemas']['ClaimReadiness'];
export type FindingToConfirm = components['schemas']['FindingToConfirm'];

/** A finding's key: its check and its record (`billed_past_dry:line:li_…`, `monitored_day_without_readings:day:3`). */
export function findingKey(finding: Finding): string {
  const { type, id, name, day } = finding.record;
  return `${finding.check}:${type}:${id ?? name ?? day ?? ''}`;
}

/** The job's high findings, one per key, in the readiness check's order. */
export async function highFindings(db: Knex, caller: Caller, jobId: string): Promise<FindingToConfirm[]> {
  return highOf(await checkClaimReadiness(db, caller, jobId));
}

/** The high findings of a readiness check already made, one per key. */
export function highOf(readiness: ClaimReadiness): FindingToConfirm[] {
  const byKey = new Map<string, FindingToConfirm>();
  for (const finding of readiness.findings) {
    const key = findingKey(finding);
    if (finding.severity === 'high' && !byKey.has(key))
      byKey.set(key, { key, check: finding.check, message: finding.message });
  }
  return [...byKey.values()];
}

/** The token of a set of confirmed keys, as a link carries it: '' for none. */
export function confirmationToken(keys: readonly string[]): string {
  if (keys.length === 0) return '';
  const canonical = [...new Set(keys)].sort().join('\n');
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/**
 * The token of the keys the person confirmed, when they are exactly the findings now; otherwise
 * 409 `findings_unconfirmed` listing the findings, with what changed when some were confirmed.
 * Without high findings nothing needs confirming, and a confirmation of findings since fixed is
 * no reason to refuse.
 */
export function confirmedToken(
  findings: readonly FindingToConfirm[],
  confirmed: readonly string[],
  estimateLabel: string,
): string {
  if (findings.length === 0) return '';
  const current = findings.map((finding) => finding.key);
  const missing = current.filter((key) => !confirmed.includes(key));
  const gone = confirmed.filter((key) => !current.includes(key));
  if (missing.length === 0 && gone.length === 0) return confirmationToken(current);
  throw unconfirmed(findings, estimateLabel, confirmed.length === 0 ? '' : changes(findings, missing, gone));
}

/**
 * Refuses to finalise when the token a link carries is not that of the findings now: the person
 * confirmed none, or other ones (a finding appeared, or was fixed while others are left).
 */
export function assertConfirmed(
  findings: readonly FindingToConfirm[],
  token: string,
  estimateLabel: string,
): void {
  if (findings.length === 0 || token === confirmationToken(findings.map((finding) => finding.key))) return;
  throw unconfirmed(
    findings,
    estimateLabel,
    token === '' ? '' : 'The findings changed since they were confirmed. ',
  );
}

function changes(findings: readonly FindingToConfirm[], missing: string[], gone: string[]): string {
  const messageOf = (key: string) => findings.find((finding) => finding.key === key)?.message ?? key;
  const parts = [
    missing.length > 0 && `not confirmed: ${missing.map(messageOf).join(' ')}`,
    gone.length > 0 && `confirmed but not found now: ${gone.join(', ')}`,
  ].filter(Boolean);
  return `The confirmation does not match the findings now (${parts.join('; ')}). `;
}

function unconfirmed(
  findings: readonly FindingToConfirm[],
  estimateLabel: string,
  changed: string,
): ApiError {
  const listed = findings.map((finding) => `- ${finding.message}`).join('\n');
  const finalises = `Downloading this packet makes the estimate "${estimateLabel}" final (it cannot be changed afterwards), and a claim reviewer would question`;
  return new ApiError(
    409,
    'findings_unconfirmed',
    `${changed}${finalises}:\n${listed}\nTell the person. To make it final all the same, ask again with confirm_findings naming each finding's key: ${findings.map((finding) => finding.key).join(', ')}. Or fix them first (check_claim_readiness names the tool), or leave out the estimate: such a packet finalises nothing.`,
    {
      findings: [...findings],
      choice: {
        question: `${changed}${finalises}:\n${listed}\nConfirm each finding to make it final all the same; otherwise fix them first, or leave the estimate out of the packet.`,
        items: {
          title: 'Findings confirmed',
          options: findings.map((finding) => ({ key: finding.key, title: finding.message })),
        },
        confirm: { confirm_findings: findings.map((finding) => finding.key) },
      },
    },
  );
}
