/** Every tool's handler, by tool name: one file per tool, one folder per area. */
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import type { CompanySlots } from '../platform/fair-share';
import { Pipeline } from '../platform/pipeline';
import type { MediaServices, ToolServices } from '../domain/services';
import { lockSubject, type WriteSubject } from '../domain/write-subject';
import type { HandlerTable } from './tool';
import { get_context } from './context/get_context';
import { get_guide } from './context/get_guide';
import { list_team } from './context/list_team';
import { list_job_statuses } from './context/list_job_statuses';
import { list_referral_sources } from './context/list_referral_sources';
import { list_program_profiles } from './context/list_program_profiles';
import { list_form_templates } from './forms/list_form_templates';
import { find_jobs } from './jobs/find_jobs';
import { get_job } from './jobs/get_job';
import { create_job } from './jobs/create_job';
import { update_job_overview } from './jobs/update_job_overview';
import { move_job_status } from './jobs/move_job_status';
import { cancel_job } from './jobs/cancel_job';
import { reopen_job } from './jobs/reopen_job';
import { get_job_activity } from './jobs/get_job_activity';
import { add_contact } from './people/add_contact';
import { update_contact } from './people/update_contact';
import { lookup_customer } from './people/lookup_customer';
import { assign_job } from './people/assign_job';
import { unassign_job } from './people/unassign_job';
import { add_note } from './notes/add_note';
import { correct_note } from './notes/correct_note';
import { retract_note } from './notes/retract_note';
import { search_price_list } from './price-list/search_price_list';
import { get_price_list_item } from './price-list/get_price_list_item';
import { create_estimate } from './estimates/create_estimate';
import { get_estimate } from './estimates/get_estimate';
import { add_rooms } from './estimates/add_rooms';
import { update_estimate } from './estimates/update_estimate';
import { update_room } from './estimates/update_room';
import { add_line_items } from './estimates/add_line_items';
import { update_line_item } from './estimates/update_line_item';
import { remove_line_item } from './estimates/remove_line_item';
import { search_standards } from './standards/search_standards';
import { get_standard } from './standards/get_standard';
import { get_drying_log } from './drying/get_drying_log';
import { check_claim_readiness } from './drying/check_claim_readiness';
import { create_drying_log } from './drying/create_drying_log';
import { update_drying_settings } from './drying/update_drying_settings';
import { add_drying_readings } from './drying/add_drying_readings';
import { add_drying_note } from './drying/add_drying_note';
import { skip_drying_day } from './drying/skip_drying_day';
import { place_equipment } from './drying/place_equipment';
import { remove_equipment } from './drying/remove_equipment';
import { set_drying_chambers } from './drying/set_drying_chambers';
import { upload_job_photos } from './media/upload_job_photos';
import { list_job_photos } from './media/list_job_photos';
import { view_photos } from './media/view_photos';
import { move_photos } from './media/move_photos';
import { update_photos } from './media/update_photos';
import { get_photo_upload_link } from './media/get_photo_upload_link';
import { upload_job_videos } from './media/upload_job_videos';
import { list_job_videos } from './media/list_job_videos';
import { request_signature } from './forms/request_signature';
import { verify_form } from './forms/verify_form';
import { upload_job_documents } from './documents/upload_job_documents';
import { list_job_documents } from './documents/list_job_documents';
import { read_document } from './documents/read_document';
import { admin_set_estimate_rates } from './admin/admin_set_estimate_rates';
import { list_changes } from './changes/list_changes';
import { undo_my_last_action } from './changes/undo_my_last_action';
import { admin_create_company } from './admin/admin_create_company';
import { export_pdf } from './exports/export_pdf';
import { export_job_photos } from './exports/export_job_photos';
import { list_job_forms } from './forms/list_job_forms';
import { void_form } from './forms/void_form';
import { admin_add_team_member } from './admin/admin_add_team_member';
import { admin_create_key } from './admin/admin_create_key';
import { admin_list_keys } from './admin/admin_list_keys';
import { admin_list_companies } from './admin/admin_list_companies';
import { admin_list_team } from './admin/admin_list_team';
import { admin_update_team_member } from './admin/admin_update_team_member';
import { admin_rotate_key } from './admin/admin_rotate_key';
import { admin_revoke_key } from './admin/admin_revoke_key';
import { admin_list_assistant_grants } from './admin/admin_list_assistant_grants';
import { admin_revoke_assistant_grant } from './admin/admin_revoke_assistant_grant';
import { admin_create_sign_in_link } from './admin/admin_create_sign_in_link';
import { admin_set_statuses } from './admin/admin_set_statuses';
import { admin_set_referral_sources } from './admin/admin_set_referral_sources';
import { admin_add_credits } from './admin/admin_add_credits';
import { admin_set_chat } from './admin/admin_set_chat';
import { admin_set_elevation } from './admin/admin_set_elevation';
import { admin_create_webhook } from './admin/admin_create_webhook';
import { admin_list_webhooks } from './admin/admin_list_webhooks';
import { admin_update_webhook } from './admin/admin_update_webhook';
import { admin_delete_webhook } from './admin/admin_delete_webhook';
import { admin_create_program_profile } from './admin/admin_create_program_profile';
import { admin_list_program_profiles } from './admin/admin_list_program_profiles';
import { admin_get_program_profile } from './admin/admin_get_program_profile';
import { admin_replace_program_profile } from './admin/admin_replace_program_profile';
import { admin_delete_program_profile } from './admin/admin_delete_program_profile';
import { admin_create_form_template } from './admin/admin_create_form_template';
import { admin_list_form_templates } from './admin/admin_list_form_templates';
import { admin_get_form_template } from './admin/admin_get_form_template';
import { admin_publish_form_template_version } from './admin/admin_publish_form_template_version';
import { admin_archive_form_template } from './admin/admin_archive_form_template';
import { admin_rotate_webhook_secret } from './admin/admin_rotate_webhook_secret';
import { admin_replay_webhook } from './admin/admin_replay_webhook';
import { admin_list_webhook_attempts } from './admin/admin_list_webhook_attempts';
import type { WebhookDelivery } from '../domain/webhooks/delivery';
import type { OperationName } from '../generated/operations';
import type { ErrorsBeside } from '../platform/validation';
import { rowErrorsBeside } from '../domain/drying/reading-rows';

