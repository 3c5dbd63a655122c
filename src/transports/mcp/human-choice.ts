/**
 * A tool call that stops for a person's choice (undo going past a change it cannot take back, an
 * estimate made final despite high readiness findings), asked of the person by the client, in
 * the 2026-07-28 revision's way: a multi round-trip request (MRTR). The call answers
 * `resultType: "input_required"` with a form elicitation that says exactly what is chosen, and a
 * `requestState` sealed with the SDK's codec; the client shows the form and calls again with the
 * person's answer and the state. A yes runs the same call again, through the same pipeline, with
 * the confirming arguments the state carries (the ones the person was shown); a no, or a cancel,
 * answers the problem the first call met. Nothing is written before the yes.
 *
 * Only a 2026-07-28 request whose client declares form elicitation gets this: a 2025 client has
 * no way to be asked (stateless HTTP carries no request from server to client), and a client
 * without the capability could not show the form; both get the 409 problem to relay, as before.
 * On this flow the confirming arguments an assistant sends are set aside: the yes comes from the
 * person's form, never from the arguments alone.
 *
 * tools/call is answered by the server's fallback handler (server.ts says why), which the SDK's
 * multi round-trip seam does not wrap: its `requestState.verify` hook and its capability gate
 * (-32021) do not run there. So the state is verified here, answering as that hook answers, and
 * the form is offered only when the request's envelope declares form elicitation.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ApiError, type HumanChoice, type Problem } from '../../platform/errors';
import { fingerprint } from '../../platform/idempotency';
import type { LinkSigner } from '../../platform/links';
import type { Caller } from '../../platform/caller';
import { MODERN_REVISION } from './revisions';

/** The tools whose refusal a person can lift, and the arguments that carry the person's yes. */
const CONFIRMING_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  undo_my_last_action: ['confirm_skip'],
  export_pdf: ['confirm_findings'],
};

/** The one input request of a choice, and the form's fields. */
const CHOICE = 'choice';
const CONFIRM_FIELD = 'confirm';
const ITEMS_FIELD = 'items';

/** Long enough for a person to read the form and decide; a later answer asks again. */
const STATE_TTL_SECONDS = 15 * 60;

/** What the state carries between the rounds: the confirming arguments shown, and the problem met. */
interface ChoiceState {
  confirm: HumanChoice['confirm'];
  items: string[];
  problem: Pick<Problem, 'status' | 'code' | 'detail' | 'errors' | 'findings'>;
}

/** Runs the call with these arguments; `asSent` is what its operation_id is kept under. */
export type RunCall = (args: unknown, asSent: unknown) => Promise<CallToolResult>;

/** Whether this call is one a person can be asked about on this request. */
export function asksPerson(tool: string, ctx: ServerContext): boolean {
  if (!(tool in CONFIRMING_ARGUMENTS)) return false;
  // The SDK types the envelope's reserved keys as hidden; they are checked by then (2026 era).
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (envelope?.[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION) return false;
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const elicitation = capabilities?.elicitation as { form?: object; url?: object } | undefined;
  // An empty declaration means form mode (the revision keeps the older meaning).
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/**
 * Answers a call of a tool `asksPerson` named: with the person's yes (a verified state and an
 * accepted form), the call with the confirmation; with their no, the problem; else the call as
 * sent, turning a refusal a person can lift into the question. A state that fails its check
 * (altered, expired, another key's, another call's) is refused as the SDK refuses one: -32602.
 */
export async function answerWithChoice(
  links: LinkSigner,
  caller: Caller,
  tool: string,
  sent: unknown,
  ctx: ServerContext,
  run: RunCall,
): Promise<CallToolResult | InputRequiredResult> {
  const asked = withoutConfirmation(tool, sent);
  const codec = createRequestStateCodec<ChoiceState>({
    key: await links.derivedKey('mcp requestState'),
    ttlSeconds: STATE_TTL_SECONDS,
    bind: () => `${caller.keyId}\n${fingerprint(tool, asked)}`,
  });
  const state = await verifiedState(codec, ctx);
  try {
    if (state) {
      const answer = personsAnswer(ctx, state);
      if (answer === 'no') throw problemOf(state);
      if (answer === 'yes') return await run({ ...(asked as object), ...state.confirm }, asked);
    }
    return await run(asked, asked);
  } catch (error) {
    const choice = error instanceof ApiError && error.status === 409 ? error.extra.choice : undefined;
    if (!choice) throw error;
    return question(choice, await codec.mint(stateOf(error as ApiError, choice), ctx));
  }
}

/** The arguments as sent, without those that would confirm on the person's behalf. */
function withoutConfirmation(tool: string, sent: unknown): unknown {
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return sent;
  const kept = { ...(sent as Record<string, unknown>) };
  for (const name of CONFIRMING_ARGUMENTS[tool] ?? []) delete kept[name];
  return kept;
}

async function verifiedState(
  codec: RequestStateCodec<ChoiceState>,
  ctx: ServerContext,
): Promise<ChoiceState | undefined> {
  const raw = ctx.mcpReq.requestState();
  if (raw === undefined) return undefined;
  try {
    if (typeof raw !== 'string') throw new Error('malformed');
    return await codec.verify(raw, ctx);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
      reason: 'invalid_request_state',
    });
  }
}

/**
 * The person's answer: yes only when they accepted the form, ticked the box and (for findings)
 * every item shown; no when they declined, cancelled or accepted without all of that; none when
 * the retry carries no answer (the call as sent then asks again).
 */
function personsAnswer(ctx: ServerContext, state: ChoiceState): 'yes' | 'no' | 'none' {
  const view = inputResponse(ctx.mcpReq.inputResponses, CHOICE);
  if (view.kind !== 'elicit') return 'none';
  if (view.action !== 'accept') return 'no';
  const content = view.content ?? {};
  const ticked = Array.isArray(content[ITEMS_FIELD]) ? (content[ITEMS_FIELD] as unknown[]) : [];
  const everyItem = state.items.every((key) => ticked.includes(key));
  return content[CONFIRM_FIELD] === true && everyItem ? 'yes' : 'no';
}

function stateOf(error: ApiError, choice: HumanChoice): ChoiceState {
  const { status, code, detail, errors, findings } = error.toProblem('');
  return {
    confirm: choice.confirm,
    items: choice.items?.options.map((option) => option.key) ?? [],
    problem: { status, code, detail, errors, findings },
  };
}

function problemOf({ problem }: ChoiceState): ApiError {
  return new ApiError(problem.status, problem.code, problem.detail ?? '', {
    errors: problem.errors,
    findings: problem.findings,
  });
}

/** The form: the question in words, each item to confirm by name, and the box that says yes. */
function question(choice: HumanChoice, requestState: string): InputRequiredResult {
  const items = choice.items && {
    [ITEMS_FIELD]: {
      type: 'array' as const,
      title: choice.items.title,
      description: 'Tick each one to confirm it.',
      items: { anyOf: choice.items.options.map(({ key, title }) => ({ const: key, title })) },
      default: [],
    },
  };
  return inputRequired({
    inputRequests: {
      [CHOICE]: inputRequired.elicit({
        mode: 'form',
        message: choice.question,
        requestedSchema: {
          type: 'object',
          properties: {
            ...items,
            [CONFIRM_FIELD]: {
              type: 'boolean',
              title: 'Yes, go ahead',
              description: 'Leave it unticked, or decline, and nothing is done.',
              default: false,
            },
          },
          required: [CONFIRM_FIELD],
        },
      }),
    },
    requestState,
  });
}
