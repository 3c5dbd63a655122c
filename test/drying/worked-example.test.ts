/**
 * The worked example of the drying record, as an assistant and a technician make it: a water loss
 * with two chambers over five days, equipment placed and removed, a technician's readings (named
 * with `by`) and photos (through a link made for him), the S500 plan against what was placed, the
 * claim-readiness findings before and after they are fixed, and the carrier packet built,
 * downloaded and turned into pictures of its pages. Every tool call goes over MCP, as an
 * assistant makes it; the photos go through the upload link, as a phone sends them.
 *
 * The run writes test/artifacts/worked-example/: transcript.md (each call and the part of its
 * answer that matters) and packet-N.png (the packet's pages).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { components } from '../../sdk/src/schema';
import { companyDate, createCompany, opId, startApp, type TestApp, type TestCompany } from '../support/app';
import { callTool, connectMcp } from '../support/mcp';
import { jpegWith } from '../support/photo-files';

type Schemas = components['schemas'];

const ARTIFACTS = path.join(__dirname, '..', 'artifacts', 'worked-example');
/** Where Marco reads each area's material, every day. */
const POINTS: Record<string, string> = {
  Kitchen: 'north wall 2 ft',
  Hall: 'east wall 1 ft',
  Basement: 'slab under stairs',
};
const ADMIN = 'Bearer test-admin-token-0123456789';

let t: TestApp;
let co: TestCompany;
let assistant: Client;
const transcript: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  t = await startApp();
  co = await createCompany(t, { credits: 5 });
  await t.http
    .post(`/admin/v1/companies/${co.id}/team`)
    .set('Authorization', ADMIN)
    .send({ name: 'Marco Diaz', role: 'Technician', responsibilities: ['drying monitoring'] })
    .expect(201);
  assistant = await connectMcp(t, co.writeKey);
});
afterAll(async () => {
  await writeFile(path.join(ARTIFACTS, 'transcript.md'), transcript.join('\n'));
  await assistant?.close();
  await t?.close();
});

/** Day 5 of the log is the company's today. */
const dateOf = (day: number) => companyDate(co, day - 5);

function say(text: string): void {
  transcript.push(text, '');
}

/** One tool call over MCP, written down with the part of the answer `shown` picks. */
async function call<T>(
  name: string,
  args: Record<string, unknown>,
  shown: (answer: T) => unknown = (answer) => answer,
): Promise<T> {
  const result = await callTool(assistant, name, args);
  const text = (result.content[0] as { text: string }).text;
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  const answer = result.structuredContent as T;
  const { operation_id: _id, ...sent } = args;
  transcript.push(
    `**${name}** \`${JSON.stringify(sent)}\``,
    '',
    '```json',
    JSON.stringify(shown(answer), null, 1).replace(/\n\s*/g, ' '),
    '```',
    '',
  );
  return answer;
}

let photoCount = 0;

/** Photos sent through the technician's link, as the upload page sends them. */
async function uploadThroughLink(
  link: Schemas['PhotoUploadLink'],
  room: string,
  count: number,
): Promise<Schemas['Photo'][]> {
  const target = new URL(link.url);
  const req = t.http
    .post(`${target.pathname}/photos${target.search}`)
    .field('meta', JSON.stringify({ operation_id: opId(), room }));
  for (let i = 0; i < count; i++)
    req.attach('photo', await jpegWith({ width: 800 + photoCount++, height: 600 }), {
      filename: `${room}-${i + 1}.jpg`,
      contentType: 'image/jpeg',
    });
  const photos = (await req.expect(201)).body.photos as Schemas['Photo'][];
  transcript.push(
    `*Marco's phone, through the link:* ${count} photo(s) of the ${room}: uploaded by ${photos[0].uploaded_by.name}, on site by ${photos[0].on_site_by?.name}.`,
    '',
  );
  return photos;
}

