/**
 * The upload page a person opens from `get_photo_upload_link`: plain HTML, CSS and a little JS
 * served by the service. Each file is sent on its own (multipart, like `upload_job_photos`) with
 * an operation_id made for it once, so that a retry after a failure never stores it twice. A
 * file picked as a document goes to the Files tab; from the camera or library, a video goes to
 * the videos and anything else to the photos.
 */
import { randomBytes } from 'node:crypto';
import type { ApiError } from '../../platform/errors';
import { escapeHtml } from './page-security';

export interface PageJob {
  job_number: number;
  title: string | null;
  room: string | null;
  rooms: string[];
}

export function uploadPage(job: PageJob): { html: string; nonce: string } {
  const nonce = randomBytes(16).toString('base64');
  const options = [...new Set([...job.rooms, ...(job.room ? [job.room] : [])])]
    .map(
      (room) =>
        `<option${room.toLowerCase() === job.room?.toLowerCase() ? ' selected' : ''}>${escapeHtml(room)}</option>`,
    )
    .join('');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Photos, videos and documents for job #${job.job_number}</title>
<style nonce="${nonce}">
body{font-family:system-ui,-apple-system,sans-serif;margin:0;padding:16px;max-width:560px;margin-inline:auto;color:#1b1f23;background:#f6f7f9}
h1{font-size:1.3rem;margin:0 0 4px}p.job{margin:0 0 16px;color:#555}
label{display:block;font-weight:600;margin:12px 0 6px}
select,input,button{font:inherit}
select,input[type=text],input[type=datetime-local]{width:100%;box-sizing:border-box;font-size:1rem;padding:10px;border:1px solid #bbb;border-radius:8px;background:#fff}
.pick{display:flex;flex-wrap:wrap;gap:10px;margin-top:16px}
.pick label{flex:1 1 40%;margin:0;display:flex;align-items:center;justify-content:center;min-height:56px;text-align:center;padding:12px 8px;border-radius:10px;background:#0b5fff;color:#fff;font-size:1.05rem;cursor:pointer}
.pick label.secondary{background:#fff;color:#0b5fff;border:2px solid #0b5fff}
.pick label:focus-within{outline:3px solid #ffbf47;outline-offset:2px}
.pick input{position:absolute;opacity:0;width:1px;height:1px}
ul{list-style:none;padding:0;margin:16px 0}li{background:#fff;border-radius:8px;padding:10px;margin-bottom:8px;border:1px solid #ddd}
li .name{font-weight:600;word-break:break-all}li .state{font-size:.9rem;color:#555}
progress{width:100%;height:10px}li.done .state{color:#137333}li.failed .state{color:#b3261e}
button{font-size:1rem;min-height:44px;min-width:88px;padding:10px 20px;border-radius:8px;border:1px solid #b3261e;background:#fff;color:#b3261e;margin-top:6px}
#newroom[hidden],#roomhint[hidden]{display:none}
#roomhint{color:#b3261e;margin:6px 0 0}
#takenhint{color:#555;font-size:.9rem;margin:4px 0 0}
</style></head><body>
<h1>Add photos, videos and documents</h1><p class="job">Job #${job.job_number}${job.title ? ` · ${escapeHtml(job.title)}` : ''}</p>
<label for="room">Room</label>
<select id="room"><option value="">Unsorted</option>${options}<option value="__new">New room…</option></select>
<div id="newroom" hidden><label for="roomname">New room's name</label><input id="roomname" type="text" maxlength="100" autocomplete="off" aria-describedby="roomhint"><p id="roomhint" hidden>Type the room's name first, then pick the files again.</p></div>
<label for="taken">Taken at (optional)</label><input id="taken" type="datetime-local" aria-describedby="takenhint"><p id="takenhint">For photos without the camera's time; left empty, they show when they were uploaded.</p>
<div class="pick">
<label for="camera">Take photo<input id="camera" type="file" accept="image/*" capture="environment"></label>
<label for="library" class="secondary">Choose from library<input id="library" type="file" accept="image/jpeg,image/png,image/heic,image/heif,.heic,.heif,video/mp4,video/quicktime,video/webm,.mp4,.mov,.webm" multiple></label>
<label for="document" class="secondary">Add a document<input id="document" type="file" accept=".pdf,application/pdf,.doc,.docx,.xls,.xlsx,.ppt,.pptx,image/jpeg,image/png,image/heic,.heic" multiple></label>
</div>
<ul id="files" aria-live="polite"></ul>
<script nonce="${nonce}">
(function(){
var list=document.getElementById('files'),room=document.getElementById('room'),newBox=document.getElementById('newroom'),newName=document.getElementById('roomname'),hint=document.getElementById('roomhint'),taken=document.getElementById('taken');
room.addEventListener('change',function(){newBox.hidden=room.value!=='__new';hint.hidden=true;if(!newBox.hidden)newName.focus();});
newName.addEventListener('input',function(){if(newName.value.trim())hint.hidden=true;});
function opId(){if(window.crypto&&crypto.randomUUID)return crypto.randomUUID();var b=new Uint8Array(16);crypto.getRandomValues(b);return Array.prototype.map.call(b,function(x){return(x+256).toString(16).slice(1)}).join('');}
function takenAt(){if(!taken.value)return '';var at=new Date(taken.value);return isNaN(at.getTime())?'':at.toISOString();}
function chosenRoom(){if(room.value==='__new')return newName.value.trim();return room.value;}
var queue=[],active=0,AT_ONCE=3;
function enqueue(item){item.li.className='';item.state.textContent='Waiting…';item.bar.value=0;item.retry.hidden=true;queue.push(item);pump();}
function pump(){while(active<AT_ONCE&&queue.length){active++;send(queue.shift());}}
window.addEventListener('beforeunload',function(e){if(active||queue.length){e.preventDefault();e.returnValue='';}});
function send(item){
  item.state.textContent='Uploading…';
  var form=new FormData(),meta={operation_id:item.op};if(item.room)meta.room=item.room;if(item.kind==='photos'&&item.taken)meta.taken_at=item.taken;
  form.append('meta',JSON.stringify(meta));form.append(item.kind.slice(0,-1),item.file,item.file.name);
  var xhr=new XMLHttpRequest();xhr.open('POST',location.pathname+'/'+item.kind+location.search);xhr.setRequestHeader('Accept','application/json');
  xhr.upload.onprogress=function(e){if(e.lengthComputable)item.bar.value=e.loaded/e.total;};
  xhr.onload=function(){var body={};try{body=JSON.parse(xhr.responseText)}catch(e){}
    if(xhr.status===201){item.li.className='done';item.bar.value=1;var p=body[item.kind]&&body[item.kind][0];item.state.textContent=(p&&p.duplicate?'Already on the job':'Saved')+(p?' · '+p.room:'');}
    else fail(item,body.detail||('The service answered '+xhr.status+'.'),xhr.status>=500||xhr.status===429);};
  xhr.onerror=function(){fail(item,'No connection. Check the signal and retry.',true);};
  xhr.onloadend=function(){active--;pump();};
  xhr.send(form);
}
function fail(item,why,canRetry){item.li.className='failed';item.state.textContent=why;item.retry.hidden=!canRetry;}
function kindOf(file,source){if(source==='document')return 'documents';return file.type.indexOf('video/')===0||/[.](mp4|mov|webm|m4v)$/i.test(file.name)?'videos':'photos';}
function add(files,source){
  if(room.value==='__new'&&!newName.value.trim()){hint.hidden=false;newName.focus();return;}
  for(var i=0;i<files.length;i++){
    var li=document.createElement('li'),name=document.createElement('div'),bar=document.createElement('progress'),state=document.createElement('div'),retry=document.createElement('button');
    name.className='name';state.className='state';name.textContent=files[i].name;bar.max=1;bar.value=0;retry.type='button';retry.textContent='Retry';retry.hidden=true;
    bar.setAttribute('aria-label','Upload of '+files[i].name);
    li.appendChild(name);li.appendChild(bar);li.appendChild(state);li.appendChild(retry);list.appendChild(li);
    var item={file:files[i],kind:kindOf(files[i],source),op:opId(),room:chosenRoom(),taken:takenAt(),li:li,bar:bar,state:state,retry:retry};
    retry.addEventListener('click',enqueue.bind(null,item));enqueue(item);
  }
}
['camera','library','document'].forEach(function(id){var input=document.getElementById(id);input.addEventListener('change',function(){add(input.files,id);input.value='';});});
})();
</script></body></html>`;
  return { html, nonce };
}

/** A link's refusal as a page; `link`: where the person can still go (a signer's signed copy). */
export function errorPage(problem: ApiError, link?: { href: string; text: string }): string {
  const [title, heading] = ERROR_WORDS[problem.code] ?? ['Link not available', 'This link does not work'];
  const next = link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:560px;margin:0 auto;padding:24px 16px;color:#1b1f23}h1{font-size:1.3rem}</style></head>
<body><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(problem.detail)}</p>${next}</body></html>`;
}

/** The error page's title and heading by the problem's code. */
const ERROR_WORDS: Partial<Record<ApiError['code'], [string, string]>> = {
  link_expired: ['Link expired', 'This link has expired'],
  form_closed: ['Form closed', 'This form can no longer be signed'],
};
