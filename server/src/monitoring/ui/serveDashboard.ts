import express, { Router, type Response } from 'express';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's built dashboard (its `web` folder, built by the repository's `npm run build`), from src/ or dist/. */
export function defaultWebRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'web');
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Svc Monitor</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem">
<h1>Svc Monitor</h1>
<p>The dashboard is not built: this installation has no dashboard files (the package's <code>web</code> folder, or the host's <code>webRoot</code> option). In the svc-monitor repository, <code>npm run build</code> at its root builds them; the published package includes them.</p>
<p>The monitoring API is available under <a href="/svc-monitoring/api/config">/svc-monitoring/api</a>.</p>
</body></html>`;

/** A path whose last segment has a file extension (`/x/here.json`): never a dashboard route. */
const FILE_LIKE = /\.[A-Za-z0-9]{1,10}$/;

/**
 * The embedded dashboard at /svc-monitoring: hashed assets with a year of immutable cache,
 * index.html no-cache, app fallback for every other route-like GET that is not API, hub or
 * OpenAPI; an unknown file-like path falls through to the 404 problem.
 */
export function dashboardRouter(webRoot: string): Router {
  const router = Router();
  const index = join(webRoot, 'index.html');
  router.use(
    '/assets',
    express.static(join(webRoot, 'assets'), {
      index: false,
      fallthrough: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => res.setHeader('Cache-Control', 'public, max-age=31536000, immutable'),
    }),
  );
  router.use(
    express.static(webRoot, {
      index: false,
      setHeaders: (res, path) => {
        if (path.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  const sendIndex = (res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    if (!existsSync(index)) {
      res.status(200).type('html').send(NOT_BUILT_PAGE);
      return;
    }
    res.sendFile(index, (err) => {
      if (err && !res.headersSent) res.status(200).type('html').send(NOT_BUILT_PAGE);
    });
  };
  router.get(/.*/, (req, res, next) => {
    const p = req.path;
    if (p.startsWith('/api') || p.startsWith('/hub') || p.startsWith('/openapi') || p.startsWith('/scalar')) return next();
    if (FILE_LIKE.test(p)) return next();
    sendIndex(res);
  });
  return router;
}
