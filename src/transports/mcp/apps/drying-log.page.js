// Drying log (get_drying_log): per area, a GPP chart (the area's affected air, the outside air and
// the goal, the unaffected air the room dries toward) drawn here as SVG, and its materials
// against their dry goals by day; then the equipment on site against each chamber's plan. A
// summary answer lacks the daily readings: the page asks get_drying_log for them through the host.

const AIR = new Set(['temp_f', 'temp_c', 'rh_pct']);
/** The chart's margins; its width is its figure's, in CSS pixels, so that its text reads the same on a phone and a desktop. */
const CHART = { height: 220, left: 36, right: 12, top: 12, bottom: 26 };
const state = { jobId: null, area: null };

/** The day → GPP of one kind of air for an area: its own readings, else the building's (read with no area). */
function gppByDay(conditions, location, area) {
  const own = conditions.filter((c) => c.location === location && c.area === area && c.gpp !== null);
  const chosen =
    own.length || location === 'affected'
      ? own
      : conditions.filter((c) => c.location === location && c.area === null && c.gpp !== null);
  const byDay = new Map();
  for (const c of chosen) byDay.set(c.day, c.gpp); // the last of a day stands for it
  return [...byDay.entries()].sort((a, b) => a[0] - b[0]);
}

/** Round steps for an axis from `low` to `high`. */
function ticks(low, high) {
  const span = Math.max(high - low, 1);
  const rough = span / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const first = Math.floor(low / step) * step;
  const list = [];
  for (let v = first; v <= high + step / 2; v += step) list.push(Math.round(v * 10) / 10);
  return list;
}

function gppChart(area, series, days, width) {
  const values = series.flatMap((s) => s.points.map((p) => p[1]));
  const axis = ticks(Math.min(...values), Math.max(...values));
  const [low, high] = [axis[0], axis[axis.length - 1]];
  const [first, last] = [days[0], days[days.length - 1]];
  const x = (day) =>
    CHART.left + ((day - first) / Math.max(last - first, 1)) * (width - CHART.left - CHART.right);
  const y = (gpp) =>
    CHART.top + (1 - (gpp - low) / Math.max(high - low, 1)) * (CHART.height - CHART.top - CHART.bottom);
  const grid = axis.map((v) =>
    svgEl(
      'g',
      {},
      svgEl('line', { x1: CHART.left, x2: width - CHART.right, y1: y(v), y2: y(v), class: 'grid' }),
      svgEl(
        'text',
        { x: CHART.left - 6, y: y(v) + 4, class: 'tick', 'text-anchor': 'end' },
        document.createTextNode(String(v)),
      ),
    ),
  );
  const every = Math.ceil(days.length / Math.max(2, Math.floor(width / 48)));
  const dayTicks = days
    .filter((_, i) => i % every === 0)
    .map((d) =>
      svgEl(
        'text',
        { x: x(d), y: CHART.height - 8, class: 'tick', 'text-anchor': 'middle' },
        document.createTextNode(`D${d}`),
      ),
    );
  const lines = series.map((s) => {
    const d = s.points.map((p, i) => `${i ? 'L' : 'M'}${x(p[0]).toFixed(1)} ${y(p[1]).toFixed(1)}`).join(' ');
    const dots =
      s.points.length === 1
        ? svgEl('circle', { cx: x(s.points[0][0]), cy: y(s.points[0][1]), r: 3, class: `dot ${s.kind}` })
        : null;
    return svgEl('g', {}, svgEl('path', { d, class: `line ${s.kind}`, 'data-series': s.kind }), dots);
  });
  const title = svgEl(
    'title',
    {},
    document.createTextNode(`GPP by day in ${area}: ${series.map((s) => s.label).join(', ')}`),
  );
  return svgEl(
    'svg',
    {
      viewBox: `0 0 ${width} ${CHART.height}`,
      width,
      height: CHART.height,
      class: 'chart',
      role: 'img',
      'data-area': area,
    },
    title,
    grid,
    dayTicks,
    lines,
  );
}

