/**
 * The signing page a signer opens from `request_signature`'s link (issue #44): plain HTML, CSS and
 * a little JS served by the service, made for a phone first. It shows the filled document and its
 * SHA-256, the consent to sign electronically, this signer's fields, a typed name and a signature
 * pad (pointer events, so touch, pen and mouse alike). Sign stays disabled until the consent is
 * ticked; the strokes go to the server as a list of points in the pad's CSS pixels with the pad's
 * size, so the PDF draws them at any scale. The page's script is one fixed text: everything that
 * varies travels in escaped data attributes, and the document's HTML is the server's safe render.
 */
import { escapeHtml } from './page-security';

export interface SigningField {
  key: string;
  label: string;
  type: 'text' | 'date' | 'initials' | 'checkbox';
  required: boolean;
}

/** What the page shows (and `GET /sign/{form_id}/view` answers): see FORMS-CONTRACT / issue #44. */
export interface SigningView {
  form_id: string;
  company_name: string;
  job_number: number;
  title: string;
  kind: string;
  template_version: number;
  signer: {
    role: 'customer' | 'technician' | 'office';
    name: string;
    email: string | null;
    phone: string | null;
  };
  /** The frozen filled Markdown rendered safely; each fill field is `<span data-fill="key"></span>`. */
  document_html: string;
  document_sha256: string;
  /** This signer's fields only. */
  fields: SigningField[];
  /** Plain words: what it covers, how to get a paper copy, how to withdraw. Paragraphs split by blank lines. */
  consent: { version: string | number; text: string };
  state: 'sent' | 'opened' | 'signed' | 'declined';
  form_state: 'sent' | 'opened' | 'signed' | 'declined' | 'voided' | 'expired';
  expires_at: string;
  sign_url: string;
  decline_url: string;
  copy_url: string;
}

const ROLE_NAMES: Record<SigningView['signer']['role'], string> = {
  customer: 'Customer',
  technician: 'Technician',
  office: 'Office',
};

export function signingPage(view: SigningView, nonce: string): string {
  const closed = view.state === 'signed' || view.state === 'declined';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(view.title)} · ${escapeHtml(view.company_name)}</title>
