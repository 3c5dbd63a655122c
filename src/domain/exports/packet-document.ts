/**
 * A job's PDF packet as a pdfmake document: a cover, then the estimate, the drying log, the
 * photos and the signed forms, each only when the packet holds it. Every figure is printed as the read tools answered
 * it (money from the `*_cents` integers, GPP and dew points as the service computed them), so the
 * packet says exactly what `get_estimate` and `get_drying_log` say. Pure: the pictures come in
 * already made for print.
 */
import type {
  Content,
  ContentText,
  CustomTableLayout,
  StyleDictionary,
  TableCell,
  TableCellProperties,
  TDocumentDefinitions,
} from 'pdfmake/interfaces';
import { formatMoney } from '../../platform/money';
import { DEFAULT_DRY_GOALS } from '../drying/metrics';
import type { PacketData, PacketPhoto } from './packet-data';
import { signedFormsSection } from './packet-form-section';

type Job = PacketData['job'];
type Estimate = NonNullable<PacketData['estimate']>;
type Room = Estimate['rooms'][number];
type Line = Estimate['unassigned_lines'][number];
type DryingLog = NonNullable<PacketData['dryingLog']>;
type Area = DryingLog['areas'][number];
type LogDay = DryingLog['days'][number];
type Air = NonNullable<DryingLog['conditions']>[number];
type Material = Area['materials'][number];
/** Print pictures by the photo's `picture`: the JPEG's bytes, or a data URL or local path pdfmake reads. */
export type PacketPictures = Map<string, Buffer | string>;

const GREY = '#5f6368';
const RULE = '#c8ccd0';
const WET = '#b3261e';
const DRY = '#1e7b34';
const HEAD_FILL = '#eef1f4';
/** Letter with 40 pt sides: 532 pt of width for content. */
const CONTENT_WIDTH = 532;
const PHOTOS_PER_PAGE = 6;
/** Long captions are cut so that a page's three rows of photos always fit on it. */
const CAPTION_CHARS = 110;
const MATERIAL_COLUMNS = 6;
/** A photo's box: half the width, and a third of the page less its caption lines. */
const PHOTO_BOX: [number, number] = [260, 176];

export function packetDocument(data: PacketData, pictures: PacketPictures): TDocumentDefinitions {
  const images: Record<string, string> = {};
  const content: Content[] = [cover(data)];
  if (data.estimate) content.push(estimateSection(data.estimate));
  if (data.dryingLog) content.push(dryingSection(data.dryingLog));
  if (data.photos) content.push(photoSection(data.photos, imageKeys(data.photos, pictures, images)));
  if (data.signedForms) content.push(...signedFormsSection(data.signedForms, pictures, images));
  return {
    pageSize: 'LETTER',
    pageMargins: [40, 44, 40, 44],
    info: {
      title: `Job #${data.job.job_number} ${data.job.title}`,
      author: data.company.name,
      subject: 'Job packet',
    },
    defaultStyle: { font: 'Roboto', fontSize: 9, lineHeight: 1.15 },
    styles: STYLES,
    images,
    content,
    header: (page) =>
      page === 1 ? null : { text: data.company.name, style: 'running', margin: [40, 20, 40, 0] },
    footer: (page, pages) => ({
      columns: [
        { text: `Job #${data.job.job_number} · ${data.job.title}` },
        { text: `Page ${page} of ${pages}`, alignment: 'right', width: 'auto' },
      ],
      style: 'running',
      margin: [40, 14, 40, 0],
    }),
  };
}

const STYLES: StyleDictionary = {
  company: { fontSize: 13, bold: true, color: GREY },
  title: { fontSize: 30, bold: true },
  subtitle: { fontSize: 16, margin: [0, 4, 0, 0] },
  h1: { fontSize: 18, bold: true, margin: [0, 0, 0, 4] },
  h2: { fontSize: 14, bold: true, margin: [0, 0, 0, 2] },
  h3: { fontSize: 11, bold: true },
  muted: { color: GREY },
  small: { fontSize: 7.5, color: GREY },
  label: { color: GREY },
  th: { bold: true, fillColor: HEAD_FILL },
  running: { fontSize: 8, color: GREY },
};

/** Thin rules between rows only: reads as a ledger and prints cleanly. */
const LEDGER: CustomTableLayout = {
  hLineWidth: (i, node) => (i === 0 || i > node.table.body.length - 1 ? 0 : 0.5),
  vLineWidth: () => 0,
  hLineColor: () => RULE,
  paddingTop: () => 2.5,
  paddingBottom: () => 2.5,
};

/** The drying tables' rows are tighter: a month of days and the chart fit on one page. */
const DAILY: CustomTableLayout = { ...LEDGER, paddingTop: () => 1, paddingBottom: () => 1 };

// ── Formatting ───────────────────────────────────────────────────────────────

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Quantities and readings as given, with at most two decimals and thousands grouped. */
const decimal = (value: number): string => value.toLocaleString('en-US', { maximumFractionDigits: 2 });
/** GPP and dew point carry one decimal in the service's answer; always show it. */
const oneDecimal = (value: number | null): string => (value === null ? '—' : value.toFixed(1));
const percent = (value: number): string => `${decimal(value)}%`;

/** `2026-11-18` as `November 18, 2026` (or `Nov 18`): a calendar day, so no timezone applies. */
export function calendarDate(iso: string, style: 'long' | 'short'): string {
  const [year, month, day] = iso.split('-').map(Number);
  const name = MONTHS[month - 1] ?? '?';
  return style === 'long' ? `${name} ${day}, ${year}` : `${name.slice(0, 3)} ${day}`;
}

/** A count and its noun, singular for one: "1 day", "3 days". */
const counted = (count: number, noun: string, plural = `${noun}s`): string =>
  `${count} ${count === 1 ? noun : plural}`;
const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1).replace(/_/g, ' ');
const present = (parts: (string | null | undefined)[]): string | null =>
  parts.filter((part) => part).join(' · ') || null;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

