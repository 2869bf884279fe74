import { Router } from 'express';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { sendJson } from '../http/sendJson.js';
import { REFERENCE_CSP } from '../ui/contentSecurityPolicy.js';
import { buildOpenApiDocument } from './openApiDocument.js';

export const OPENAPI_PATH = '/svc-monitoring/openapi/svc-monitoring.json';

/**
 * The Scalar reference's standalone bundle (nothing from a CDN): the copy this package ships in
 * vendor/ (made when it is packed), else, in a checkout of the repository, the one of the
 * installed @scalar/api-reference (a development dependency).
 */
function standaloneBundle(): string {
  const shipped = fileURLToPath(new URL('../../../vendor/scalar-standalone.js', import.meta.url));
  if (existsSync(shipped)) return shipped;
  try {
    return createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
  } catch {
    throw new Error(`enableScalar: the API reference's bundle is missing (${shipped}); reinstall svc-monitor-server`);
  }
}

/**
 * Scalar's own HTML integration: the bundle mounts on #api-reference with the document URL and
 * configuration from its attributes, so the page needs no inline script. Turned off: the default
 * fonts and the agent (both fetched from Scalar's servers) and telemetry.
 */
const SCALAR_CONFIGURATION = { withDefaultFonts: false, telemetry: false, agent: { disabled: true } };

const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Svc Monitor API</title>
</head>
<body>
<div id="api-reference" data-url="${OPENAPI_PATH}" data-configuration="${JSON.stringify(SCALAR_CONFIGURATION).replaceAll('"', '&quot;')}"></div>
<script src="/svc-monitoring/scalar/standalone.js"></script>
</body>
</html>`;

/** The OpenAPI 3.1 document (API group "svc-monitoring") and the Scalar reference page. */
export function openApiRouter(enableScalar: boolean): Router {
  const router = Router();
  const document = buildOpenApiDocument();
  router.get('/openapi/svc-monitoring.json', (_req, res) => sendJson(res, 200, document));
  if (enableScalar) {
    const bundle = standaloneBundle();
    router.get('/scalar', (_req, res) => {
      res.setHeader('Content-Security-Policy', REFERENCE_CSP);
      res.setHeader('Cache-Control', 'no-cache');
      res.type('html').send(REFERENCE_PAGE);
    });
    router.get('/scalar/standalone.js', (_req, res, next) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(bundle, { headers: { 'Content-Type': 'text/javascript; charset=utf-8' } }, (err) => {
        if (err && !res.headersSent) next(err);
      });
    });
  }
  return router;
}
