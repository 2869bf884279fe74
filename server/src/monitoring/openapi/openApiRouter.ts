import { apiReference } from '@scalar/express-api-reference';
import { Router } from 'express';
import { sendJson } from '../http/sendJson.js';
import { buildOpenApiDocument } from './openApiDocument.js';

export const OPENAPI_PATH = '/svc-monitoring/openapi/svc-monitoring.json';

/** §1: the OpenAPI 3.1 document (API group "svc-monitoring") and the Scalar reference page. */
export function openApiRouter(enableScalar: boolean): Router {
  const router = Router();
  const document = buildOpenApiDocument();
  router.get('/openapi/svc-monitoring.json', (_req, res) => sendJson(res, 200, document));
  if (enableScalar) {
    router.get('/scalar', apiReference({ url: OPENAPI_PATH, pageTitle: 'Svc Monitor API' }) as unknown as Router);
  }
  return router;
}