type TextCell = ContentText & TableCellProperties;
const th = (text: string, alignment: 'left' | 'right' | 'center' = 'left'): TextCell => ({
  text,
  style: 'th',
  alignment,
});
const right = (text: string, extra: { bold?: boolean; color?: string } = {}): TextCell => ({
  text,
  alignment: 'right',
  ...extra,
});
/** A cell spanning `span` columns, followed by the placeholders pdfmake wants for the columns it covers. */
function spanning(cell: TextCell, span: number): TableCell[] {
  return [{ ...cell, colSpan: span }, ...Array.from({ length: span - 1 }, (): TableCell => ({}))];
}

// ── Cover ────────────────────────────────────────────────────────────────────

function cover(data: PacketData): Content {
  const { job } = data;
  const rows = coverFacts(data).map(([label, value]): TableCell[] => [
    { text: label, style: 'label' },
    { text: value },
  ]);
  return [
    { text: data.company.name, style: 'company' },
    { text: `Job #${job.job_number}`, style: 'title', margin: [0, 150, 0, 0] },
    { text: job.title, style: 'subtitle' },
    { text: contentsLine(data), style: 'muted', margin: [0, 6, 0, 28] },
    { table: { widths: [110, '*'], body: rows }, layout: LEDGER, fontSize: 11 },
  ];
}

function contentsLine(data: PacketData): string {
  const parts = [data.estimate && 'Estimate', data.dryingLog && 'Drying log', data.photos && 'Photos'];
  return present(parts) ?? '';
}

/** The cover's facts that the job has; the packet date always. */
function coverFacts(data: PacketData): [string, string][] {
  const { job } = data;
  const facts: [string, string | null][] = [
    ['Customer', customerText(job)],
    ['Loss address', job.address],
    ['Claim number', job.claim.claim_number],
    ['Policy number', job.claim.policy_number],
    ['Carrier', job.claim.carrier],
    ['Adjuster', adjusterText(job)],
    ['Date of loss', job.date_of_loss ? calendarDate(job.date_of_loss, 'long') : null],
    ['Loss', lossText(job)],
    ['Packet date', data.date],
  ];
  return facts.filter((fact): fact is [string, string] => fact[1] !== null);
}

const personWithRole = (job: Job, role: string) =>
  job.people.find((person) => person.role.toLowerCase() === role);

function customerText(job: Job): string | null {
  const customer = personWithRole(job, 'customer');
  return present([job.customer_name ?? customer?.name, customer?.phone]);
}

/** The claim's adjuster, with the phone and email of the job's adjuster when that is the same person. */
function adjusterText(job: Job): string | null {
  const person = personWithRole(job, 'adjuster');
  const named = job.claim.adjuster;
  const same = person && (!named || named.trim().toLowerCase() === person.name.trim().toLowerCase());
  return present([named ?? person?.name, same ? person.phone : null, same ? person.email : null]);
}

function lossText(job: Job): string | null {
  const type = job.loss_type ? capitalised(job.loss_type) : null;
  const category = job.water_category !== null ? `category ${job.water_category}` : null;
  return present([type && category ? `${type} (${category})` : (type ?? category), job.cause_of_loss]);
}

// ── Estimate ─────────────────────────────────────────────────────────────────

function estimateSection(estimate: Estimate): Content {
  const currency = estimate.totals.currency;
  const groups: Content[] = estimate.rooms.map((room) =>
    lineTable(room.name, roomNote(room), room.lines ?? [], room.subtotal_cents, currency),
  );
  if (estimate.unassigned_lines.length > 0) {
    // The answer gives no figure for lines outside rooms; their sum is an exact sum of integer
    // cents, the same rule by which the service makes a room's subtotal.
    const sum = estimate.unassigned_lines.reduce((total, line) => total + line.total_cents, 0);
    groups.push(lineTable('Other items', 'not in a room', estimate.unassigned_lines, sum, currency));
  }
  return [
    { text: `Estimate: ${estimate.label}`, style: 'h1', pageBreak: 'before' },
    { text: estimateFacts(estimate), style: 'muted' },
    estimate.scope_summary ? { text: estimate.scope_summary, margin: [0, 6, 0, 0] } : [],
    groups,
    totalsTable(estimate),
  ];
}

function estimateFacts(estimate: Estimate): string {
  const status = estimate.status === 'final' ? 'Final estimate' : 'Draft estimate';
  const region = estimate.region.code ? `Prices for ${estimate.region.code}` : null;
  const drying = estimate.drying_days !== null ? counted(estimate.drying_days, 'drying day') : null;
  return present([status, drying, region]) ?? status;
}

function roomNote(room: Room): string | null {
  const size =
    room.length !== null && room.width !== null
      ? `${decimal(room.length)} × ${decimal(room.width)}${room.height !== null ? ` × ${decimal(room.height)}` : ''} ft`
      : null;
  return present([size, room.floor_area_sf !== null ? `${decimal(room.floor_area_sf)} SF floor` : null]);
}

/** A room's lines under its name (repeated on a following page), ending with the room's total. */
function lineTable(
  title: string,
  note: string | null,
  lines: Line[],
  totalCents: number,
  currency: string,
): Content {
  const heading: TableCell = {
    text: [{ text: title, style: 'h3' }, note ? { text: `   ${note}`, style: 'small' } : ''],
    margin: [0, 8, 0, 2],
  };
  const body: TableCell[][] = [
    spanning(heading, 5),
    [th('Code'), th('Description'), th('Quantity', 'right'), th('Unit price', 'right'), th('Total', 'right')],
    ...lines.map((line) => lineRow(line, currency)),
    [
      ...spanning(right(`${title} total`, { bold: true }), 4),
      right(formatMoney(totalCents, currency), { bold: true }),
    ],
  ];
  return {
    table: { headerRows: 2, keepWithHeaderRows: 1, dontBreakRows: true, widths: [58, '*', 62, 62, 70], body },
    layout: LEDGER,
  };
}

function lineRow(line: Line, currency: string): TableCell[] {
  const perDay =
    line.per_day && line.units_per_day !== null ? `${decimal(line.units_per_day)} ${line.unit} a day` : null;
  const detail = present([perDay, line.note]);
  return [
    { text: line.code ?? '', style: 'muted' },
    { stack: [line.description, ...(detail ? [{ text: detail, style: 'small' }] : [])] },
    right(`${decimal(line.quantity)} ${line.unit}`),
    right(formatMoney(line.unit_price_cents, currency)),
    right(formatMoney(line.total_cents, currency)),
  ];
}

