/**
 * The download page of a packet link (export_pdf): plain HTML, CSS and a little JS served by the
 * service. Opening it changes nothing; its Download button, after a confirmation when the
 * download makes the estimate final, queues the packet's build, shows its progress, downloads
 * the built file and says when all of it has arrived.
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../../sdk/src/schema';
import type { ExportDocument } from '../../domain/exports/export-links';
import { escapeHtml } from './page-security';

type ClaimReadiness = components['schemas']['ClaimReadiness'];
/** The page lists this many findings; the rest are counted. */
const FINDINGS_SHOWN = 6;

export interface PacketPageFacts {
  jobNumber: number;
  jobTitle: string | null;
  documents: ExportDocument[];
  estimate: { label: string; total: string; final: boolean } | null;
  photoCount: number;
  expires: string;
  fileName: string;
  readiness: ClaimReadiness;
}

function contents(facts: PacketPageFacts): string {
  const items: Record<ExportDocument, () => string> = {
    estimate: () =>
      `The estimate <b>${escapeHtml(facts.estimate!.label)}</b>, total ${escapeHtml(facts.estimate!.total)}${facts.estimate!.final ? ' (final)' : ''}`,
    drying_log: () => 'The drying log: daily readings per area, with a GPP chart',
    photos: () => `Photos by room (${facts.photoCount})`,
  };
  return facts.documents.map((document) => `<li>${items[document]()}</li>`).join('');
}

/** What a desk reviewer would question (check_claim_readiness), most severe first, before Download. */
function findings(readiness: ClaimReadiness): string {
  if (readiness.findings.length === 0)
    return '<p class="ready" id="readiness">Checked: nothing a claim reviewer would question was found.</p>';
  const { high, medium, low } = readiness.counts;
  const counts = [high && `${high} serious`, medium && `${medium} to look at`, low && `${low} minor`]
    .filter(Boolean)
    .join(', ');
  const items = readiness.findings
    .slice(0, FINDINGS_SHOWN)
    .map(
      (finding) =>
        `<li class="${finding.severity}"><span class="sev">${finding.severity}</span> ${escapeHtml(finding.message)}</li>`,
    )
    .join('');
  const more =
    readiness.findings.length > FINDINGS_SHOWN
      ? `<p class="more">And ${readiness.findings.length - FINDINGS_SHOWN} more: ask your assistant to check the claim's readiness.</p>`
      : '';
  return `<section id="readiness" aria-labelledby="readinesstitle"><h2 id="readinesstitle">A claim reviewer would question (${counts})</h2><ul class="findings">${items}</ul>${more}</section>`;
}

