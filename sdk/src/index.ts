/**
 * The Job Management Service SDK: a typed client for every tool of the HTTP API. The types in
 * ./schema are generated from the service's OpenAPI document; openapi-fetch does the requests.
 *
 *   const jobs = createJobsClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.JMS_KEY! });
 *   const { data, error } = await jobs.GET('/api/v1/jobs', { params: { query: { q: 'alvarez' } } });
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

/** Every error of the API: an RFC 9457 problem with a stable `code`. */
export type Problem = components['schemas']['Problem'];

export type JobsClient = Client<paths>;

export interface ClientSettings {
  /** The service's root, e.g. `http://127.0.0.1:3000` (paths already start with /api/v1). */
  baseUrl: string;
  /** A custom fetch, e.g. for retries or tests. */
  fetch?: ClientOptions['fetch'];
}

function client(settings: ClientSettings, token: string): JobsClient {
  return createClient<paths>({
    baseUrl: settings.baseUrl.replace(/\/+$/, ''),
    fetch: settings.fetch,
    headers: { Authorization: `Bearer ${token}` },
  });
}

/** A client acting with an API key (`jms_…`), as the person who owns it. */
export function createJobsClient(settings: ClientSettings & { apiKey: string }): JobsClient {
  return client(settings, settings.apiKey);
}

/** A client of the admin API (`/admin/v1`), with the service's ADMIN_TOKEN. */
export function createAdminClient(settings: ClientSettings & { adminToken: string }): JobsClient {
  return client(settings, settings.adminToken);
}