function legend(series) {
  return el(
    'ul',
    { className: 'legend' },
    series.map((s) =>
      el(
        'li',
        {},
        el('span', { className: `swatch ${s.kind}` }),
        `${s.label}${s.points.length ? ` · ${s.points[s.points.length - 1][1]} GPP on day ${s.points[s.points.length - 1][0]}` : ''}`,
      ),
    ),
  );
}

function chartOf(log, area) {
  const conditions = log.conditions || [];
  const series = [
    {
      kind: 'area',
      label: `${area.name} (affected air)`,
      points: gppByDay(conditions, 'affected', area.name),
    },
    { kind: 'outside', label: 'Outside air', points: gppByDay(conditions, 'outside', area.name) },
    { kind: 'goal', label: 'Goal (unaffected air)', points: gppByDay(conditions, 'unaffected', area.name) },
  ];
  const drawn = series.filter((s) => s.points.length);
  if (!drawn.length)
    return el(
      'p',
      { className: 'muted' },
      'No air readings with both temperature and RH yet: no GPP to chart.',
    );
  const days = [...new Set(drawn.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const figure = el('figure', {}, el('div', { className: 'plot' }), el('figcaption', {}, legend(series)));
  // Drawn once the figure is on the page and has a width (and again when the width changes).
  figure.draw = () =>
    figure.firstChild.replaceChildren(gppChart(area.name, drawn, days, Math.max(240, figure.clientWidth)));
  return figure;
}

function drawCharts() {
  for (const figure of document.querySelectorAll('#areas figure')) if (figure.draw) figure.draw();
}
let drawnWidth = 0;
window.addEventListener('resize', () => {
  if (document.body.clientWidth === drawnWidth) return;
  drawnWidth = document.body.clientWidth;
  drawCharts();
});

/** The material points of an area, each with its value by day and its dry goal. */
function materialsOf(log, area) {
  const points = new Map();
  for (const r of log.readings || []) {
    if (r.area !== area.name || AIR.has(r.metric) || r.reference || r.location !== 'affected') continue;
    const key = `${r.metric}\u0000${r.point || ''}`;
    if (!points.has(key)) points.set(key, { metric: r.metric, point: r.point, byDay: new Map(), goal: null });
    const entry = points.get(key);
    entry.byDay.set(r.day, r.value);
    if (r.goal) entry.goal = r.goal.value;
  }
  for (const m of area.materials) {
    const key = `${m.metric}\u0000${m.point || ''}`;
    if (points.has(key)) points.get(key).goal = m.goal;
  }
  return [...points.values()];
}

function materialsTable(log, area) {
  const points = materialsOf(log, area);
  if (!points.length) return el('p', { className: 'muted' }, 'No material readings yet.');
  const days = [...new Set(points.flatMap((p) => [...p.byDay.keys()]))].sort((a, b) => a - b);
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, 'Material'),
    el('th', { scope: 'col' }, 'Goal'),
    days.map((d) => el('th', { scope: 'col' }, `D${d}`)),
  );
  const rows = points.map((p) =>
    el(
      'tr',
      {},
      el(
        'th',
        { scope: 'row' },
        `${p.metric[0].toUpperCase()}${p.metric.slice(1).replace('_', ' ')}${p.point ? ` · ${p.point}` : ''}`,
      ),
      el('td', { className: 'goal' }, p.goal === null ? '—' : String(p.goal)),
      days.map((d) => {
        const v = p.byDay.get(d);
        if (v === undefined) return el('td', { className: 'none' }, '—');
        const wet = p.goal !== null && v > p.goal;
        return el(
          'td',
          { className: wet ? 'wet' : 'dry', title: wet ? 'above its goal' : 'at or below its goal' },
          String(v),
        );
      }),
    ),
  );
  return el(
    'div',
    { className: 'scroll' },
    el(
      'table',
      { className: 'materials' },
      el('caption', {}, 'Materials by day against their dry goal (red: above it)'),
      el('thead', {}, head),
      el('tbody', {}, rows),
    ),
  );
}

