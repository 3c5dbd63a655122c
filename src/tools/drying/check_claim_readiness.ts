import type { ReadHandler } from '../tool';
import { checkClaimReadiness } from '../../domain/drying/claim-readiness';

export const check_claim_readiness: ReadHandler<'check_claim_readiness'> = (ctx, { path }) =>
  checkClaimReadiness(ctx.db, ctx.caller, path.job_id);
