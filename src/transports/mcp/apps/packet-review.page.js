// Packet review (check_claim_readiness, export_pdf): the findings a claim reviewer would question,
// the documents the packet holds, and Build. Build asks export_pdf for the packet's download page
// and asks the host to open it; when the packet makes a draft estimate final, the person first
// confirms here (each high finding named, acknowledged), and only then is export_pdf asked with
// confirm_findings. The estimate becomes final as the service's download page delivers the PDF,
// never from this page or the assistant alone.

const DOCUMENTS = [
  ['estimate', 'The estimate'],
  ['drying_log', 'The drying log, with its GPP chart'],
  ['photos', 'Photos by room'],
];
const RECORDS = {
  day: 'Day',
  area: 'Area',
  line: 'Line',
  chamber: 'Chamber',
  skip: 'Skipped day',
  room: 'Room',
  equipment: 'Equipment',
};

const state = {
  jobId: null,
  documents: ['estimate', 'drying_log', 'photos'],
  estimateId: null,
  readiness: null,
  packet: null,
  toConfirm: [],
  problem: null,
};
let previewing = 0;

function recordOf(record) {
  if (record.type === 'day') return [`Day ${record.day}`, record.date].filter(Boolean).join(' · ');
  const what = RECORDS[record.type] || record.type;
  const parts = [record.name, record.day !== null ? `day ${record.day}` : null, record.date].filter(Boolean);
  return [what, ...parts].join(' · ');
}

function renderFindings() {
  const readiness = state.readiness;
  if (!readiness) return fill('findings', el('p', { className: 'muted' }, 'Checking the claim…'));
  fill('job', `Job #${readiness.job.job_number}`);
  if (readiness.findings.length === 0)
    return fill(
      'findings',
      el('p', { className: 'ready' }, 'Nothing a claim reviewer would question was found.'),
    );
  const { high, medium, low } = readiness.counts;
  const counts = [high && `${high} serious`, medium && `${medium} to look at`, low && `${low} minor`]
    .filter(Boolean)
    .join(' · ');
  return fill(
    'findings',
    el('p', { className: 'counts' }, `${counts}.`),
    el(
      'ul',
      { className: 'findings' },
      readiness.findings.map((finding) =>
        el(
          'li',
          { className: `finding ${finding.severity}` },
          el(
            'div',
            { className: 'head' },
            el('span', { className: 'sev' }, finding.severity),
            el('span', { className: 'record' }, recordOf(finding.record)),
          ),
          el('p', { className: 'message' }, finding.message),
          el('p', { className: 'fix' }, 'Fix: ', el('code', {}, finding.fix.tool), ` · ${finding.fix.how}`),
        ),
      ),
    ),
  );
}

function renderDocuments() {
  const packet = state.packet;
  const boxes = DOCUMENTS.map(([value, label]) => {
    const box = el('input', {
      type: 'checkbox',
      value,
      checked: state.documents.includes(value),
      id: `doc-${value}`,
    });
    box.addEventListener('change', chooseDocuments);
    let detail = null;
    if (value === 'estimate' && packet && packet.estimate) {
      const money = new Intl.NumberFormat('en-US', {
        style: 'currency',
        currency: packet.estimate.currency,
      }).format(packet.estimate.total_cents / 100);
      detail = el(
        'span',
        { className: 'muted' },
        ` · ${packet.estimate.label}, ${money}${packet.estimate.status === 'final' ? ' (final)' : ' (draft)'}`,
      );
    }
    if (value === 'photos' && packet && packet.documents.includes('photos'))
      detail = el('span', { className: 'muted' }, ` · ${plural(packet.photo_count, 'photo')}`);
    return el(
      'li',
      {},
      el('label', { className: 'doc', attrs: { for: `doc-${value}` } }, box, el('span', {}, label, detail)),
    );
  });
  fill('documents', el('ul', { className: 'documents' }, boxes));
  renderNotice();
}

function finalizes() {
  return Boolean(state.packet?.finalizes_estimate || state.toConfirm.length);
}

function renderNotice() {
  const notice = document.getElementById('notice');
  const build = document.getElementById('build');
  build.disabled = previewing > 0 || state.documents.length === 0 || !state.jobId;
  if (state.problem && state.problem.code !== 'findings_unconfirmed') {
    notice.className = 'notice danger';
    notice.textContent = state.problem.detail || 'The packet cannot be made.';
    return;
  }
  if (state.toConfirm.length) {
    notice.className = 'notice danger';
    notice.replaceChildren(
      el('b', {}, 'Not ready to go final. '),
      `Downloading this packet makes the estimate final, and it can then no longer be changed, while a claim reviewer would question ${plural(state.toConfirm.length, 'serious finding')}. Fix them first, or confirm them when you build.`,
    );
  } else if (finalizes()) {
    notice.className = 'notice warn';
    notice.textContent = `Downloading this packet makes the estimate ${state.packet.estimate.label} final: after that it can no longer be changed.`;
  } else {
    notice.className = 'notice';
    notice.textContent =
      state.packet?.estimate && state.packet.estimate.status === 'final'
        ? 'The estimate is already final.'
        : 'Building the packet changes nothing on the job.';
  }
}

