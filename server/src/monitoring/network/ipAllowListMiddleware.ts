import type { RequestHandler } from 'express';
import { sendProblem } from '../http/problem.js';
import type { ClientAddressResolver } from './clientAddress.js';
import type { IpAllowList } from './IpAllowList.js';

/**
 * Before any authentication: 400 when a trusted proxy forwarded an unreadable client address,
 * 403 problem for a client outside the allow-list.
 */
export function ipAllowListMiddleware(list: IpAllowList, clients: ClientAddressResolver): RequestHandler {
  return (req, res, next) => {
    const client = clients.resolve(req);
    if (!client.ok) return sendProblem(res, 400, client.detail);
    if (list.allows(client.address)) return next();
    sendProblem(res, 403, 'The client address is not in the allowed IP addresses.');
  };
}