function totalsTable(estimate: Estimate): Content {
  const { totals, rates } = estimate;
  const row = (label: string, cents: number, bold = false): TableCell[] => [
    { text: label, bold },
    right(formatMoney(cents, totals.currency), { bold }),
  ];
  const body = [
    row('Subtotal', totals.subtotal_cents),
    row(`Overhead (${percent(rates.overhead_pct)})`, totals.overhead_cents),
    row(`Profit (${percent(rates.profit_pct)})`, totals.profit_cents),
    row(`Tax (${percent(rates.tax_pct)})`, totals.tax_cents),
    row('Total', totals.total_cents, true),
  ];
  const table: Content = { table: { widths: ['*', 90], body }, layout: LEDGER, fontSize: 10 };
  return {
    columns: [
      { text: '', width: '*' },
      { stack: [table], width: 230 },
    ],
    margin: [0, 14, 0, 0],
    unbreakable: true,
  };
}

// ── Drying log ───────────────────────────────────────────────────────────────

function dryingSection(log: DryingLog): Content {
  return [
    { text: 'Drying log', style: 'h1', pageBreak: 'before' },
    { text: logFacts(log), style: 'muted' },
    {
      text: log.wet_areas.length > 0 ? `Still wet: ${log.wet_areas.join(', ')}` : 'Every area has read dry.',
      margin: [0, 2, 0, 10],
    },
    chambersTable(log),
    log.areas.map((area, index) => areaBlock(log, area, index > 0)),
    equipmentLog(log.equipment),
    dryingNotes(log),
  ];
}

/** Each chamber: category and class, its S500 plan against what is on site, and its air beside the building's. */
function chambersTable(log: DryingLog): Content {
  if (log.chambers.length === 0) return [];
  const gpp = (air: { gpp: number | null; dew_point_f: number | null } | null | undefined) =>
    air && air.gpp !== null ? `${oneDecimal(air.gpp)} GPP, dew ${oneDecimal(air.dew_point_f)} °F` : '—';
  const body: TableCell[][] = [
    [
      th('Chamber'),
      th('Category, class'),
      th('Air movers: plan / most on site'),
      th('Dehumidifier pints: plan / most on site'),
      th('Latest air (areas · unaffected · outside)'),
    ],
  ];
  for (const chamber of log.chambers) {
    const air = log.chamber_air.find((c) => c.chamber === chamber.name);
    const klass =
      chamber.class === null
        ? 'class unknown'
        : `class ${chamber.class}${chamber.class_source === 'computed' ? ` (${chamber.wet_share_pct}% wet)` : ''}`;
    const most = mostOnSite(
      log.equipment.units,
      chamber.areas.map((area) => area.name),
    );
    const { air_movers: moverPlan, dehumidifier_pints: pintPlan } = chamber.plan;
    const movers = moverPlan
      ? `${moverPlan.min}–${moverPlan.max} / ${most.airMovers}`
      : `— / ${most.airMovers}`;
    const pints = pintPlan ? `${pintPlan.lgr} LGR / ${most.pints}` : `— / ${most.pints}`;
    const areas = (air?.areas ?? []).map((a) => `${a.area}: ${gpp(a)}`);
    body.push([
      {
        stack: [
          { text: chamber.name, bold: true },
          { text: chamber.areas.map((a) => a.name).join(', '), style: 'small' },
          ...(chamber.note ? [{ text: chamber.note, style: 'small', italics: true }] : []),
        ],
      },
      `Category ${chamber.category}, ${klass}${chamber.category_reviewed_on ? `\nreviewed ${calendarDate(chamber.category_reviewed_on, 'short')}` : ''}`,
      {
        text: movers,
        color:
          moverPlan && (most.airMovers < moverPlan.min || most.airMovers > moverPlan.max) ? WET : undefined,
      },
      { text: pints, color: pintPlan && most.pints < pintPlan.lgr ? WET : undefined },
      {
        stack: [...areas, `Unaffected: ${gpp(air?.unaffected)}`, `Outside: ${gpp(air?.outside)}`],
        style: 'small',
      },
    ]);
  }
  return [
    { text: 'Drying chambers', style: 'h2', margin: [0, 4, 0, 4] },
    {
      table: { headerRows: 1, dontBreakRows: true, widths: [100, 70, 70, 80, '*'], body },
      layout: LEDGER,
      fontSize: 8,
      margin: [0, 0, 0, 8],
    },
  ];
}

/**
 * The most air movers, and the most refrigerant dehumidifiers' pints a day, that were on site at
 * once in these areas: what the plan is held against over the drying, not what is left today. A
 * unit is on site from the day placed until the day removed (not counted, as for
 * equipment-days), or that one day when it was removed the day it was placed.
 */
function mostOnSite(units: Unit[], areas: string[]): { airMovers: number; pints: number } {
  const names = new Set(areas.map((area) => area.toLowerCase()));
  const mine = units.filter((unit) => names.has(unit.area.toLowerCase()));
  const onSiteOn = (date: string) =>
    mine.filter(
      (unit) =>
        unit.placed_on <= date &&
        (unit.removed_on === null || date < unit.removed_on || date === unit.placed_on),
    );
  let airMovers = 0;
  let pints = 0;
  // The most are on site on a day a unit was placed.
  for (const date of new Set(mine.map((unit) => unit.placed_on))) {
    const there = onSiteOn(date);
    airMovers = Math.max(airMovers, there.filter((unit) => unit.kind === 'air_mover').length);
    pints = Math.max(
      pints,
      there
        .filter((unit) => unit.kind === 'dehumidifier' && unit.dehumidifier_type !== 'desiccant')
        .reduce((total, unit) => total + (unit.pints_per_day ?? 0), 0),
    );
  }
  return { airMovers, pints };
}

const DEHUMIDIFIER_TYPES = { lgr: 'LGR', conventional: 'conventional', desiccant: 'desiccant' } as const;

