// Photos (view_photos, list_job_photos): the job's photos by room with their captions, and Add
// photos into a chosen room. The upload itself happens on the service's own upload page: the page
// asks get_photo_upload_link (through the host) for a link preselecting the room and asks the host
// to open it; the person takes or picks the photos there; Refresh then lists them here. (The
// upload page refuses a POST from another site's page, and a sandboxed app frame is one; no tool
// carries a file's bytes.)

const NEW_ROOM = '\u0000new';
const state = { jobId: null, jobNumber: null, room: null, photos: [], rooms: [] };

/** The photos of either tool's answer, alike: id, room, caption, name, picture. */
function photosOf(body) {
  if (Array.isArray(body.photos))
    return body.photos.map((p) => ({
      id: p.id,
      room: p.room,
      caption: p.caption,
      name: p.name,
      src: p.url,
      video: p.kind === 'video',
    }));
  return (body.data || []).map((p) => ({
    id: p.id,
    room: p.room,
    caption: p.caption,
    name: p.name,
    src: p.links.thumbnail,
    video: false,
  }));
}

/** The rooms list_job_photos names (every room of the job, with or without photos). */
const roomNames = (body) => (body.rooms || []).map((room) => room.name);

function byRoom(photos) {
  const rooms = new Map();
  for (const photo of photos) {
    if (!rooms.has(photo.room)) rooms.set(photo.room, []);
    rooms.get(photo.room).push(photo);
  }
  return [...rooms.entries()].sort(
    (a, b) => (a[0] === 'Unsorted') - (b[0] === 'Unsorted') || a[0].localeCompare(b[0]),
  );
}

function render() {
  fill(
    'job',
    state.jobNumber
      ? `Job #${state.jobNumber} · ${plural(state.photos.length, 'photo')}`
      : plural(state.photos.length, 'photo'),
  );
  const rooms = byRoom(state.photos);
  fill(
    'rooms',
    rooms.length
      ? rooms.map(([room, photos]) =>
          el(
            'section',
            { className: 'room', attrs: { 'data-room': room, 'aria-label': room } },
            el('h2', {}, room, el('span', { className: 'muted count' }, plural(photos.length, 'photo'))),
            el(
              'ul',
              { className: 'grid' },
              photos.map((p) =>
                el(
                  'li',
                  { className: 'photo', attrs: { 'data-id': p.id } },
                  el('img', {
                    src: p.src,
                    alt: p.caption || p.name || 'Photo',
                    loading: 'lazy',
                    decoding: 'async',
                  }),
                  el(
                    'p',
                    { className: p.caption ? 'caption' : 'caption none' },
                    p.caption || p.name || 'No caption',
                    p.video ? ' (video)' : '',
                  ),
                ),
              ),
            ),
          ),
        )
      : el('p', { className: 'muted' }, 'No photos on this job yet.'),
  );
  renderRoomChoice();
}

function renderRoomChoice() {
  const select = document.getElementById('room');
  const chosen = select.value || state.room || '';
  const names = [...new Set([...state.rooms, ...state.photos.map((p) => p.room)])]
    .filter((name) => name !== 'Unsorted')
    .sort();
  select.replaceChildren(
    el('option', { value: '' }, 'Unsorted'),
    ...names.map((name) => el('option', { value: name }, name)),
    el('option', { value: NEW_ROOM }, 'New room…'),
  );
  select.value = [...select.options].some((o) => o.value === chosen) ? chosen : '';
  document.getElementById('newroom').hidden = select.value !== NEW_ROOM;
  document.getElementById('add').disabled = !state.jobId;
}

function chosenRoom() {
  const select = document.getElementById('room');
  return select.value === NEW_ROOM ? document.getElementById('roomname').value.trim() : select.value;
}

async function refresh() {
  if (!state.jobId) return;
  say('Reading the photos…');
  const answer = await callTool(app, 'list_job_photos', { job_id: state.jobId, limit: 100 });
  if (answer.problem) return say(answer.problem.detail || 'The photos could not be read.', 'failed');
  state.photos = photosOf(answer.body);
  state.rooms = roomNames(answer.body);
  render();
  say('');
}

async function addPhotos() {
  const room = chosenRoom();
  if (document.getElementById('room').value === NEW_ROOM && !room) {
    document.getElementById('roomname').focus();
    return say('Type the new room’s name first.', 'failed');
  }
  document.getElementById('add').disabled = true;
  say('Making an upload link…');
  const answer = await callTool(app, 'get_photo_upload_link', {
    job_id: state.jobId,
    ...(room ? { room } : {}),
  });
  document.getElementById('add').disabled = false;
  if (answer.problem) return say(answer.problem.detail || 'No upload link could be made.', 'failed');
  const opened = await app.openLink({ url: answer.body.url });
  if (opened.isError)
    return fill('status', 'Open this page to upload: ', el('span', { className: 'link' }, answer.body.url));
  say(
    `The upload page is open${room ? ` for ${room}` : ''}: take or choose the photos there, then Refresh.`,
    'done',
  );
  document.getElementById('refresh').hidden = false;
}

document.getElementById('room').addEventListener('change', (event) => {
  document.getElementById('newroom').hidden = event.target.value !== NEW_ROOM;
  if (event.target.value === NEW_ROOM) document.getElementById('roomname').focus();
});
document.getElementById('add').addEventListener('click', addPhotos);
document.getElementById('refresh').addEventListener('click', refresh);

async function onResult(params) {
  const answer = answerOf(params);
  if (answer.problem) return say(answer.problem.detail || 'The photos could not be read.', 'failed');
  const body = answer.body;
  state.photos = photosOf(body);
  const first = (body.photos || [])[0];
  state.jobId = body.job_id || first?.job_id || state.jobId;
  state.jobNumber = first?.job_number || state.jobNumber;
  if (body.rooms) state.rooms = roomNames(body);
  render();
  if (!body.rooms && state.jobId) {
    const list = await callTool(app, 'list_job_photos', { job_id: state.jobId, limit: 1 });
    if (list.body) state.rooms = roomNames(list.body);
    renderRoomChoice();
  }
}

render();
const app = startApp('photos', {
  input(args) {
    if (args.job_id !== undefined) state.jobId = String(args.job_id);
    state.room = args.room || null;
  },
  result: onResult,
});
