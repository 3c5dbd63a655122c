/** Every tool's handler, by tool name: one file per tool, one folder per area. */
import type { HandlerTable } from '../platform/handler';
import { get_context } from './context/get_context';
import { get_guide } from './context/get_guide';
import { list_team } from './context/list_team';
import { list_job_statuses } from './context/list_job_statuses';
import { list_referral_sources } from './context/list_referral_sources';
import { find_jobs } from './jobs/find_jobs';
import { get_job } from './jobs/get_job';
import { create_job } from './jobs/create_job';
import { list_changes } from './changes/list_changes';
import { undo_my_last_action } from './changes/undo_my_last_action';
import { admin_create_company } from './admin/admin_create_company';
import { admin_add_team_member } from './admin/admin_add_team_member';
import { admin_create_key } from './admin/admin_create_key';
import { admin_list_keys } from './admin/admin_list_keys';
import { admin_rotate_key } from './admin/admin_rotate_key';
import { admin_revoke_key } from './admin/admin_revoke_key';
import { admin_set_statuses } from './admin/admin_set_statuses';
import { admin_set_referral_sources } from './admin/admin_set_referral_sources';
import { admin_add_credits } from './admin/admin_add_credits';
import { admin_set_chat } from './admin/admin_set_chat';

export const handlers: HandlerTable = {
  get_context,
  get_guide,
  list_team,
  list_job_statuses,
  list_referral_sources,
  find_jobs,
  get_job,
  create_job,
  list_changes,
  undo_my_last_action,
  admin_create_company,
  admin_add_team_member,
  admin_create_key,
  admin_list_keys,
  admin_rotate_key,
  admin_revoke_key,
  admin_set_statuses,
  admin_set_referral_sources,
  admin_add_credits,
  admin_set_chat,
};
