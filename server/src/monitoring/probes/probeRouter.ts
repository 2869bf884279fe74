import { Router } from 'express';
import { BASE_ROUTES, type LivenessReport, type ReadinessReport } from '../../contracts/index.js';
import type { MonitoringStore } from '../../storage/MonitoringStore.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringEngine } from '../MonitoringContext.js';

/** A storage read that takes longer than this counts as unreachable (a probe must answer before its own timeout). */
export const READINESS_STORE_TIMEOUT_MS = 2_000;

/** Whether a stop has begun: readiness turns off first, before anything else of the stop. */
export interface DrainState {
  draining: boolean;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
}

/** Readiness: storage reachable, every migration applied, not draining, engine (when local) not failed. */
export async function readiness(store: MonitoringStore, drain: DrainState, engine: MonitoringEngine | undefined): Promise<ReadinessReport> {
  let storage: ReadinessReport['storage'] = 'reachable';
  let migrations: ReadinessReport['migrations'] = 'unknown';
  try {
    const schema = await withTimeout(store.schemaState(), READINESS_STORE_TIMEOUT_MS);
    migrations = schema.applied >= schema.latest ? 'applied' : 'pending';
  } catch {
    storage = 'unreachable';
  }
  const engineStatus = engine?.health?.().status;
  const ready = storage === 'reachable' && migrations === 'applied' && !drain.draining && engineStatus !== 'failed';
  const report: ReadinessReport = { status: ready ? 'ready' : 'unavailable', storage, migrations, draining: drain.draining };
  if (engineStatus !== undefined) report.engine = engineStatus;
  return report;
}

/**
 * GET /svc-monitoring/health/live and /health/ready: no token and mounted before the IP
 * allow-list (kubelets and load balancers probe from node addresses). The bodies name no file,
 * host or error text.
 */
export function probeRouter(store: MonitoringStore, drain: DrainState, engine: MonitoringEngine | undefined): Router {
  const router = Router();
  router.get(BASE_ROUTES['health.live'].path, (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, { status: 'alive' } satisfies LivenessReport);
  });
  router.get(BASE_ROUTES['health.ready'].path, async (_req, res) => {
    const report = await readiness(store, drain, engine);
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, report.status === 'ready' ? 200 : 503, report);
  });
  return router;
}
