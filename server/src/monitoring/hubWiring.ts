import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import type { MonitoringEngine } from './MonitoringContext.js';

/** The hub helper's interface (server/src/hub/createHub.ts). */
export type HubAccess = (
  req: IncomingMessage,
  accessToken: string | undefined,
) => { ok: true; expiresAtMs?: number } | { ok: false; status: 401 | 403; message: string };

export interface HubLike {
  router: RequestHandler;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): unknown;
}

export interface HubFactoryOptions {
  path: string;
  access: HubAccess;
  events: MonitoringEngine;
  includeExecutionLogs: boolean;
}

type CreateHub = (options: HubFactoryOptions) => HubLike;

/** Loads the hub module lazily so that the monitoring works in builds without it. */
export async function loadCreateHub(): Promise<CreateHub | undefined> {
  const specifier = './../hub/createHub.js';
  try {
    const mod = (await import(specifier)) as { createHub?: CreateHub };
    return typeof mod.createHub === 'function' ? mod.createHub : undefined;
  } catch {
    return undefined;
  }
}
