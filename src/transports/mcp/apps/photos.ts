/**
 * The photos app (view_photos, list_job_photos): the job's photos by room with captions, and Add
 * photos into a room through the service's upload page (photos.page.js says why). Its pictures
 * are the service's signed links, so the service's origin is its one image source.
 */
import { type AppPage, pageScript } from './app-shell';

const CSS = `
header{display:flex;justify-content:space-between;align-items:baseline;gap:8px;flex-wrap:wrap}
.upload{display:flex;flex-wrap:wrap;gap:8px;align-items:end;background:var(--soft);border-radius:10px;padding:10px;margin:8px 0 4px}
.upload label{display:flex;flex-direction:column;gap:4px;font-weight:600;font-size:.9rem;flex:1 1 10em;max-width:22em}
.upload button{flex:1 1 10em;max-width:16em}
section.room h2{display:flex;gap:8px;align-items:baseline}.count{font-weight:400;font-size:.85rem}
ul.grid{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:8px}
@media (min-width:600px){ul.grid{grid-template-columns:repeat(auto-fill,minmax(180px,1fr))}}
li.photo{margin:0;border:1px solid var(--line);border-radius:8px;overflow:hidden;background:#fff}
li.photo img{display:block;width:100%;aspect-ratio:4/3;object-fit:cover;background:#e8eaed}
p.caption{margin:0;padding:6px 8px;font-size:.85rem;overflow-wrap:anywhere}p.caption.none{color:var(--muted);font-style:italic}
.link{word-break:break-all}
`;

const BODY = `
<header><h1>Photos</h1><span class="muted" id="job"></span></header>
<div class="upload">
<label for="room">Add photos to<select id="room"></select></label>
<label id="newroom" for="roomname" hidden>New room's name<input id="roomname" type="text" maxlength="100" autocomplete="off"></label>
<button type="button" class="primary" id="add">Add photos…</button>
<button type="button" id="refresh" hidden>Refresh</button>
</div>
<p id="status" class="status" role="status" aria-live="polite"></p>
<div id="rooms"></div>`;

export function photosPage(serviceOrigin: string): AppPage {
  return {
    title: 'Photos',
    css: CSS,
    body: BODY,
    script: pageScript('photos.page.js'),
    imageOrigins: [serviceOrigin],
  };
}