type Unit = DryingLog['equipment']['units'][number];

/**
 * Every unit placed, where, from when to when, and its equipment-days, with the totals per area.
 * Units alike that came and went together (nine air movers set in the basement on day 2) are one
 * row with their count; a unit with an asset tag is always its own row.
 */
function equipmentLog(equipment: DryingLog['equipment']): Content {
  if (equipment.units.length === 0) return [];
  const kind = (unit: Unit) =>
    present([
      capitalised(unit.kind),
      unit.dehumidifier_type ? DEHUMIDIFIER_TYPES[unit.dehumidifier_type] : null,
      unit.pints_per_day ? `${counted(unit.pints_per_day, 'pint')} a day` : null,
      unit.asset_tag,
    ]) ?? '';
  const body: TableCell[][] = [
    [th('Unit'), th('Area'), th('Placed'), th('Removed'), th('Days', 'right'), th('Unit-days', 'right')],
    ...unitsTogether(equipment.units).map(({ unit, count }) => [
      count > 1 ? `${kind(unit)} × ${count}` : kind(unit),
      unit.area,
      movedOn(calendarDate(unit.placed_on, 'short'), unit.placed_on_site_by),
      unit.removed_on ? movedOn(calendarDate(unit.removed_on, 'short'), unit.removed_on_site_by) : 'on site',
      right(String(unit.days_on_site)),
      right(String(unit.days_on_site * count)),
    ]),
    ...equipment.by_area.map((area) => [
      ...spanning({ text: `${area.area}: ${area.on_site} on site`, style: 'muted' }, 5),
      right(String(area.equipment_days)),
    ]),
    [
      ...spanning({ text: 'Equipment-days in all', bold: true }, 5),
      right(String(equipment.equipment_days), { bold: true }),
    ],
  ];
  const table: Content = {
    table: { headerRows: 1, dontBreakRows: true, widths: ['*', 80, 62, 62, 30, 44], body },
    layout: LEDGER,
    fontSize: 9,
  };
  // A log that fits a page is printed whole, with its heading; a longer one breaks between rows.
  return {
    stack: [{ text: 'Equipment', style: 'h2', margin: [0, 10, 0, 4] }, table],
    unbreakable: body.length <= WHOLE_EQUIPMENT_ROWS,
  };
}

type DryingNote = DryingLog['notes'][number];
const NOTES_HEADING: Content = { text: 'Drying notes', style: 'h2', margin: [0, 10, 0, 4] };

/** The drying notes by day (a day's in the order written), then those about no day. */
function dryingNotes(log: DryingLog): Content {
  if (log.notes.length === 0) return [];
  const days = [...new Set(log.notes.map((note) => note.day))].sort(
    (a, b) => (a ?? Number.MAX_SAFE_INTEGER) - (b ?? Number.MAX_SAFE_INTEGER),
  );
  const heading = (day: number | null) => {
    if (day === null) return 'No day given';
    const date = log.days.find((d) => d.day === day)?.date;
    return `Day ${day}${date ? ` · ${calendarDate(date, 'long')}` : ''}`;
  };
  // A day's notes stay on one page, and the section's heading with the first day.
  return days.map(
    (day, index): Content => ({
      stack: [
        ...(index === 0 ? [NOTES_HEADING] : []),
        { text: heading(day), bold: true, margin: [0, 4, 0, 2] },
        ...log.notes.filter((note) => note.day === day).map(noteLine),
      ],
      unbreakable: true,
    }),
  );
}

function noteLine(note: DryingNote): Content {
  const by =
    note.on_site_by && note.on_site_by.id !== note.created_by.id
      ? `${note.on_site_by.name} on site (entered by ${note.created_by.name})`
      : note.created_by.name;
  return {
    text: [
      ...(note.area ? [{ text: `${note.area}: `, bold: true }] : []),
      note.text,
      { text: `   ${by}`, style: 'small' },
    ],
    margin: [8, 0, 0, 3],
  };
}

/** An equipment log of this many rows or fewer fits a page, so it is kept whole. */
const WHOLE_EQUIPMENT_ROWS = 24;

/** Units in the log's order, those alike (kind, rating, area, both moves and who made them) counted as one. */
function unitsTogether(units: Unit[]): { unit: Unit; count: number }[] {
  const rows = new Map<string, { unit: Unit; count: number }>();
  for (const unit of units) {
    const key = unit.asset_tag
      ? unit.id
      : JSON.stringify([
          unit.kind,
          unit.dehumidifier_type,
          unit.pints_per_day,
          unit.area,
          unit.placed_on,
          unit.removed_on,
          unit.placed_on_site_by?.id,
          unit.removed_on_site_by?.id,
        ]);
    const row = rows.get(key);
    if (row) row.count++;
    else rows.set(key, { unit, count: 1 });
  }
  return [...rows.values()];
}

/** A move's date, and the teammate who made it on site when the request named one. */
function movedOn(date: string, by: DryingLog['equipment']['units'][number]['placed_on_site_by']): TableCell {
  return by ? { stack: [date, { text: `by ${by.name}`, style: 'small' }] } : date;
}

function logFacts(log: DryingLog): string {
  const start = `Started ${calendarDate(log.start_date, 'long')}`;
  const plan = `planned ${counted(log.planned_days, 'day')}`;
  const air = `GPP at ${decimal(log.elevation_ft)} ft elevation (${log.pressure_inhg.toFixed(2)} inHg)`;
  return [start, plan, air].join(' · ');
}

/** What one area's pages are made from: its days and its readings by day. */
interface AreaReadings {
  days: LogDay[];
  skipped: Set<number>;
  /** Why a skipped day was not monitored here, by day. */
  reasons: Map<number, string>;
  air: Map<number, Air>;
  exhaust: Map<number, Air>;
  /** Outside and unaffected air by day: the area's own, else the building's (read with no area). */
  outside: Map<number, Air>;
  unaffected: Map<number, Air>;
  depression: Map<number, number>;
  /** By material point (`metric|point`), then day. */
  materials: Map<string, Map<number, number>>;
}

