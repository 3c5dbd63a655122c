/**
 * The demo company made on a new, empty database: a small team, a write and a read key, an
 * example program profile, the two form templates of ./form-templates, and a few realistic jobs
 * created through the same pipeline as any other write.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { createCompany } from '../domain/admin/company-setup';
import { createProfile } from '../domain/company/program-profiles';
import { createTemplate } from '../domain/forms/templates';
import { DEMO_FORM_TEMPLATES } from './form-templates';
import { newApiKey, newId } from '../platform/ids';
import { findCaller } from '../platform/auth';
import { toolPipeline } from '../tools';
import { CompanySlots } from '../platform/fair-share';
import type { MediaServices } from '../domain/services';
import type { BodyOf } from '../tools/tool';

/** Only the owner has keys: the technicians work on site, named by the office's requests (`by`) and upload links made for them. */
const TEAM = [
  {
    name: 'Jordan Reyes',
    role: 'Owner',
    email: 'jordan@bluriver.example',
    responsibilities: ['estimates', 'carrier packets'],
  },
  {
    name: 'Dana Brooks',
    role: 'Project manager',
    email: 'dana@bluriver.example',
    responsibilities: ['inspections', 'scheduling', 'adjuster calls'],
  },
  {
    name: 'Sam Okafor',
    role: 'Technician',
    email: 'sam@bluriver.example',
    responsibilities: ['water extraction', 'demolition'],
  },
  {
    name: 'Marco Diaz',
    role: 'Technician',
    email: 'marco@bluriver.example',
    responsibilities: ['drying monitoring', 'moisture readings', 'equipment setup'],
  },
];

const JOBS: Omit<BodyOf<'create_job'>, 'operation_id'>[] = [
  {
    customer_name: 'Maria Alvarez',
    customer_phone: '(217) 555-0142',
    address_line1: '412 Birch Lane',
    city: 'Springfield',
    region: 'IL',
    postal_code: '62704',
    loss_type: 'water',
    carrier: 'State Farm',
    claim_number: 'SF-26-118734',
    referral_source: 'Plumber',
    assignee: 'Dana Brooks',
  },
  {
    customer_name: 'Tom Nguyen',
    customer_phone: '217.555.0199',
    customer_email: 'tom.nguyen@example.com',
    address_line1: '88 Lakeview Dr',
    city: 'Chatham',
    region: 'IL',
    postal_code: '62629',
    loss_type: 'sewage',
    carrier: 'Allstate',
    claim_number: '0712-4455-21',
    assignee: 'Sam Okafor',
  },
  {
    customer_name: 'Grace Whitfield',
    customer_phone: '2175550123',
    address_line1: '1907 S Grand Ave E',
    city: 'Springfield',
    region: 'IL',
    postal_code: '62703',
    loss_type: 'mold',
    referral_source: 'Property manager',
  },
  {
    customer_name: 'Ben Carter',
    customer_phone: '+1 217 555 0177',
    address_line1: '56 Mill St',
    city: 'Rochester',
    region: 'IL',
    postal_code: '62563',
    loss_type: 'storm',
    carrier: 'Country Financial',
    claim_number: 'CF-88213',
    policy_number: 'HO-5520193',
  },
];

/** An example carrier program, written down as a company would from its guideline: the State Farm job is checked against it. */
const PROGRAM_PROFILE: BodyOf<'admin_create_program_profile'> = {
  name: 'Water mitigation program (example)',
  carriers: ['State Farm'],
  rules: [
    { kind: 'photos_per_room', min_photos: 3 },
    { kind: 'equipment_photographed' },
    { kind: 'before_and_after_photos' },
    { kind: 'daily_atmospherics', severity: 'high' },
    { kind: 'moisture_point_per_material' },
    { kind: 'note_for_line_codes', codes: ['CLN-ANTI', 'DRY-AS'] },
    { kind: 'first_reading_within_hours', hours: 24 },
  ],
};

export interface DemoKeys {
  companyId: string;
  companyName: string;
  writeKey: string;
  readKey: string;
}

export async function seedDemo(db: Knex, config: Config, media: MediaServices): Promise<DemoKeys> {
  const company = await createCompany(db, {
    name: 'Blue River Restoration',
    timezone: 'America/Chicago',
    pricing_region: 'IL',
    credits: 10,
  });
  const people = await db('people')
    .insert(
      TEAM.map((p) => ({
        id: newId('per'),
        company_id: company.id,
        ...p,
        responsibilities: JSON.stringify(p.responsibilities),
      })),
    )
    .returning(['id', 'name']);
  const owner = people.find((p) => p.name === TEAM[0].name)!;
  const [writeKey, readKey] = await Promise.all(
    (['write', 'read'] as const).map(async (scope) => {
      const { key, prefix, hash } = newApiKey();
      await db('api_keys').insert({
        id: newId('key'),
        company_id: company.id,
        person_id: owner.id,
        scope,
        prefix,
        secret_hash: hash,
      });
      return key;
    }),
  );
  await createProfile(db, company.id, PROGRAM_PROFILE);
  for (const template of DEMO_FORM_TEMPLATES) await createTemplate(db, company.id, template);
  const caller = (await findCaller(db, writeKey))!;
  const pipeline = toolPipeline({ db, config, media, slots: new CompanySlots(1) });
  for (const job of JOBS) {
    await pipeline.run('create_job', caller, {
      path: {},
      query: {},
      body: { operation_id: randomUUID(), ...job },
    });
  }
  return { companyId: company.id, companyName: company.name, writeKey, readKey };
}