/** Tools whose own rules are named beside the spec's errors in one 400 (every bad row of a request at once). */
export const errorsBeside: Partial<Record<OperationName, ErrorsBeside>> = {
  add_drying_readings: rowErrorsBeside,
};

export const handlers: HandlerTable = {
  get_context,
  get_guide,
  list_team,
  list_job_statuses,
  list_referral_sources,
  list_program_profiles,
  list_form_templates,
  find_jobs,
  get_job,
  create_job,
  update_job_overview,
  move_job_status,
  cancel_job,
  reopen_job,
  get_job_activity,
  add_contact,
  update_contact,
  lookup_customer,
  assign_job,
  unassign_job,
  add_note,
  correct_note,
  retract_note,
  search_price_list,
  get_price_list_item,
  create_estimate,
  get_estimate,
  add_rooms,
  update_estimate,
  update_room,
  add_line_items,
  update_line_item,
  remove_line_item,
  get_drying_log,
  check_claim_readiness,
  create_drying_log,
  update_drying_settings,
  add_drying_readings,
  add_drying_note,
  skip_drying_day,
  place_equipment,
  remove_equipment,
  set_drying_chambers,
  upload_job_photos,
  list_job_photos,
  view_photos,
  move_photos,
  update_photos,
  get_photo_upload_link,
  upload_job_videos,
  list_job_videos,
  upload_job_documents,
  list_job_documents,
  read_document,
  export_pdf,
  export_job_photos,
  request_signature,
  verify_form,
  list_job_forms,
  void_form,
  search_standards,
  get_standard,
  list_changes,
  undo_my_last_action,
  admin_create_company,
  admin_add_team_member,
  admin_create_key,
  admin_list_keys,
  admin_list_companies,
  admin_list_team,
  admin_update_team_member,
  admin_rotate_key,
  admin_revoke_key,
  admin_list_assistant_grants,
  admin_revoke_assistant_grant,
  admin_create_sign_in_link,
  admin_create_webhook,
  admin_list_webhooks,
  admin_update_webhook,
  admin_delete_webhook,
  admin_create_program_profile,
  admin_list_program_profiles,
  admin_get_program_profile,
  admin_replace_program_profile,
  admin_delete_program_profile,
  admin_create_form_template,
  admin_list_form_templates,
  admin_get_form_template,
  admin_publish_form_template_version,
  admin_archive_form_template,
  admin_rotate_webhook_secret,
  admin_replay_webhook,
  admin_list_webhook_attempts,
  admin_set_statuses,
  admin_set_referral_sources,
  admin_add_credits,
  admin_set_chat,
  admin_set_elevation,
  admin_set_estimate_rates,
};

/** The pipeline that runs these tools on this node, with the services they get. */
export function toolPipeline(options: {
  db: Knex;
  config: Config;
  slots: CompanySlots;
  media: MediaServices;
  webhooks?: WebhookDelivery;
}): Pipeline<ToolServices, WriteSubject> {
  const { db, config, slots, media, webhooks } = options;
  return new Pipeline<ToolServices, WriteSubject>({
    db,
    config,
    slots,
    links: media.links,
    handlers,
    services: () => ({ documents: media.documents, queue: media.queue }),
    lockSubject,
    entriesCommitted: webhooks && ((companyId) => webhooks.announce(companyId)),
  });
}
