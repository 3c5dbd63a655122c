/**
 * The page where a person approves an assistant (OAuth's authorization step): plain HTML and CSS,
 * no script. It says which assistant asks, where it will be sent back to, and for which data;
 * the person proves who they are with one of their API keys (or is signed in by an admin's
 * one-time sign-in link), chooses read or write and, if they like, some toolsets, and approves
 * or denies. The form posts to this service only; the answer sends the browser back to the
 * assistant.
 */
import { randomBytes } from 'node:crypto';
import { escapeHtml } from './page-security';

export interface ApprovalPageFacts {
  requestId: string;
  clientName: string;
  /** Where the client's metadata document is, or "registered" for a client that registered. */
  clientOrigin: string;
  redirectHost: string;
  resourceName: string;
  /** What the assistant asked for: write, or read only. */
  askedScope: 'read' | 'write';
  toolsets: { name: string; description: string }[];
  /** Who the sign-in link signed in, if anyone. */
  signedIn: { personName: string; companyName: string; scope: 'read' | 'write' } | null;
  /** Why the last try was refused. */
  problem: string | null;
}

function proof(facts: ApprovalPageFacts): string {
  if (facts.signedIn) {
    const { personName, companyName, scope } = facts.signedIn;
    return `<p class="who" id="signedin">Signed in as <b>${escapeHtml(personName)}</b> of ${escapeHtml(companyName)} (up to ${scope === 'write' ? 'read and write' : 'read only'}), by a sign-in link.</p>`;
  }
  return `<label for="key">Your API key</label>
<input id="key" name="credential" type="password" autocomplete="off" spellcheck="false" required placeholder="jms_…">
<p class="hint">It proves who you are and is not given to the assistant. No key? Ask your admin for a sign-in link, open it in this browser, then reload this page.</p>`;
}

function toolsetChoices(facts: ApprovalPageFacts): string {
  const boxes = facts.toolsets
    .map(
      (set) =>
        `<label class="set"><input type="checkbox" name="toolsets" value="${escapeHtml(set.name)}"> <b>${escapeHtml(set.name)}</b> <span>${escapeHtml(set.description)}</span></label>`,
    )
    .join('');
  return `<details><summary>Only some tools (optional)</summary><p class="hint">Leave all unticked for every tool.</p>${boxes}</details>`;
}

export function approvalPage(facts: ApprovalPageFacts): { html: string; nonce: string } {
  const nonce = randomBytes(16).toString('base64');
  const writeChecked = facts.askedScope === 'write' && facts.signedIn?.scope !== 'read';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect ${escapeHtml(facts.clientName)}</title>
<style nonce="${nonce}">
body{font-family:system-ui,-apple-system,sans-serif;margin:0 auto;padding:16px;max-width:560px;color:#1b1f23;background:#f6f7f9}
h1{font-size:1.3rem;margin:0 0 8px}p{margin:0 0 12px}.card{background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px;margin:0 0 16px}
.card dt{color:#555;font-size:.85rem}.card dd{margin:0 0 8px;word-break:break-all}
label{display:block;font-weight:600;margin:0 0 6px}input[type=password]{font:inherit;width:100%;box-sizing:border-box;min-height:48px;padding:8px;border:1px solid #888;border-radius:8px}
.hint{color:#555;font-size:.9rem;margin:6px 0 16px}fieldset{border:1px solid #ddd;border-radius:8px;background:#fff;margin:0 0 16px;padding:8px 12px}
fieldset label,label.set{font-weight:400;display:flex;gap:8px;align-items:flex-start;padding:8px 0;min-height:32px}label.set span{color:#555}
input[type=radio],input[type=checkbox]{width:22px;height:22px;margin:0;flex:none}
details{background:#fff;border:1px solid #ddd;border-radius:8px;padding:8px 12px;margin:0 0 16px}summary{cursor:pointer;min-height:32px;line-height:32px}
button{font:inherit;font-size:1.05rem;min-height:52px;width:100%;border-radius:10px;border:2px solid #0b5fff;margin-top:10px;cursor:pointer}
button.primary{background:#0b5fff;color:#fff}button.secondary{background:#fff;color:#0b5fff}button:focus-visible,input:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.problem{background:#fce8e6;border:1px solid #b3261e;border-radius:8px;padding:10px;color:#a50e0e}.who{background:#e6f4ea;border:1px solid #137333;border-radius:8px;padding:10px}
small{display:block;margin-top:18px;color:#666}
</style></head><body>
<h1>Connect ${escapeHtml(facts.clientName)} to ${escapeHtml(facts.resourceName)}?</h1>
<p>This assistant asks to work with your company's jobs as you.</p>
<dl class="card"><dt>Assistant</dt><dd id="client">${escapeHtml(facts.clientName)} (${escapeHtml(facts.clientOrigin)})</dd><dt>You will be sent back to</dt><dd id="redirect">${escapeHtml(facts.redirectHost)}</dd></dl>
${facts.problem ? `<p class="problem" role="alert" id="problem">${escapeHtml(facts.problem)}</p>` : ''}
<form method="post" action="/oauth/approve">
<input type="hidden" name="request" value="${escapeHtml(facts.requestId)}">
${proof(facts)}
<fieldset><legend>It may</legend>
<label><input type="radio" name="scope" value="read"${writeChecked ? '' : ' checked'}> Read jobs, notes, photos and estimates</label>
<label><input type="radio" name="scope" value="write"${writeChecked ? ' checked' : ''}${facts.signedIn?.scope === 'read' ? ' disabled' : ''}> Read and change them (add notes, readings, photos; edit estimates)</label>
</fieldset>
${toolsetChoices(facts)}
<button class="primary" type="submit" name="decision" value="approve" id="approve">Approve</button>
<button class="secondary" type="submit" name="decision" value="deny" id="deny" formnovalidate>Deny</button>
</form>
<small>You can end this access at any time: ask your admin to revoke it. Access stops at once when the key you approve with is revoked or rotated.</small>
</body></html>`;
  return { html, nonce };
}
