import type { Knex } from 'knex';
import * as foundation from './migrations/001_foundation';
import * as peopleNotesChat from './migrations/002_people_notes_chat';
import * as estimatesStandards from './migrations/003_estimates_standards';
import * as searchStatistics from './migrations/004_search_statistics';
import * as undoneOperations from './migrations/005_undone_operations';
import * as changeData from './migrations/006_change_data';
import * as dryingLog from './migrations/007_drying_log';
import * as dryingRevisions from './migrations/008_drying_revisions';
import * as photos from './migrations/009_photos';
import * as videosDocuments from './migrations/010_videos_documents';
import * as shareablePhotos from './migrations/011_shareable_photos';
import * as officeAssistant from './migrations/012_office_assistant';
import * as boundedLookups from './migrations/013_bounded_lookups';
import * as filesRowsFirst from './migrations/014_files_rows_first';
import * as dryingGoalReadings from './migrations/015_drying_goal_readings';
import * as compactClaimNumbers from './migrations/016_compact_claim_numbers';
import * as packetBuilds from './migrations/017_packet_builds';
import * as dryingEquipment from './migrations/018_drying_equipment';
import * as dryingChambers from './migrations/019_drying_chambers';
import * as chamberCategoryReview from './migrations/020_chamber_category_review';
import * as onSiteBy from './migrations/021_on_site_by';
import * as readingUnits from './migrations/022_reading_units';
import * as assistantGrants from './migrations/023_assistant_grants';
import * as webhooks from './migrations/024_webhooks';
import * as grantsEndWithTheirKey from './migrations/025_grants_end_with_their_key';
import * as oauthExpiry from './migrations/026_oauth_expiry';
import * as wetWallWhole from './migrations/027_wet_wall_whole';
import * as programProfiles from './migrations/028_program_profiles';
import * as formTemplates from './migrations/029_form_templates';
import * as jobForms from './migrations/030_job_forms';

/** Migrations are listed here, in order, so that they run the same under tsx, jest and tsc. */
const migrations: Record<string, { up(db: Knex): Promise<void>; down(db: Knex): Promise<void> }> = {
  '001_foundation': foundation,
  '002_people_notes_chat': peopleNotesChat,
  '003_estimates_standards': estimatesStandards,
  '004_search_statistics': searchStatistics,
  '005_undone_operations': undoneOperations,
  '006_change_data': changeData,
  '007_drying_log': dryingLog,
  '008_drying_revisions': dryingRevisions,
  '009_photos': photos,
  '010_videos_documents': videosDocuments,
  '011_shareable_photos': shareablePhotos,
  '012_office_assistant': officeAssistant,
  '013_bounded_lookups': boundedLookups,
  '014_files_rows_first': filesRowsFirst,
  '015_drying_goal_readings': dryingGoalReadings,
  '016_compact_claim_numbers': compactClaimNumbers,
  '017_packet_builds': packetBuilds,
  '018_drying_equipment': dryingEquipment,
  '019_drying_chambers': dryingChambers,
  '020_chamber_category_review': chamberCategoryReview,
  '021_on_site_by': onSiteBy,
  '022_reading_units': readingUnits,
  '023_assistant_grants': assistantGrants,
  '024_webhooks': webhooks,
  '025_grants_end_with_their_key': grantsEndWithTheirKey,
  '026_oauth_expiry': oauthExpiry,
  '027_wet_wall_whole': wetWallWhole,
  '028_program_profiles': programProfiles,
  '029_form_templates': formTemplates,
  '030_job_forms': jobForms,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};

const LOCK_WAIT_MS = 500;
const LOCK_ATTEMPTS = 120;

/**
 * Brings the schema up to date. Nodes started together on one database take turns: knex refuses
 * a second migration run at once instead of waiting, so a node that finds the lock taken waits
 * and tries again.
 */
export async function migrateSchema(db: Knex): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.migrate.latest({ migrationSource: source });
      break;
    } catch (error) {
      if ((error as Error).name !== 'MigrationLocked' || attempt === LOCK_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS));
    }
  }
}
