/** The drying log app (get_drying_log): GPP charts per area, materials against goals by day, equipment against plan. */
import { type AppPage, pageScript } from './app-shell';

const CSS = `
#areas{display:grid;gap:12px}
@media (min-width:1000px){#areas{grid-template-columns:1fr 1fr}}
section.area,section.equipment{border:1px solid var(--line);border-radius:10px;padding:10px;background:#fff;min-width:0}
section.area h2{display:flex;justify-content:space-between;align-items:center;gap:8px;margin-top:0}
.badge{font-size:.75rem;font-weight:600;border-radius:999px;padding:2px 8px}.badge.dry{background:#e6f4ea;color:var(--green)}.badge.wet{background:#fce8e6;color:#a50e0e}
figure{margin:0}svg.chart{display:block;max-width:100%}
.grid{stroke:#e8eaed;stroke-width:1}.tick{font-size:12px;fill:#5f6368}
.line{fill:none;stroke-width:2.5;stroke-linejoin:round;stroke-linecap:round}
.line.area{stroke:#0b5fff}.line.outside{stroke:#80868b;stroke-dasharray:6 4}.line.goal{stroke:#137333;stroke-dasharray:2 4;stroke-width:3}
.dot.area{fill:#0b5fff}.dot.outside{fill:#80868b}.dot.goal{fill:#137333}
ul.legend{list-style:none;padding:0;margin:6px 0 0;font-size:.85rem;display:flex;flex-wrap:wrap;gap:4px 14px}
.swatch{display:inline-block;width:18px;height:0;border-top:3px solid;vertical-align:middle;margin-right:6px}
.swatch.area{border-color:#0b5fff}.swatch.outside{border-color:#80868b;border-top-style:dashed}.swatch.goal{border-color:#137333;border-top-style:dotted}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin-top:10px}
table{border-collapse:collapse;font-size:.85rem;width:100%}
caption{text-align:left;font-weight:600;padding:4px 0;color:var(--muted)}
th,td{border-bottom:1px solid #eee;padding:6px;text-align:right;white-space:nowrap}
th[scope=row],thead th:first-child{text-align:left;position:sticky;left:0;background:#fff}
td.wet{color:#b3261e;font-weight:700}td.dry{color:var(--ink)}td.none{color:#bbb}td.goal{color:var(--green);font-weight:600}
table.equipment th,table.equipment td{text-align:left;white-space:normal}section.equipment h2{margin-top:0}table.equipment th[scope=row]{white-space:normal}
td.under,td.over{color:#b3261e}td.within{color:var(--green)}
.small{font-size:.8rem}ul.flags{color:#a50e0e;font-size:.85rem;padding-left:18px}ul.onsite{font-size:.9rem;padding-left:18px}
#equipment{margin-top:12px}
`;

const BODY = `
<header><h1>Drying log</h1><p class="muted" id="job">Reading the log…</p></header>
<div id="areas"></div>
<div id="equipment"></div>
<p id="status" class="status" role="status" aria-live="polite"></p>`;

export function dryingLogPage(): AppPage {
  return { title: 'Drying log', css: CSS, body: BODY, script: pageScript('drying-log.page.js') };
}