function areaCard(log, area) {
  const status = area.dry ? `dry since day ${area.dry_day}` : 'not dry yet';
  return el(
    'section',
    { className: 'area', attrs: { 'aria-label': area.name } },
    el('h2', {}, area.name, el('span', { className: area.dry ? 'badge dry' : 'badge wet' }, status)),
    chartOf(log, area),
    materialsTable(log, area),
  );
}

const range = (plan) =>
  plan ? (plan.min === plan.max ? String(plan.min) : `${plan.min}–${plan.max}`) : 'no plan';
const versus = { under: 'under the plan', within: 'within the plan', over: 'over the plan' };

function equipmentSection(log) {
  const rows = log.chambers.map((c) =>
    el(
      'tr',
      {},
      el(
        'th',
        { scope: 'row' },
        c.name,
        el('div', { className: 'muted small' }, c.areas.map((a) => a.name).join(', ')),
      ),
      el(
        'td',
        { className: c.air_movers_vs_plan || '' },
        `${c.placed.air_movers} of ${range(c.plan.air_movers)}`,
        el('div', { className: 'small' }, versus[c.air_movers_vs_plan] || ''),
      ),
      el(
        'td',
        { className: c.dehumidification_vs_plan || '' },
        `${c.placed.dehumidifier_pints} of ${c.plan.dehumidifier_pints ? c.plan.dehumidifier_pints.lgr : '—'} pints`,
        el('div', { className: 'small' }, versus[c.dehumidification_vs_plan] || ''),
      ),
    ),
  );
  const chambers = log.chambers.length
    ? el(
        'div',
        { className: 'scroll' },
        el(
          'table',
          { className: 'equipment' },
          el('caption', {}, 'On site against each chamber’s plan (S500)'),
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              el('th', { scope: 'col' }, 'Chamber'),
              el('th', { scope: 'col' }, 'Air movers'),
              el('th', { scope: 'col' }, 'Dehumidification'),
            ),
          ),
          el('tbody', {}, rows),
        ),
      )
    : el(
        'p',
        { className: 'muted' },
        'No drying chambers set: there is no plan to compare with (set_drying_chambers).',
      );
  const flags = log.chambers.flatMap((c) => c.flags.map((f) => el('li', {}, f))); // each names its chamber
  const byArea = el(
    'ul',
    { className: 'onsite' },
    log.equipment.by_area.map((a) =>
      el(
        'li',
        {},
        `${a.area}: ${plural(a.on_site, 'unit')} on site, ${plural(a.equipment_days, 'equipment day')}`,
      ),
    ),
  );
  return el(
    'section',
    { className: 'equipment', attrs: { 'aria-labelledby': 'equiptitle' } },
    el('h2', { id: 'equiptitle' }, `Equipment · ${log.equipment.on_site} on site`),
    chambers,
    flags.length ? el('ul', { className: 'flags' }, flags) : null,
    byArea,
  );
}

function render(log) {
  fill(
    'job',
    `Job #${log.job.job_number} · day ${log.today_day} of ${log.planned_days} · ${log.wet_areas.length ? `wet: ${log.wet_areas.join(', ')}` : 'every area dry'}`,
  );
  fill(
    'areas',
    log.areas.map((area) => areaCard(log, area)),
  );
  drawnWidth = document.body.clientWidth;
  drawCharts();
  fill('equipment', equipmentSection(log));
  say('');
}

async function onResult(params) {
  const answer = answerOf(params);
  if (answer.problem) return say(answer.problem.detail || 'The drying log could not be read.', 'failed');
  const log = answer.body;
  state.jobId = log.job.id;
  if (log.conditions && log.readings && !state.area) return render(log);
  say('Reading the daily readings…');
  const full = await callTool(app, 'get_drying_log', { job_id: state.jobId, detail: 'readings' });
  if (full.problem) {
    render(log);
    return say(full.problem.detail || 'The daily readings could not be read.', 'failed');
  }
  render(full.body);
}

const app = startApp('drying-log', {
  input(args) {
    state.area = args.area || null;
  },
  result: onResult,
});