<style nonce="${nonce}">${STYLE}</style></head><body>
<main id="signing" data-sign-url="${escapeHtml(view.sign_url)}" data-decline-url="${escapeHtml(view.decline_url)}" data-copy-url="${escapeHtml(view.copy_url)}" data-sha256="${escapeHtml(view.document_sha256)}" data-state="${escapeHtml(view.state)}" data-form-state="${escapeHtml(view.form_state)}">
<header><p class="company">${escapeHtml(view.company_name)}</p>
<h1>${escapeHtml(view.title)}</h1>
<p class="meta">Job #${escapeHtml(String(view.job_number))} · For ${escapeHtml(signerLine(view))}</p></header>
<section id="done-signed" class="done"${view.state === 'signed' ? '' : ' hidden'} tabindex="-1">
<h2>Signed</h2><p id="signed-line">You signed this document.</p>
<p id="copy-wait">Your signed copy (PDF) is being prepared…</p>
<p><a id="copy" class="primary button" href="${escapeHtml(view.copy_url)}" download hidden>Download your signed copy (PDF)</a></p>
</section>
<section id="done-declined" class="done declined"${view.state === 'declined' ? '' : ' hidden'} tabindex="-1">
<h2>Declined</h2><p>You declined to sign this document. Your reason was sent to ${escapeHtml(view.company_name)}.</p>
</section>
<section id="done-closed" class="done closed" hidden tabindex="-1">
<h2>This form can no longer be signed here</h2><p id="closed-detail"></p>
<p><a id="closed-copy" class="primary button" href="${escapeHtml(view.copy_url)}" download hidden>Download your signed copy (PDF)</a></p>
</section>
<article class="doc" id="document" aria-label="The document">${view.document_html}</article>
<p class="hash">Document fingerprint (SHA-256): <code id="sha">${escapeHtml(view.document_sha256)}</code><br>Template version ${escapeHtml(String(view.template_version))} · This link works until <time id="expires" datetime="${escapeHtml(view.expires_at)}">${escapeHtml(view.expires_at)}</time></p>
<section id="form"${closed ? ' hidden' : ''}>
${consentBox(view.consent)}
${fieldsBox(view.fields)}
<h2>Your signature</h2>
<label for="typed-name">Type your full name</label>
<input id="typed-name" type="text" maxlength="200" autocomplete="name" autocapitalize="words" spellcheck="false" aria-required="true" aria-describedby="typed-name-err">
<p class="err" id="typed-name-err" hidden></p>
<p class="label" id="pad-label">Sign with your finger or mouse in the box</p>
<div class="pad-box"><div class="pad-wrap"><canvas id="pad" role="img" aria-labelledby="pad-label"></canvas><span class="pad-line" aria-hidden="true"></span></div>
<div class="row"><button type="button" id="clear" class="secondary">Clear signature</button></div></div>
<p class="err" id="pad-err" hidden></p>
<p class="err" id="sign-err" role="alert" hidden></p>
<button type="button" id="sign" class="primary" disabled>Sign</button>
<p class="hint" id="sign-hint">Tick the box agreeing to sign electronically to turn Sign on.</p>
<details id="decline-box"><summary>Decline to sign</summary>
<label for="reason">Why are you declining?</label>
<textarea id="reason" rows="3" maxlength="1000" aria-describedby="reason-err"></textarea>
<p class="err" id="reason-err" role="alert" hidden></p>
<button type="button" id="decline" class="danger">Decline</button></details>
</section>
<p id="status" class="status" role="status" aria-live="polite"></p>
</main>
<script nonce="${nonce}">${SCRIPT}</script></body></html>`;
}

function signerLine(view: SigningView): string {
  const role = ROLE_NAMES[view.signer.role] ?? view.signer.role;
  return view.signer.name ? `${view.signer.name} (${role})` : role;
}

function consentBox(consent: SigningView['consent']): string {
  const paragraphs = consent.text
    .split(/\n\s*\n/)
    .map((text) => text.trim())
    .filter(Boolean)
    .map((text) => `<p>${escapeHtml(text)}</p>`)
    .join('');
  return `<section class="consent" aria-labelledby="consent-title"><h2 id="consent-title">Agreeing to sign electronically</h2>