export function packetPage(facts: PacketPageFacts): { html: string; nonce: string } {
  const nonce = randomBytes(16).toString('base64');
  const finalizes = facts.estimate !== null && !facts.estimate.final;
  const notice = finalizes
    ? `<p class="warn" id="notice">Downloading makes the estimate <b>${escapeHtml(facts.estimate!.label)}</b> final: after that it can no longer be changed.</p>`
    : facts.estimate
      ? '<p class="note">The estimate is already final.</p>'
      : '<p class="note">Downloading changes nothing on the job.</p>';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>PDF for job #${facts.jobNumber}</title>
<style nonce="${nonce}">
body{font-family:system-ui,-apple-system,sans-serif;margin:0 auto;padding:16px;max-width:560px;color:#1b1f23;background:#f6f7f9}
h1{font-size:1.3rem;margin:0 0 4px}p.job{margin:0 0 16px;color:#555}
ul{background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px 12px 12px 32px;margin:0 0 16px}li{margin:4px 0}
.warn{background:#fff4e5;border:1px solid #f0b46b;border-radius:8px;padding:10px}.note{color:#555}
button{font:inherit;font-size:1.05rem;min-height:52px;width:100%;border-radius:10px;border:2px solid #0b5fff;margin-top:10px;cursor:pointer}
button.primary{background:#0b5fff;color:#fff}button.secondary{background:#fff;color:#0b5fff}
button:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}button[disabled]{opacity:.6}
#confirm{background:#fff;border:2px solid #b3261e;border-radius:10px;padding:12px;margin-top:12px}#confirm[hidden]{display:none}
#confirm p{margin:0 0 4px}#confirm .primary{background:#b3261e;border-color:#b3261e}
#status{margin-top:14px;min-height:1.5em}#status.failed{color:#b3261e}#status.done{color:#137333}
small{display:block;margin-top:18px;color:#666}
h2{font-size:1.05rem;margin:0 0 8px}#readiness{margin:0 0 16px}p.ready{color:#137333}
ul.findings{list-style:none;padding:8px 12px}ul.findings li{padding:6px 0;border-bottom:1px solid #eee}ul.findings li:last-child{border:0}
.sev{display:inline-block;min-width:4.2em;font-size:.75rem;font-weight:600;text-transform:uppercase;border-radius:4px;padding:1px 4px;margin-right:4px;text-align:center}
li.high .sev{background:#fce8e6;color:#a50e0e}li.medium .sev{background:#fef7e0;color:#8a5300}li.low .sev{background:#e8eaed;color:#3c4043}p.more{color:#555;margin:-8px 0 0}
</style></head><body>
<h1>PDF for job #${facts.jobNumber}</h1><p class="job">${facts.jobTitle ? escapeHtml(facts.jobTitle) : ''}</p>
<p>This PDF holds:</p><ul>${contents(facts)}</ul>
${findings(facts.readiness)}
${notice}
<button type="button" class="primary" id="download">Download PDF</button>
<div id="confirm" role="alertdialog" aria-labelledby="confirmtext" hidden>
<p id="confirmtext">Make the estimate <b>${escapeHtml(facts.estimate?.label ?? '')}</b> final and download the PDF? It cannot be changed afterwards.</p>
<button type="button" class="primary" id="yes">Yes, make it final and download</button>
<button type="button" class="secondary" id="no">Cancel</button>
</div>
<p id="status" role="status" aria-live="polite"></p>
<small>This link works until ${escapeHtml(facts.expires)}.</small>
<script nonce="${nonce}">
(function(){
var finalizes=${finalizes},fileName=${JSON.stringify(facts.fileName)},button=document.getElementById('download'),box=document.getElementById('confirm'),status=document.getElementById('status');
function say(text,kind){status.textContent=text;status.className=kind||'';}
button.addEventListener('click',function(){if(finalizes){box.hidden=false;document.getElementById('yes').focus();}else download();});
document.getElementById('no').addEventListener('click',function(){box.hidden=true;button.focus();});
document.getElementById('yes').addEventListener('click',function(){box.hidden=true;download();});
function download(){
  button.disabled=true;say('Asking for the PDF…');
  fetch(location.pathname+'.pdf'+location.search,{method:'POST',headers:{Accept:'application/json'}}).then(answer).then(follow)
    .catch(function(e){say(e.message||'No connection. Try again.','failed');button.disabled=false;});
}
function answer(res){
  if(!res.ok)return res.json().catch(function(){return {};}).then(function(p){throw new Error(p.detail||('The service answered '+res.status+'.'));});
  return res.json();
}
function later(build){return new Promise(function(r){setTimeout(r,1000);}).then(function(){return fetch(location.pathname+'/builds/'+build.id+location.search);}).then(answer);}
function follow(build){
  if(build.state==='failed')throw new Error('The PDF could not be made ('+(build.error||'no reason given')+'). Try again.');
  if(build.state!=='ready'){say(build.state==='queued'?'Waiting for its turn…':build.photos.total?'Building the PDF: '+build.photos.printed+' of '+build.photos.total+' photos printed…':'Building the PDF…');return later(build).then(follow);}
  say('Downloading '+fileName+' ('+(build.bytes/1048576).toFixed(1)+' MB)…');
  var a=document.createElement('a');a.href=location.pathname+'/builds/'+build.id+'/'+encodeURIComponent(fileName)+location.search;a.download=fileName;document.body.appendChild(a);a.click();a.remove();
  return delivered(build,120);
}
function delivered(build,tries){
  if(build.delivered){
    if(finalizes){finalizes=false;var n=document.getElementById('notice');if(n)n.textContent='The estimate is now final.';}
    say('Downloaded '+fileName+'.','done');button.disabled=false;return;
  }
  if(tries===0){say('The download did not finish. Try again.','failed');button.disabled=false;return;}
  return later(build).then(function(next){return delivered(next,tries-1);});
}
})();
</script></body></html>`;
  return { html, nonce };
}
