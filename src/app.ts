/**
 * The Express application. Every request: request id and log line, then for /api/v1 and /mcp
 * the API key and the key's rate limit, then validation against the spec, then the handler.
 */
import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import spec from './generated/openapi.json';
import { newId } from './platform/ids';
import { requireAdminToken, requireApiKey } from './platform/auth';
import { rateLimitPerKey } from './platform/rate-limit';
import { addAdminRoutes, addToolRoutes } from './platform/routes';
import { mcpEndpoint } from './platform/mcp';
import { problemMiddleware } from './platform/http-errors';
import { ApiError } from './platform/errors';
import type { Deps } from './platform/pipeline';

const JSON_LIMIT = '1mb';
const REQUEST_ID = /^[\w.-]{1,64}$/;

export function createApp(deps: Deps & { logger: Logger }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger: deps.logger,
      // One short line a request: who asked what, the answer and its time (no headers, no bodies).
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : newId('req');
        res.setHeader('X-Request-Id', id);
        return id;
      },
    }),
  );

  app.get('/healthz', async (_req, res) => {
    await deps.db.raw('select 1');
    res.json({ status: 'ok' });
  });
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(spec);
  });

  const json = express.json({ limit: JSON_LIMIT });
  const keyed = [requireApiKey(deps.db), rateLimitPerKey(deps.config.rateLimit)];
  // The key and its rate limit come before the body is read: a request without a valid key is a
  // 401 whatever its body, and every answer to a key (a 413 or bad JSON too) counts and carries
  // the RateLimit headers.
  app.use('/api/v1', ...keyed, json);
  app.use('/admin/v1', requireAdminToken(deps.config.adminToken), json);
  app.post('/mcp', ...keyed, json, mcpEndpoint(deps));
  app.all('/mcp', () => {
    throw new ApiError(405, 'method_not_allowed', 'This MCP endpoint is stateless: send JSON-RPC messages with POST.', { headers: { Allow: 'POST' } });
  });

  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(spec) as unknown as OpenAPIV3.DocumentV3_1,
      validateRequests: { allowUnknownQueryParameters: false, removeAdditional: false, allErrors: true },
      validateResponses: deps.config.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      ignoreUndocumented: false,
    }),
  );
  const tools = express.Router();
  addToolRoutes(tools, deps);
  addAdminRoutes(tools, deps);
  app.use(tools);

  app.use(problemMiddleware());
  return app;
}