${paragraphs}<p class="small">Consent version ${escapeHtml(String(consent.version))}</p>
<label class="check big"><input type="checkbox" id="consent" aria-describedby="consent-err"> I agree to sign this document electronically.</label>
<p class="err" id="consent-err" hidden></p></section>`;
}

function fieldsBox(fields: SigningField[]): string {
  if (!fields.length) return '';
  return `<h2>Fill in</h2>${fields.map(fieldInput).join('\n')}`;
}

/** One field's input; `data-key` names it in the POST, the label says whether it is required. */
function fieldInput(field: SigningField, index: number): string {
  const id = `field-${index}`;
  const data = `data-key="${escapeHtml(field.key)}" data-type="${escapeHtml(field.type)}" data-required="${field.required}"${field.required ? ' aria-required="true"' : ''} aria-describedby="${id}-err"`;
  const label = `${escapeHtml(field.label)}${field.required ? '' : ' <span class="optional">(optional)</span>'}`;
  const error = `<p class="err" id="${id}-err" hidden></p>`;
  if (field.type === 'checkbox')
    return `<div class="field"><label class="check"><input type="checkbox" id="${id}" ${data}> ${label}</label>${error}</div>`;
  const input =
    field.type === 'date'
      ? `<input id="${id}" type="date" ${data}>`
      : field.type === 'initials'
        ? `<input id="${id}" type="text" class="initials" maxlength="10" autocapitalize="characters" autocomplete="off" spellcheck="false" ${data}>`
        : `<input id="${id}" type="text" maxlength="500" autocomplete="off" ${data}>`;
  return `<div class="field"><label for="${id}">${label}</label>${input}${error}</div>`;
}

const STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font-family:system-ui,-apple-system,sans-serif;margin:0;color:#1b1f23;background:#f6f7f9;font-size:17px;line-height:1.45}
main{max-width:680px;margin:0 auto;padding:16px 16px 48px}
header .company{margin:0;font-weight:700;color:#0b5fff;font-size:1rem}
h1{font-size:1.35rem;margin:2px 0 4px;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:24px 0 8px}
.meta{margin:0 0 16px;color:#555;overflow-wrap:anywhere}
.doc{background:#fff;border:1px solid #ddd;border-radius:10px;padding:4px 16px;overflow-wrap:anywhere}
.doc h1{font-size:1.25rem;margin-top:16px}.doc h2{font-size:1.1rem}.doc h3{font-size:1rem}
.doc table{display:block;overflow-x:auto;border-collapse:collapse;max-width:100%}
.doc td,.doc th{border:1px solid #ccc;padding:4px 8px}
.doc pre{white-space:pre-wrap}.doc img{max-width:100%}
.doc span[data-fill]{display:inline-block;min-width:5em;min-height:1.2em;border-bottom:2px dashed #0b5fff;background:#eef3ff;padding:0 4px;vertical-align:bottom}
.doc span[data-fill].filled{border-bottom-style:solid;background:#e8f5e9}
.hash{font-size:.75rem;color:#555;margin:8px 0 0;overflow-wrap:anywhere}
.hash code{font-size:.72rem}
.consent{background:#fff;border:2px solid #0b5fff;border-radius:10px;padding:4px 16px 12px;margin-top:20px}
.consent h2{margin-top:12px}.small{font-size:.8rem;color:#555}
label{display:block;font-weight:600;margin:14px 0 6px}
.optional{font-weight:400;color:#555}
input,textarea,button{font:inherit}
input[type=text],input[type=date],textarea{width:100%;font-size:1rem;min-height:48px;padding:10px 12px;border:1px solid #999;border-radius:8px;background:#fff;color:inherit}
input.initials{max-width:8em;text-transform:uppercase}
label.check{display:flex;align-items:flex-start;gap:12px;font-weight:600;min-height:48px;padding:10px 0;cursor:pointer}
label.check input{width:28px;height:28px;flex:none;margin:0;accent-color:#0b5fff}
label.check.big{background:#eef3ff;border-radius:8px;padding:12px}
.label{font-weight:600;margin:14px 0 6px}
.pad-box{max-width:520px}
.pad-wrap{position:relative;width:100%;aspect-ratio:2/1;background:#fff;border:2px solid #999;border-radius:10px;overflow:hidden}
.pad-line{position:absolute;left:8%;right:8%;bottom:22%;border-bottom:1px solid #bbb;pointer-events:none}
canvas{position:absolute;inset:0;width:100%;height:100%;touch-action:none;cursor:crosshair;z-index:1}
.row{display:flex;justify-content:flex-end}
button,.button{display:inline-flex;align-items:center;justify-content:center;min-height:48px;min-width:88px;padding:10px 20px;border-radius:10px;font-size:1rem;cursor:pointer;text-decoration:none}
.secondary{border:2px solid #0b5fff;background:#fff;color:#0b5fff;margin-top:8px}
.primary{width:100%;min-height:56px;margin-top:16px;border:0;background:#0b5fff;color:#fff;font-size:1.15rem;font-weight:700}
.primary:disabled{background:#9aa7bd;cursor:not-allowed}
.danger{border:2px solid #b3261e;background:#fff;color:#b3261e;margin-top:10px;width:100%}
button:focus-visible,.button:focus-visible,input:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.hint{font-size:.9rem;color:#555;margin:6px 0 0}
.err{color:#b3261e;font-weight:600;margin:6px 0 0}
.invalid{border-color:#b3261e!important;border-width:2px!important}
details{margin-top:28px;border-top:1px solid #ddd;padding-top:8px}
summary{min-height:48px;display:flex;align-items:center;color:#b3261e;font-weight:600;cursor:pointer}
.done{background:#fff;border:2px solid #137333;border-radius:10px;padding:4px 16px 16px;margin:8px 0 16px}
.done h2{color:#137333;font-size:1.4rem}
.done.declined{border-color:#b3261e}.done.declined h2{color:#b3261e}
.done.closed{border-color:#555}.done.closed h2{color:#1b1f23}
.status{color:#555;min-height:1.2em}
[hidden]{display:none!important}
`;

