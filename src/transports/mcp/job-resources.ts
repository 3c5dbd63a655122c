/**
 * A job and its drying log as MCP resources (`jms://jobs/{job}`, `jms://jobs/{job}/drying-log`):
 * read through get_job and get_drying_log in the same pipeline as the tools (scope, company,
 * an assistant's approved toolsets), answering the same JSON. A job is named as tools name it,
 * by id or number; the answer's URI is the canonical one, by id. A job that is not there and a
 * job of another company are the same miss.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
} from '@modelcontextprotocol/server';
import type { Deps } from '../../domain/services';
import type { Caller } from '../../platform/caller';
import type { ToolInput, ToolName } from '../../platform/handler';
import { checkToolArguments } from '../../platform/validation';
import { mcpTools } from '../../generated/mcp-tools';
import { errorsBeside } from '../../tools';
import { toApiError } from '../shared/problems';
import type { ResourceScheme } from './resource-scheme';
import { offeredTo, withinGrant, type ToolSelection } from './toolsets';

const PREFIX = 'jms://jobs/';
const JSON_TYPE = 'application/json';
const LIST_PAGE = 50;

type Part = 'job' | 'drying-log';
const TOOL_OF: Record<Part, ToolName> = { job: 'get_job', 'drying-log': 'get_drying_log' };

interface JobUri {
  ref: string;
  part: Part;
}

/** The canonical URIs of a job, by id: what reads answer and what subscription streams are told of. */
export function jobUris(jobId: string): string[] {
  return [`${PREFIX}${jobId}`, `${PREFIX}${jobId}/drying-log`];
}

function parseJobUri(uri: string): JobUri | null {
  if (!uri.startsWith(PREFIX)) return null;
  const match = /^([^/?#]+)(\/drying-log)?$/.exec(uri.slice(PREFIX.length));
  if (!match) return null;
  try {
    return { ref: decodeURIComponent(match[1]), part: match[2] ? 'drying-log' : 'job' };
  } catch {
    return null;
  }
}

/** Every toolset, narrowed to what an assistant's grant approved: resources follow the grant, not the client's choice of tools. */
const EVERY_TOOLSET: ToolSelection = { toolsets: null, readOnly: false, describe: () => '' };
const definitionOf = new Map(mcpTools.map((def) => [def.name, def]));

/** Refuses a resource whose read tool is outside the toolsets an assistant's grant approved. */
function checkGranted(caller: Caller, name: ToolName): void {
  const def = definitionOf.get(name);
  if (!def || !offeredTo(def, caller, withinGrant(EVERY_TOOLSET, caller)))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `${name} is not among the toolsets approved for this assistant, so its resources are not either.`,
    );
}

/** Runs a read tool for the caller as MCP's tools/call would; its answer's body. */
async function runRead(deps: Deps, caller: Caller, name: ToolName, args: Record<string, unknown>) {
  checkGranted(caller, name);
  const input = checkToolArguments(name, args, errorsBeside[name]);
  const answer = await deps.pipeline.call(name, caller).run(input as ToolInput<ToolName>);
  return answer.body as Record<string, unknown>;
}

/** A miss (no such job, another company's, no log yet, a reference that names nothing) or the problem as a protocol error. */
function protocolErrorOf(error: unknown, uri: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const problem = toApiError(error);
  if (problem.status === 404 || problem.status === 400) return new ResourceNotFoundError(uri);
  if (problem.status < 500)
    return new ProtocolError(ProtocolErrorCode.InvalidRequest, problem.detail, {
      code: problem.code,
    });
  return new ProtocolError(ProtocolErrorCode.InternalError, 'Something went wrong on our side.');
}

async function readJobResource(deps: Deps, caller: Caller, uri: string): Promise<ReadResourceResult> {
  const parsed = parseJobUri(uri);
  if (!parsed) throw new ResourceNotFoundError(uri);
  try {
    const job = await runRead(deps, caller, 'get_job', { job_id: parsed.ref });
    const jobId = String(job.id);
    const body =
      parsed.part === 'job' ? job : await runRead(deps, caller, TOOL_OF[parsed.part], { job_id: jobId });
    const canonical = parsed.part === 'job' ? `${PREFIX}${jobId}` : `${PREFIX}${jobId}/drying-log`;
    return { contents: [{ uri: canonical, mimeType: JSON_TYPE, text: JSON.stringify(body) }] };
  } catch (error) {
    throw protocolErrorOf(error, uri);
  }
}

const TEMPLATES: ResourceTemplateType[] = [
  {
    uriTemplate: `${PREFIX}{job}`,
    name: 'job',
    title: 'Job',
    description:
      "A job as get_job answers it (customer, loss, claim, people, recent notes, estimates). {job} is the job's id (job_…) or number (16); the answer's URI names it by id, which subscriptions/listen takes.",
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: `${PREFIX}{job}/drying-log`,
    name: 'drying-log',
    title: 'Drying log',
    description:
      "A job's drying log as get_drying_log answers it (areas, days, psychrometrics, dry status, equipment). {job} as for the job.",
    mimeType: JSON_TYPE,
  },
];

/** The company's jobs, newest first, by find_jobs' pages: a picker's first page holds the jobs being worked on. */
async function listJobResources(
  deps: Deps,
  caller: Caller,
  cursor: string | undefined,
): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const page = (await runRead(deps, caller, 'find_jobs', {
    limit: LIST_PAGE,
    ...(cursor ? { cursor } : {}),
  })) as {
    data: { id: string; job_number: number; title: string; customer_name: string; status: string }[];
    next_cursor: string | null;
  };
  const resources = page.data.map((job) => ({
    uri: `${PREFIX}${job.id}`,
    name: `job-${job.job_number}`,
    title: `#${job.job_number} ${job.title}`,
    description: `${job.customer_name}, ${job.status}`,
    mimeType: JSON_TYPE,
  }));
  return { resources, ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}) };
}

/**
 * A subscription may name a job of the caller's company, or its drying log (which may not have
 * started yet), by id: notifications name jobs by id, so a number would never be told of.
 */
async function checkJobSubscription(deps: Deps, caller: Caller, uri: string): Promise<void> {
  const parsed = parseJobUri(uri);
  if (!parsed?.ref.startsWith('job_'))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Cannot subscribe to ${uri}: name a job by its id (jms://jobs/job_…, as resources/read answers).`,
      { uri },
    );
  // A drying log may not have started: the job must be there, and the log's tool approved.
  checkGranted(caller, TOOL_OF[parsed.part]);
  try {
    await runRead(deps, caller, 'get_job', { job_id: parsed.ref });
  } catch (error) {
    const problem = protocolErrorOf(error, uri);
    throw problem instanceof ResourceNotFoundError
      ? new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Cannot subscribe to ${uri}: resource not found.`,
          {
            uri,
          },
        )
      : problem;
  }
}

export const jobResources: ResourceScheme = {
  name: 'jobs',
  owns: (uri) => uri.startsWith(PREFIX),
  templates: TEMPLATES,
  list: listJobResources,
  read: readJobResource,
  checkSubscription: checkJobSubscription,
};
