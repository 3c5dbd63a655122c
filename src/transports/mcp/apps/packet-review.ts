/**
 * The packet review app (check_claim_readiness, export_pdf): the readiness findings, the
 * documents the packet holds, and Build, which makes the estimate final only after the person
 * confirms on the page (packet-review.page.js says how).
 */
import { type AppPage, pageScript } from './app-shell';

const CSS = `
header{display:flex;justify-content:space-between;align-items:baseline;gap:8px;flex-wrap:wrap}
.layout{display:grid;gap:0 24px}
@media (min-width:800px){.layout{grid-template-columns:3fr 2fr}}
ul.findings,ul.documents{list-style:none;margin:0;padding:0}
li.finding{border:1px solid var(--line);border-left-width:5px;border-radius:8px;padding:8px 10px;margin-bottom:8px;background:#fff}
li.finding.high{border-left-color:#d93025}li.finding.medium{border-left-color:#f9ab00}li.finding.low{border-left-color:#9aa0a6}
li.finding .head{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin-bottom:2px}
.sev{font-size:.72rem;font-weight:700;text-transform:uppercase;border-radius:4px;padding:1px 6px}
.high .sev{background:#fce8e6;color:#a50e0e}.medium .sev{background:#fef7e0;color:var(--amber)}.low .sev{background:#e8eaed;color:#3c4043}
.record{font-size:.85rem;color:var(--muted)}
li.finding p{margin:2px 0}p.fix{font-size:.85rem;color:var(--muted)}code{font-size:.85rem;background:var(--soft);padding:0 4px;border-radius:4px}
p.ready{color:var(--green)}p.counts{font-weight:600}
ul.documents li{border:1px solid var(--line);border-radius:8px;margin-bottom:6px;background:#fff}
label.doc{display:flex;gap:10px;align-items:center;padding:10px;min-height:44px;cursor:pointer}
label.doc input,label.ack input{width:22px;height:22px;flex:none}
.notice{margin:12px 0;padding:10px;border-radius:8px;background:var(--soft)}
.notice.warn{background:#fff4e5;border:1px solid #f0b46b}.notice.danger{background:#fce8e6;border:1px solid #d93025;color:#3c1410}
#build{width:100%}
#confirm{border:2px solid var(--red);border-radius:10px;padding:12px;margin-top:12px;background:#fff}
#confirm ul{margin:6px 0 8px;padding-left:20px}
label.ack{display:flex;gap:10px;align-items:flex-start;font-weight:600;padding:8px 0}
.buttons{display:flex;gap:8px;flex-wrap:wrap}.buttons button{flex:1 1 12em}
.link{word-break:break-all}
`;

const BODY = `
<header><h1>Claim packet</h1><span class="muted" id="job"></span></header>
<div class="layout">
<section aria-labelledby="findingstitle"><h2 id="findingstitle">What a claim reviewer would question</h2><div id="findings"></div></section>
<section aria-labelledby="documentstitle"><h2 id="documentstitle">The packet holds</h2><div id="documents"></div>
<div id="notice" class="notice" role="note"></div>
<button type="button" class="primary" id="build">Build the packet</button>
<div id="confirm" role="alertdialog" aria-labelledby="confirmtext" hidden>
<p id="confirmtext"></p><ul id="confirmlist"></ul>
<label class="ack" id="acklabel"><input type="checkbox" id="ack"> I have read these findings: make it final as it is</label>
<div class="buttons"><button type="button" class="danger" id="yes">Make it final and build</button><button type="button" id="no">Cancel</button></div>
</div>
<p id="status" class="status" role="status" aria-live="polite"></p>
</section>
</div>`;

export function packetReviewPage(): AppPage {
  return { title: 'Claim packet', css: CSS, body: BODY, script: pageScript('packet-review.page.js') };
}
