import type { components } from '../../sdk/src/schema';

export type Problem = components['schemas']['Problem'];
export type ProblemCode = Problem['code'];
export type FieldError = components['schemas']['FieldError'];

const TITLES: Record<ProblemCode, string> = {
  invalid_request: 'Invalid request',
  unauthorized: 'Unauthorized',
  forbidden_host: 'Host not allowed',
  forbidden_origin: 'Origin not allowed',
  insufficient_credits: 'No estimate credits left',
  write_key_required: 'Write key required',
  not_found: 'Not found',
  operation_id_conflict: 'operation_id already used with other details',
  operation_undone: 'Operation undone',
  invalid_state: 'Not possible in the current state',
  lines_rejected: 'No line could be added',
  undo_not_possible: 'Undo not possible',
  confirmation_required: 'Confirmation required',
  payload_too_large: 'Payload too large',
  request_timeout: 'Request timeout',
  uri_too_long: 'URI too long',
  headers_too_large: 'Request header fields too large',
  unsupported_media_type: 'Unsupported media type',
  invalid_file: 'Invalid file',
  image_too_large: 'Image too large',
  document_too_large: 'Document too large',
  document_encrypted: 'Document encrypted',
  document_unreadable: 'Document cannot be read as text',
  feature_unavailable: 'Feature unavailable on this server',
  link_invalid: 'Link not valid',
  link_expired: 'Link expired',
  form_closed: 'Form closed',
  consent_required: 'Consent required',
  invalid_signature: 'Invalid signature',
  signature_too_large: 'Signature too large',
  fields_invalid: 'Fields not valid',
  document_changed: 'Document changed',
  no_customer: 'No customer on the job',
  packet_outdated: 'Packet outdated',
  findings_unconfirmed: 'Findings not confirmed',
  date_in_future: 'Date after today',
  contradictory_values: 'Values contradict each other',
  method_not_allowed: 'Method not allowed',
  unknown_status: 'Unknown status',
  unknown_teammate: 'Unknown teammate',
  ambiguous_teammate: 'Ambiguous teammate',
  unknown_referral_source: 'Unknown referral source',
  unknown_person: 'Unknown person',
  unknown_area: 'Unknown area',
  webhook_not_allowed: 'Webhook target not allowed',
  too_many_webhooks: 'Too many webhook endpoints',
  invalid_program_profile: 'Invalid program profile',
  invalid_form_template: 'Invalid form template',
  rate_limited: 'Too many requests',
  admin_api_disabled: 'Admin API disabled',
  shutting_down: 'Service stopping',
  internal_error: 'Internal error',
};

/**
 * A refusal that a person lifts by choosing (undo going past a change it cannot take back, an
 * estimate made final despite high findings): what they are asked, in words, and the arguments
 * that carry their yes. Never part of the problem sent: the transport decides whether to ask the
 * person itself (MCP's form elicitation) or to answer the problem for the assistant to relay.
 */
export interface HumanChoice {
  question: string;
  /** Things the person confirms one by one (the findings), with the words that name each. */
  items?: { title: string; options: { key: string; title: string }[] };
  /** The arguments that confirm the choice, added to the call as sent. */
  confirm: Record<string, string | string[]>;
}

/** The one error type of the service: every failure becomes a problem object (RFC 9457). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: {
      errors?: FieldError[];
      validValues?: string[];
      findings?: Problem['findings'];
      headers?: Record<string, string>;
      choice?: HumanChoice;
    } = {},
  ) {
    super(detail);
  }

  toProblem(requestId: string): Problem {
    const problem: Problem = {
      type: `https://jms.dev/problems/${this.code}`,
      title: TITLES[this.code],
      status: this.status,
      detail: this.detail,
      code: this.code,
      request_id: requestId,
    };
    if (this.extra.errors) problem.errors = this.extra.errors;
    if (this.extra.validValues) problem.valid_values = this.extra.validValues;
    if (this.extra.findings) problem.findings = this.extra.findings;
    return problem;
  }
}

export const notFound = (what: string): ApiError =>
  new ApiError(404, 'not_found', `No ${what} with that id in this company.`);

export const invalidRequest = (errors: FieldError[]): ApiError =>
  new ApiError(
    400,
    'invalid_request',
    `The request does not match the API: ${describeCount(errors.length)} wrong.`,
    { errors },
  );

/** A 422 naming something the company does not have, with the names that would work. */
export const unknownName = (code: ProblemCode, what: string, given: string, valid: string[]): ApiError =>
  new ApiError(
    422,
    code,
    `No ${what} named "${given}". Valid: ${valid.length ? valid.join(', ') : '(none)'}.`,
    {
      validValues: valid,
    },
  );

function describeCount(count: number): string {
  return count === 1 ? '1 field is' : `${count} fields are`;
}