/** The packet as a program downloads it: POST its pdf_url, wait for the build, GET the file. */
async function downloaded(exported: Schemas['PdfExport']): Promise<string> {
  const local = (url: string) => `${t.url}${new URL(url).pathname}${new URL(url).search}`;
  let build = (await (
    await fetch(local(exported.pdf_url), { method: 'POST' })
  ).json()) as Schemas['PacketBuild'];
  while (build.state === 'queued' || build.state === 'building') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    build = (await (await fetch(local(build.status_url))).json()) as Schemas['PacketBuild'];
  }
  expect(build).toMatchObject({ state: 'ready', error: null });
  const file = path.join(ARTIFACTS, 'packet.pdf');
  await writeFile(file, Buffer.from(await (await fetch(local(build.download_url!))).arrayBuffer()));
  return file;
}

const checks = (readiness: Schemas['ClaimReadiness']) =>
  readiness.findings.map((finding) =>
    `${finding.severity} ${finding.check} ${finding.record.name ?? finding.record.id ?? ''}`.trim(),
  );

describe('the worked example: a two-chamber water loss over five days', () => {
  it('records the job, the technician, the equipment and the chambers; the readiness check finds what a desk reviewer would, and the packet shows it all once fixed', async () => {
    say('# Worked example: a two-chamber water loss over five days');
    say(
      `Company today: ${dateOf(5)} (day 5 of the log). Marco Diaz is a technician with no key; ${co.people[0].name}'s key makes every call over MCP.`,
    );

    say('## Day 1: the job, the first visit, the equipment');
    const job = await call<Schemas['CreatedJob']>(
      'create_job',
      {
        operation_id: opId(),
        customer_name: 'Grace Lee',
        customer_phone: '217-555-0142',
        address_line1: '44 Elm St',
        city: 'Springfield',
        region: 'IL',
        loss_type: 'water',
        date_of_loss: dateOf(0),
        cause_of_loss: 'Dishwasher supply line',
        water_category: 2,
        carrier: 'Acme Mutual',
        claim_number: 'AM-2026-0412',
      },
      (answer) => ({
        id: answer.id,
        job_number: answer.job_number,
        water_category: answer.water_category,
        possible_duplicates: answer.possible_duplicates,
      }),
    );
    const at = { job_id: job.job_number };
    const first = await call<Schemas['ReadingsAdded']>(
      'add_drying_readings',
      {
        ...at,
        operation_id: opId(),
        by: 'marco',
        rows: [
          {
            date: dateOf(1),
            location: 'outside',
            readings: [
              { metric: 'temp_f', value: 48 },
              { metric: 'rh_pct', value: 71 },
            ],
          },
          {
            date: dateOf(1),
            location: 'unaffected',
            readings: [
              { metric: 'temp_f', value: 70 },
              { metric: 'rh_pct', value: 42 },
              {
                metric: 'drywall',
                value: 11,
                point: 'living room west wall',
                meter: 'Delmhorst BD-2100, drywall',
              },
            ],
          },
          {
            date: dateOf(1),
            area: 'Kitchen',
            readings: [
              { metric: 'temp_f', value: 74 },
              { metric: 'rh_pct', value: 63 },
              { metric: 'drywall', value: 38, point: 'north wall 2 ft', meter: 'Delmhorst BD-2100, drywall' },
              { metric: 'subfloor', value: 31 },
            ],
          },
          {
            date: dateOf(1),
            area: 'Hall',
            readings: [
              { metric: 'temp_f', value: 73 },
              { metric: 'rh_pct', value: 60 },
              { metric: 'drywall', value: 27, point: 'east wall 1 ft' },
            ],
          },
          {
            date: dateOf(1),
            area: 'Basement',
            readings: [
              { metric: 'temp_f', value: 66 },
              { metric: 'rh_pct', value: 72 },
              { metric: 'concrete', value: 6.5, point: 'slab under stairs' },
            ],
          },
        ],
      },
      (answer) => ({
        log_started: answer.log_started,
        added: answer.added,
        days: answer.days,
        areas_added: answer.areas_added,
        conditions: answer.conditions.map((c) => ({
          area: c.area,
          location: c.location,
          gpp: c.gpp,
          dew_point_f: c.dew_point_f,
        })),
      }),
    );
    expect(first).toMatchObject({
      log_started: true,
      days: [1],
      areas_added: ['Kitchen', 'Hall', 'Basement'],
    });

    const unitsShown = (answer: Schemas['EquipmentPlaced']) =>
      answer.placed.map(
        (unit) =>
          `${unit.id} ${unit.kind}${unit.asset_tag ? ` ${unit.asset_tag}` : ''} in ${unit.area} from day ${answer.day}, by ${unit.placed_on_site_by?.name}`,
      );
    const placed: Schemas['EquipmentPlaced'][] = [];
    for (const [area, units] of [
      [
        'Kitchen',
        [
          { kind: 'air_mover', count: 2 },
          { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 70, asset_tag: 'DH-07' },
        ],
      ],
      ['Hall', [{ kind: 'air_mover', count: 1 }]],
      [
        'Basement',
        [
          { kind: 'air_mover', count: 2 },
          { kind: 'dehumidifier', dehumidifier_type: 'lgr', pints_per_day: 110, asset_tag: 'DH-11' },
        ],
      ],
    ] as const) {
      placed.push(
        await call<Schemas['EquipmentPlaced']>(
          'place_equipment',
          { ...at, operation_id: opId(), by: 'marco', date: dateOf(1), area, units },
          unitsShown,
        ),
      );
    }

    say('The office sizes the rooms on the estimate the log started, then groups the areas into chambers.');
    const estimateId = first.estimate!.estimate_id;
    const estimate = await call<Schemas['Estimate']>(
      'get_estimate',
      { estimate_id: estimateId },
      (answer) => ({ label: answer.label, rooms: answer.rooms.map((room) => `${room.id} ${room.name}`) }),
    );
    const roomId = (name: string) => estimate.rooms.find((room) => room.name === name)!.id;
    for (const [name, length, width, height] of [
      ['Kitchen', 15, 12, 8],
      ['Hall', 20, 5, 8],
      ['Basement', 30, 20, 7],
    ] as const) {
      await call<Schemas['Estimate']>(
        'update_room',
        { estimate_id: estimateId, room_id: roomId(name), operation_id: opId(), length, width, height },
        (answer) => {
          const room = answer.rooms.find((one) => one.name === name)!;
          return {
            room: name,
            floor_area_sf: room.floor_area_sf,
            wall_area_sf: room.wall_area_sf,
            volume_cf: room.volume_cf,
          };
        },
      );
    }
    const chambersOf = (answer: { chambers: Schemas['DryingChamber'][] }) =>
      answer.chambers.map((chamber) => ({
        name: chamber.name,
        category: chamber.category,
        class: chamber.class,
        class_source: chamber.class_source,
        wet_share_pct: chamber.wet_share_pct,
        cubic_ft: chamber.cubic_ft,
        plan: chamber.plan,
        placed: chamber.placed,
        air_movers_vs_plan: chamber.air_movers_vs_plan,
        dehumidification_vs_plan: chamber.dehumidification_vs_plan,
        flags: chamber.flags,
      }));
    const chamberSetting = (note: string | null) => ({
      ...at,
      operation_id: opId(),
      chambers: [
        {
          name: 'Main floor',
          category: 2,
          areas: [
            { name: 'Kitchen', wet_floor_sqft: 150, wet_wall_sqft: 96, wall_offsets: 1 },
            { name: 'Hall', wet_floor_sqft: 60, wet_wall_sqft: 40 },
          ],
          ...(note ? { note } : {}),
        },
        {
          name: 'Basement',
          category: 2,
          class: 4,
          areas: [{ name: 'Basement', wet_floor_sqft: 600, wet_wall_sqft: 100 }],
        },
      ],
    });
    const chambers = await call<{ log_id: string; chambers: Schemas['DryingChamber'][] }>(
      'set_drying_chambers',
      chamberSetting(null),
      chambersOf,
    );
    expect(chambersOf(chambers)).toEqual([
      expect.objectContaining({
        name: 'Main floor',
        class: 2,
        class_source: 'computed',
        cubic_ft: 2240,
        plan: { air_movers: { min: 9, max: 10 }, dehumidifier_pints: { lgr: 45, conventional: 56 } },
        placed: { air_movers: 3, dehumidifier_pints: 70 },
        air_movers_vs_plan: 'under',
        dehumidification_vs_plan: 'within',
      }),
      expect.objectContaining({
        name: 'Basement',
        class: 4,
        class_source: 'given',
        cubic_ft: 4200,
        plan: { air_movers: { min: 11, max: 14 }, dehumidifier_pints: { lgr: 84, conventional: null } },
        placed: { air_movers: 2, dehumidifier_pints: 110 },
        air_movers_vs_plan: 'under',
      }),
    ]);

    say('## Days 2 to 5: Marco reads, the office enters what he dictates');
    const day = (n: number, areas: [string, number][], extra: Record<string, unknown> = {}) =>
      call<Schemas['ReadingsAdded']>(
        'add_drying_readings',
        {
          ...at,
          operation_id: opId(),
          by: 'marco',
          ...extra,
          rows: [
            {
              date: dateOf(n),
              location: 'outside',
              readings: [
                { metric: 'temp_f', value: 50 + n },
                { metric: 'rh_pct', value: 70 - n },
              ],
            },
            ...areas.map(([area, moisture]) => ({
              date: dateOf(n),
              area,
              readings: [
                { metric: 'temp_f', value: 72 },
                { metric: 'rh_pct', value: 58 - 4 * n },
                {
                  metric: area === 'Basement' ? 'concrete' : 'drywall',
                  value: moisture,
                  point: POINTS[area],
                },
              ],
            })),
          ],
        },
        (answer) => ({
          days: answer.days,
          materials: answer.materials.map(
            (m) => `${m.area} ${m.metric} ${m.value} goal ${m.goal} (${m.goal_source}) dry ${m.dry}`,
          ),
        }),
      );
    await day(2, [
      ['Kitchen', 30],
      ['Hall', 18],
      ['Basement', 5.8],
    ]);
    say('Marco brings the air movers up to the plan.');
    for (const [area, count] of [
      ['Kitchen', 4],
      ['Hall', 2],
      ['Basement', 9],
    ] as const) {
      placed.push(
        await call<Schemas['EquipmentPlaced']>(
          'place_equipment',
          {
            ...at,
            operation_id: opId(),
            by: 'marco',
            date: dateOf(2),
            area,
            units: [{ kind: 'air_mover', count }],
          },
          unitsShown,
        ),
      );
    }
    await day(3, [
      ['Kitchen', 22],
      ['Hall', 12],
    ]);
    await day(4, [
      ['Kitchen', 16],
      ['Hall', 11],
      ['Basement', 4.9],
    ]);
    say('The Hall reads dry on day 4: its three air movers leave.');
    const hallMovers = placed
      .flatMap((one) => one.placed)
      .filter((unit) => unit.area === 'Hall')
      .map((unit) => unit.id);
    await call<Schemas['EquipmentRemoved']>(
      'remove_equipment',
      { ...at, operation_id: opId(), by: 'marco', date: dateOf(4), equipment_ids: hallMovers },
      (answer) =>
        answer.removed.map(
          (unit) =>
            `${unit.kind} ${unit.id} left the ${unit.area} on ${unit.removed_on}: ${unit.days_on_site} days on site, by ${unit.removed_on_site_by?.name}`,
        ),
    );
    await day(5, [
      ['Kitchen', 12],
      ['Basement', 4.2],
    ]);

    // Unit-days by hand: Kitchen 2 movers × 5 days + 4 × 4; Hall 1 × 3 + 2 × 2 (removed on day 4);
    // Basement 2 × 5 + 9 × 4; each dehumidifier 5.
    say('The office bills the equipment-days on the estimate, and forgets the Basement dehumidifier.');
    await call<Schemas['LinesAdded']>(
      'add_line_items',
      {
        estimate_id: estimateId,
        operation_id: opId(),
        line_items: [
          { code: 'DRY-AM-STD', quantity: 26, room: 'Kitchen' },
          { code: 'DRY-DH-LGR', quantity: 5, room: 'Kitchen' },
          { code: 'DRY-AM-STD', quantity: 7, room: 'Hall' },
          { code: 'DRY-AM-STD', quantity: 46, room: 'Basement' },
        ],
      },
      (answer) => ({
        added: answer.added.map((line) => `${line.code} ${line.quantity} ${line.unit}`),
        total_cents: answer.totals.total_cents,
      }),
    );

    say('A link for Marco; his phone sends one photo of the kitchen.');
    const link = await call<Schemas['PhotoUploadLink']>(
      'get_photo_upload_link',
      { ...at, for: 'marco' },
      (answer) => ({ for: answer.for, expires_at: answer.expires_at }),
    );
    await uploadThroughLink(link, 'Kitchen', 1);

    const log = await call<Schemas['DryingLog']>('get_drying_log', at, (answer) => ({
      chambers: chambersOf(answer),
      equipment: { on_site: answer.equipment.on_site, equipment_days: answer.equipment.equipment_days },
      billing: answer.billing,
      warnings: answer.warnings,
    }));
    expect(
      chambersOf(log).map((chamber) => [chamber.name, chamber.placed.air_movers, chamber.air_movers_vs_plan]),
    ).toEqual([
      ['Main floor', 6, 'under'],
      ['Basement', 11, 'within'],
    ]);
    expect(log.days.map((one) => one.read_areas)).toEqual([
      ['Kitchen', 'Hall', 'Basement'],
      ['Kitchen', 'Hall', 'Basement'],
      ['Kitchen', 'Hall'],
      ['Kitchen', 'Hall', 'Basement'],
      ['Kitchen', 'Basement'],
    ]);
    expect(
      log.billing.map((line) => [
        line.area,
        line.kind,
        line.equipment_days,
        line.billed_unit_days,
        line.status,
      ]),
    ).toEqual([
      ['Kitchen', 'air_mover', 26, 26, 'matches'],
      ['Kitchen', 'dehumidifier', 5, 5, 'matches'],
      ['Hall', 'air_mover', 7, 7, 'matches'],
      ['Basement', 'air_mover', 46, 46, 'matches'],
      ['Basement', 'dehumidifier', 5, 0, 'not_billed'],
    ]);

    say('## Before the packet: what a desk reviewer would question');
    const before = await call<Schemas['ClaimReadiness']>('check_claim_readiness', at, (answer) => ({
      ready: answer.ready,
      counts: answer.counts,
      findings: answer.findings.map((f) => `${f.severity} ${f.check}: ${f.message} → ${f.fix.tool}`),
    }));
    expect(before.ready).toBe(false);
    expect(checks(before)).toEqual([
      'high monitored_day_without_readings',
      'high not_dry_on_last_day Kitchen',
      'high not_dry_on_last_day Basement',
      'high removal_contradicts_log Kitchen',
      'medium equipment_not_billed Basement',
      'medium equipment_outside_plan Main floor',
      'medium no_unaffected_reference Kitchen',
      'medium no_unaffected_reference Basement',
      'medium day_without_outside_or_unaffected',
      'medium day_without_outside_or_unaffected',
      'medium day_without_outside_or_unaffected',
      'medium day_without_outside_or_unaffected',
      'medium dehumidifier_without_exhaust Kitchen',
      'medium dehumidifier_without_exhaust Basement',
      'medium billed_room_without_photo Hall',
      'medium billed_room_without_photo Basement',
      'low room_with_few_photos Kitchen',
    ]);

    say('## The fixes, each with the tool the finding names');
    say(
      "Marco's paper log has the Basement's day 3, the unaffected subfloor and slab he read on day 1, the unaffected air of days 2 to 5 and the dehumidifiers' exhaust; this afternoon he reads the kitchen wall and subfloor and the slab again, dry.",
    );
    await call<Schemas['ReadingsAdded']>(
      'add_drying_readings',
      {
        ...at,
        operation_id: opId(),
        by: 'marco',
        rows: [
          {
            date: dateOf(3),
            area: 'Basement',
            source_of_values: 'read_from_log',
            readings: [
              { metric: 'temp_f', value: 71 },
              { metric: 'rh_pct', value: 48 },
              { metric: 'concrete', value: 5.3, point: POINTS.Basement },
            ],
          },
          {
            date: dateOf(1),
            location: 'unaffected',
            source_of_values: 'read_from_log',
            readings: [
              { metric: 'subfloor', value: 12, point: 'dining room' },
              { metric: 'concrete', value: 3.1, point: 'garage slab' },
            ],
          },
          ...[2, 3, 4, 5].map((n) => ({
            date: dateOf(n),
            location: 'unaffected',
            source_of_values: 'read_from_log',
            readings: [
              { metric: 'temp_f', value: 70 },
              { metric: 'rh_pct', value: 42 },
            ],
          })),
          ...['Kitchen', 'Basement'].flatMap((area) =>
            [1, 2, 3, 4, 5].map((n) => ({
              date: dateOf(n),
              area,
              location: 'dehumidifier_exhaust',
              source_of_values: 'read_from_log',
              readings: [
                { metric: 'temp_f', value: 82 },
                { metric: 'rh_pct', value: 30 },
              ],
            })),
          ),
          {
            date: dateOf(5),
            area: 'Kitchen',
            readings: [
              { metric: 'drywall', value: 11, point: POINTS.Kitchen },
              { metric: 'subfloor', value: 11 },
            ],
          },
          {
            date: dateOf(5),
            area: 'Basement',
            readings: [{ metric: 'concrete', value: 3, point: POINTS.Basement }],
          },
        ],
      },
      (answer) => ({ added: answer.added, days: answer.days }),
    );
    await call<Schemas['LinesAdded']>(
      'add_line_items',
      {
        estimate_id: estimateId,
        operation_id: opId(),
        line_items: [{ code: 'DRY-DH-LGR-XL', quantity: 5, room: 'Basement' }],
      },
      (answer) => ({
        added: answer.added.map((line) => `${line.code} ${line.quantity} ${line.unit}`),
        total_cents: answer.totals.total_cents,
      }),
    );
    await call<{ log_id: string; chambers: Schemas['DryingChamber'][] }>(
      'set_drying_chambers',
      chamberSetting('Hall read dry on day 4; its three air movers left that day.'),
      (answer) =>
        answer.chambers.map((chamber) => ({
          name: chamber.name,
          note: chamber.note,
          air_movers_vs_plan: chamber.air_movers_vs_plan,
          flags: chamber.flags,
        })),
    );
    await uploadThroughLink(link, 'Kitchen', 2);
    await uploadThroughLink(link, 'Hall', 2);
    await uploadThroughLink(link, 'Basement', 2);

    const after = await call<Schemas['ClaimReadiness']>('check_claim_readiness', at, (answer) => ({
      ready: answer.ready,
      counts: answer.counts,
      findings: answer.findings.map((f) => `${f.severity} ${f.check}: ${f.message}`),
    }));
    expect(after).toMatchObject({ ready: true, counts: { high: 0, medium: 0, low: 0 }, findings: [] });

    say('## The packet for the carrier');
    const exported = await call<Schemas['PdfExport']>(
      'export_pdf',
      { ...at, documents: ['estimate', 'drying_log', 'photos'] },
      (answer) => ({
        documents: answer.documents,
        photo_count: answer.photo_count,
        estimate: answer.estimate,
        finalizes_estimate: answer.finalizes_estimate,
      }),
    );
    const pdf = await downloaded(exported);
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))![1]);
    execFileSync('pdftoppm', ['-png', '-r', '50', pdf, path.join(ARTIFACTS, 'packet')]);
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
    say(`The packet: ${pages} pages, pictures of each in packet-N.png.`);
    for (const printed of [
      'Main floor',
      'Basement',
      'Hall read dry on day 4',
      'DH-11',
      'Air mover × 9',
      'Marco Diaz',
      'garage slab',
    ])
      expect(text).toContain(printed);
  });
});