const pointKey = (metric: string, point: string | null): string => `${metric}|${point ?? ''}`;
const sameName = (a: string | null, b: string): boolean => a !== null && a.toLowerCase() === b.toLowerCase();

function areaReadings(log: DryingLog, area: Area): AreaReadings {
  const skipped = new Set(
    log.days
      .filter((d) => !d.monitored || d.skipped_areas.some((name) => sameName(name, area.name)))
      .map((d) => d.day),
  );
  const last = Math.max(area.latest_day ?? 0, ...[...skipped]);
  const mine = (log.conditions ?? []).filter((c) => sameName(c.area, area.name));
  const byDay = (location: Air['location']) =>
    new Map(mine.filter((c) => c.location === location).map((c) => [c.day, c]));
  const building = (location: Air['location']) =>
    new Map(
      (log.conditions ?? []).filter((c) => c.area === null && c.location === location).map((c) => [c.day, c]),
    );
  const ownElseBuilding = (location: Air['location']) => new Map([...building(location), ...byDay(location)]);
  const depression = new Map(
    (log.grain_depression ?? []).filter((g) => sameName(g.area, area.name)).map((g) => [g.day, g.value]),
  );
  const materials = new Map<string, Map<number, number>>();
  for (const r of log.readings ?? []) {
    // References (and unaffected readings) set the goal; they are not readings that must reach it.
    if (
      !sameName(r.area, area.name) ||
      !(r.metric in DEFAULT_DRY_GOALS) ||
      r.reference ||
      r.location === 'unaffected'
    )
      continue;
    const key = pointKey(r.metric, r.point);
    materials.set(key, (materials.get(key) ?? new Map<number, number>()).set(r.day, r.value));
  }
  const days = log.days.filter((d) => d.day >= 1 && d.day <= last);
  const reasons = new Map(
    log.days.flatMap((d) =>
      d.skip_reasons
        .filter((r) => r.area === null || sameName(r.area, area.name))
        .map((r) => [d.day, r.reason] as const),
    ),
  );
  return {
    days,
    skipped,
    reasons,
    air: byDay('affected'),
    exhaust: byDay('dehumidifier_exhaust'),
    outside: ownElseBuilding('outside'),
    unaffected: ownElseBuilding('unaffected'),
    depression,
    materials,
  };
}

function areaBlock(log: DryingLog, area: Area, newPage: boolean): Content {
  const readings = areaReadings(log, area);
  const body: Content =
    readings.days.length === 0
      ? { text: 'No readings yet.', style: 'muted' }
      : [gppFigure(readings), airTable(readings), materialTables(area, readings)];
  return [
    { text: area.name, style: 'h2', pageBreak: newPage ? 'before' : undefined },
    { text: dryText(log, area), bold: true, color: area.dry ? DRY : WET, margin: [0, 0, 0, 2] },
    { text: readBy(log, area), style: 'small', margin: [0, 0, 0, 6] },
    body,
  ];
}

/** Who read the area on site, on which days, and who entered it when someone else did ("Marco Diaz, days 1–3 (entered by Jordan Reyes)"). */
function readBy(log: DryingLog, area: Area): string {
  const who = new Map<string, Set<number>>();
  for (const r of log.readings ?? []) {
    if (!sameName(r.area, area.name)) continue;
    const onSite = r.on_site_by ?? r.recorded_by;
    const name =
      onSite.id === r.recorded_by.id ? onSite.name : `${onSite.name} (entered by ${r.recorded_by.name})`;
    who.set(name, (who.get(name) ?? new Set<number>()).add(r.day));
  }
  if (who.size === 0) return '';
  return `Read on site by ${[...who].map(([name, days]) => `${name}, ${dayList([...days])}`).join('; ')}.`;
}

/** "day 2", "days 1–3", "days 1, 3–5". */
function dayList(days: number[]): string {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const day of sorted) {
    const last = runs.at(-1);
    if (last && day === last[1] + 1) last[1] = day;
    else runs.push([day, day]);
  }
  return `${sorted.length === 1 ? 'day' : 'days'} ${runs.map(([from, to]) => (from === to ? String(from) : `${from}–${to}`)).join(', ')}`;
}

function dryText(log: DryingLog, area: Area): string {
  const plan = `planned ${counted(area.planned_days, 'day')}`;
  if (area.dry) {
    const date = log.days.find((d) => d.day === area.dry_day)?.date;
    return area.dry_day === null
      ? `Dry · ${plan}`
      : `Read dry on day ${area.dry_day}${date ? ` (${calendarDate(date, 'long')})` : ''} · ${plan}`;
  }
  const latest = area.latest_day !== null ? `latest reading day ${area.latest_day}` : 'no readings yet';
  return `Still wet · ${latest} · ${plan}`;
}

function gppFigure(readings: AreaReadings): Content {
  const series: ChartSeries[] = [
    { label: 'Affected air', color: '#1a73e8', points: gppPoints(readings.air) },
  ];
  if (readings.exhaust.size > 0)
    series.push({
      label: 'Dehumidifier exhaust',
      color: '#e8710a',
      dashed: true,
      points: gppPoints(readings.exhaust),
    });
  // The goal the room's air dries toward is the unaffected air's; outside air shows what the weather adds.
  if (readings.unaffected.size > 0)
    series.push({
      label: 'Goal: unaffected air',
      color: '#188038',
      dashed: true,
      points: gppPoints(inDays(readings.unaffected, readings.days)),
    });
  if (readings.outside.size > 0)
    series.push({
      label: 'Outside air',
      color: '#80868b',
      points: gppPoints(inDays(readings.outside, readings.days)),
    });
  if (series.every((s) => s.points.length === 0))
    return {
      text: 'No air readings with both temperature and RH: no GPP to chart.',
      style: 'muted',
      margin: [0, 0, 0, 8],
    };
  const days = readings.days.map((d) => d.day);
  const svg = gppChart(series, days[0], days[days.length - 1], [...readings.skipped]);
  return { svg, width: CONTENT_WIDTH, margin: [0, 0, 0, 8] };
}

