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
type FindingToConfirm = components['schemas']['FindingToConfirm'];
/** The page lists this many findings; the rest are counted. */
const FINDINGS_SHOWN = 6;

export interface PacketPageFacts {
  jobNumber: number;
  jobTitle: string | null;
  documents: ExportDocument[];
  estimate: { label: string; total: string; final: boolean } | null;
  photoCount: number;
  signedFormCount: number;
  expires: string;
  fileName: string;
  readiness: ClaimReadiness;
  /** The high findings Download asks to confirm by name, as it makes the estimate final; none when it does not. */
  toConfirm: FindingToConfirm[];
}

function contents(facts: PacketPageFacts): string {
  const items: Record<ExportDocument, () => string> = {
    estimate: () =>
      `The estimate <b>${escapeHtml(facts.estimate!.label)}</b>, total ${escapeHtml(facts.estimate!.total)}${facts.estimate!.final ? ' (final)' : ''}`,
    drying_log: () => 'The drying log: daily readings per area, with a GPP chart',
    photos: () => `Photos by room (${facts.photoCount})`,
    signed_forms: () =>
      `The signed forms (${facts.signedFormCount}), each with its signatures and audit page`,
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

const serious = (count: number) => (count === 1 ? '1 serious finding' : `${count} serious findings`);
const findingItems = (list: FindingToConfirm[]) =>
  list.map((finding) => `<li>${escapeHtml(finding.message)}</li>`).join('');

/** Before an estimate goes final with high findings: what a reviewer would question, named, above Download. */
function warning(label: string, toConfirm: FindingToConfirm[]): string {
  return `<div class="danger" id="notice" role="alert"><p><b>Not ready to go final.</b> Downloading makes the estimate <b>${escapeHtml(label)}</b> final, and it can no longer be changed, while a claim reviewer would question:</p><ul id="warnlist">${findingItems(toConfirm)}</ul><p>Fix them first (your assistant can check the claim's readiness), or confirm them when you download.</p></div>`;
}

/** The confirmation Download asks for: with high findings, each named and acknowledged. */
function confirmation(label: string, toConfirm: FindingToConfirm[]): string {
  const ask =
    toConfirm.length === 0
      ? `<p id="confirmtext">Make the estimate <b>${label}</b> final and download the PDF? It cannot be changed afterwards.</p>`
      : `<p id="confirmchanged" hidden>The findings changed since this page was opened.</p><p id="confirmtext">Make the estimate <b>${label}</b> final with <span id="confirmcount">${serious(toConfirm.length)}</span> a claim reviewer would question? It cannot be changed afterwards.</p><ul id="confirmlist">${findingItems(toConfirm)}</ul><label class="ack"><input type="checkbox" id="ack"> I have read these findings: make it final as it is</label>`;
  const yes =
    toConfirm.length === 0 ? 'Yes, make it final and download' : 'Make it final anyway and download';
  return `<div id="confirm" role="alertdialog" aria-labelledby="confirmtext" hidden>
${ask}
<button type="button" class="primary" id="yes"${toConfirm.length ? ' disabled' : ''}>${yes}</button>
<button type="button" class="secondary" id="no">Cancel</button>
</div>`;
}

export function packetPage(facts: PacketPageFacts): { html: string; nonce: string } {
  const nonce = randomBytes(16).toString('base64');
  const finalizes = facts.estimate !== null && !facts.estimate.final;
  const toConfirm = finalizes ? facts.toConfirm : [];
  const label = escapeHtml(facts.estimate?.label ?? '');
  const notice = finalizes
    ? toConfirm.length > 0
      ? warning(facts.estimate!.label, toConfirm)
      : `<p class="warn" id="notice">Downloading makes the estimate <b>${label}</b> final: after that it can no longer be changed.</p>`
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
.danger{background:#fce8e6;border:1px solid #d93025;border-radius:8px;padding:10px;color:#3c1410}.danger p{margin:0 0 6px}.danger ul{margin:0 0 8px;background:#fff;border-color:#f3b6b0}
#confirm ul{margin:6px 0 10px}#confirmchanged{font-weight:600;color:#a50e0e}label.ack{display:flex;gap:10px;align-items:flex-start;padding:8px 0;font-weight:600}label.ack input{width:24px;height:24px;flex:none}
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
${confirmation(label, toConfirm)}
<p id="status" role="status" aria-live="polite"></p>
<small>This link works until ${escapeHtml(facts.expires)}.</small>
<script nonce="${nonce}">
(function(){
var finalizes=${finalizes},fileName=${JSON.stringify(facts.fileName)},button=document.getElementById('download'),box=document.getElementById('confirm'),status=document.getElementById('status');
// The keys of the findings confirmed, sent with Download; then the build's own query, which carries the confirmation.
var keys=${JSON.stringify(toConfirm.map((finding) => finding.key))},search=location.search,ack=document.getElementById('ack'),yes=document.getElementById('yes');
function say(text,kind){status.textContent=text;status.className=kind||'';}
function ask(){box.hidden=false;if(ack){ack.checked=false;yes.disabled=true;ack.focus();}else yes.focus();}
button.addEventListener('click',function(){if(finalizes)ask();else download();});
if(ack)ack.addEventListener('change',function(){yes.disabled=!ack.checked;});
document.getElementById('no').addEventListener('click',function(){box.hidden=true;button.focus();});
yes.addEventListener('click',function(){box.hidden=true;download();});
function confirmQuery(){return keys.map(function(k){return '&confirm_findings='+encodeURIComponent(k);}).join('');}
function download(){
  button.disabled=true;say('Asking for the PDF…');
  fetch(location.pathname+'.pdf'+location.search+(finalizes?confirmQuery():''),{method:'POST',headers:{Accept:'application/json'}}).then(answer)
    .then(function(build){search=new URL(build.status_url).search;return follow(build);})
    .catch(failed);
}
function failed(e){
  button.disabled=false;
  if(e.problem&&e.problem.code==='findings_unconfirmed')return reconfirm(e.problem.findings||[]);
  say(e.message||'No connection. Try again.','failed');
}
// The findings changed since the page was opened: it names the ones now and asks again.
function reconfirm(findings){
  say('');keys=findings.map(function(f){return f.key;});search=location.search;
  if(!ack){location.reload();return;}
  ['confirmlist','warnlist'].forEach(function(id){
    var list=document.getElementById(id);list.textContent='';
    findings.forEach(function(f){var li=document.createElement('li');li.textContent=f.message;list.appendChild(li);});
  });
  document.getElementById('confirmcount').textContent=findings.length===1?'1 serious finding':findings.length+' serious findings';
  document.getElementById('confirmchanged').hidden=false;ask();
}
function answer(res){
  if(!res.ok)return res.json().catch(function(){return {};}).then(function(p){var e=new Error(p.detail||('The service answered '+res.status+'.'));e.problem=p;throw e;});
  return res.json();
}
function later(build){return new Promise(function(r){setTimeout(r,1000);}).then(function(){return fetch(location.pathname+'/builds/'+build.id+search);}).then(answer);}
function follow(build){
  if(build.state==='failed')throw new Error('The PDF could not be made ('+(build.error||'no reason given')+'). Try again.');
  if(build.state!=='ready'){say(build.state==='queued'?'Waiting for its turn…':build.photos.total?'Building the PDF: '+build.photos.printed+' of '+build.photos.total+' photos printed…':'Building the PDF…');return later(build).then(follow);}
  say('Downloading '+fileName+' ('+(build.bytes/1048576).toFixed(1)+' MB)…');
  var a=document.createElement('a');a.href=location.pathname+'/builds/'+build.id+'/'+encodeURIComponent(fileName)+search;a.download=fileName;document.body.appendChild(a);a.click();a.remove();
  return delivered(build,120);
}
function delivered(build,tries){
  if(build.delivered){
    if(finalizes){finalizes=false;var n=document.getElementById('notice');if(n){n.textContent='The estimate is now final.';n.className='note';}}
    say('Downloaded '+fileName+'.','done');button.disabled=false;return;
  }
  if(tries===0){say('The download did not finish. Try again.','failed');button.disabled=false;return;}
  return later(build).then(function(next){return delivered(next,tries-1);});
}
})();
</script></body></html>`;
  return { html, nonce };
}
