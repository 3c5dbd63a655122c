import type { WriteHandler } from '../tool';
import {
  loadEstimate,
  requireDraft,
  toEstimate,
  type EstimateRow,
} from '../../domain/estimates/estimate-records';
import { recordEstimateUpdate, type EstimateField } from '../../domain/estimates/estimate-changes';

export const update_estimate: WriteHandler<'update_estimate'> = async (ctx, { path, body }) => {
  const record = await loadEstimate(ctx.db, ctx.caller, path.estimate_id);
  requireDraft(record);
  // Only what really changes is written; a request that changes nothing answers the estimate as it is.
  const asked: Partial<Pick<EstimateRow, EstimateField>> = {
    label: body.label,
    scope_summary: body.scope_summary,
  };
  const columns = Object.fromEntries(
    Object.entries(asked).filter(
      ([field, value]) => value !== undefined && record.estimate[field as EstimateField] !== value,
    ),
  );
  if (Object.keys(columns).length > 0) await recordEstimateUpdate(ctx, record, columns);
  return toEstimate(record);
};