/** Only the days the area's chart spans. */
const inDays = (byDay: Map<number, Air>, days: LogDay[]): Map<number, Air> =>
  new Map([...byDay].filter(([day]) => days.some((d) => d.day === day)));

const gppPoints = (byDay: Map<number, Air>): ChartPoint[] =>
  [...byDay.values()]
    .filter((c): c is Air & { gpp: number } => c.gpp !== null)
    .map((c) => ({ day: c.day, value: c.gpp }))
    .sort((a, b) => a.day - b.day);

function airTable(readings: AreaReadings): Content {
  const exhaust = readings.exhaust.size > 0;
  const [outside, unaffected] = [readings.outside.size > 0, readings.unaffected.size > 0];
  const header = [
    th('Day', 'right'),
    th('Date'),
    th('Temp °F', 'right'),
    th('RH %', 'right'),
    th('GPP', 'right'),
    th('Dew point °F', 'right'),
  ];
  if (exhaust) header.push(th('Dehu GPP', 'right'), th('Grain depr.', 'right'));
  if (unaffected) header.push(th('Unaff. GPP', 'right'));
  if (outside) header.push(th('Outside GPP', 'right'), th('Outside dew pt', 'right'));
  const body = [
    [
      ...spanning(
        {
          text: 'Air in the affected area, daily, beside the unaffected and outside air',
          style: 'h3',
          margin: [0, 2, 0, 2],
        },
        header.length,
      ),
    ],
    header,
  ];
  for (const day of readings.days)
    body.push(airRow(day, readings, header.length, { exhaust, outside, unaffected }));
  return {
    table: {
      headerRows: 2,
      keepWithHeaderRows: 1,
      dontBreakRows: true,
      widths: [26, 58, ...header.slice(2).map(() => '*')],
      body,
    },
    layout: DAILY,
    fontSize: 8,
    margin: [0, 0, 0, 10],
  };
}

function airRow(
  day: LogDay,
  readings: AreaReadings,
  width: number,
  columns: { exhaust: boolean; outside: boolean; unaffected: boolean },
): TableCell[] {
  const air = readings.air.get(day.day);
  const out = readings.exhaust.get(day.day);
  const [outside, unaffected] = [readings.outside.get(day.day), readings.unaffected.get(day.day)];
  const lead = dayCells(day, readings.skipped.has(day.day));
  const building: TableCell[] = [];
  if (columns.unaffected) building.push(right(oneDecimal(unaffected?.gpp ?? null)));
  if (columns.outside)
    building.push(right(oneDecimal(outside?.gpp ?? null)), right(oneDecimal(outside?.dew_point_f ?? null)));
  // A day without the area's own air says why, across the area's columns; the building's air stays beside it.
  if (!air && !out)
    return [
      ...lead,
      ...emptyDay(readings.skipped.has(day.day), width - 2 - building.length, readings.reasons.get(day.day)),
      ...(outside || unaffected ? building : building.map(() => '')),
    ];
  const cells = [
    right(air?.temp_f != null ? decimal(air.temp_f) : '—'),
    right(air?.rh_pct != null ? decimal(air.rh_pct) : '—'),
    right(oneDecimal(air?.gpp ?? null)),
    right(oneDecimal(air?.dew_point_f ?? null)),
  ];
  if (columns.exhaust)
    cells.push(right(oneDecimal(out?.gpp ?? null)), right(depressionText(readings.depression.get(day.day))));
  return [...lead, ...cells, ...building];
}

const depressionText = (value: number | undefined): string => (value === undefined ? '—' : value.toFixed(1));

function dayCells(day: LogDay, skipped: boolean): TableCell[] {
  return [
    right(String(day.day)),
    { text: [calendarDate(day.date, 'short'), skipped ? { text: ' skipped', style: 'small' } : ''] },
  ];
}

function emptyDay(skipped: boolean, span: number, reason?: string): TableCell[] {
  const text = skipped
    ? reason
      ? `Skipped: ${reason}`
      : span > 2
        ? 'Skipped: no monitoring this day'
        : 'Skipped'
    : 'No reading';
  return spanning({ text, italics: true, color: GREY }, span);
}

const metricName = capitalised;
const GOAL_SOURCES: Record<Material['goal_source'], string> = {
  area_reference: 'area reference',
  unaffected_reference: 'building reference',
  default: 'default',
};

/** A material table of this many days or fewer fits a page, so it is kept whole. */
const WHOLE_TABLE_DAYS = 14;

/** Material points as columns, a few to a table so that each stays readable. */
function materialTables(area: Area, readings: AreaReadings): Content {
  if (area.materials.length === 0) return { text: 'No material readings yet.', style: 'muted' };
  const points = [...area.materials].sort((a, b) =>
    pointKey(a.metric, a.point).localeCompare(pointKey(b.metric, b.point)),
  );
  // As few tables as the columns allow, with the points shared evenly between them.
  const perTable = Math.ceil(points.length / Math.ceil(points.length / MATERIAL_COLUMNS));
  const tables = chunks(points, perTable).map((group) => materialTable(group, readings));
  return [
    ...tables,
    { text: 'Readings above the dry goal are in bold red. Dry means at or below the goal.', style: 'small' },
  ];
}

function materialTable(points: Material[], readings: AreaReadings): Content {
  const names = points.map((p) =>
    th(p.point ? `${metricName(p.metric)}\n${p.point}` : metricName(p.metric), 'right'),
  );
  const goals = points.map(
    (p): TableCell => ({
      text: [`goal ${decimal(p.goal)}`, GOAL_SOURCES[p.goal_source], ...referenceLines(p.reference)].join(
        '\n',
      ),
      style: 'small',
      alignment: 'right',
      fillColor: HEAD_FILL,
    }),
  );
  const body: TableCell[][] = [
    spanning({ text: 'Material moisture, daily', style: 'h3', margin: [0, 2, 0, 2] }, points.length + 2),
    [th('Day', 'right'), th('Date'), ...names],
    [
      { text: '', fillColor: HEAD_FILL },
      { text: 'Dry goal', style: 'small', fillColor: HEAD_FILL },
      ...goals,
    ],
    ...readings.days.map((day) => materialRow(day, points, readings)),
    [{ text: '' }, { text: 'Latest', bold: true }, ...points.map(latestCell)],
  ];
  // Fixed widths (4 pt of padding each side): a single point should not stretch across the page.
  const width = Math.min(78, Math.floor((CONTENT_WIDTH - 84) / points.length) - 8);
  const widths = [26, 58, ...points.map(() => width)];
  // A short log's table is never split (a page held only its "Latest" row); a long one breaks between days.
  return {
    table: { headerRows: 3, keepWithHeaderRows: 1, dontBreakRows: true, widths, body },
    layout: DAILY,
    fontSize: 8,
    margin: [0, 0, 0, 6],
    unbreakable: readings.days.length <= WHOLE_TABLE_DAYS,
  };
}