/** The page's behaviour: fixed text (no value of the view is written into it). */
const SCRIPT = `
(function(){
'use strict';
var main=document.getElementById('signing'),form=document.getElementById('form');
var signUrl=main.dataset.signUrl,declineUrl=main.dataset.declineUrl,copyUrl=main.dataset.copyUrl,sha=main.dataset.sha256;
var consent=document.getElementById('consent'),signBtn=document.getElementById('sign'),hint=document.getElementById('sign-hint');
var typed=document.getElementById('typed-name'),pad=document.getElementById('pad'),status=document.getElementById('status');
var inputs=Array.prototype.slice.call(document.querySelectorAll('[data-key]'));
var exp=document.getElementById('expires'),at=new Date(exp.getAttribute('datetime'));
if(!isNaN(at.getTime()))exp.textContent=at.toLocaleString(undefined,{dateStyle:'medium',timeStyle:'short'});
// Links in the document open apart, so that following one never loses what is filled in here.
Array.prototype.forEach.call(document.querySelectorAll('#document a[href]'),function(a){a.target='_blank';a.rel='noopener noreferrer';});
function show(id,text){var el=document.getElementById(id);el.textContent=text||'';el.hidden=!text;}
function fieldValue(input){return input.type==='checkbox'?input.checked:input.value.trim();}
function fillDocument(input){
  var value=fieldValue(input),text=input.type==='checkbox'?(value?'\\u2612 Yes':''):value;
  if(input.dataset.type==='initials')text=String(text).toUpperCase();
  Array.prototype.forEach.call(document.querySelectorAll('#document [data-fill]'),function(span){
    if(span.getAttribute('data-fill')!==input.dataset.key)return;
    span.textContent=text;span.classList.toggle('filled',!!text);});
}
inputs.forEach(function(input){
  fillDocument(input);
  input.addEventListener(input.type==='checkbox'?'change':'input',function(){fillDocument(input);if(fieldValue(input)){input.classList.remove('invalid');show(input.id+'-err','');}});
});
function syncSign(){signBtn.disabled=!consent.checked||busy;hint.hidden=consent.checked;if(consent.checked)show('consent-err','');}
consent.addEventListener('change',syncSign);
typed.addEventListener('input',function(){if(typed.value.trim()){typed.classList.remove('invalid');show('typed-name-err','');}});

// The pad: strokes kept in CSS pixels of the pad; a resize scales them with it (its shape is fixed).
var ctx=pad.getContext('2d'),strokes=[],current=null,padW=0,padH=0,MAX_POINTS=20000;
function points(){var n=0;strokes.forEach(function(s){n+=s.length;});return n;}
function sizePad(){
  var w=pad.clientWidth,h=pad.clientHeight,ratio=window.devicePixelRatio||1;
  if(!w||!h)return;
  if(padW&&w!==padW){var k=w/padW;strokes.forEach(function(s){s.forEach(function(p){p[0]=round(p[0]*k);p[1]=round(p[1]*k);});});}
  padW=w;padH=h;pad.width=Math.round(w*ratio);pad.height=Math.round(h*ratio);
  ctx.setTransform(ratio,0,0,ratio,0,0);redraw();
}
function round(v){return Math.round(v*10)/10;}
function redraw(){
  ctx.clearRect(0,0,padW,padH);ctx.lineWidth=2.5;ctx.lineCap='round';ctx.lineJoin='round';ctx.strokeStyle='#0a1a3a';
  strokes.forEach(function(s){ctx.beginPath();ctx.moveTo(s[0][0],s[0][1]);for(var i=1;i<s.length;i++)ctx.lineTo(s[i][0],s[i][1]);ctx.stroke();});
}
function pointOf(e){var r=pad.getBoundingClientRect();
  return [round(Math.min(Math.max(e.clientX-r.left,0),padW)),round(Math.min(Math.max(e.clientY-r.top,0),padH))];}
function addPoint(e){
  if(!current||points()>=MAX_POINTS)return;
  var p=pointOf(e),last=current[current.length-1];
  if(last[0]===p[0]&&last[1]===p[1])return;
  current.push(p);ctx.beginPath();ctx.moveTo(last[0],last[1]);ctx.lineTo(p[0],p[1]);ctx.stroke();
}
pad.addEventListener('pointerdown',function(e){
  if(e.button>0||form.hidden)return;e.preventDefault();
  try{pad.setPointerCapture(e.pointerId);}catch(err){}
  var p=pointOf(e);current=[p];strokes.push(current);
  ctx.beginPath();ctx.arc(p[0],p[1],1.25,0,Math.PI*2);ctx.fillStyle='#0a1a3a';ctx.fill();
});
pad.addEventListener('pointermove',function(e){
  if(!current)return;e.preventDefault();
  var list=e.getCoalescedEvents?e.getCoalescedEvents():[];
  if(!list.length)list=[e];
  list.forEach(addPoint);
});
function endStroke(){
  // A tap is a dot: the stroke gets a second point so that every stroke is a line.
  if(current&&current.length===1)current.push([current[0][0],current[0][1]]);
  // The message under the pad goes once the stroke is done: the pad must not move under the finger.
  if(current){show('pad-err','');pad.parentNode.classList.remove('invalid');}
  current=null;
}
pad.addEventListener('pointerup',endStroke);pad.addEventListener('pointercancel',endStroke);
document.getElementById('clear').addEventListener('click',function(){strokes=[];current=null;redraw();});
window.addEventListener('resize',sizePad);
sizePad();

// Signing.
var busy=false;
function collectFields(){
  var fields={},firstBad=null;
  inputs.forEach(function(input){
    var value=fieldValue(input);
    if(input.dataset.type==='initials')value=value.toUpperCase();
    // An optional field left empty is not sent.
    if(value!=='')fields[input.dataset.key]=value;
    var missing=input.dataset.required==='true'&&!value;
    input.classList.toggle('invalid',missing);
    show(input.id+'-err',missing?(input.type==='checkbox'?'Tick this box to go on.':'Fill this in to go on.'):'');
    if(missing&&!firstBad)firstBad=input;
  });
  return {fields:fields,firstBad:firstBad};
}
function check(){
  var collected=collectFields(),firstBad=collected.firstBad;
  if(!consent.checked){show('consent-err','Tick the box to agree to sign electronically.');firstBad=firstBad||consent;}
  var name=typed.value.trim();
  typed.classList.toggle('invalid',!name);show('typed-name-err',name?'':'Type your full name.');
  if(!name)firstBad=firstBad||typed;
  var empty=!strokes.length;
  pad.parentNode.classList.toggle('invalid',empty);show('pad-err',empty?'Draw your signature in the box.':'');
  if(empty)firstBad=firstBad||pad;
  if(firstBad){firstBad.focus();firstBad.scrollIntoView({block:'center'});return null;}
  return {consent:true,typed_name:name,fields:collected.fields,signature:{strokes:strokes,width:padW,height:padH},document_sha256:sha};
}
function post(url,body){
  // The page sends no referrer (its URL carries the link); its own origin still goes with the POST.
  return fetch(url,{method:'POST',headers:{'Content-Type':'application/json',Accept:'application/json'},body:JSON.stringify(body),referrer:'',referrerPolicy:'same-origin',credentials:'same-origin'})
    .then(function(res){return res.text().then(function(text){var data={};try{data=JSON.parse(text);}catch(e){}return {status:res.status,body:data};});});
}
var OFFLINE='No connection. Check the signal and try again.';
// Signed meanwhile (an answer lost on the way, another tab), declined, voided or expired: the
// server's words say which; a signed copy that is there is offered.
function closedNow(detail){
  form.hidden=true;status.textContent='';
  document.getElementById('closed-detail').textContent=detail;
  var box=document.getElementById('done-closed');box.hidden=false;box.focus();
  fetch(copyUrl,{method:'HEAD',referrer:'',credentials:'same-origin'}).then(function(res){
    if(res.ok)document.getElementById('closed-copy').hidden=false;},function(){});
}
function problem(res,errId){
  var b=res.body||{},code=b.code,detail=b.detail||('The service answered '+res.status+'. Please try again.');
  if(code==='form_closed'||code==='link_expired'||code==='link_invalid'){closedNow(detail);return;}
  if(code==='document_changed'){show(errId,'The document changed after this page was opened, so it was not signed. Reload the page to read the current version.');return;}
  if(code==='consent_required'){show('consent-err',detail);consent.focus();return;}
  if(code==='invalid_signature'||code==='signature_too_large'){show('pad-err',detail);pad.parentNode.classList.add('invalid');return;}
  if(code==='fields_invalid'&&b.errors){
    b.errors.forEach(function(fe){
      var key=String(fe.path||fe.pointer||'').split('/').pop();
      var input=inputs.filter(function(i){return i.dataset.key===key;})[0];
      if(input){input.classList.add('invalid');show(input.id+'-err',fe.message||detail);}
      else if(key==='typed_name'){typed.classList.add('invalid');show('typed-name-err',fe.message||detail);}
    });
  }
  show(errId,detail);
}
signBtn.addEventListener('click',function(){
  if(busy)return;show('sign-err','');
  var body=check();if(!body)return;
  busy=true;syncSign();signBtn.textContent='Signing…';status.textContent='Signing…';
  post(signUrl,body).then(function(res){
    if(res.status===201){signed(res.body);return;}
    status.textContent='';problem(res,'sign-err');
  },function(){status.textContent='';show('sign-err',OFFLINE);})
  .then(function(){busy=false;signBtn.textContent='Sign';syncSign();});
});
function signed(answer){
  form.hidden=true;status.textContent='';
  var done=document.getElementById('done-signed');done.hidden=false;
  var when=new Date(answer.signed_at);
  document.getElementById('signed-line').textContent='You signed this document as \u201c'+typed.value.trim()+'\u201d'+(isNaN(when.getTime())?'.':' on '+when.toLocaleString(undefined,{dateStyle:'medium',timeStyle:'short'})+'.');
  if(answer.copy_url){copyUrl=answer.copy_url;document.getElementById('copy').setAttribute('href',copyUrl);}
  if(answer.form_state!=='signed')document.getElementById('copy-wait').textContent='Your signed copy (PDF) can be downloaded here once everyone has signed.';
  done.focus();waitForCopy(0);
}
// The copy is there once every signer has signed and its PDF is made: asked for now and then.
function waitForCopy(tries){
  fetch(copyUrl,{method:'HEAD',referrer:'',credentials:'same-origin'}).then(function(res){
    if(res.ok){document.getElementById('copy-wait').hidden=true;document.getElementById('copy').hidden=false;return;}
    if(res.status===409||res.status===404||res.status>=500)later(tries);
  },function(){later(tries);});
}
function later(tries){if(tries<200)setTimeout(function(){waitForCopy(tries+1);},Math.min(1000+tries*500,15000));}
if(main.dataset.state==='signed')waitForCopy(0);

// Declining.
var reason=document.getElementById('reason');
document.getElementById('decline').addEventListener('click',function(){
  if(busy)return;var text=reason.value.trim();
  if(!text){show('reason-err','Say in a few words why you decline.');reason.classList.add('invalid');reason.focus();return;}
  busy=true;syncSign();show('reason-err','');reason.classList.remove('invalid');status.textContent='Sending…';
  post(declineUrl,{reason:text}).then(function(res){
    if(res.status===200){form.hidden=true;status.textContent='';var d=document.getElementById('done-declined');d.hidden=false;d.focus();return;}
    status.textContent='';problem(res,'reason-err');
  },function(){status.textContent='';show('reason-err',OFFLINE);})
  .then(function(){busy=false;syncSign();});
});
syncSign();
})();
`;