function chooseDocuments() {
  state.documents = DOCUMENTS.map(([value]) => value).filter(
    (value) => document.getElementById(`doc-${value}`).checked,
  );
  preview();
}

/** Asks export_pdf what the packet would be (it makes a link and changes nothing): the estimate, and the findings to confirm. */
async function preview() {
  if (!state.jobId || state.documents.length === 0) return renderNotice();
  previewing++;
  renderNotice();
  const answer = await callTool(app, 'export_pdf', packetArgs());
  previewing--;
  take(answer);
  renderDocuments();
}

function packetArgs(confirm) {
  return {
    job_id: state.jobId,
    documents: state.documents,
    ...(state.estimateId && state.documents.includes('estimate') ? { estimate_id: state.estimateId } : {}),
    ...(confirm?.length ? { confirm_findings: confirm } : {}),
  };
}

/** An export_pdf answer: the packet, or the high findings it wants confirmed. */
function take(answer) {
  state.problem = null;
  if (answer.body) {
    state.packet = answer.body;
    state.toConfirm = [];
  } else if (answer.problem.code === 'findings_unconfirmed') {
    state.toConfirm = answer.problem.findings || [];
    state.problem = answer.problem;
  } else state.problem = answer.problem;
}

function ask() {
  const box = document.getElementById('confirm');
  const ack = document.getElementById('ack');
  const yes = document.getElementById('yes');
  const high = state.toConfirm.length > 0;
  fill(
    'confirmtext',
    high
      ? `Make the estimate final with ${plural(state.toConfirm.length, 'serious finding')} a claim reviewer would question? It cannot be changed afterwards.`
      : `Make the estimate ${state.packet.estimate.label} final? It cannot be changed afterwards.`,
  );
  fill(
    'confirmlist',
    state.toConfirm.map((finding) => el('li', {}, finding.message)),
  ).hidden = !high;
  document.getElementById('acklabel').hidden = !high;
  ack.checked = false;
  yes.disabled = high;
  yes.textContent = high ? 'Make it final anyway and build' : 'Yes, make it final and build';
  box.hidden = false;
  (high ? ack : yes).focus();
}

async function build(confirmed) {
  const button = document.getElementById('build');
  button.disabled = true;
  say('Making the packet’s download page…');
  const answer = await callTool(
    app,
    'export_pdf',
    packetArgs(confirmed ? state.toConfirm.map((f) => f.key) : []),
  );
  take(answer);
  renderDocuments();
  if (!answer.body) {
    if (answer.problem.code === 'findings_unconfirmed') {
      say('The findings changed since: confirm them again.', 'failed');
      return ask();
    }
    return say(answer.problem.detail || 'The packet could not be made.', 'failed');
  }
  const opened = await app.openLink({ url: answer.body.url });
  if (opened.isError) {
    fill(
      'status',
      'The host did not open the page. Open it yourself: ',
      el('span', { className: 'link' }, answer.body.url),
    );
    return;
  }
  say(
    answer.body.finalizes_estimate
      ? 'The download page is open: its Download builds the PDF, and the estimate becomes final once the PDF has arrived.'
      : 'The download page is open: its Download builds the PDF.',
    'done',
  );
}

document.getElementById('build').addEventListener('click', () => {
  if (finalizes()) ask();
  else build(false);
});
document.getElementById('ack').addEventListener('change', (event) => {
  document.getElementById('yes').disabled = !event.target.checked;
});
document.getElementById('no').addEventListener('click', () => {
  document.getElementById('confirm').hidden = true;
  document.getElementById('build').focus();
});
document.getElementById('yes').addEventListener('click', () => {
  document.getElementById('confirm').hidden = true;
  build(true);
});

async function onResult(params) {
  const answer = answerOf(params);
  const body = answer.body || {};
  if (body.findings && body.counts) state.readiness = body;
  else if (body.pdf_url || answer.problem) {
    take(answer);
    if (body.documents) state.documents = body.documents;
    if (body.estimate) state.estimateId = body.estimate.id;
  }
  state.jobId = state.jobId || body.job?.id || body.job_id || null;
  if (!state.jobId) return say('The tool gave no job to review.', 'failed');
  renderFindings();
  renderDocuments();
  if (!state.readiness) {
    const readiness = await callTool(app, 'check_claim_readiness', { job_id: state.jobId });
    if (readiness.body) state.readiness = readiness.body;
    else say(readiness.problem.detail || 'The claim could not be checked.', 'failed');
    renderFindings();
  }
  if (!state.packet && !state.toConfirm.length) await preview();
}

renderFindings();
renderDocuments();
const app = startApp('packet-review', {
  input(args) {
    if (args.job_id !== undefined) state.jobId = String(args.job_id);
    if (Array.isArray(args.documents) && args.documents.length) state.documents = args.documents;
    if (args.estimate_id) state.estimateId = args.estimate_id;
  },
  result: onResult,
});