/** Where the goal's reference was read (its point, the day) and with which meter. */
function referenceLines(reference: Material['reference']): string[] {
  if (!reference) return [];
  return [
    `${reference.point ?? 'read'} (day ${reference.day})`,
    ...(reference.meter ? [reference.meter] : []),
  ];
}

function materialRow(day: LogDay, points: Material[], readings: AreaReadings): TableCell[] {
  const values = points.map((p) => readings.materials.get(pointKey(p.metric, p.point))?.get(day.day));
  const skipped = readings.skipped.has(day.day);
  if (values.every((v) => v === undefined))
    return [...dayCells(day, skipped), ...emptyDay(skipped, points.length)];
  // A point's goal is the same on every day (the latest reference sets it); "dry" is at or below it.
  return [
    ...dayCells(day, skipped),
    ...values.map((v, i) =>
      v === undefined ? right('—') : right(decimal(v), v > points[i].goal ? { bold: true, color: WET } : {}),
    ),
  ];
}

/** The service's own verdict on each point, from its latest reading. */
function latestCell(point: Material): TableCell {
  return right(`${decimal(point.value)} ${point.dry ? 'dry' : 'wet'} (day ${point.day})`, {
    bold: true,
    color: point.dry ? DRY : WET,
  });
}

// ── GPP chart (SVG) ──────────────────────────────────────────────────────────

export interface ChartPoint {
  day: number;
  value: number;
}

export interface ChartSeries {
  label: string;
  color: string;
  dashed?: boolean;
  points: ChartPoint[];
}

const CHART = { width: CONTENT_WIDTH, height: 140, left: 36, right: 10, top: 22, bottom: 26 };

/** A line chart of GPP by day: days on x, GPP on y, a grey band on each skipped day. */
export function gppChart(
  series: ChartSeries[],
  firstDay: number,
  lastDay: number,
  skipped: number[],
): string {
  const values = series.flatMap((s) => s.points.map((p) => p.value));
  const ticks = niceTicks(values.length ? Math.min(...values) : 0, values.length ? Math.max(...values) : 100);
  const scale = chartScale(firstDay, lastDay, ticks[0], ticks[ticks.length - 1]);
  const parts = [
    ...skipped.filter((d) => d >= firstDay && d <= lastDay).map((d) => skippedBand(scale, d)),
    ...yAxis(scale, ticks),
    ...xAxis(scale, firstDay, lastDay),
    ...series.flatMap((s) => seriesMarks(scale, s)),
    ...legend(series, skipped.length > 0),
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART.width}" height="${CHART.height}" viewBox="0 0 ${CHART.width} ${CHART.height}">${parts.join('')}</svg>`;
}

interface ChartScale {
  x: (day: number) => number;
  y: (value: number) => number;
  /** Width of one day on the x axis. */
  step: number;
}

function chartScale(firstDay: number, lastDay: number, low: number, high: number): ChartScale {
  const plotWidth = CHART.width - CHART.left - CHART.right;
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  // Half a day of room at each end, so the first and last points are not on the frame.
  const span = lastDay - firstDay + 1;
  const step = plotWidth / span;
  return {
    x: (day) => round1(CHART.left + (day - firstDay + 0.5) * step),
    y: (value) => round1(CHART.top + plotHeight - ((value - low) / (high - low)) * plotHeight),
    step,
  };
}

const round1 = (value: number): number => Math.round(value * 10) / 10;
const svgText = (
  x: number,
  y: number,
  text: string,
  anchor: 'start' | 'middle' | 'end',
  size = 7.5,
): string =>
  `<text x="${x}" y="${y}" font-family="Roboto" font-size="${size}" fill="${GREY}" text-anchor="${anchor}">${text}</text>`;

/** About five round steps (1, 2 or 5 × 10ⁿ) covering the values. */
export function niceTicks(min: number, max: number): number[] {
  const [low, high] = min === max ? [min - 5, max + 5] : [min, max];
  const rough = (high - low) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  // A hair below `rough` still counts: 50.2 − 50.1 is a little over 0.1 in floating point.
  const step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= rough * (1 - 1e-9)) ?? rough;
  const ticks: number[] = [];
  for (let t = Math.floor(low / step) * step; t <= Math.ceil(high / step) * step + step / 2; t += step)
    ticks.push(Number(t.toFixed(6)));
  return ticks;
}

function yAxis(scale: ChartScale, ticks: number[]): string[] {
  const left = CHART.left;
  const right = CHART.width - CHART.right;
  const lines = ticks.map(
    (t) =>
      `<line x1="${left}" y1="${scale.y(t)}" x2="${right}" y2="${scale.y(t)}" stroke="#e3e6e9" stroke-width="0.5"/>` +
      svgText(left - 4, scale.y(t) + 2.5, decimal(t), 'end'),
  );
  return [
    ...lines,
    `<line x1="${left}" y1="${CHART.top - 4}" x2="${left}" y2="${scale.y(ticks[0])}" stroke="${GREY}" stroke-width="0.75"/>`,
    svgText(left - 4, CHART.top - 10, 'GPP', 'end', 8),
  ];
}

function xAxis(scale: ChartScale, firstDay: number, lastDay: number): string[] {
  const bottom = CHART.height - CHART.bottom;
  const every = [1, 2, 5, 10, 20, 50].find((n) => (lastDay - firstDay + 1) / n <= 16) ?? 100;
  const labels: string[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    // Round days only (2, 4, 6 …), so that labels are evenly spaced; a short log labels its first.
    if (day % every !== 0 && !(day === firstDay && lastDay - firstDay < every)) continue;
    labels.push(
      `<line x1="${scale.x(day)}" y1="${bottom}" x2="${scale.x(day)}" y2="${bottom + 3}" stroke="${GREY}" stroke-width="0.75"/>`,
      svgText(scale.x(day), bottom + 11, String(day), 'middle'),
    );
  }
  const axis = `<line x1="${CHART.left}" y1="${bottom}" x2="${CHART.width - CHART.right}" y2="${bottom}" stroke="${GREY}" stroke-width="0.75"/>`;
  return [axis, ...labels, svgText(CHART.width - CHART.right, bottom + 22, 'Day', 'end', 8)];
}

function skippedBand(scale: ChartScale, day: number): string {
  const x = round1(scale.x(day) - scale.step / 2);
  return `<rect x="${x}" y="${CHART.top}" width="${round1(scale.step)}" height="${CHART.height - CHART.top - CHART.bottom}" fill="#eceff1"/>`;
}

function seriesMarks(scale: ChartScale, series: ChartSeries): string[] {
  if (series.points.length === 0) return [];
  const path = series.points.map((p) => `${scale.x(p.day)},${scale.y(p.value)}`).join(' ');
  const dash = series.dashed ? ' stroke-dasharray="4 3"' : '';
  const line = `<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="1.5"${dash}/>`;
  return [
    line,
    ...series.points.map(
      (p) => `<circle cx="${scale.x(p.day)}" cy="${scale.y(p.value)}" r="2" fill="${series.color}"/>`,
    ),
  ];
}

function legend(series: ChartSeries[], skipped: boolean): string[] {
  const out: string[] = [];
  let x = CHART.left + 8;
  for (const s of series) {
    const dash = s.dashed ? ' stroke-dasharray="4 3"' : '';
    out.push(
      `<line x1="${x}" y1="8" x2="${x + 16}" y2="8" stroke="${s.color}" stroke-width="1.5"${dash}/>`,
      svgText(x + 20, 10.5, s.label, 'start', 8),
    );
    x += 28 + s.label.length * 4.4;
  }
  if (skipped)
    out.push(
      `<rect x="${x}" y="4" width="12" height="8" fill="#eceff1"/>`,
      svgText(x + 16, 10.5, 'Skipped day', 'start', 8),
    );
  return out;
}

// ── Photos ───────────────────────────────────────────────────────────────────

/** An image name for each photo whose picture was made, registered in the document's images. */
function imageKeys(
  photos: PacketPhoto[],
  pictures: PacketPictures,
  images: Record<string, string>,
): Map<string, string> {
  const keys = new Map<string, string>();
  for (const photo of photos) {
    const picture = pictures.get(photo.picture);
    if (picture === undefined || keys.has(photo.picture)) continue;
    const key = `picture${keys.size}`;
    images[key] = typeof picture === 'string' ? picture : dataUrl(picture);
    keys.set(photo.picture, key);
  }
  return keys;
}

/** pdfmake 0.3 takes pictures in `images` as data URLs or paths, not as buffers. */
function dataUrl(picture: Buffer): string {
  const type = picture[0] === 0x89 ? 'image/png' : 'image/jpeg';
  return `data:${type};base64,${picture.toString('base64')}`;
}

function photoSection(photos: PacketPhoto[], keys: Map<string, string>): Content {
  if (photos.length === 0)
    return [
      { text: 'Photos', style: 'h1', pageBreak: 'before' },
      { text: 'The job has no photos.', style: 'muted' },
    ];
  const byRoom = new Map<string, PacketPhoto[]>();
  for (const photo of photos) {
    const room = byRoom.get(photo.room) ?? [];
    room.push(photo);
    byRoom.set(photo.room, room);
  }
  return [...byRoom].flatMap(([room, list]) =>
    chunks(list, PHOTOS_PER_PAGE).map((page, index) => photoPage(room, page, index, keys)),
  );
}

/** One page: the room as its heading, then the photos two across and three down. */
function photoPage(room: string, photos: PacketPhoto[], index: number, keys: Map<string, string>): Content {
  const cells = photos.map((photo) => photoCell(photo, keys.get(photo.picture)));
  if (cells.length % 2 === 1) cells.push({ text: '' });
  return [
    {
      text: [
        { text: `Photos: ${room}` },
        index > 0 ? { text: '  continued', style: 'muted', fontSize: 10 } : '',
      ],
      style: 'h2',
      pageBreak: 'before',
      margin: [0, 0, 0, 6],
    },
    { table: { widths: ['*', '*'], dontBreakRows: true, body: chunks(cells, 2) }, layout: PHOTO_GRID },
  ];
}

const PHOTO_GRID: CustomTableLayout = {
  hLineWidth: () => 0,
  vLineWidth: () => 0,
  paddingLeft: (i) => (i === 0 ? 0 : 6),
  paddingRight: (i) => (i === 0 ? 6 : 0),
  paddingTop: () => 4,
  paddingBottom: () => 8,
};

function photoCell(photo: PacketPhoto, key: string | undefined): TableCell {
  const caption = photo.caption ?? photo.name ?? 'Photo';
  const gap = (PHOTO_BOX[1] - 11) / 2;
  const picture: Content = key
    ? { image: key, fit: PHOTO_BOX, alignment: 'center' }
    : { text: 'Picture not available', style: 'muted', alignment: 'center', margin: [0, gap, 0, gap] };
  return {
    alignment: 'center',
    stack: [
      { stack: [picture], margin: [0, 0, 0, 3] },
      {
        text: caption.length > CAPTION_CHARS ? `${caption.slice(0, CAPTION_CHARS - 1)}…` : caption,
        bold: true,
      },
      {
        text: `${photo.time_is === 'taken' ? 'Taken' : 'Uploaded'} ${photo.taken}${photo.taken_by ? ` by ${photo.taken_by}` : ''} · uploaded by ${photo.uploaded_by}`,
        style: 'small',
      },
    ],
  };
}
